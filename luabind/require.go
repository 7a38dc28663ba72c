package luabind

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// libCache holds the lib modules one file has required, compiled once and
// shared by the file's states (each state runs a module once and keeps its
// value). Keeping the first compilation for the file's lifetime means every
// state sees the same code, even if the lib changes on disk; the engine
// reloads the file instead (File.Requires).
type libCache struct {
	mu     sync.Mutex
	chunks map[string]*Chunk
	order  []string
}

func (c *libCache) names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.order)
}

// validModule checks a module name: dot-separated segments of letters,
// digits, '_' and '-'.
func validModule(name string) bool {
	if name == "" {
		return false
	}
	for _, seg := range strings.Split(name, ".") {
		if seg == "" {
			return false
		}
		for _, c := range seg {
			if !(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
				return false
			}
		}
	}
	return true
}

// chunk returns the compiled module, reading it from the lib directory the
// first time. The file is opened through an os.Root, so neither ".." nor a
// symbolic link can lead outside the directory.
func (c *libCache) chunk(opts *Options, name string) (*Chunk, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.chunks[name]; ok {
		return ch, nil
	}
	rel := strings.ReplaceAll(name, ".", "/") + ".lua"
	root, err := os.OpenRoot(opts.LibDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	path := filepath.Join(opts.LibDir, filepath.FromSlash(rel))
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := readSource(f, path, opts.MaxSourceBytes)
	if err != nil {
		return nil, err
	}
	ch, err := opts.Compile(path, src)
	if err != nil {
		return nil, err
	}
	if c.chunks == nil {
		c.chunks = make(map[string]*Chunk)
	}
	c.chunks[name] = ch
	c.order = append(c.order, name)
	return ch, nil
}

// readSource reads a Lua source from r, refusing one of more than limit
// bytes (opts.MaxSourceBytes, already defaulted) without reading it all.
func readSource(r io.Reader, path string, limit int) ([]byte, error) {
	src, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(src) > limit {
		n := len(src)
		if f, ok := r.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				n = int(fi.Size())
			}
		}
		return nil, sourceTooBig(path, n, limit)
	}
	return src, nil
}

// require is require(name) limited to Options.LibDir: "util" loads
// LibDir/util.lua and "util.strings" LibDir/util/strings.lua. A module runs
// once per state with the globals of the state; its value (true if it
// returns nothing) is cached.
func (st *state) require(L *lua.LState) int {
	name := L.CheckString(1)
	if v, ok := st.loaded[name]; ok {
		L.Push(v)
		return 1
	}
	libDir := st.sh.opts.LibDir
	if libDir == "" {
		L.RaiseError("require %q: no lib directory is configured, so require is disabled", name)
	}
	if !validModule(name) {
		L.RaiseError("require %q: a module name is dot-separated words (letters, digits, '_', '-') naming a file in %s, like \"util\" or \"util.strings\"", name, libDir)
	}
	if slices.Contains(st.requiring, name) {
		L.RaiseError("require %q: cycle (%s -> %s)", name, strings.Join(st.requiring, " -> "), name)
	}
	ch, err := st.sh.libs.chunk(&st.sh.opts, name)
	if err != nil {
		var le *LoadError
		switch {
		case errors.As(err, &le):
			L.RaiseError("require %q: %v", name, err)
		case errors.Is(err, fs.ErrNotExist):
			L.RaiseError("require %q: module not found in %s (looked for %s.lua)", name, libDir, strings.ReplaceAll(name, ".", "/"))
		default:
			L.RaiseError("require %q: %v", name, err)
		}
	}
	st.requiring = append(st.requiring, name)
	defer func() { st.requiring = st.requiring[:len(st.requiring)-1] }()
	L.Push(L.NewFunctionFromProto(ch.proto))
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	st.loaded[name] = v
	L.Push(v)
	return 1
}
