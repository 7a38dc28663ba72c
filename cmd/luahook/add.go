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
	list    bool
	force   bool
	upgrade bool
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

Each pack is judged on its own: add writes every pack it can, says which
ones it cannot and why (no such pack, a file in the way), and then exits 1.
A file the folder already holds with the same content is left alone (a
pack whose files all match is up to date). A pack file with other content
(an older luahook's, or one you changed) is refused, naming it; a lib
module the folder holds in another version is kept.

A pack's settings live in the config, in a [packs.PACK] table, not in its
code: --upgrade replaces the code of a pack the folder holds in another
version (and the lib modules it needs), and keeps its settings. Settings
changed in the old copy's SETTINGS table (what an older luahook had you
edit) are moved into the config's [packs.PACK] first, each one named; when
they cannot be (no config file, a JSON config, a value the config sets
otherwise), the pack is refused with the lines to add yourself. --force
replaces files as shipped, and warns when that discards settings changed in
the old copy.

Files are written whole (a temporary file renamed into place), readable by
all and writable by you only, as the hooks folder requires.

Each pack's header comment says what it stops, why, its settings and what
it cannot know. --list prints every pack with its one-line description.`,
		Example: `  luahook add --list
  luahook add shell git --dir hooks.d
  luahook add --upgrade git --config luahook.toml
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
			if o.force && o.upgrade {
				return errors.New("--force and --upgrade do not go together: --upgrade keeps your settings, --force replaces files as shipped")
			}
			dir, err := g.addDir()
			if err != nil {
				return err
			}
			return addPacks(s, dir, args, addMode{force: o.force, upgrade: o.upgrade, config: g.addConfig(dir)})
		},
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list the packs of the library with their descriptions")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace files that differ from the shipped version (settings changed in them are lost: see --upgrade)")
	cmd.Flags().BoolVar(&o.upgrade, "upgrade", false, "replace the code of packs the folder holds in another version, keeping their settings in the config's [packs.PACK]")
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
			return "", fmt.Errorf("hooks folder %s %s: not a folder", g.dirName(), g.dir)
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

// addConfig returns the config file whose [packs.PACK] tables add --upgrade
// keeps settings in: --config, else the config the other commands load,
// when its hooks folder is dir; "" when there is none.
func (g *globalOptions) addConfig(dir string) string {
	if g.config != "" {
		return g.config
	}
	bare := *g
	bare.dir = ""
	src, err := bare.sources()
	if err != nil || src.config == "" {
		return ""
	}
	hooks, err := engine.HooksDir(src.dir, src.config)
	if err != nil || !samePath(hooks, dir) {
		return ""
	}
	return src.config
}

// samePath reports whether a and b name the same folder, as absolute paths.
func samePath(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && filepath.Clean(a) == filepath.Clean(b)
}

// maxInstalledBytes bounds how much of a file already in the hooks folder
// add reads to compare it with the shipped version; a larger file differs.
const maxInstalledBytes = 1 << 20

// addMode is how add treats files the folder holds in another version.
type addMode struct {
	force   bool   // replace them as shipped
	upgrade bool   // replace code, keep settings (in config)
	config  string // the config file of [packs.PACK] ("": none)
}

// plannedFile is one file of an add and what happens to it.
type plannedFile struct {
	packs.File
	target string
	action string // "add", "same", "keep" (a lib module in another version), "replace", "refuse"
	why    string // for "refuse"
	// cur is the content the folder holds (read when it differs and is
	// the pack's own file, for the settings in it).
	cur []byte
}

// addPacks adds the named packs to dir, each on its own: the files of a
// pack are all checked before any is written, a pack with a refused file
// is not written at all, and every other pack is. It returns an error
// naming each pack not written and why.
func addPacks(s *streams, dir string, names []string, mode addMode) error {
	// The packs are written inside the hooks folder through no link.
	scope := safefile.Scope{Dir: dir, Follow: true, What: "the hooks folder"}
	var failed []string
	var lastErr error
	done := map[string]bool{} // packs handled, against names given twice
	shown := map[string]bool{}
	wrote := false
	for _, name := range names {
		if done[name] {
			continue
		}
		done[name] = true
		w, err := addPack(s, scope, dir, name, mode, shown)
		wrote = wrote || w
		if err != nil {
			lastErr = err
			failed = append(failed, name+": "+strings.ReplaceAll(err.Error(), "\n", "\n    "))
		}
	}
	if wrote {
		fmt.Fprintf(s.out, "next: luahook test --dir %s\n", dir)
	}
	if len(done) == 1 && lastErr != nil {
		return lastErr
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d packs not written:\n  %s", len(failed), len(done), strings.Join(failed, "\n  "))
	}
	return nil
}

// addPack adds one pack, printing what it does with each file (once per
// run: shown), and reports whether it wrote any.
func addPack(s *streams, scope safefile.Scope, dir, name string, mode addMode, shown map[string]bool) (bool, error) {
	p, ok, err := packs.Lookup(name)
	if err != nil {
		return false, err
	}
	if !ok {
		if sug := packs.Suggest(name); sug != "" {
			return false, fmt.Errorf("no pack %q; did you mean %s? (see: luahook add --list)", name, sug)
		}
		return false, fmt.Errorf("no pack %q (see: luahook add --list)", name)
	}
	files, err := p.Files()
	if err != nil {
		return false, err
	}
	var plan []*plannedFile
	var refused []string
	for _, f := range files {
		pf := &plannedFile{File: f, target: filepath.Join(dir, filepath.FromSlash(f.Path))}
		pf.action, pf.why, pf.cur = judge(scope, pf.target, f, mode)
		if pf.action == "refuse" {
			refused = append(refused, pf.target+": "+pf.why)
		}
		plan = append(plan, pf)
	}
	if len(refused) > 0 {
		return false, errors.New(strings.Join(refused, "\n"))
	}
	// The pack's own file in another version: its settings are kept
	// (--upgrade) or their loss is told (--force) before any is written.
	own := plan[0]
	if own.action == "replace" && own.cur != nil {
		if mode.upgrade {
			if err := keepSettings(s, p.Name, own, mode.config); err != nil {
				return false, err
			}
		} else {
			warnDiscarded(s, p.Name, own)
		}
	}
	wrote := false
	for _, pf := range plan {
		if shown[pf.target] && pf.action != "add" && pf.action != "replace" {
			continue
		}
		shown[pf.target] = true
		switch pf.action {
		case "add", "replace":
			if err := writePackFile(scope, pf); err != nil {
				return wrote, err
			}
			wrote = true
			verb := "added"
			if pf.action == "replace" {
				verb = "replaced"
			}
			fmt.Fprintf(s.out, "%-9s %s\n", verb, pf.target)
		case "keep":
			fmt.Fprintf(s.out, "%-9s %s (differs from the shipped version; --upgrade or --force replaces it)\n", "kept", pf.target)
		}
	}
	if !wrote && !slices.ContainsFunc(plan, func(pf *plannedFile) bool { return pf.action == "keep" }) {
		fmt.Fprintf(s.out, "%-9s %s (%s)\n", "unchanged", p.Name, "up to date: every file is the shipped version")
	}
	return wrote, nil
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

// judge decides what adding f at target does. cur is the content the
// folder holds when it differs and f is a pack's own file (not its test,
// not a lib module) that is replaced, for the settings in it.
func judge(scope safefile.Scope, target string, f packs.File, mode addMode) (action, why string, cur []byte) {
	// The folders on the way, as writePackFile will open them.
	if dir, err := safefile.OpenDir(scope, filepath.Dir(filepath.FromSlash(f.Path)), 0); err == nil {
		dir.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "refuse", err.Error(), nil
	}
	fi, err := os.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "add", "", nil
	case err != nil:
		return "refuse", err.Error(), nil
	case fi.IsDir():
		return "refuse", "a folder is in the way", nil
	case !fi.Mode().IsRegular():
		if mode.force {
			return "replace", "", nil
		}
		return "refuse", "exists and is " + regfile.Kind(fi.Mode()) + ", not a file; remove it or pass --force", nil
	}
	var refused *safefile.Error
	if err := safefile.CheckFile(target, fi); errors.As(err, &refused) {
		return "refuse", refused.Problem, nil
	}
	// The pack's own file is read whole when it may be replaced: the
	// settings changed in it are kept (--upgrade) or told (--force).
	own := !f.Lib && !strings.HasSuffix(f.Path, "_test.lua") && (mode.force || mode.upgrade)
	if fi.Size() == int64(len(f.Data)) || own {
		cur, err := regfile.Read(target, maxInstalledBytes)
		switch {
		case err != nil && own && mode.force && isTooLarge(err):
			return "replace", "", nil
		case err != nil:
			return "refuse", err.Error(), nil
		case bytes.Equal(cur, f.Data):
			return "same", "", nil
		case own:
			return "replace", "", cur
		}
	}
	switch {
	case mode.force || mode.upgrade:
		return "replace", "", nil
	case f.Lib:
		return "keep", "", nil
	}
	if strings.HasSuffix(f.Path, "_test.lua") {
		return "refuse", "differs from the shipped version (an older luahook's, or changed by hand); " +
			"--upgrade or --force replaces it", nil
	}
	return "refuse", "differs from the shipped version (an older luahook's, or changed by hand); " +
		"--upgrade replaces its code and keeps its settings (in the config's [packs." + strings.TrimSuffix(f.Path, ".lua") +
		"]), --force replaces it as shipped", nil
}

// isTooLarge reports whether err is regfile's refusal of a file above its bound.
func isTooLarge(err error) bool {
	var tl *regfile.TooLargeError
	return errors.As(err, &tl)
}
