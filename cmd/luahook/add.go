package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/packs"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/safefile"
)

type addOptions struct {
	list  bool
	force bool
}

func newAddCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &addOptions{}
	cmd := &cobra.Command{
		Use:   "add PACK... | add --list",
		Short: "Add guard packs from luahook's policy library to a hooks folder",
		Long: `add writes each named pack of the policy library (PACK.lua and its test
PACK_test.lua), with the lib modules it requires that the folder lacks, into
the hooks folder: --dir, else the folder the other commands load (the
config's hooks_dir, ./hooks.d, $XDG_CONFIG_HOME/luahook/hooks.d).

A file the folder already holds with the same content is left alone. One
with other content (a pack you changed) is refused, naming it, and nothing
at all is written; --force replaces it. A lib module the folder holds in
another version is kept (--force replaces it too). Files are written whole
(a temporary file renamed into place), readable by all and writable by you
only, as the hooks folder requires.

Each pack's header comment says what it stops, why, its settings (a table at
the top of the file) and what it cannot know. --list prints every pack with
its one-line description.`,
		Example: `  luahook add --list
  luahook add shell git --dir hooks.d
  luahook test --dir hooks.d`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.list {
				if len(args) > 0 {
					return errors.New("--list takes no pack names")
				}
				return listPacks(s)
			}
			if len(args) == 0 {
				return fmt.Errorf("name at least one pack (see: luahook add --list)")
			}
			dir, err := g.addDir()
			if err != nil {
				return err
			}
			return addPacks(s, dir, args, o.force)
		},
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list the packs of the library with their descriptions")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace files that differ from the shipped version")
	return cmd
}

func listPacks(s *streams) error {
	all, err := packs.List()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	for _, p := range all {
		fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Description)
	}
	return tw.Flush()
}

// addDir returns the hooks folder add writes to: --dir (created
// when missing), else the folder the other commands would load. With neither
// it refuses rather than guess where policies should live.
func (g *globalOptions) addDir() (string, error) {
	if g.dir != "" {
		// a missing folder is created when the first file is written
		if st, err := os.Stat(g.dir); err == nil && !st.IsDir() {
			return "", fmt.Errorf("hooks folder --dir %s: not a folder", g.dir)
		}
		return g.dir, nil
	}
	src, err := g.sources()
	if err != nil {
		return "", err
	}
	if src.none {
		home, err := homeFolder()
		if err != nil {
			home = "$XDG_CONFIG_HOME/luahook"
		}
		return "", fmt.Errorf("no hooks folder here: name one with --dir (./%s for this project, %s for all your projects)",
			projectHooks, filepath.Join(home, projectHooks))
	}
	return engine.HooksDir(src.dir, src.config)
}

// maxInstalledBytes bounds how much of a file already in the hooks folder
// add reads to compare it with the shipped version; a larger file differs.
const maxInstalledBytes = 1 << 20

// plannedFile is one file of an add and what happens to it.
type plannedFile struct {
	packs.File
	target string
	action string // "add", "same", "keep" (a lib module in another version), "replace", "refuse"
	why    string // for "refuse"
}

// addPacks adds the named packs to dir. Every target is checked before
// any is written: a refusal writes nothing.
func addPacks(s *streams, dir string, names []string, force bool) error {
	var plan []*plannedFile
	seen := map[string]bool{}
	// The packs are written inside the hooks folder through no link.
	scope := safefile.Scope{Dir: dir, Follow: true, What: "the hooks folder"}
	for _, name := range names {
		p, ok, err := packs.Lookup(name)
		if err != nil {
			return err
		}
		if !ok {
			if sug := packs.Suggest(name); sug != "" {
				return fmt.Errorf("no pack %q; did you mean %s? (see: luahook add --list)", name, sug)
			}
			return fmt.Errorf("no pack %q (see: luahook add --list)", name)
		}
		files, err := p.Files()
		if err != nil {
			return err
		}
		for _, f := range files {
			if seen[f.Path] {
				continue
			}
			seen[f.Path] = true
			pf := &plannedFile{File: f, target: filepath.Join(dir, filepath.FromSlash(f.Path))}
			pf.action, pf.why = judge(scope, pf.target, f, force)
			plan = append(plan, pf)
		}
	}
	var refused []string
	for _, pf := range plan {
		if pf.action == "refuse" {
			refused = append(refused, pf.target+": "+pf.why)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("nothing written:\n  %s", strings.Join(refused, "\n  "))
	}
	for _, pf := range plan {
		switch pf.action {
		case "add", "replace":
			if err := writePackFile(scope, pf); err != nil {
				return err
			}
			verb := "added"
			if pf.action == "replace" {
				verb = "replaced"
			}
			fmt.Fprintf(s.out, "%-9s %s\n", verb, pf.target)
		case "same":
			fmt.Fprintf(s.out, "%-9s %s (already installed)\n", "unchanged", pf.target)
		case "keep":
			fmt.Fprintf(s.out, "%-9s %s (differs from the shipped version; --force replaces it)\n", "kept", pf.target)
		}
	}
	if slices.ContainsFunc(plan, func(pf *plannedFile) bool { return pf.action == "add" || pf.action == "replace" }) {
		fmt.Fprintf(s.out, "next: luahook test --dir %s\n", dir)
	}
	return nil
}

// writePackFile writes pf in the hooks folder of scope, making the folders
// on its way (mode 0755) and never writing through a link: with --force a
// link or special file in the way is removed (the link itself, never its
// target) before the file is written whole.
func writePackFile(scope safefile.Scope, pf *plannedFile) error {
	dir, err := safefile.OpenDir(scope, filepath.Dir(filepath.FromSlash(pf.Path)), 0o755)
	if err != nil {
		return err
	}
	defer dir.Close()
	name := filepath.Base(pf.target)
	if fi, err := dir.Lstat(name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		if err := dir.Remove(name); err != nil {
			return err
		}
	}
	return dir.WriteFile(name, pf.Data, 0o644)
}

// judge decides what adding f at target does.
func judge(scope safefile.Scope, target string, f packs.File, force bool) (action, why string) {
	// The folders on the way, as writePackFile will open them.
	if dir, err := safefile.OpenDir(scope, filepath.Dir(filepath.FromSlash(f.Path)), 0); err == nil {
		dir.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "refuse", err.Error()
	}
	fi, err := os.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "add", ""
	case err != nil:
		return "refuse", err.Error()
	case fi.IsDir():
		return "refuse", "a folder is in the way"
	case !fi.Mode().IsRegular():
		if force {
			return "replace", ""
		}
		return "refuse", "exists and is " + regfile.Kind(fi.Mode()) + ", not a file; remove it or pass --force"
	}
	var refused *safefile.Error
	if err := safefile.CheckFile(target, fi); errors.As(err, &refused) {
		return "refuse", refused.Problem
	}
	if fi.Size() == int64(len(f.Data)) {
		cur, err := regfile.Read(target, maxInstalledBytes)
		if err != nil {
			return "refuse", err.Error()
		}
		if bytes.Equal(cur, f.Data) {
			return "same", ""
		}
	}
	switch {
	case force:
		return "replace", ""
	case f.Lib:
		return "keep", ""
	}
	return "refuse", "differs from the shipped version (changed by hand?); review it, or pass --force to replace it"
}
