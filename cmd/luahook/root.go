package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/engine"
)

type streams struct {
	in       io.Reader
	out, err io.Writer
}

// globalOptions are the flags every subcommand shares.
type globalOptions struct {
	dir      string
	config   string
	noHooks  bool
	logLevel string
}

func newRootCmd(s *streams) *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "luahook",
		Short: "Steer an AI coding agent with Lua policies, command hooks and HTTP hooks",
		Long: `luahook fires lifecycle events (PreToolUse, PostToolUse, UserPromptSubmit,
SessionStart, Stop, and the observational events) at the hooks of a hooks.d
folder and a luahook.toml, and prints the outcome in the hook contract's shape.

Start with: luahook demo`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	f := root.PersistentFlags()
	f.StringVar(&g.dir, "dir", envOr("LUAHOOK_DIR", ""), "hooks folder (default: the config's hooks_dir, else ./hooks.d; env LUAHOOK_DIR)")
	f.StringVar(&g.config, "config", envOr("LUAHOOK_CONFIG", ""), "config file (default: ./luahook.toml when it exists; env LUAHOOK_CONFIG)")
	f.BoolVar(&g.noHooks, "no-hooks", false, "run only hooks marked policy = true")
	f.StringVar(&g.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	root.AddCommand(
		newFireCmd(g, s),
		newListCmd(g, s),
		newCheckCmd(g, s),
		newDemoCmd(g, s),
		newServeCmd(g, s),
	)
	return root
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func (g *globalOptions) logger(w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToUpper(g.logLevel))); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", g.logLevel)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})), nil
}

// configPath returns the config file to load: --config, else ./luahook.toml
// when it exists.
func (g *globalOptions) configPath() string {
	if g.config != "" {
		return g.config
	}
	if st, err := os.Stat("luahook.toml"); err == nil && !st.IsDir() {
		return "luahook.toml"
	}
	return ""
}

// open opens an engine on the global options, without hot reload.
func (g *globalOptions) open(ctx context.Context, s *streams, watch bool) (*engine.Engine, error) {
	logger, err := g.logger(s.err)
	if err != nil {
		return nil, err
	}
	return engine.Open(ctx, engine.Options{
		Dir:        g.dir,
		ConfigPath: g.configPath(),
		Logger:     logger,
		PolicyOnly: g.noHooks,
		NoWatch:    !watch,
	})
}
