// Package luabind runs hook files written in Lua (gopher-lua) as luahook.Hooks.
//
// A file is compiled once (Compile) and loaded once (Load): its top level runs
// in a fresh sandboxed state under a load timeout, and its hook.register calls
// become Registrations whose Hooks run on a bounded pool of states built from
// the same compiled chunk. Loading is all or nothing; errors are *LoadError
// values naming the file and the line.
//
//	c, err := luabind.Compile("hooks.d/10-bash.lua", src)
//	f, err := luabind.Load(ctx, c, luabind.Options{LibDir: "hooks.d/lib"})
//	for _, r := range f.Registrations() { /* r.Event, r.Matcher, r.Hook ... */ }
//	defer f.Close()
//
// # Calls
//
// A call takes an idle state (or builds one, up to Options.MaxStates, checking
// that the file registers exactly what it registered at load; or waits on the
// context), sets the context on the VM, converts the payload into a table,
// calls the function with (input, rt), converts the result, and puts the
// state back. The payload's tables are new to the call unless the function
// provably keeps no reference to them (leavesInput reads its bytecode when it
// is registered): then they are the previous call's tables, emptied and
// refilled, and the call allocates nothing. A state whose call timed out, was cancelled or raised an
// error is closed, never reused. Failures are *luahook.Failure values:
// FailTimeout, FailAborted, FailError ("file.lua:LINE: message"),
// FailInvalidOutput (a result that is not nil or a valid outcome table),
// FailRejected (a nil input). A closed (retired) file still serves the calls
// that reach it, on states it closes as they return.
//
// # The Lua side
//
//	hook.register(event, matcher, fn[, opts]) -> id   (only while the file loads)
//	hook.allow(), hook.deny(reason), hook.mutate(input[, reason]), hook.context(text[, "separate"])
//	hook.events                                        (list and set of event names)
//	rt.deadline_ms, rt.remaining_ms(), rt.cancelled(), rt.session_id, rt.cwd, rt.name, rt.event
//	json, log, re, store, env modules; require(name) from Options.LibDir; print goes to the log
//
// The input table is shaped exactly like the JSON payload. JSON objects and
// arrays become tables marked as such (json.object, json.array), null becomes
// json.null, numbers are float64 (integers exact up to 2^53). Encoding keeps
// the order in which keys were first set, so a toolInput returned unchanged
// comes back byte for byte as its compact JSON.
//
// # The sandbox
//
// States open base, table, string, math and os.time/clock/date/difftime
// only. dofile, loadfile, load, loadstring, getfenv, setfenv, collectgarbage,
// newproxy, module, _printregs, string.dump, io, debug, package, coroutine and
// channel are withheld, and reaching for one is an error saying so. Options
// can grant the full os and io libraries to trusted files. setmetatable works
// on tables only; the string metatable and the JSON marks are hidden (the
// marks read as "json.object" and "json.array" through getmetatable) and
// cannot be replaced, and fields written into the string library are not
// string metamethods.
//
// Once a file has loaded, its globals are read-only: assigning a global inside
// a hook call is an error (rawset on _G too), so that calls cannot leave state
// behind in a pooled state; the store module is the way to keep state.
// pairs(_G) then sees nothing. A lib module first required inside a hook call
// cannot define globals either. Module tables (string, json, ...) stay
// writable and belong to one state: changing them inside a call is not
// isolated.
//
// Limits: every string a Go function builds (string.rep, string.format,
// string.gsub, table.concat, json.encode, re.gsub, ...) and every result of
// the '..' operator (which Compile turns into a call of a Go function) is
// capped at Options.MaxStringBytes before it is allocated; Lua calls nest at
// most 200 deep; the value stack holds at most 2^18 slots; Lua patterns run
// on an interruptible port of Lua 5.1's matcher; re calls collect at most
// 65536 matches. A source (hook file, lib module) holds at most
// Options.MaxSourceBytes and nests at most 200 levels, both checked before
// gopher-lua parses or compiles it.
// The package sets gopher-lua's process-wide lua.MaxArrayIndex to 2^20 (see
// sandbox.go for why and what it changes).
package luabind
