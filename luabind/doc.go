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
// A call is prepared, then run (luahook.Preparer): Prepare, under the
// caller's context and before the hook's deadline starts, takes an idle state
// (or builds one, up to Options.MaxStates, checking that the file registers
// exactly what it registered at load; or waits, at most the hook's timeout,
// for the longest-waiting caller to be served first) and converts the
// payload into a table; Run sets the hook's context on the VM, calls the
// function with (input, rt), converts the result, and puts the state back.
// Call is Prepare then Run, waiting on its context only. The payload's tables are new to the call unless the function
// provably keeps no reference to them (leavesInput reads its bytecode when it
// is registered): then they are the previous call's tables, emptied and
// refilled, and the call allocates nothing. A state whose call timed out, was cancelled or raised an
// error is closed, never reused. Failures are *luahook.Failure values:
// FailTimeout, FailAborted, FailError ("file.lua:LINE: message"),
// FailInvalidOutput (a result that is not nil or a valid outcome table: an
// object, so not an array, nor a table with other keys than strings or a
// metatable of its own), FailRejected (a nil input, a payload over
// Options.MaxInputValues or with a key twice in one
// object, or a wait for a state that ran out: an overload). A closed (retired) file still serves the calls
// that reach it, on states it closes as they return.
//
// # The Lua side
//
//	hook.register(event, matcher, fn[, opts]) -> id   (only while the file loads)
//	hook.allow(), hook.deny(reason), hook.mutate(input[, reason]), hook.context(text[, "separate"])
//	hook.ask(reason)                                   (PreToolUse: let the user decide)
//	hook.continue(reason)                              (Stop: keep going, reason the next instruction)
//	hook.events                                        (list and set of event names)
//	rt.deadline_ms, rt.remaining_ms(), rt.cancelled(), rt.session_id, rt.cwd, rt.name, rt.event
//	json, log, re, store, env, memo, session, fs modules; require(name) from Options.LibDir; print goes to the log
//
// hook.allow() approves explicitly, and several agents then skip their own
// permission prompt: return nil for no objection. ask is for PreToolUse and
// continue for Stop only; returned on another event, either is
// FailInvalidOutput naming the actions the event accepts.
//
// The input table is shaped exactly like the JSON payload (input.agent and
// input.native, the agent's own payload, when an agent sent it; native, a
// second copy of most of the payload, is converted only for the hooks that
// may read it: codec.MayReadField reads the hook's bytecode when it is
// registered, and any use of input but a read of another constant field —
// a computed key, pairs(input), passing input on — counts). JSON objects and
// arrays become tables marked as such (json.object, json.array), null becomes
// json.null, numbers are float64 (integers exact up to 2^53; a number past
// float64's range is refused). Encoding keeps the order in which keys were
// first set. A mutate's input is encoded alongside the payload's toolInput
// text, path by path: a number, string or key whose Lua value is what the
// original text at the same path decodes to (bit for bit: -0 is not 0) is
// written as that text, so that what the hook did not change leaves as it
// came (9007199254740993, 0.1000000000000000055, 1E+2, "\u00e9") and a
// toolInput returned unchanged comes back byte for byte as its compact text;
// what the hook changed is formatted as encoding/json formats it, and so is
// everything json.encode writes.
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
// The fs module gives every file read-only facts about the project folder,
// the payload's cwd, without io (fs.exists, fs.stat, fs.read, fs.glob):
// paths resolve inside that folder through an os.Root, so that '..', an
// absolute path elsewhere and a symbolic link out of it (or absolute) are
// refused; fs.read reads regular files only, opened without blocking, at
// most 1 MiB each and 4 MiB per call; each operation runs off the Lua
// goroutine, waited for under the call's context (modules.OpenFS).
//
// Once a file has loaded, its globals are read-only: assigning a global inside
// a hook call is an error (rawset on _G too), so that calls cannot leave state
// behind in a pooled state; the store module is the way to keep state.
// A lib module first required inside a hook call cannot define globals
// either. The module tables (string, table, math, os, json, hook and
// hook.events, log, re, store, env, fs) are read-only from the file's top level
// on, so that no call can change what a later call sees (a guard's re.match,
// say): writing a field is an error naming the module, and rawset and
// table.insert/remove/sort refuse them; pairs, ipairs, next, #, unpack and
// table.concat read them as usual. Tables returned by require'd lib modules
// are the file's own, and stay writable.
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
//
// Builders check the size they are about to allocate before allocating it:
// string.format accepts Lua 5.1's conversions only (no %[n], %v or *) and
// checks an upper bound of its result; gsub and re.gsub check each
// replacement's size, computed from the template and the captures, before
// building it; os.date takes a format of at most 256 bytes. print checks the
// log level before converting anything, and a log record is bounded (message
// 32 KiB, 64 fields of at most 8 KiB, 64 KiB in all; what is cut says so).
// Long Go-side work watches the context: table.sort (Lua 5.1's quicksort)
// counts comparisons and the bytes they compare, the pattern matcher counts
// the bytes of bracket classes and back-references it walks, and a re search
// whose worst case (program size times text length) is over 2^20 reads the
// text through a reader that checks the context; re patterns are at most
// 16 KiB.
//
// This package is the file runtime: compiling, states and their pools, the
// hook module and rt, the call path, the sandbox, require and Session. The
// other modules (json, log, re, store, env, fs, the capped string library,
// table.concat and table.sort, os.date, the read-only module tables) are in
// internal/modules, the JSON<->Lua codec in internal/codec, and the port of
// Lua 5.1's pattern matcher in internal/lpattern.
package luabind
