// Package security collects luahook's security and abuse checks in one place:
// the Lua sandbox's escape attempts, resource bombs, secrets in the
// environment of command hooks, the URL admission of HTTP hooks, the
// command allowlist, the permissions and links of the hooks folder, payloads
// too large or too deep for any entry point, and `luahook serve` under
// abusive clients.
//
// Each check goes through the exported API a host uses (engine.Open, the
// runner, server.Handler, server.Limits, transports), on real files, real
// subprocesses and real loopback HTTP servers. The full tables of each rule
// live next to the code that enforces it; the cases here are the compact,
// end-to-end version. The package has no code of its own.
package security
