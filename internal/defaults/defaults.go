// Package defaults holds the defaults of the runner's and the Lua states'
// settings: what luahook.toml's [runner] and [lua] sections take when the
// file does not say, and what runner.Options and luabind.Options apply to
// their zero fields. It imports nothing but the standard library, so that
// reading a configuration does not link what runs hooks.
//
// The defaults of [store] live with the store module's meaning
// (internal/store), those of [decision_log] with its settings
// (internal/logconf), and the payload cap with the contract
// (luahook.DefaultMaxInputBytes).
package defaults

import "time"

// The runner's (runner.Options, [runner]).
const (
	// MaxContextBytes caps the additionalContext one event delivers, joined
	// from every hook and the session's buffered background context (64 KiB).
	MaxContextBytes = 64 << 10
	// BackgroundWorkers is how many background hooks run at once (4).
	BackgroundWorkers = 4
	// BackgroundQueue is how many background payloads may wait for a
	// worker (256).
	BackgroundQueue = 256
)

// The Lua states' (luabind.Options, [lua]).
const (
	// MaxStringBytes caps a string a hook builds (16 MiB).
	MaxStringBytes = 16 << 20
	// LoadTimeout bounds running a file's top level (2 s).
	LoadTimeout = 2 * time.Second
	// MaxInputValues bounds the JSON values (scalars, arrays and objects)
	// of a payload's toolInput, and of a json.decode: converting 100000
	// values into Lua tables takes about 25 ms and 10 MiB.
	MaxInputValues = 100_000
)
