package coverage

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
)

// Counters holds the line counts of every file instrumented for one run, by
// path. Its files are written concurrently by every Lua state that runs
// them; it is safe for concurrent use.
type Counters struct {
	mu    sync.Mutex
	files map[string]*File
}

// File returns the counts of the file at path whose executable lines are
// lines (ascending, as Instrument returns them). A file compiled again with
// the same lines (each test case's engine compiles it anew) shares the
// counts of the first compilation; a file whose lines changed (it was edited
// during the run) starts over, and its report is of its last version.
func (c *Counters) File(path string, lines []int) *File {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.files[path]; ok && slices.Equal(f.lines, lines) {
		return f
	}
	n := 0
	if len(lines) > 0 {
		n = lines[len(lines)-1] + 1
	}
	f := &File{path: path, lines: lines, hits: make([]atomic.Uint64, n)}
	f.fn = &lua.LFunction{IsG: true, GFunction: f.count}
	if c.files == nil {
		c.files = make(map[string]*File)
	}
	c.files[path] = f
	return f
}

// Report is the coverage of one file: its executable lines, split into
// those that ran at least once and those that never did, each ascending.
type Report struct {
	Path      string
	Covered   []int
	Uncovered []int
}

// Reports returns the coverage of every file, ordered by path.
func (c *Counters) Reports() []Report {
	c.mu.Lock()
	files := make([]*File, 0, len(c.files))
	for _, f := range c.files {
		files = append(files, f)
	}
	c.mu.Unlock()
	slices.SortFunc(files, func(a, b *File) int { return strings.Compare(a.path, b.path) })
	out := make([]Report, len(files))
	for i, f := range files {
		out[i] = f.report()
	}
	return out
}

// File counts the statements reached on each executable line of one file.
type File struct {
	path  string
	lines []int
	hits  []atomic.Uint64 // by line number
	fn    *lua.LFunction
}

func (f *File) report() Report {
	r := Report{Path: f.path, Covered: []int{}, Uncovered: []int{}}
	for _, l := range f.lines {
		if f.hits[l].Load() > 0 {
			r.Covered = append(r.Covered, l)
		} else {
			r.Uncovered = append(r.Uncovered, l)
		}
	}
	return r
}

// Hits returns how many times a statement on line was reached.
func (f *File) Hits(line int) uint64 {
	if line < 0 || line >= len(f.hits) {
		return 0
	}
	return f.hits[line].Load()
}

// Func returns the function the marker calls of the file's chunks call:
// it counts the line of the statement that called it. It is shared by every
// chunk of the file and every state that runs them; nothing writes to it
// (its Env stays nil, as for every Go function the sandbox hands out without
// getfenv and setfenv).
func (f *File) Func() *lua.LFunction { return f.fn }

// count is the marker call: level 1 of the stack is the Lua function that
// made it, whose current instruction is the call, at the statement's line.
func (f *File) count(L *lua.LState) int {
	dbg, ok := L.GetStack(1)
	if !ok {
		return 0
	}
	if _, err := L.GetInfo("l", dbg, lua.LNil); err != nil {
		return 0
	}
	if l := dbg.CurrentLine; l >= 0 && l < len(f.hits) {
		f.hits[l].Add(1)
	}
	return 0
}

// Resolve replaces Marker with fn in the constants of p and of every
// function nested in it.
func Resolve(p *lua.FunctionProto, fn *lua.LFunction) {
	protos := []*lua.FunctionProto{p}
	for len(protos) > 0 {
		p := protos[len(protos)-1]
		protos = append(protos[:len(protos)-1], p.FunctionPrototypes...)
		for i, k := range p.Constants {
			if s, ok := k.(lua.LString); ok && s == Marker {
				p.Constants[i] = fn
			}
		}
	}
}
