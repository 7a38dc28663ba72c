// Package host is how a Go program that embeds luahook gives its policies
// functions and values of its own: the current branch, the user's role, a
// feature flag, a quota service. A Module is a named set of Go values; the
// engine (engine.Options.Host) makes each one a Lua module that hook files
// load with require("host.NAME"). The bridge is gopher-luar
// (layeh.com/gopher-luar) behind a guard: a policy sees only what the host
// put in a Module, and cannot use it to reach, change or crash anything
// else.
//
// What a member may be, and what Lua sees:
//
//   - A bool, a number or a string: that value. []byte is a string.
//     Integers beyond ±2^53 are refused (Lua numbers are doubles).
//   - A function: callable from Lua. Its arguments are converted from Lua
//     by gopher-luar's rules (a table becomes a struct, a slice, a map or,
//     for any, a map[any]any); its results are converted as values are.
//     When its first parameter is a context.Context it receives the hook
//     call's context: its deadline, its cancellation, and the call itself
//     (CallOf, Memo). It runs on its own goroutine: if it has not returned
//     when the hook's deadline passes, the hook fails (timed out) and does
//     not wait for it. A last result of type error that is not nil, or a
//     panic, is a hook failure of kind error naming the function and the
//     hook. A function must be safe to call from several goroutines at
//     once. Parameters and results of kind chan, func, unsafe.Pointer,
//     uintptr or complex are refused when the engine opens.
//   - A struct or a pointer to one: a read-only view of a private copy,
//     with its exported fields (by name, by the name with a lower-case
//     first letter, or by its `luar:"name"` tag; `luar:"-"` hides one)
//     and its exported methods, called as functions are. Structs reached
//     through a field or an element are data: their exported fields, no
//     methods, so a policy cannot reach a method the host did not list.
//   - A slice, an array or a map (string, number or bool keys): a
//     read-only Lua table, copied.
//   - A Writable: a map or a pointer to a struct that Lua may change,
//     under the lock the host gives.
//
// Everything else (channels, functions inside values, unsafe pointers) is
// not visible: a field of such a type reads as nil, and such a value in a
// result or an element is an error.
package host

import (
	"context"
	"sync"

	"github.com/luahook/luahook/internal/hostcall"
)

// Module is one host module: require("host." .. Name) in a hook file
// returns a read-only table of its Members.
type Module struct {
	// Name is the module's name after "host.": dot-separated words of
	// letters, digits and '_', like "git" or "acme.quota".
	Name string
	// Members are the module's fields by their Lua names (identifiers).
	// The engine converts each value when a Lua state first requires the
	// module; a function is called on each use.
	Members map[string]any
	// Doc is one paragraph about the module, for editor stubs (WriteStubs).
	Doc string
	// Docs are the members' docs, by member name, for editor stubs: the
	// first line describes the member; lines starting with "@param NAME
	// TYPE" or "@return TYPE" name a function's parameters and results
	// (Go keeps no parameter names at run time).
	Docs map[string]string
}

// Writable marks v, a map with string keys or a pointer to a struct, as
// writable from Lua. Every read and every write Lua makes holds mu (one
// access each: `w.n = w.n + 1` is two, so a counter belongs in store.incr
// or a host function); the host must hold it too when it reads or changes
// v. A mu with TryLock (a
// sync.Mutex or sync.RWMutex) is waited for only until the hook's
// deadline, so a host that holds it long fails the hook rather than
// holding it. Lua may fill a map with at most the file's max_input_values
// keys. Any other value given to Writable is refused when the engine
// opens.
func Writable(v any, mu sync.Locker) *WritableValue {
	return &WritableValue{Value: v, Lock: mu}
}

// WritableValue is a value marked writable from Lua (see Writable).
type WritableValue struct {
	Value any
	Lock  sync.Locker
}

// Call is the hook call that called a host function: the hook's name,
// its file and the payload (read-only).
type Call = hostcall.Call

// CallOf returns the hook call a host function was called from, from the
// context it received; nil when ctx does not come from a hook call.
func CallOf(ctx context.Context) *Call { return hostcall.From(ctx) }

// Memo returns fn's result under key, running fn at most once per hook
// call: the per-call cache of host functions that read something costly
// (host.git runs git once per call however many of its functions the hook
// calls). Outside a hook call it just runs fn.
func Memo(ctx context.Context, key string, fn func() (any, error)) (any, error) {
	if c := hostcall.From(ctx); c != nil {
		return c.Memo(key, fn)
	}
	return fn()
}
