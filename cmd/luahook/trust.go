package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/internal/trust"
)

func newTrustCmd(s *streams) *cobra.Command {
	var list bool
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
content trusted.`,
		Example: `  luahook trust
  luahook trust ~/src/project
  luahook trust --list`,
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
				return listTrusted(s, store)
			}
			folder, err := folderArg(args)
			if err != nil {
				return err
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
	return cmd
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
