// Package engine is the one call a host makes: Open wires the configuration,
// the hooks folder, the Lua pools, the command and HTTP transports, the
// registry and the runner, and keeps them current as files change on disk.
//
//	eng, err := engine.Open(ctx, engine.Options{Dir: "hooks.d", ConfigPath: "luahook.toml", Logger: logger})
//	if err != nil { ... }
//	defer eng.Close()
//	res := eng.Runner().PreToolUse(ctx, &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ...})
//
// # Hot reload
//
// The engine watches the hooks folder (the folder, not its files, so that
// saves by rename are seen), its lib folder and the config file, debounces
// bursts of events and rebuilds only what changed: one Lua file (swapped
// atomically in the registry, keeping its place in the order), the files that
// required a lib module that changed, the configured command and HTTP hooks
// when the config's hook set changed structurally. A change that fails to
// load keeps the previous version live; Errors lists it with file and line.
// Every reload logs one Info line: what changed, how many hooks, how long it
// took.
//
// Calls in flight finish on the version they started with: a runner call
// reads one registry snapshot, so the hooks of one file it runs all come from
// one version, and a replaced file's states are closed as its last calls
// return.
//
// # Trust
//
// Whoever can write a hook file can run code in the host, so the engine
// refuses, before anything of it is read or run, a hook file, a lib module
// (at any depth, required as its file loads or first during a call), the
// hooks folder, the lib folder or a folder below it on the way to a module,
// when it is writable by group or others or owned by another user than the
// process (root excepted), as sshd refuses a loose key file
// (*PermissionError; during a call, a hook error naming it, which a
// fail-closed hook turns into a deny); and
// a hook file that is a symbolic link to a file outside the hooks folder
// (*SymlinkError). Options.AllowLoosePermissions, or [lua]
// allow_loose_permissions in the config, lifts the permission rule, never
// the link rule. A refused file is listed by Errors and, like a file that
// fails to load, keeps its previous good version live.
//
// Every hook call is refused before it runs when the payload is over
// Options.MaxInputBytes ([runner] max_input_bytes, 8 MiB by
// default): a failure of kind rejected, which a fail-closed hook turns into
// a denial.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/jsonschema"
	"github.com/luahook/luahook/internal/selfguard"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// DefaultDebounce is how long the watcher waits for a burst of file events
// to end before it reloads.
const DefaultDebounce = 50 * time.Millisecond

// Options configure an engine. The zero value is useful: it loads ./hooks.d
// with the built-in defaults of DESIGN.md (no config file), lets every hook
// run, logs nothing, and reloads on file changes.
type Options struct {
	// Dir is the hooks folder. Empty: the config's hooks_dir (relative to the
	// config file's folder), else "hooks.d". A folder that does not exist is
	// no error: the engine starts with no Lua hooks and loads the folder when
	// it appears.
	Dir string
	// ConfigPath is the luahook.toml (or JSON) file. Empty: no file, and the
	// defaults of DESIGN.md apply. A file given here must load at Open
	// (unless PartialConfig); later a broken or deleted file keeps the last
	// good configuration in force.
	ConfigPath string
	// PartialConfig opens the engine even when ConfigPath cannot be read or
	// has problems: it runs with what of the file is valid (every setting
	// and configured hook that decoded and builds, the defaults elsewhere;
	// config.ParsePartial) and Errors lists the problems first, each naming
	// the file, line and key. It is for one-shot decisions that must go on
	// with every valid policy (luahook fire, luahook check).
	PartialConfig bool
	// Logger receives the reload lines, load errors, hook failures and the
	// Lua log module's records. Nil discards them.
	Logger *slog.Logger
	// Schemas are tool JSON Schemas given in Go, by tool name: the text of
	// each schema, which the rewritten input of a PreToolUse mutation must
	// satisfy. They are used in addition to the config's [tools] schemas,
	// and in preference over them for a tool both name. A schema without
	// $schema is read as draft 2020-12; its $ref may point inside it (under
	// $defs) or at a draft's metaschema, never at a file or the network.
	// Open (and New) compile them once and fail, with a *SchemaError naming
	// the tool and the problem, on a schema that does not compile.
	Schemas map[string]json.RawMessage
	// PolicyOnly runs only the hooks marked policy, on every transport and
	// event (the --no-hooks switch). It is the inverse of the seed's
	// allowNonPolicy, so that the zero value lets every hook run; the
	// config's [runner] allow_non_policy = false has the same effect.
	PolicyOnly bool
	// SessionID names the session of payloads that carry no sessionId (it
	// keys the buffer of background hook context). Nil: one default session.
	SessionID func() string
	// NoWatch turns hot reload off; Reload still works.
	NoWatch bool
	// KeepStore keeps the store module's entries in a file when the
	// config's [store] names no backend (internal/filestore, at [store]
	// path, default $XDG_STATE_HOME/luahook/store.db), in place of the
	// in-process store: for a one-shot host (luahook fire), whose process
	// ends with each call and would forget every entry with it.
	KeepStore bool
	// Debounce is how long the watcher waits for a burst of changes to end.
	// Zero means DefaultDebounce. A burst that never ends is still reloaded
	// every ten debounce periods.
	Debounce time.Duration
	// LookupEnv reads the environment for the Lua env module and HTTP header
	// expansion. Nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// MaxInputBytes caps the payload of every hook call
	// (runner.Options.MaxInputBytes), as luahook.Input.Size counts it: a
	// larger payload is refused before the hook runs, a failure of kind
	// rejected that the hook's failure policy handles (a fail-closed hook
	// denies). Zero means the config's [runner] max_input_bytes (default 8
	// MiB); a negative value turns the cap off.
	MaxInputBytes int
	// AllowLoosePermissions loads hook files and lib modules, and the hooks
	// and lib folders and those below lib, even when another user than the process's (or root) owns them or they
	// are writable by group or others; by default they are refused with a
	// *PermissionError. The config's [lua] allow_loose_permissions = true
	// does the same. Hook files that are links to files outside the hooks
	// folder are refused (*SymlinkError) either way.
	AllowLoosePermissions bool
	// Protect are paths the self-protection guards besides the hooks
	// folder and the config file (the trust records, the agent settings
	// files luahook install writes). On PreToolUse, before any hook and
	// whatever a hook answers, the engine denies a file tool or shell
	// command that would write, edit, move or remove a protected path,
	// and the luahook commands trust, untrust, install and add --force.
	Protect []Protected
	// NoSelfProtect turns that self-protection off, as the config's
	// [runner] self_protect = false does.
	NoSelfProtect bool
	// DecisionLog overrides where the config's [decision_log] goes, or
	// gives the engine a host's log. The zero value follows the config: off
	// unless it enables the log.
	DecisionLog DecisionLog
	// Coverage, when set, counts the lines of the hook files and lib
	// modules the engine compiles (luabind.Options.Coverage), for luahook
	// test --coverage. Nil compiles them as usual.
	Coverage *luabind.Coverage
	// ChunkCache, when set, keeps the compiled hook files and lib modules
	// across processes (luabind.OpenDiskCache), so that an engine opened on
	// the sources an earlier process compiled skips the compiler. Nil
	// compiles every file. Coverage turns it off.
	ChunkCache *luabind.DiskCache
	// Host are the host's own Lua modules: hook files load each with
	// require("host." .. Name) (package host). Open refuses a module whose
	// name or members the bridge cannot expose safely.
	Host []host.Module
	// Trust, when set, decides whether the config file, each hook file and
	// each lib module may load with the content read from it (see Trust):
	// for a folder someone else may have written, such as the project
	// folder the CLI finds in the current folder. A file it refuses keeps
	// its last trusted version in force; with none, an event that can
	// block is denied naming it (FailClosed). Under it, those files load
	// only as regular files, never through symbolic links (*LinkError).
	// Nil trusts everything (a folder named by the operator, a Go host's
	// own).
	Trust Trust
	// Approver decides the PreToolUse calls a hook routed to a web
	// approval (runner.Options.Approver; luahook serve --approvals gives
	// its hub, a policy test its own answers). Nil: such calls are denied.
	Approver runner.Approver
}

// Engine is a running luahook: a registry of hooks kept current with the
// hooks folder and the config file, and a runner that fires events at them.
// Its methods are safe for concurrent use.
type Engine struct {
	opts         Options
	logger       *slog.Logger
	reg          *registry.Registry
	run          *runner.Runner
	store        luabind.StoreBackend // set on Open (openStore), then fixed
	ledger       *ledger.Ledger       // the session ledger in store, made with it
	ledgerWanted atomic.Bool          // Ledger was called: record every call (recordCall)
	dir          string
	host         *luabind.HostModules // Options.Host, checked once; nil without
	gate         *trustGate           // Options.Trust, set on Open, then fixed; nil without
	// schemas are Options.Schemas, compiled once; nil without.
	schemas map[string]*jsonschema.Schema
	guard   *selfguard.Guard // the self-protection, set by Open before it returns; nil without

	ctx    context.Context // cancelled by Close: stops a load in progress
	cancel context.CancelFunc

	// mu serialises loads and guards the fields below. Runner calls never
	// take it; readers use the published view.
	mu     sync.Mutex
	closed bool
	cfg    *config.Config
	cfgSum [32]byte // the content of the config file in force
	dlog   decisionLogState
	// configured are the specs of the configured hook set in force, kept to
	// close their transports when the set is replaced.
	configured []luahook.Spec
	files      map[string]*luaFile // by base name
	fileErrs   map[string]error    // load errors in force, by file base name
	cfgErr     error               // why the config file on disk is not in force
	cfgNoGood  bool                // cfgErr left part of the config unloaded, with no good version in force
	dirErr     error               // why the hooks folder could not be listed
	// failedSum remembers the content of a file that failed to load, so that
	// an event that does not change it (a chmod, a touch) is not reported
	// again. A lib change retries the file anyway: it may load now.
	failedSum map[string][32]byte
	reloads   int
	// settle, settleFor and later: see apply.
	settle    bool
	settleFor time.Duration
	later     change
	// beforeOpen, when set (by tests only), is called with a hook file's
	// path after the folder was listed and before the file is opened: the
	// moment a file swapped by someone else must not get past the checks.
	beforeOpen func(path string)
	// beforeCommit, when set (by tests only), is called with a hook file's
	// path once the pass has loaded it, before its hooks are swapped in.
	beforeCommit func(path string)

	view atomic.Pointer[view] // what Errors, Stats and Config read

	// retired are the replaced or removed files that had calls in flight
	// when they were retired, for Stats to count until those calls return.
	// The pointers are weak: the list counts files, it never keeps one
	// alive. Under load a reload nearly always retires a version with a
	// call still running on it; a list holding its files would keep every
	// version ever loaded (compiled chunks, lib modules, caches) for as
	// long as nobody asked for Stats.
	retiredMu sync.Mutex
	retired   []weak.Pointer[luabind.File]

	closeOnce sync.Once
	stopWatch func()
}

// view is a consistent, immutable picture of the engine for readers.
type view struct {
	cfg     *config.Config
	errs    []error
	closed  []error // FailClosed
	files   []*luabind.File
	reloads int
	// ledger: some file reads the session module, so PostToolUse calls are
	// recorded in the session ledger (recordCall)
	ledger bool
}

// Open loads the config and every hook file and starts watching them. A
// config that does not load is an error. A Lua file that does not load is
// logged and listed by Errors, and the other files load normally. ctx bounds
// the initial loading only.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	hostMods, err := hostModules(opts.Host)
	if err != nil {
		return nil, err
	}
	schemas, err := compileGoSchemas(opts.Schemas)
	if err != nil {
		return nil, err
	}
	cfg, sum, cfgErr, err := openConfig(opts)
	if err != nil {
		return nil, err
	}
	e := newEngine(opts, logger, cfg)
	e.host, e.schemas = hostMods, schemas
	e.cfgSum = sum
	e.dir = hooksDirOr(opts.Dir, cfg)
	e.gate = newTrustGate(opts.Trust, opts.ConfigPath, e.dir)
	start := time.Now()
	e.mu.Lock()
	if opts.PartialConfig {
		var errs []error
		cfg, errs = e.buildable(cfg)
		cfgErr = errors.Join(append([]error{cfgErr}, errs...)...)
	}
	err = e.applyConfig(cfg, sum, true)
	e.cfgErr, e.cfgNoGood = cfgErr, cfgErr != nil
	if err == nil {
		e.syncLua(ctx, nil, true)
		e.publish()
	}
	e.mu.Unlock()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		e.Close()
		return nil, err
	}
	e.guard = e.newSelfGuard()
	if !opts.NoWatch {
		stop, err := e.watch()
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("watch %s: %w", e.dir, err)
		}
		e.stopWatch = stop
	}
	st := e.Stats()
	logger.Debug("luahook: loaded", "dir", e.dir, "config", opts.ConfigPath, "hooks", st.Hooks,
		"files", st.Files, "errors", st.Errors, "took", time.Since(start).Round(time.Microsecond).String())
	return e, nil
}

// newEngine returns an engine with cfg's runner settings, nothing loaded
// and nothing in force yet.
func newEngine(opts Options, logger *slog.Logger, cfg *config.Config) *Engine {
	e := &Engine{
		opts:      opts,
		logger:    logger,
		reg:       registry.New(),
		store:     luabind.NewStore(),
		files:     map[string]*luaFile{},
		fileErrs:  map[string]error{},
		failedSum: map[string][32]byte{},
	}
	e.ledger = ledger.New(e.store, ledgerLimits(cfg.Store))
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.settleFor = max(5*opts.Debounce, 5*DefaultDebounce)
	e.run = runner.New(runner.Options{
		Registry:          e.reg,
		Logger:            logger,
		PolicyOnly:        opts.PolicyOnly || !cfg.Runner.AllowNonPolicy,
		SessionID:         opts.SessionID,
		MaxContextBytes:   cfg.Runner.MaxContextBytes,
		BackgroundWorkers: cfg.Runner.BackgroundWorkers,
		BackgroundQueue:   cfg.Runner.BackgroundQueue,
		Guard:             e.selfCheck,
		ToolDone:          e.recordCall,
		Approver:          opts.Approver,
	})
	if l := opts.DecisionLog.Logger; l != nil {
		e.run.SetOnDecision(l.Observe)
	}
	return e
}

// Runner returns the runner that fires events at the engine's hooks.
func (e *Engine) Runner() *runner.Runner { return e.run }

// Registry returns the registry, for Go in-process hooks and plugin scopes
// (registry.Scope). The engine owns the owners ConfiguredOwner and the base
// names of the hook files; other owners are the host's.
func (e *Engine) Registry() *registry.Registry { return e.reg }

// Dir returns the hooks folder the engine loads.
func (e *Engine) Dir() string { return e.dir }

// Config returns the configuration in force: the last one that loaded. It is
// shared: callers must not modify it.
func (e *Engine) Config() *config.Config { return e.view.Load().cfg }

// Errors returns the load errors in force, one per file that failed to load:
// the config file first, then the hooks folder, then the hook files by name. Lua errors are
// *luabind.LoadError values naming the file and line; config errors name the
// file, line and key. The previous good version of such a file, if any,
// stays live.
func (e *Engine) Errors() []error { return e.view.Load().errs }

// FailClosed returns the load errors that leave part of what the engine
// was asked to load with no version in force: a hook file that has never
// loaded, a config whose problems dropped settings or hooks before any good
// version of it loaded, a hooks folder that cannot be read. While any is
// there, an event that can block is denied (Decide), on every door. A file
// whose previous good version stays live is in Errors, not here.
func (e *Engine) FailClosed() []error { return e.view.Load().closed }

// Err joins Errors into one error, or returns nil.
func (e *Engine) Err() error { return errors.Join(e.Errors()...) }

// Stats describe the engine's current state.
type Stats struct {
	Hooks   int // registered entries, every kind (Go hooks included)
	Files   int // Lua files loaded
	Errors  int // files that failed to load
	Reloads int // reloads applied since Open (config or Lua changes)
	States  int // Lua states alive (idle and busy), replaced files included
	Retired int // replaced or removed files whose states are still busy
}

// Stats returns a snapshot of the engine's state. It never waits for a
// reload in progress.
func (e *Engine) Stats() Stats {
	v := e.view.Load()
	s := Stats{Hooks: e.reg.Len(), Files: len(v.files), Errors: len(v.errs), Reloads: v.reloads}
	for _, f := range v.files {
		fs := f.Stats()
		s.States += fs.Idle + fs.Busy
	}
	var busy int
	s.Retired, busy = e.busyRetired()
	s.States += busy
	return s
}

// busyRetired returns how many retired files still have calls running and
// how many states those calls hold, and forgets the other files.
func (e *Engine) busyRetired() (files, states int) {
	e.retiredMu.Lock()
	defer e.retiredMu.Unlock()
	kept := e.retired[:0]
	for _, w := range e.retired {
		if f := w.Value(); f != nil {
			if n := f.Stats().Busy; n > 0 {
				states += n
				kept = append(kept, w)
			}
		}
	}
	clear(e.retired[len(kept):])
	e.retired = kept
	return len(kept), states
}

// Close stops watching, stops the background hooks, closes every Lua pool,
// the configured transports and the store's sweeper, and returns once the engine's goroutines
// have ended. A Lua call still in flight finishes, and its state is closed
// when it returns. Hooks stay registered: a call made after Close still runs
// them (a Lua hook on a state built for that call alone), but nothing reloads
// any more. Close may be called more than once.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.cancel()
		if e.stopWatch != nil {
			e.stopWatch()
		}
		e.run.Close()
		e.mu.Lock()
		defer e.mu.Unlock()
		e.closed = true
		for name, f := range e.files {
			e.retire(f.file)
			delete(e.files, name)
		}
		closeSpecs(e.configured)
		e.closeDecisionLog()
		e.store.Close()
		e.publish()
	})
	return nil
}

// retire closes a replaced or removed file; its busy states close as their
// calls return, and the file is garbage once the last of them has returned
// (e.retired only points at it weakly). Files whose calls have ended since
// the last look are forgotten here too, so that the list stays as short as
// the calls in flight even when nobody asks for Stats. e.mu is held.
func (e *Engine) retire(f *luabind.File) {
	f.Close()
	if f.Stats().Busy == 0 {
		return
	}
	e.busyRetired()
	e.retiredMu.Lock()
	e.retired = append(e.retired, weak.Make(f))
	e.retiredMu.Unlock()
}

// publish makes the current state visible to Errors, Stats and Config. e.mu
// is held.
func (e *Engine) publish() {
	v := &view{cfg: e.cfg, reloads: e.reloads}
	for _, err := range []error{e.cfgErr, e.dirErr} {
		if err != nil {
			v.errs = append(v.errs, err)
		}
	}
	if e.cfgErr != nil && e.cfgNoGood {
		v.closed = append(v.closed, e.cfgErr)
	}
	if e.dirErr != nil {
		v.closed = append(v.closed, e.dirErr)
	}
	for _, name := range slices.Sorted(maps.Keys(e.fileErrs)) {
		v.errs = append(v.errs, e.fileErrs[name])
		if e.files[name] == nil {
			v.closed = append(v.closed, e.fileErrs[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(e.files)) {
		f := e.files[name].file
		v.files = append(v.files, f)
		v.ledger = v.ledger || f.NamesGlobal("session")
	}
	e.view.Store(v)
}
