package luabind

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/luahook/luahook/internal/defaults"
	"github.com/luahook/luahook/ledger"
)

// Defaults applied to the zero fields of Options. Those luahook.toml's
// [lua] shares are defined in internal/defaults.
const (
	DefaultMaxStringBytes = defaults.MaxStringBytes // 16 MiB
	DefaultLoadTimeout    = defaults.LoadTimeout    // running a file's top level
	// DefaultMaxInputValues bounds the JSON values (scalars, arrays and
	// objects) of a payload's toolInput, and of a json.decode (100000).
	DefaultMaxInputValues = defaults.MaxInputValues
	DefaultMaxSourceBytes = 1 << 20 // 1 MiB, a hook file or lib module
)

// Limits of every Lua state. They are per state (lua.Options), not process-wide.
const (
	// callStackSize bounds the Lua call depth: deeper recursion is the error
	// "stack overflow". 200 is Lua 5.1's own limit on nested C calls. The
	// frames (about 100 bytes each) come in segments of 8 as a call nests
	// (lua.Options.MinimizeStackMemory), so an idle pooled state holds one
	// segment rather than 200 frames: 55 KiB a state instead of 70.
	callStackSize = 200
	// Registry (the value stack) sizes, in slots of 16 bytes: 4 KiB at start
	// (enough for ordinary hooks, so that an idle pooled state stays small),
	// growing 256 KiB at a time to at most 4 MiB (unpack of a huge table is the
	// error "registry overflow").
	registrySize     = 256
	registryMaxSize  = 1 << 18
	registryGrowStep = 1 << 14
)

// Options configure the Lua states of one file. The zero value is useful: no
// lib directory (require disabled), the default sandbox, a 16 MiB string cap, no
// environment variables, logs discarded, a private store.
//
// Load copies the options; changing them afterwards has no effect.
type Options struct {
	// LibDir is the only directory require loads from (hooks.d/lib).
	// Empty disables require.
	LibDir string
	// CheckLib vets what require is about to read, before any of a module
	// is read or run: the lib folder, every folder below it on the way to
	// the module, and the module's file, each with the status of the
	// descriptor require reads it through (so what is checked is what is
	// read). An error refuses the module: require raises it, naming the
	// module, and a *LoadError of a file that fails to load on it wraps it.
	// Nil checks nothing.
	CheckLib func(path string, fi fs.FileInfo) error
	// VerifyLib vets the bytes require read from a module's file (path, as
	// CheckLib names it), by their SHA-256, before they are compiled or
	// looked up in any cache (Chunks, DiskCache): an error refuses the
	// module as CheckLib's does. The bytes checked are the bytes compiled;
	// the file is not read again in between. The engine checks them against
	// its Options.Trust. Nil checks nothing.
	VerifyLib func(path string, sum [sha256.Size]byte) error
	// AllowLibs grants extra standard libraries to trusted files: "os" (the
	// full os library, instead of time/clock/date/difftime) and "io".
	AllowLibs []string
	// MaxStringBytes caps every string a Go function builds for Lua:
	// string.rep, string.format, string.gsub, table.concat, json.encode,
	// re.gsub, ... Zero means DefaultMaxStringBytes.
	MaxStringBytes int
	// AllowEnv lists the environment variables the env module may read.
	AllowEnv []string
	// LookupEnv reads an environment variable; nil means os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// PackSettings are the configuration's [packs.NAME] tables, by pack
	// name: what hook.settings(NAME, defaults) merges over a pack's
	// defaults (packsettings.go). Values are strings, int64s, float64s,
	// bools, []any and map[string]any. Nil: every pack runs on its
	// defaults.
	PackSettings map[string]map[string]any
	// Logger receives the log module's records and print's output, tagged
	// with the file and the hook name. Nil discards them.
	Logger *slog.Logger
	// Store is the backend of the store module, shared by every file given
	// the same one; its bounds are its StoreLimits, and its owner closes it.
	// Nil means an in-process Store private to the file, with the default
	// limits (its sweeper timer stops once no entry has a TTL).
	Store StoreBackend
	// Ledger is the session ledger the session module acts on, kept in a
	// store backend (usually Store). Nil means a ledger in Store with the
	// default bounds (ledger.Limits).
	Ledger *ledger.Ledger
	// LoadTimeout bounds one run of the file's top level (loading, and
	// building each further state of the pool). Zero means DefaultLoadTimeout.
	LoadTimeout time.Duration
	// MaxInputValues caps the JSON values (every scalar, array and object,
	// at any depth) of the toolInput a hook of the file is called with, and
	// of every json.decode: converting them into Lua tables costs time and
	// memory that the byte cap alone does not bound (8 MiB of "[]," is 2.8
	// million tables). A larger payload is refused before the hook runs with
	// a failure of kind FailRejected. Zero means DefaultMaxInputValues; a
	// negative value turns the cap off.
	MaxInputValues int
	// MaxSourceBytes caps the size of a Lua file the engine compiles: a hook
	// file (Options.Compile) or a lib module (require). A larger file is a
	// *LoadError before it is parsed. Zero means DefaultMaxSourceBytes.
	MaxSourceBytes int
	// Coverage, when set, counts the lines of every chunk compiled with
	// these options (the file, the lib modules it requires; not a session's
	// own code), for luahook test --coverage. Nil compiles as usual.
	Coverage *Coverage
	// Host are the host's modules, which hook files load with
	// require("host.NAME") (NewHostModules). Nil: require of a host
	// module fails, naming none.
	Host *HostModules
	// Chunks, when set, shares the lib modules the file requires while it
	// loads with the other files loaded with the same cache (ChunkCache).
	// Nil compiles each module for each file.
	Chunks *ChunkCache
	// DiskCache, when set, keeps the compiled chunks of hook files and lib
	// modules across processes (OpenDiskCache); Coverage turns it off.
	// Nil compiles every source.
	DiskCache *DiskCache
	// MaxStates bounds the file's pool of states; callers that find every
	// state busy wait on their context. Zero means max(4, 2*GOMAXPROCS).
	MaxStates int
}

func (o Options) withDefaults() (Options, error) {
	if o.MaxStringBytes <= 0 {
		o.MaxStringBytes = DefaultMaxStringBytes
	}
	if o.MaxSourceBytes <= 0 {
		o.MaxSourceBytes = DefaultMaxSourceBytes
	}
	if o.MaxInputValues == 0 {
		o.MaxInputValues = DefaultMaxInputValues
	}
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = DefaultLoadTimeout
	}
	if o.MaxStates <= 0 {
		o.MaxStates = max(4, 2*runtime.GOMAXPROCS(0))
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Store == nil {
		o.Store = NewStore()
	}
	if o.Ledger == nil {
		o.Ledger = ledger.New(o.Store, ledger.Limits{})
	}
	for _, lib := range o.AllowLibs {
		switch lib {
		case "os", "io":
		default:
			return o, fmt.Errorf("unknown Lua library %q in allow_libs (known: os, io)", lib)
		}
	}
	return o, nil
}

func (o Options) allows(lib string) bool {
	for _, l := range o.AllowLibs {
		if l == lib {
			return true
		}
	}
	return false
}
