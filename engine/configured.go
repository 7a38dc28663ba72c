package engine

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/transports"
)

// ConfiguredOwner owns the command and HTTP hooks of the config file.
const ConfiguredOwner = "config"

// closer is implemented by transports that hold resources (HTTP keep-alive
// connections).
type closer interface{ Close() }

// readConfig reads and parses a configuration file, returning the checksum
// of the text it parsed, so that a reload can tell an event that left the
// file as it was (a chmod, a touch) from a change. The file is read as
// readConfigData reads it. fresh reports a file that is still settling (see
// readSettled); it is not parsed.
func readConfig(path string, settle time.Duration) (cfg *config.Config, sum [32]byte, fresh bool, err error) {
	data, sum, fresh, err := readConfigData(path, settle, false)
	if err != nil || fresh {
		return nil, sum, fresh, err
	}
	cfg, err = config.Parse(path, data)
	return cfg, sum, false, err
}

// readConfigData reads a configuration file once and returns its text and
// the text's checksum: what is checked (Options.Trust) and parsed is what
// was read. The file is opened without blocking and must be a regular file
// of at most config.MaxFileBytes (see regfile); with noLink, not a symbolic
// link either (a *LinkError: the file a trusted folder holds, not what a
// link leads to). fresh reports a file that is still settling (see
// readSettled).
func readConfigData(path string, settle time.Duration, noLink bool) (data []byte, sum [32]byte, fresh bool, err error) {
	f, fi, err := regfile.Open(path)
	if err != nil {
		return nil, sum, false, fmt.Errorf("load config: %w", err)
	}
	defer f.Close()
	if noLink {
		if err := notALink(path, fi); err != nil {
			return nil, sum, false, fmt.Errorf("load config: %w", err)
		}
	}
	data, fresh, err = readSettled(f, fi, path, config.MaxFileBytes, settle)
	if err != nil {
		return nil, sum, false, fmt.Errorf("load config: %w", err)
	}
	return data, sha256.Sum256(data), fresh, nil
}

// openConfig reads Options.ConfigPath for Open: the configuration to start
// from, the checksum of the text in force (zero when none is), and, with
// Options.PartialConfig, why the file is not (wholly) in force. Without
// PartialConfig, a file that cannot be read, is not trusted
// (Options.Trust) or does not parse is err. With it, cfg is what of the
// text is valid (config.ParsePartial of the very bytes read), or the
// defaults when it cannot be read or is not trusted: nothing of an
// untrusted file is used, but its hooks_dir, relative to its folder, is
// the default's.
func openConfig(opts Options) (cfg *config.Config, sum [32]byte, cfgErr, err error) {
	path := opts.ConfigPath
	if path == "" {
		return config.Default(), sum, nil, nil
	}
	gate := newTrustGate(opts.Trust, path, "")
	data, s, _, err := readConfigData(path, 0, gate != nil)
	if err == nil {
		err = gate.check(path, s)
	}
	if err != nil {
		if !opts.PartialConfig {
			return nil, sum, nil, err
		}
		cfg, _ := config.ParsePartial(path, nil) // the defaults, hooks_dir next to the file
		return cfg, sum, err, nil
	}
	cfg, err = config.Parse(path, data)
	if err != nil {
		if !opts.PartialConfig {
			return nil, sum, nil, err
		}
		cfg, _ = config.ParsePartial(path, data)
		return cfg, s, err, nil
	}
	return cfg, s, nil, nil
}

// applyConfig puts cfg, read from a file of content sum, in force: tool
// schemas, policy gating, the decision log, and the configured hook set when
// it changed structurally (or on the first load). The configured hooks'
// Version is the content hash of the file they were built from: an edit
// that leaves them as they are (HooksEqual) keeps them, and their version.
// On any error nothing changes. e.mu is held.
func (e *Engine) applyConfig(cfg *config.Config, sum [32]byte, initial bool) error {
	schemas, err := cfg.CompileSchemas()
	if err != nil {
		return err
	}
	maps.Copy(schemas, e.schemas)
	version := ""
	if cfg.Path != "" {
		version = contentVersion(sum)
	}
	if initial {
		if err := e.openStore(cfg); err != nil {
			return err
		}
	}
	rebuild := initial || e.cfg == nil || !cfg.HooksEqual(e.cfg)
	var specs []luahook.Spec
	if rebuild {
		specs, err = e.configuredSpecs(cfg)
		if err != nil {
			return err
		}
	}
	dlog, dlogChange, err := e.openDecisionLog(cfg)
	if err != nil {
		closeSpecs(specs)
		return err
	}
	if rebuild {
		for i := range specs {
			specs[i].Version = version
		}
		prev := e.configured
		if err := e.reg.ReplaceOwner(ConfiguredOwner, specs); err != nil {
			closeSpecs(specs)
			if dlog != nil {
				dlog.Close()
			}
			return err
		}
		e.configured = specs
		closeSpecs(prev)
	}
	if dlogChange {
		e.swapDecisionLog(cfg, dlog)
	}
	e.run.SetMaxInputBytes(maxInputBytes(e.opts.MaxInputBytes, cfg.Runner.MaxInputBytes))
	e.storeConfigured(cfg)
	e.run.SetSchemas(schemas)
	e.run.SetPolicyOnly(e.opts.PolicyOnly || !cfg.Runner.AllowNonPolicy)
	e.cfg = cfg
	return nil
}

func closeSpecs(specs []luahook.Spec) {
	for _, s := range specs {
		if c, ok := s.Hook.(closer); ok {
			c.Close()
		}
	}
}

// configuredSpecs builds the transport of every configured hook and returns
// the hook's spec with it, in config order.
//
// A command hook's relative paths are resolved against the folder of the
// config file (transports.CommandSpec.Dir), and a hook whose name defaulted
// to its command is named by the resolved command, so that list, check and
// traces show what runs.
func (e *Engine) configuredSpecs(cfg *config.Config) ([]luahook.Spec, error) {
	var specs []luahook.Spec
	confDir := ""
	if cfg.Path != "" {
		abs, err := filepath.Abs(cfg.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Path, err)
		}
		confDir = filepath.Dir(abs)
	}
	for _, ev := range luahook.Events() {
		for _, h := range cfg.Hooks[ev] {
			spec := h.Spec
			spec.Event = ev
			switch h.Kind {
			case luahook.KindHTTP:
				hook, err := transports.NewHTTP(transports.HTTPSpec{
					URL:                 h.URL,
					Headers:             h.Headers,
					AllowedEnv:          h.AllowedEnv,
					AllowPrivateNetwork: h.AllowPrivateNetwork,
					LookupEnv:           e.opts.LookupEnv,
					Logger:              e.logger,
				})
				if err != nil {
					closeSpecs(specs)
					return nil, fmt.Errorf("%s: hooks.%s: %w", h.Source, ev, err)
				}
				spec.Kind, spec.Hook = luahook.KindHTTP, hook
				if spec.Name == "" {
					spec.Name = h.URL
				}
			default:
				hook, err := transports.NewCommand(transports.CommandSpec{
					Command: h.Command,
					Dir:     confDir,
					Allow:   cfg.Command.Allow,
					PassEnv: cfg.Command.PassEnv,
					Logger:  e.logger,
				})
				if err != nil {
					closeSpecs(specs)
					return nil, fmt.Errorf("%s: hooks.%s: %w", h.Source, ev, err)
				}
				spec.Kind, spec.Hook = luahook.KindCommand, hook
				if spec.Name == "" || spec.Name == h.Command {
					spec.Name = hook.Resolved()
				}
			}
			specs = append(specs, spec)
		}
	}
	return slices.Clip(specs), nil
}
