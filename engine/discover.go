package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luahook/luahook/internal/config"
)

// DefaultHooksDir is the hooks folder when neither Options.Dir nor the
// config's hooks_dir names one.
const DefaultHooksDir = config.DefaultHooksDir

// IsHookFile reports whether a folder entry's name is a hook file: a *.lua
// that is not a test file (*_test.lua) nor hidden (editors' lock and swap
// files start with a dot: .#x.lua, .x.lua.swp).
func IsHookFile(name string) bool {
	return strings.HasSuffix(name, ".lua") && !IsTestFile(name) && !strings.HasPrefix(name, ".")
}

// IsTestFile reports whether a folder entry's name is a policy test file: a
// *_test.lua that is not hidden.
func IsTestFile(name string) bool {
	return strings.HasSuffix(name, "_test.lua") && !strings.HasPrefix(name, ".")
}

// TestFiles lists the policy test files of paths (none: DefaultHooksDir): a
// file as it is given, a folder's test files (IsTestFile) at its top level
// in name order. An entry with a test file's name is listed whatever it is
// (a named pipe, a dangling link), so that it fails when it is opened
// rather than be passed over.
func TestFiles(paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{DefaultHooksDir}
	}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, n := range entryNames(ents, IsTestFile) {
			files = append(files, filepath.Join(p, n))
		}
	}
	return files, nil
}

// entryNames returns the names of a folder's entries that keep accepts
// (IsHookFile, IsTestFile), in name order, whatever each entry is: a named
// pipe, a folder or a dangling link with a hook or test file's name is
// reported when it is opened rather than passed over in silence.
func entryNames(ents []fs.DirEntry, keep func(name string) bool) []string {
	var names []string
	for _, d := range ents {
		if keep(d.Name()) {
			names = append(names, d.Name())
		}
	}
	slices.Sort(names)
	return names
}

// HooksDir returns the hooks folder that Open(Options{Dir: dir, ConfigPath:
// configPath}) loads: dir, else the hooks_dir of the config file (relative
// to its folder), else DefaultHooksDir. A config file that does not load is
// an error, as it is for Open.
func HooksDir(dir, configPath string) (string, error) {
	if dir != "" || configPath == "" {
		return hooksDirOr(dir, nil), nil
	}
	cfg, _, _, err := readConfig(configPath, 0)
	if err != nil {
		return "", err
	}
	return hooksDirOr(dir, cfg), nil
}

// hooksDirOr is the fallback of Options.Dir: dir, else cfg's hooks_dir (cfg
// may be nil), else DefaultHooksDir.
func hooksDirOr(dir string, cfg *config.Config) string {
	if dir == "" && cfg != nil {
		dir = cfg.HooksDir
	}
	if dir == "" {
		dir = DefaultHooksDir
	}
	return dir
}
