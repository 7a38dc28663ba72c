package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/luahook/luahook/internal/repl"
)

type replOptions struct {
	history string
}

func newReplCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &replOptions{}
	cmd := &cobra.Command{
		Use:   "repl",
		Short: "An interactive Lua prompt with the whole hook API",
		Long: `repl opens a Lua prompt in the same sandbox as hook files, with the hooks
folder and the config loaded (and reloaded as they change). Hooks registered
at the prompt with hook.register are live: :fire runs them with the others.

  > =1 + 1                        print a value (a bare expression prints too)
  > function add(a, b)            an incomplete chunk continues on the next line
  >>   return a + b
  >> end
  > hook.register("PreToolUse", "bash", function(input) return hook.deny("no") end)
  > :fire PreToolUse {"toolName":"bash","toolInput":{"command":"ls"}}
  > r = fire("PreToolUse", { toolName = "bash", toolInput = { command = "ls" } })
  > =r

Commands: :fire EVENT [PAYLOAD], :list, :load FILE, :unregister ID, :reload,
:trace on|off, :help, :quit. Tab completes names and fields; Ctrl-C cancels a
running hook or clears the line; Ctrl-D quits. The history is kept in
--history (env LUAHOOK_HISTORY, default ~/.luahook_history).

With standard input not a terminal, repl reads it as a script, line by line,
and prints the results without prompts; the exit status is 1 if a line
failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRepl(cmd.Context(), g, s, o)
		},
	}
	cmd.Flags().StringVar(&o.history, "history", "", "history file (default: $LUAHOOK_HISTORY, else ~/.luahook_history)")
	return cmd
}

func runRepl(parent context.Context, g *globalOptions, s *streams, o *replOptions) error {
	// Ctrl-C belongs to the prompt: it cancels a running hook, never the
	// REPL, so the command's context (cancelled on the first interrupt) is
	// not the REPL's. SIGTERM still ends it.
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	defer cancel()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	go func() {
		select {
		case <-term:
			cancel()
		case <-ctx.Done():
		}
	}()

	// Reload lines and the Lua log module's records are feedback here.
	logger, err := g.loggerFor("repl", s.err, false)
	if err != nil {
		return err
	}
	eng, err := g.openWith(ctx, openOptions{logger: logger, watch: true})
	if err != nil {
		return err
	}
	defer eng.Close()
	err = repl.Run(ctx, repl.Options{
		In:          s.in,
		Out:         s.out,
		Err:         s.err,
		Engine:      eng,
		HistoryPath: historyPath(o.history),
		Interactive: isTTY(s.in),
		Interrupts:  interrupts,
		Logger:      logger,
	})
	if errors.Is(err, repl.ErrFailed) {
		return &exitError{code: 1}
	}
	return err
}

// historyPath returns the history file: the flag, else $LUAHOOK_HISTORY,
// else ~/.luahook_history ("" when there is no home folder).
func historyPath(flag string) string {
	if flag != "" {
		return flag
	}
	if p := os.Getenv("LUAHOOK_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".luahook_history")
}

// isTTY reports whether in is a terminal (not merely a character device,
// such as /dev/null).
func isTTY(in any) bool {
	f, ok := in.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}
