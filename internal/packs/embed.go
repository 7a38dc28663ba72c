// Package packs is luahook's policy library: guard packs, each a Lua policy
// file with its *_test.lua, embedded in the binary and added to a hooks
// folder by `luahook add`. A pack needs the lib modules it requires, which
// ship in the hooks.d package (hooksd.FS); Files lists them with the pack.
package packs

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/luahook/luahook/internal/suggest"

	hooksd "github.com/luahook/luahook/hooks.d"
)

// FS holds every pack: <name>.lua and <name>_test.lua.
//
//go:embed *.lua
var FS embed.FS

// Pack is one pack of the library.
type Pack struct {
	// Name is the pack's name: its file is Name.lua, its test Name_test.lua.
	Name string
	// Description is the pack's one-line description, from its first line
	// ("-- name: description").
	Description string
	// Modules are the lib modules the pack and its test require, directly
	// or through another module, in name order ("shell", "shell.lex", ...).
	Modules []string
}

// File is one file `luahook add` writes into a hooks folder.
type File struct {
	// Path is relative to the hooks folder, slash-separated ("git.lua",
	// "lib/shell/lex.lua").
	Path string
	// Data is the file's content.
	Data []byte
	// Lib marks a lib module: one the folder may already hold in another
	// version (an older luahook's), which add leaves alone.
	Lib bool
}

// List returns every pack of the library in name order. Its error names a
// pack file that breaks the library's layout (no "-- name: description"
// first line, no test file, a required module that is not shipped).
func List() ([]Pack, error) {
	return list(FS, hooksd.FS)
}

// Lookup returns the pack called name.
func Lookup(name string) (Pack, bool, error) {
	all, err := List()
	if err != nil {
		return Pack{}, false, err
	}
	for _, p := range all {
		if p.Name == name {
			return p, true, nil
		}
	}
	return Pack{}, false, nil
}

// Files returns what adding p writes: the pack, its test, then the lib
// modules it needs (from hooksd.FS).
func (p Pack) Files() ([]File, error) {
	return p.files(FS, hooksd.FS)
}

func (p Pack) files(packs, lib fs.FS) ([]File, error) {
	var out []File
	for _, name := range []string{p.Name + ".lua", p.Name + "_test.lua"} {
		data, err := fs.ReadFile(packs, name)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", p.Name, err)
		}
		out = append(out, File{Path: name, Data: data})
	}
	for _, m := range p.Modules {
		rel := modulePath(m)
		data, err := fs.ReadFile(lib, rel)
		if err != nil {
			return nil, fmt.Errorf("pack %s: lib module %q: %w", p.Name, m, err)
		}
		out = append(out, File{Path: rel, Data: data, Lib: true})
	}
	return out, nil
}

// Suggest returns the pack name closest to name (one that starts with it,
// or at most two edits away), or "".
func Suggest(name string) string {
	lower := strings.ToLower(name)
	names := Names()
	for _, n := range names {
		if strings.HasPrefix(n, lower) && lower != "" {
			return n
		}
	}
	return suggest.Nearest(lower, names, 2)
}

func list(packs, lib fs.FS) ([]Pack, error) {
	names, err := fs.Glob(packs, "*.lua")
	if err != nil {
		return nil, err
	}
	var out []Pack
	for _, n := range names {
		if strings.HasSuffix(n, "_test.lua") {
			continue
		}
		p, err := read(packs, lib, strings.TrimSuffix(n, ".lua"))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// headerLine is a pack's first line: "-- name: description".
var headerLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-- ([a-z][a-z0-9-]*): (\S.*)$`) }) // compiled on first use, not at start-up

func read(packs, lib fs.FS, name string) (Pack, error) {
	src, err := fs.ReadFile(packs, name+".lua")
	if err != nil {
		return Pack{}, err
	}
	first, _, _ := bytes.Cut(src, []byte("\n"))
	m := headerLine().FindSubmatch(bytes.TrimRight(first, "\r"))
	if m == nil || string(m[1]) != name {
		return Pack{}, fmt.Errorf("packs/%s.lua:1: the first line must be %q", name, "-- "+name+": <one-line description>")
	}
	test, err := fs.ReadFile(packs, name+"_test.lua")
	if err != nil {
		return Pack{}, fmt.Errorf("packs/%s.lua: no test file: %w", name, err)
	}
	mods, err := modules(lib, [][]byte{src, test})
	if err != nil {
		return Pack{}, fmt.Errorf("packs/%s.lua: %w", name, err)
	}
	return Pack{Name: name, Description: string(m[2]), Modules: mods}, nil
}

// requireCall finds require("name") and require "name" calls.
var requireCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\brequire\s*\(?\s*["']([A-Za-z0-9_.-]+)["']`) }) // compiled on first use, not at start-up

// modules returns the lib modules that srcs require, and those the modules
// require in turn, in name order.
func modules(lib fs.FS, srcs [][]byte) ([]string, error) {
	seen := map[string]bool{}
	queue := slices.Clone(srcs)
	for len(queue) > 0 {
		src := queue[0]
		queue = queue[1:]
		for _, m := range requireCall().FindAllSubmatch(src, -1) {
			name := string(m[1])
			if seen[name] {
				continue
			}
			seen[name] = true
			data, err := fs.ReadFile(lib, modulePath(name))
			if err != nil {
				return nil, fmt.Errorf("requires %q, which is not a shipped lib module (hooks.d/%s): %w", name, modulePath(name), err)
			}
			queue = append(queue, data)
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// modulePath is where require finds a module below the hooks folder:
// "shell.lex" -> "lib/shell/lex.lua".
func modulePath(name string) string {
	return path.Join("lib", strings.ReplaceAll(name, ".", "/")+".lua")
}
