package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/internal/trust"
)

func newTrustCmd(s *streams) *cobra.Command {
	var list, watch bool
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project folder's hooks and config with their current content",
		Long: `trust records that you trust the luahook.toml and the hooks folder (its
hooks_dir, else hooks.d) of DIR (default: the current folder) with their
current content: the config, every *.lua file of the hooks folder and every
lib module, by name and content (the SHA-256 of each). Hooks and config found
by default in the current folder are the repository's code and run on your
machine: each file loads only while its content is what you trusted, checked
on the very bytes loaded, at start, on every reload, and when a lib module is
first required. An edited or new file does not load until you run luahook
trust anew (its trusted version stays in force meanwhile; with none, actions
are blocked naming it); a running serve or repl loads it as soon as you do.
Files must be regular files: a symbolic link in a file's place is refused.

Folders named with --dir or --config (or LUAHOOK_DIR, LUAHOOK_CONFIG) and
your own $XDG_CONFIG_HOME/luahook need no trust. Records live in
$XDG_CONFIG_HOME/luahook/trust, one private file (mode 0600) per folder.

--list prints every trusted folder and whether its content is still the
content trusted.

--watch, while you edit the policies of a folder you trusted already, keeps
it trusted as you save: it watches the config and the hooks folder (lib
included) and, once a save settles (200 ms), trusts each file added or
changed with the content then on disk and drops each file removed, printing
a line for each with the time and the start of its new SHA-256. Every save
made while it runs is trusted, whoever makes it: run it while you edit, and
end it with Ctrl-C when you are done. Nothing else is trusted: a file that
was changed before it started stays untrusted (it says which) until it is
saved again or you run luahook trust. It runs in the foreground, in a
terminal: it refuses to start when its standard input or output is not a
terminal, or under an agent (an environment that marks an agent's shell:
$CLAUDECODE, $GEMINI_CLI, $CODEX_SANDBOX, ...), and luahook's
self-protection denies an agent's command that runs it.`,
		Example: `  luahook trust
  luahook trust ~/src/project
  luahook trust --list
  luahook trust --watch`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := trustStore()
			if err != nil {
				return err
			}
			if list {
				if len(args) > 0 {
					return fmt.Errorf("--list takes no folder")
				}
				if watch {
					return fmt.Errorf("--list and --watch go apart: list the trusted folders, or watch one")
				}
				return listTrusted(s, store)
			}
			if watch {
				// Refused before anything is read: not even the folder's
				// name is looked up for an agent.
				if err := watchAllowed(s); err != nil {
					return err
				}
			}
			folder, err := folderArg(args)
			if err != nil {
				return err
			}
			if watch {
				return watchTrust(cmd.Context(), s, store, folder)
			}
			c, err := folderContent(folder)
			if err != nil {
				return err
			}
			if c.Config == "" && len(c.Files) == 0 && !isDir(c.Dir) {
				return fmt.Errorf("nothing to trust in %s: no %s and no %s", folder, projectConfig, projectHooks)
			}
			if err := store.Put(trust.NewRecord(folder, c)); err != nil {
				return err
			}
			what := []string{}
			if c.Config != "" {
				what = append(what, projectConfig)
			}
			what = append(what, fmt.Sprintf("%s (%d files)", relTo(folder, c.Dir), len(c.Files)))
			fmt.Fprintf(s.out, "trusted %s: %s\n", termtext.Line(folder), termtext.Line(strings.Join(what, ", ")))
			for _, f := range c.Files {
				name := filepath.Join(relTo(folder, c.Dir), f)
				if _, ok := c.Sums[filepath.ToSlash(name)]; !ok && !filepath.IsAbs(name) {
					// A link (or a named pipe...): never loaded from a project folder.
					fmt.Fprintf(s.out, "  %s (not a regular file: it will not load)\n", termtext.Line(name))
					continue
				}
				fmt.Fprintf(s.out, "  %s\n", termtext.Line(name))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted folders")
	cmd.Flags().BoolVar(&watch, "watch", false, "stay in the foreground and trust each change saved in the (trusted) folder while it runs; Ctrl-C ends it")
	return cmd
}

// agentMarkers are environment variables an agent sets in the shell its
// tool calls run in (Claude Code, Gemini CLI, Codex, Cursor, and the
// AI_AGENT convention): trust --watch refuses to start under one.
var agentMarkers = []string{"CLAUDECODE", "GEMINI_CLI", "CODEX_SANDBOX", "CODEX_THREAD_ID", "CURSOR_AGENT", "AI_AGENT"}

// watchAllowed refuses trust --watch unless it runs for a person at a
// terminal: standard input and output are terminals, and no agent marks
// the environment. An agent's tool call has no terminal (and an agent
// that could open one is marked, and denied by the self-protection).
func watchAllowed(s *streams) error {
	for _, name := range agentMarkers {
		if os.Getenv(name) != "" {
			return fmt.Errorf("trust --watch: refused: $%s is set, so this runs under an agent; --watch trusts every change saved "+
				"while it runs, so only you may start it, in a terminal of your own", name)
		}
	}
	if !isTTY(s.in) || !isTTY(s.out) {
		return fmt.Errorf("trust --watch: refused: its standard input and output must be a terminal; it trusts every change " +
			"saved while it runs, and is for you at the keyboard, not for a script or an agent's tool call")
	}
	return nil
}

// watchTrust runs trust --watch on folder until ctx ends (Ctrl-C).
func watchTrust(ctx context.Context, s *streams, store *trust.Store, folder string) error {
	err := store.Watch(ctx, folder, trust.WatchOptions{
		Started: func(c *engine.Content, untrusted []string) {
			what := []string{}
			if c.Config != "" {
				what = append(what, projectConfig)
			}
			what = append(what, fmt.Sprintf("%s (%d files)", relTo(folder, c.Dir), len(c.Files)))
			fmt.Fprintf(s.out, "watching %s: %s; each change saved while this runs is trusted as saved; Ctrl-C ends it\n",
				termtext.Line(folder), termtext.Line(strings.Join(what, ", ")))
			for _, name := range untrusted {
				fmt.Fprintf(s.out, "  not trusted: %s changed before --watch started; it stays untrusted until saved again "+
					"(or review it, then run: luahook trust)\n", termtext.Line(displayName(name)))
			}
		},
		Trusted: func(at time.Time, changes []trust.Change) {
			for _, c := range changes {
				line := fmt.Sprintf("%s %-7s %s", at.Format("15:04:05"), c.Op, displayName(c.Name))
				if c.Sum != "" {
					line += " sha256:" + c.Sum[:12]
				} else if st, err := os.Lstat(filepath.Join(folder, filepath.FromSlash(c.Name))); err == nil && !st.Mode().IsRegular() {
					line += " (not a regular file: it will not load)"
				}
				fmt.Fprintln(s.out, termtext.Line(line))
			}
		},
		Problem: func(err error) {
			fmt.Fprintln(s.err, "luahook:", termtext.Line(err.Error()))
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "stopped watching %s\n", termtext.Line(folder))
	return nil
}

// displayName shows a trusted file's name (relative to its folder, or
// absolute) as a path to type: "./hooks.d/10-x.lua".
func displayName(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return "./" + name
}

func newUntrustCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "untrust [DIR]",
		Short: "Forget that a project folder was trusted",
		Long: `untrust removes the trust record of DIR (default: the current folder): its
hooks and config no longer load when found by default.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := trustStore()
			if err != nil {
				return err
			}
			folder, err := folderArg(args)
			if err != nil {
				return err
			}
			removed, err := store.Delete(folder)
			if err != nil {
				return err
			}
			if removed {
				fmt.Fprintf(s.out, "untrusted %s\n", termtext.Line(folder))
			} else {
				fmt.Fprintf(s.out, "%s was not trusted\n", termtext.Line(folder))
			}
			return nil
		},
	}
}

// folderArg returns the folder of a trust command, absolute and with links
// resolved: the argument, else the current folder.
func folderArg(args []string) (string, error) {
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s: not a folder", dir)
	}
	return abs, nil
}

func listTrusted(s *streams, store *trust.Store) error {
	recs, err := store.List()
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		fmt.Fprintln(s.out, "no trusted folders")
		return nil
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FOLDER\tTRUSTED\tSTATUS")
	for _, r := range recs {
		status := "ok"
		if c, err := folderContent(r.Path); err != nil {
			status = "unreadable: " + err.Error()
		} else if !r.Matches(c) {
			status = "changed since (run luahook trust again after a review)"
		}
		if !isDir(r.Path) {
			status = "gone"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Line(r.Path), r.Trusted.Format("2006-01-02 15:04"), termtext.Line(status))
	}
	return tw.Flush()
}

// relTo returns path relative to base when it is below it.
func relTo(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
