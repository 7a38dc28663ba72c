// Package modules holds the Lua-facing libraries of luahook's sandbox, as
// one Lua state of luabind opens them: json, log (and print), re, store and
// env, session (the session ledger), fs (read-only facts about the project folder), the size-capped and interruptible string library (string.rep,
// string.format, the pattern functions and their replacement templates),
// table.concat and table.sort, os.date with a capped format, and the
// read-only proxies that every module table becomes. It also holds Store,
// the in-process backend of the store module (the interface every backend
// implements, and the checks they share, are internal/store's).
//
// The package knows nothing of hook files, pools or calls: what the modules
// need from the state that opens them is a Config, fixed for the file's
// lifetime, the state's codec, and a Host for the call in progress.
package modules

import (
	"context"
	"log/slog"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind/internal/codec"
)

// Host is the Lua state that opens the modules, as they see it during a
// call: the log module tags its records with the hook's name and logs them
// with the call's context.
type Host interface {
	// CallContext returns the context of the call in progress, or nil
	// between calls and while the file loads.
	CallContext() context.Context
	// HookName returns the name of the hook being called, or "" between
	// calls and while the file loads.
	HookName() string
	// CallSession returns the session id of the call in progress (its
	// payload's sessionId, possibly empty) and true, or false between
	// calls and while the file loads: the session module's ledger is the
	// call's session's.
	CallSession() (id string, inCall bool)
	// CallTool returns the tool name and raw tool input of the call in
	// progress and true, or false between calls and while the file loads.
	CallTool() (name string, input []byte, inCall bool)
	// CallCwd returns the cwd of the call in progress (its payload's,
	// possibly empty) and true, or false between calls and while the file
	// loads: the fs module reads the project folder it names.
	CallCwd() (cwd string, inCall bool)
}

// Config is what the modules of every state of one file share. It is fixed
// once the file is loaded; Store and Regexps are safe for concurrent use.
type Config struct {
	// Path is the hook file's path: the file attribute of log records.
	Path string
	// Logger receives the log module's records and print's output. It must
	// not be nil.
	Logger *slog.Logger
	// Store is the store module's backend. It must not be nil.
	Store store.Backend
	// Ledger is the session module's ledger, kept in Store. Nil: the
	// session module's functions raise an error saying so.
	Ledger *ledger.Ledger
	// MaxStringBytes caps every string a module builds for Lua (positive).
	MaxStringBytes int
	// Env is the set of environment variables env.get may read, and
	// LookupEnv how it reads them.
	Env       map[string]bool
	LookupEnv func(name string) (string, bool)
	// Regexps are the file's compiled re patterns, shared by its states.
	Regexps *Regexps
}

// Modules are the modules of one Lua state. Like the state, they are used by
// one goroutine at a time.
type Modules struct {
	L     *lua.LState // the state the modules are opened in
	cfg   Config
	codec *codec.Codec
	host  Host

	readonly map[*lua.LTable]readOnly // tables Lua code must not write (readonly.go)
	// proxyNewindex and proxyLen are the __newindex and __len of every
	// module proxy of the state (readonly.go).
	proxyNewindex, proxyLen *lua.LFunction
	// searcher is the state's re searcher, lent to one re call at a time
	// (searching) by Modules.search.
	searcher  searcher
	searching bool
	// recent are the patterns the state's re calls looked up last, by the
	// address of their text (reMemo)
	recent *[reMemoSize]reMemo // made at the first re call
	// fs is what the fs module spent in the call in progress (BeginCall).
	fs fsSpent
}

// Init prepares the modules of L: c is the state's codec (the json module
// sets its Null, ArrayMT and ObjectMT, which json.encode/decode and the
// store use), host the state. Nothing is opened yet: the state opens each
// module in its place among the sandbox's own.
func (m *Modules) Init(L *lua.LState, cfg Config, c *codec.Codec, host Host) {
	*m = Modules{L: L, cfg: cfg, codec: c, host: host}
}

// raiseIfDone raises fn's error once the call's context is done: the look
// that long Go-side work (sorting, matching, reading a template) takes now
// and then, since the VM checks the context only between instructions.
func raiseIfDone(L *lua.LState, fn string) {
	if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
		L.RaiseError("%s: %v", fn, ctx.Err())
	}
}
