// Package transports runs configured command hooks and HTTP hooks.
//
// A [Command] spawns a program without a shell, feeds it the payload on stdin
// and reads its answer from the exit code, stdout and stderr. An [HTTP] hook
// POSTs the payload to an endpoint and reads the answer from the response
// body. Both are [luahook.Hook] values that return promptly once their context
// is done ([luahook.ContextBound]), and both report failures as
// *[luahook.Failure] values whose messages name the command or URL.
package transports
