package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/trust"
)

// Where a command's config and hooks folder come from, in this order:
//
//   - named explicitly (--config, --dir, LUAHOOK_CONFIG, LUAHOOK_DIR): the
//     operator's choice, loaded as named, and the whole choice: with either
//     named, nothing of the current folder nor of the user's config folder
//     is read (--dir alone runs that folder on the default settings);
//   - found by default in the current folder (./luahook.toml, ./hooks.d, or
//     the hooks_dir of that ./luahook.toml): the repository's code. A folder
//     never trusted is refused whole; one the operator trusted (luahook
//     trust) is opened with its record as the engine's Options.Trust, which
//     checks each file as it loads it (at start, on each reload, a lib
//     module first required during a call) against the content trusted;
//   - when the current folder has neither ./luahook.toml nor ./hooks.d, the
//     user's own config folder ($XDG_CONFIG_HOME/luahook: luahook.toml and
//     hooks.d there), the operator's default home for policies.
const projectConfig, projectHooks = trust.ConfigFile, engine.DefaultHooksDir

// sources are the config file and hooks folder a command opens, and why.
type sources struct {
	config string // engine.Options.ConfigPath ("": none)
	dir    string // engine.Options.Dir ("": the config's hooks_dir)
	// untrusted refuses what was found by default in the current folder
	// when the folder was never trusted (*trust.UntrustedError), or why
	// its trust could not be checked; nil otherwise.
	untrusted error
	// trust is the project folder's record, which the engine checks each
	// file of the folder against as it loads it (engine.Options.Trust);
	// nil when nothing came from a project folder.
	trust *trust.Files
	// folder is the project folder ("" when nothing came from one).
	folder string
	// configFromProject and dirFromProject say which of the two came from
	// project, so that an untrusted folder drops exactly those.
	configFromProject, dirFromProject bool
	// none: no config and no hooks folder anywhere (nothing named, nothing
	// in the current folder, nothing in the user's config folder).
	none bool
	// missing: fire --project found no project policies (sourcesAt); nothing
	// is opened.
	missing error
}

// sources resolves the global options into what to open, and judges the
// trust of what was found in the current folder.
func (g *globalOptions) sources() (*sources, error) { return g.sourcesAt("", false) }

// sourcesAt is sources for a command that knows where its payload's agent
// works (fire and explain: the payload's cwd). With start set, the project
// is found as git finds a repository: the nearest folder at or above start
// that holds ./luahook.toml or ./hooks.d, looking no higher than the
// repository's root (a folder holding .git). With expect (fire --project),
// a project must be found: when none is, missing says so and nothing else
// is opened, so that an event that can block is denied rather than decided
// by the user's own folder. Without start, only the current folder counts.
func (g *globalOptions) sourcesAt(start string, expect bool) (*sources, error) {
	if err := g.checkDir(); err != nil {
		return nil, err
	}
	s := &sources{config: g.config, dir: g.dir}
	if s.config != "" || s.dir != "" {
		return s, nil // the operator's choice is the whole choice
	}
	folder, err := projectFolder(start)
	if err != nil {
		return nil, err
	}
	if folder != "" {
		cfg, hooks := filepath.Join(folder, projectConfig), filepath.Join(folder, projectHooks)
		if start == "" {
			cfg, hooks = projectConfig, projectHooks // as before: relative to the current folder
		}
		if isFile(cfg) {
			s.config, s.configFromProject, s.dirFromProject = cfg, true, true // the project config's hooks_dir
		} else {
			s.dir, s.dirFromProject = hooks, true
		}
		s.folder = folder
		s.trust, s.untrusted = projectTrust(folder, s.configFromProject, s.dirFromProject)
		return s, nil
	}
	if expect {
		s.missing = fmt.Errorf("no project policies: neither %s nor %s at or above %s (looking up to the repository's root); "+
			"the hook expects the project's own (luahook install --project), so the action was not decided by any other folder",
			projectConfig, projectHooks, start)
		return s, nil
	}
	if home, err := homeFolder(); err == nil {
		if isFile(filepath.Join(home, projectConfig)) {
			s.config = filepath.Join(home, projectConfig)
		} else if isDir(filepath.Join(home, projectHooks)) {
			s.dir = filepath.Join(home, projectHooks)
		}
	}
	s.none = s.config == "" && s.dir == ""
	return s, nil
}

// projectFolder returns the folder whose ./luahook.toml or ./hooks.d a
// command run from start loads by default (its real path), "" when there is
// none. Without start it is the current folder, when it holds either; with
// start, the nearest folder at or above it that does, no higher than the
// first folder holding .git (the repository's root) or the file system's.
func projectFolder(start string) (string, error) {
	if start == "" {
		if !isFile(projectConfig) && !isDir(projectHooks) {
			return "", nil
		}
		wd, err := os.Getwd()
		if err == nil {
			wd, err = filepath.EvalSymlinks(wd)
		}
		return wd, err
	}
	dir, err := filepath.EvalSymlinks(start)
	if err != nil {
		return "", fmt.Errorf("the payload's cwd %s: %w", start, err)
	}
	for {
		if isFile(filepath.Join(dir, projectConfig)) || isDir(filepath.Join(dir, projectHooks)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir || exists(filepath.Join(dir, ".git")) {
			return "", nil
		}
		dir = parent
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// engineTrust is the engine.Options.Trust of the sources: the project
// folder's record, nil when nothing came from a project.
func (s *sources) engineTrust() engine.Trust {
	if s.trust == nil {
		return nil
	}
	return s.trust
}

// configTrust is the engine.Options.Trust of an engine that opens the
// sources' config with a hooks folder named by the operator (serve
// --shadow-dir): the project's record for the config alone.
func (s *sources) configTrust() engine.Trust {
	if s.trust == nil || !s.configFromProject {
		return nil
	}
	return configOnly{s.trust, filepath.Base(s.config)}
}

// configOnly applies a trust to the config file alone (named as
// engine.Trust names it: its base name).
type configOnly struct {
	engine.Trust
	name string
}

func (c configOnly) Check(name string, sum [32]byte) error {
	if name != c.name {
		return nil
	}
	return c.Trust.Check(name, sum)
}

// untrustedWhole returns, for a command that runs more of the project
// folder than the engine loads (luahook test runs its *_test.lua files),
// why the folder's current content as a whole is not the content trusted:
// untrusted, else the folder's digest against the record (checkTrust).
func (s *sources) untrustedWhole() error {
	if s.untrusted != nil || s.folder == "" {
		return s.untrusted
	}
	return checkTrust(s.folder, s.configFromProject, s.dirFromProject)
}

// trusted returns the sources to open when the project folder is not
// trusted: what was named explicitly, without what came from the project.
// ok is false when nothing is left to open.
func (s *sources) trusted() (config, dir string, ok bool) {
	config, dir = s.config, s.dir
	if s.configFromProject {
		config = ""
	}
	if s.dirFromProject {
		return config, "", false
	}
	return config, dir, dir != "" || config != ""
}

// homeFolder returns the user's luahook folder, $XDG_CONFIG_HOME/luahook.
func homeFolder() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "luahook"), nil
}

// trustStore returns the store of trust records of the user.
func trustStore() (*trust.Store, error) {
	dir, err := trust.DefaultDir()
	if err != nil {
		return nil, err
	}
	return &trust.Store{Dir: dir}, nil
}

// folderContent digests what luahook would read and run from folder by
// default: its luahook.toml and the hooks folder (the config's hooks_dir,
// else folder/hooks.d). luahook trust records it.
func folderContent(folder string) (*engine.Content, error) { return trust.Content(folder) }

// projectTrust judges the trust of a project folder: a folder with a record
// is opened with it (the engine checks each file against it as it loads
// it), except a record from before per-file sums whose folder changed
// since, which refuses the folder whole as before; a folder never trusted
// is refused whole (untrusted), naming what was found there.
func projectTrust(folder string, config, hooks bool) (*trust.Files, error) {
	store, err := trustStore()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot check whether the folder is trusted: %w", folder, err)
	}
	rec, err := store.Get(folder)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot check whether the folder is trusted: %w", folder, err)
	}
	if rec == nil || rec.FileSums == nil {
		if err := checkTrust(folder, config, hooks); err != nil {
			return nil, err
		}
	}
	return store.Files(folder), nil
}

// checkTrust returns nil when folder is trusted with its current content as
// a whole (the folder's digest), else why not, naming what was found there
// that needs the trust: its config, its hooks folder.
func checkTrust(folder string, config, hooks bool) error {
	store, err := trustStore()
	if err != nil {
		return fmt.Errorf("%s: cannot check whether the folder is trusted: %w", folder, err)
	}
	c, err := folderContent(folder)
	if err != nil {
		return fmt.Errorf("%s: cannot check whether the folder is trusted: %w", folder, err)
	}
	var found []string
	if config {
		found = append(found, "./"+projectConfig)
	}
	if rel := relTo(folder, c.Dir); hooks && isDir(c.Dir) {
		if !filepath.IsAbs(rel) {
			rel = "./" + rel
		}
		found = append(found, rel)
	}
	return store.Check(folder, c, found)
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// errNothingHere is what check and list say when there is nothing to load.
func errNothingHere() error {
	home, err := homeFolder()
	if err != nil {
		home = "$XDG_CONFIG_HOME/luahook"
	}
	return fmt.Errorf("no hooks folder and no config here: neither ./%s nor ./%s exists, nor %s nor %s; "+
		"run from the folder that holds them, or name them with --dir or --config",
		projectHooks, projectConfig, filepath.Join(home, projectHooks), filepath.Join(home, projectConfig))
}
