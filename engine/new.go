package engine

import (
	"errors"
	"log/slog"

	"github.com/luahook/luahook/internal/config"
)

// ErrNoFolder is returned by Reload on an engine made by New: it has no
// hooks folder or config file to reload.
var ErrNoFolder = errors.New("engine: no hooks folder")

// New returns an engine with no hooks folder and no config file: the
// built-in defaults, and only the hooks its host registers (RegisterSession,
// Registry), as the REPL runs without a folder. Dir is empty, nothing is
// watched, and Reload returns ErrNoFolder. Of opts, Logger, Schemas,
// PolicyOnly, SessionID, LookupEnv, MaxInputBytes, DecisionLog and Host apply; the others
// concern files and are ignored. Close it as an opened engine.
func New(opts Options) (*Engine, error) {
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
	opts = Options{Logger: logger, Schemas: opts.Schemas, PolicyOnly: opts.PolicyOnly,
		SessionID: opts.SessionID, LookupEnv: opts.LookupEnv, MaxInputBytes: opts.MaxInputBytes, NoWatch: true,
		DecisionLog: opts.DecisionLog, Host: opts.Host}
	cfg := config.Default()
	e := newEngine(opts, logger, cfg)
	e.host, e.schemas = hostMods, schemas
	e.mu.Lock()
	err = e.applyConfig(cfg, [32]byte{}, true)
	if err == nil {
		e.publish()
	}
	e.mu.Unlock()
	if err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}
