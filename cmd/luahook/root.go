package main

import (
	"context"
	"fmt"
	"github.com/luahook/luahook"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/luabind"
)

type streams struct {
	in       io.Reader
	out, err io.Writer
	// stopGrace is how long the process goes on after the first signal
	// (a time.Duration; see endOnSignals).
	stopGrace atomic.Int64
	// process is set by main: the command owns the process, and may tune
	// its runtime (fire's collector, oneShotGC).
	process bool
}

// globalOptions are the flags every subcommand shares.
type globalOptions struct {
	dir      string
	config   string
	noHooks  bool
	logLevel string // "": the subcommand's default
	// looseOK loads hook files and folders that others can write.
	looseOK bool
	// cacheDir is --cache-dir: the compiled-chunk cache's folder, "off",
	// or "" for the default.
	cacheDir string
	// named reports whether a global flag was given on the command line
	// (else its value, if any, came from its environment variable).
	named func(flag string) bool
}

func newRootCmd(s *streams) *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "luahook",
		Short: "Steer an AI coding agent with Lua policies, command hooks and HTTP hooks",
		Long: `luahook fires lifecycle events (PreToolUse, PostToolUse, UserPromptSubmit,
SessionStart, Stop, and the observational events) at the hooks of a hooks.d
folder and a luahook.toml, and prints the outcome in the hook contract's shape.

Where the hooks come from: the folder and config named with --dir and
--config (or LUAHOOK_DIR, LUAHOOK_CONFIG); else ./hooks.d and ./luahook.toml
in the current folder, which are the repository's code and load only once
you trusted the folder's content (luahook trust); else your own
$XDG_CONFIG_HOME/luahook/hooks.d and luahook.toml.

Start with: luahook demo`,
		Version:       luahook.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			_, err := parseLevel(g.logLevel, slog.LevelWarn)
			return err
		},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see: %s --help)", err, c.CommandPath())
	})
	f := root.PersistentFlags()
	g.named = func(name string) bool { fl := f.Lookup(name); return fl != nil && fl.Changed }
	f.StringVar(&g.dir, "dir", envOr("LUAHOOK_DIR", ""), "hooks folder (default: the config's hooks_dir, else ./hooks.d once trusted, else $XDG_CONFIG_HOME/luahook/hooks.d; env LUAHOOK_DIR)")
	f.StringVar(&g.config, "config", envOr("LUAHOOK_CONFIG", ""), "config file (default: ./luahook.toml once trusted, else $XDG_CONFIG_HOME/luahook/luahook.toml; env LUAHOOK_CONFIG)")
	f.BoolVar(&g.noHooks, "no-hooks", false, "run only hooks marked policy = true")
	f.BoolVar(&g.looseOK, "allow-loose-permissions", false, "load hook files and folders writable by group or others, or owned by another user (refused by default)")
	f.StringVar(&g.cacheDir, "cache-dir", envOr("LUAHOOK_CACHE_DIR", ""), "folder of compiled hook files kept between runs, or \"off\" (default: $XDG_CACHE_HOME/luahook/chunks; env LUAHOOK_CACHE_DIR)")
	f.StringVar(&g.logLevel, "log-level", "", "log level: debug, info, warn, error (default: "+defaultLevelsHelp()+")")
	root.AddCommand(
		newFireCmd(g, s),
		newExplainCmd(g, s),
		newListCmd(g, s),
		newCheckCmd(g, s),
		newDemoCmd(g, s),
		newServeCmd(g, s),
		newTestCmd(g, s),
		newReplCmd(g, s),
		newReplayCmd(g, s),
		newVerifyCmd(s),
		newTrustCmd(s),
		newUntrustCmd(s),
		newInstallCmd(s),
		newDoctorCmd(s),
		newAddCmd(g, s),
		newInitCmd(g, s),
	)
	return root
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func parseLevel(s string, def slog.Level) (slog.Level, error) {
	if s == "" {
		return def, nil
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return lvl, nil
}

// defaultLevels are the log levels in force without --log-level, by
// command; --help states them from here. Failed hooks and load errors are
// reported whatever the level (see reportFailures, reportLoadErrors).
var defaultLevels = []struct {
	cmds  []string
	level slog.Level
}{
	{[]string{"serve", "repl"}, slog.LevelInfo}, // reload lines are feedback
	{[]string{"check", "list"}, slog.LevelWarn},
	// fire's standard error is the deny reason its host reads; explain,
	// demo, test and replay print their own report.
	{[]string{"fire", "explain", "demo", "test", "replay"}, slog.LevelError},
}

// defaultLevel returns the log level of cmd without --log-level.
func defaultLevel(cmd string) slog.Level {
	for _, d := range defaultLevels {
		if slices.Contains(d.cmds, cmd) {
			return d.level
		}
	}
	return slog.LevelWarn
}

func defaultLevelsHelp() string {
	var parts []string
	for _, d := range defaultLevels {
		parts = append(parts, strings.ToLower(d.level.String())+" for "+strings.Join(d.cmds, ", "))
	}
	return strings.Join(parts, "; ")
}

// loggerFor returns a text logger on w at --log-level, or at cmd's default
// level (defaultLevels). One-shot commands leave the time out: it is noise
// on a terminal.
func (g *globalOptions) loggerFor(cmd string, w io.Writer, withTime bool) (*slog.Logger, error) {
	lvl, err := parseLevel(g.logLevel, defaultLevel(cmd))
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: lvl}
	if !withTime {
		opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}

// checkDir refuses a hooks folder that was named (--dir, LUAHOOK_DIR) and
// does not exist: an operator who names a folder expects its hooks, not
// silently none. The default ./hooks.d may be absent.
func (g *globalOptions) checkDir() error {
	if g.dir == "" {
		return nil
	}
	st, err := os.Stat(g.dir)
	switch {
	case err != nil:
		return fmt.Errorf("hooks folder %s %s: %w", g.dirName(), g.dir, err)
	case !st.IsDir():
		return fmt.Errorf("hooks folder %s %s: not a folder", g.dirName(), g.dir)
	}
	return nil
}

// dirName names where the hooks folder g.dir came from, for an error
// about it: --dir when given, else $LUAHOOK_DIR.
func (g *globalOptions) dirName() string {
	if g.named == nil || g.named("dir") {
		return "--dir"
	}
	return "$LUAHOOK_DIR"
}

// openOptions say how a subcommand opens its engine. Every subcommand
// reports Engine.Errors itself, each once, naming file and line, so the
// engine's error records are dropped while it opens (its own line would add
// that "the previous version stays live", which is not true of a first
// load).
type openOptions struct {
	logger *slog.Logger
	watch  bool
	// partial opens with what is valid of a broken config
	// (engine.Options.PartialConfig): check and fire.
	partial bool
	// needSomething refuses to open when there is no hooks folder and no
	// config anywhere (check, list: run from the wrong folder, they must
	// not pass).
	needSomething bool
	// ownWarnings drops the engine's records of linter warnings while it
	// opens: the command prints Engine.Warnings itself (check).
	ownWarnings bool
	// decisionLog says where the decision log goes (serve, fire).
	decisionLog engine.DecisionLog
	// trust checks each file of a project folder as the engine loads it
	// (sources.engineTrust); nil for folders the operator named.
	trust engine.Trust
	// keepStore keeps the store in a file when the config names no
	// backend (engine.Options.KeepStore): one-shot fire.
	keepStore bool
}

// openWith opens an engine on the global options (sources). A project
// folder never trusted is refused before anything of it is read; a trusted
// one is opened with its record, against which the engine checks each file
// as it loads it.
func (g *globalOptions) openWith(ctx context.Context, o openOptions) (*engine.Engine, error) {
	src, err := g.sources()
	if err != nil {
		return nil, err
	}
	switch {
	case src.untrusted != nil:
		return nil, src.untrusted
	case src.none && o.needSomething:
		return nil, errNothingHere()
	}
	o.trust = src.engineTrust()
	return g.open(ctx, src.config, src.dir, o)
}

// open opens an engine on a config file and a hooks folder.
func (g *globalOptions) open(ctx context.Context, cfg, dir string, o openOptions) (*engine.Engine, error) {
	gate := &quietGate{Handler: o.logger.Handler(), on: &atomic.Bool{}, lint: o.ownWarnings}
	gate.on.Store(true)
	eng, err := engine.Open(ctx, engine.Options{
		Dir:           dir,
		ConfigPath:    cfg,
		Logger:        slog.New(gate),
		PolicyOnly:    g.noHooks,
		NoWatch:       !o.watch,
		PartialConfig: o.partial,
		DecisionLog:   o.decisionLog,
		Host:          hostModules(),
		ChunkCache:    g.chunkCache(o.logger),
		Protect:       protected(),
		Trust:         o.trust,
		KeepStore:     o.keepStore,

		AllowLoosePermissions: g.looseOK,
	})
	gate.on.Store(false)
	return eng, err
}

// chunkCache opens the compiled-chunk cache: --cache-dir, else
// $XDG_CACHE_HOME/luahook/chunks; none with "off". A cache that cannot be
// used is no error (every file is compiled, as without one): a warning when
// the folder was named, a debug line for the default.
func (g *globalOptions) chunkCache(logger *slog.Logger) *luabind.DiskCache {
	dir, named := g.cacheDir, g.cacheDir != ""
	switch {
	case dir == "off":
		return nil
	case !named:
		base, err := os.UserCacheDir()
		if err != nil {
			logger.Debug("compiled-chunk cache off", "err", err)
			return nil
		}
		dir = filepath.Join(base, "luahook", "chunks")
	}
	c, err := luabind.OpenDiskCache(dir)
	if err != nil {
		lvl := slog.LevelDebug
		if named {
			lvl = slog.LevelWarn
		}
		logger.Log(context.Background(), lvl, "compiled-chunk cache off", "err", err)
		return nil
	}
	return c
}

// quietGate drops error records while on is set (and, with lint, the
// records of linter warnings), and passes everything else.
type quietGate struct {
	slog.Handler
	on   *atomic.Bool
	lint bool
}

func (q *quietGate) Handle(ctx context.Context, r slog.Record) error {
	if q.lint && r.Message == engine.LintRecord && q.on.Load() {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q *quietGate) Enabled(ctx context.Context, l slog.Level) bool {
	if l >= slog.LevelError && q.on.Load() {
		return false
	}
	return q.Handler.Enabled(ctx, l)
}

func (q *quietGate) WithAttrs(as []slog.Attr) slog.Handler {
	return &quietGate{Handler: q.Handler.WithAttrs(as), on: q.on, lint: q.lint}
}

func (q *quietGate) WithGroup(name string) slog.Handler {
	return &quietGate{Handler: q.Handler.WithGroup(name), on: q.on, lint: q.lint}
}

// reportLoadErrors prints each load error on its own line.
func reportLoadErrors(w io.Writer, errs []error) {
	for _, err := range errs {
		fmt.Fprintln(w, "luahook:", termtext.Block(err.Error()))
	}
}
