// Package engine is the one call a host makes: Open wires the configuration,
// the hooks folder, the Lua pools, the command and HTTP transports, the
// registry and the runner, and keeps them current as files change on disk.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/luahook/luahook/config"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// Options configure an engine. The zero value opens ./hooks.d with the
// default configuration and hot reload on.
type Options struct {
	// Dir is the hooks folder. Empty: the config's hooks_dir, else "hooks.d".
	Dir string
	// ConfigPath is the luahook.toml (or JSON) file. Empty: no file, defaults.
	ConfigPath string
	// Logger receives reload lines, hook failures and the Lua log module.
	// Nil discards.
	Logger *slog.Logger
	// Schemas are tool JSON Schemas given in Go, used in addition to (and in
	// preference over) those of the config.
	Schemas map[string]*jsonschema.Schema
	// PolicyOnly runs only hooks marked policy (the --no-hooks switch; the
	// seed's allowNonPolicy = false). The config's allow_non_policy = false
	// has the same effect.
	PolicyOnly bool
	// SessionID supplies the session id when a payload carries none.
	SessionID func() string
	// NoWatch turns hot reload off; Reload still works.
	NoWatch bool
	// Debounce is how long the watcher waits for a burst of changes to end.
	// Zero means 50 ms.
	Debounce time.Duration
	// LookupEnv reads the environment for the Lua env module and HTTP header
	// expansion. Nil = os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Engine is a running luahook: a registry of hooks kept current with the
// hooks folder and the config file, and a runner that fires events at them.
type Engine struct {
	opts   Options
	logger *slog.Logger
	reg    *registry.Registry
	run    *runner.Runner
	store  *luabind.Store

	mu  sync.Mutex // serialises loads
	cfg *config.Config
	// configured are the specs of the configured hook set in force, kept to
	// close their transports when the set is replaced.
	configured []registry.Spec
	dir        string
	files      map[string]*luaFile // by base name
	errs       map[string]error    // current load errors by file (or config path)
	// failedHash remembers the content that failed to load, so that the same
	// broken file is not reported again on every unrelated change.
	failedHash map[string][32]byte
	reloads    int

	closeOnce sync.Once
	stopWatch func()
}

// Open loads the config and every hook file and starts watching them. A
// config that does not load is an error; a Lua file that does not load is
// logged and listed by Errors, and the other files load normally.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg := config.Default()
	if opts.ConfigPath != "" {
		c, err := config.Load(opts.ConfigPath)
		if err != nil {
			return nil, err
		}
		cfg = c
	}
	e := &Engine{
		opts:   opts,
		logger: logger,
		reg:    registry.New(),
		store:  luabind.NewStore(),
		files:  map[string]*luaFile{},
		errs:   map[string]error{},

		failedHash: map[string][32]byte{},
	}
	e.dir = opts.Dir
	if e.dir == "" {
		e.dir = cfg.HooksDir
	}
	if e.dir == "" {
		e.dir = "hooks.d"
	}
	e.run = runner.New(runner.Options{
		Registry:   e.reg,
		Logger:     logger,
		PolicyOnly: opts.PolicyOnly || !cfg.Runner.AllowNonPolicy,
		SessionID:  opts.SessionID,
	})
	if err := e.applyConfig(cfg, true); err != nil {
		e.run.Close()
		return nil, err
	}
	e.loadAllLua(ctx)
	if !opts.NoWatch {
		stop, err := e.watch()
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("watch %s: %w", e.dir, err)
		}
		e.stopWatch = stop
	}
	return e, nil
}

// Runner returns the runner that fires events at the engine's hooks.
func (e *Engine) Runner() *runner.Runner { return e.run }

// Registry returns the registry, for Go in-process hooks and plugin scopes.
func (e *Engine) Registry() *registry.Registry { return e.reg }

// Dir returns the hooks folder the engine loads.
func (e *Engine) Dir() string { return e.dir }

// Config returns the configuration in force.
func (e *Engine) Config() *config.Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// Errors returns the current load errors, one per file that failed to load,
// each naming the file and line. The previous good version of such a file, if
// any, stays live.
func (e *Engine) Errors() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []error
	for _, name := range sortedKeys(e.errs) {
		out = append(out, e.errs[name])
	}
	return out
}

// Err joins Errors into one error, or returns nil.
func (e *Engine) Err() error { return errors.Join(e.Errors()...) }

// Stats describe the engine's current state.
type Stats struct {
	Hooks   int // registered entries, every kind
	Files   int // Lua files loaded
	Errors  int // files or configs that failed to load
	Reloads int // reloads applied since Open
	States  int // Lua states alive (idle and busy) across files
}

// Stats returns a snapshot of the engine's state.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := Stats{Hooks: e.reg.Len(), Files: len(e.files), Errors: len(e.errs), Reloads: e.reloads}
	for _, f := range e.files {
		fs := f.file.Stats()
		s.States += fs.Idle + fs.Busy
	}
	return s
}

// Close stops watching, waits for background hooks, and closes every Lua
// pool. It may be called more than once.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		if e.stopWatch != nil {
			e.stopWatch()
		}
		e.run.Close()
		e.mu.Lock()
		defer e.mu.Unlock()
		for name, f := range e.files {
			f.file.Close()
			delete(e.files, name)
		}
	})
	return nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
