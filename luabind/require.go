package luabind

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/internal/regfile"
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

// chunkList returns the modules compiled so far, in first-require order.
func (c *libCache) chunkList() []*Chunk {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Chunk, len(c.order))
	for i, name := range c.order {
		out[i] = c.chunks[name]
	}
	return out
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

// moduleRel is the slash-separated file of module name below the lib folder.
func moduleRel(name string) string { return strings.ReplaceAll(name, ".", "/") + ".lua" }

// chunk returns the compiled module, reading it from the lib directory the
// first time, through readLib.
func (c *libCache) chunk(opts *Options, name string) (*Chunk, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.chunks[name]; ok {
		return ch, nil
	}
	rel := moduleRel(name)
	path := filepath.Join(opts.LibDir, filepath.FromSlash(rel))
	src, sum, err := opts.Chunks.readLib(opts, rel)
	if err != nil {
		return nil, err
	}
	var ch *Chunk
	if opts.Chunks == nil || opts.Coverage != nil {
		ch, err = opts.Compile(path, src)
	} else {
		ch, err = opts.Chunks.compileSum(opts, path, src, sum)
	}
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

// readLib reads the module file rel (slash-separated) below libDir, at
// most limit bytes of it. Every open goes through an os.Root of libDir,
// so neither ".." nor a symbolic link leads outside it, and none blocks (a
// named pipe is refused, not waited on; see regfile). The lib folder, each
// folder on the way and the file are opened in turn and given to check with
// the status of the open descriptor (fstat) before the file is read: the
// file checked is the file read, and each folder checked is one that only
// trusted users can change, so the path through them stays what was
// checked.
func readLib(libDir, rel string, check func(string, fs.FileInfo) error, limit int) ([]byte, error) {
	root, err := regfile.OpenRoot(libDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if check != nil {
		dirs := []string{"."}
		for i := range len(rel) {
			if rel[i] == '/' {
				dirs = append(dirs, rel[:i])
			}
		}
		for _, name := range dirs {
			path := libDir
			if name != "." {
				path = filepath.Join(libDir, filepath.FromSlash(name))
			}
			d, fi, err := regfile.OpenDirIn(root, name, path)
			if err != nil {
				return nil, err
			}
			d.Close()
			if err := check(path, fi); err != nil {
				return nil, err
			}
		}
	}
	path := filepath.Join(libDir, filepath.FromSlash(rel))
	f, fi, err := regfile.OpenIn(root, rel, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if check != nil {
		if err := check(path, fi); err != nil {
			return nil, err
		}
	}
	return regfile.ReadAll(f, fi, path, int64(limit))
}

// require is require(name) limited to Options.LibDir: "util" loads
// LibDir/util.lua and "util.strings" LibDir/util/strings.lua. The names
// "host.NAME" are the host's modules (requireHost), never files. A module runs
// once per state with the globals of the state; its value (true if it
// returns nothing) is cached.
func (st *state) require(L *lua.LState) int {
	name := L.CheckString(1)
	if v, ok := st.loaded[name]; ok {
		L.Push(v)
		return 1
	}
	if name == "host" || strings.HasPrefix(name, "host.") {
		return st.requireHost(L, name)
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
		// A file that fails to load on it wraps err (a refusal by CheckLib
		// stays an error of the engine's type).
		st.requireErr = err
		if errors.Is(err, fs.ErrNotExist) {
			L.RaiseError("require %q: module not found in %s (looked for %s.lua)", name, libDir, strings.ReplaceAll(name, ".", "/"))
		}
		L.RaiseError("require %q: %v", name, err)
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
