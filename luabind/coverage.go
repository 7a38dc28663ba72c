package luabind

import (
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/luahook/luahook/luabind/internal/coverage"
)

// Coverage counts which lines of hook files and lib modules run, for
// `luahook test --coverage`. Given in Options.Coverage, it makes Compile
// instrument every chunk it compiles (a session's own code excepted): a
// counting call before each executable statement, at the statement's line,
// that Lua code can neither name nor reach; the lines of errors and
// tracebacks stay the file's own. Without it Compile compiles exactly as
// before, at no cost.
//
// A line is executable when a statement starts on it: assignments, local
// declarations and `local function` headers, calls, `if` and each `elseif`,
// loop headers (counted once per entry into the loop), the `until` of a
// `repeat`, function definitions, `return`, `break` and `goto`; not lines of
// only `do`, `repeat`, `else`, `end`, a label or a comment, nor the further
// lines of a statement spanning several.
//
// One Coverage collects for a whole run; every state of every file writes
// to it concurrently. It is safe for concurrent use.
type Coverage struct {
	c coverage.Counters
}

// NewCoverage returns an empty Coverage.
func NewCoverage() *Coverage { return &Coverage{} }

// FileCoverage is the coverage of one file: its executable lines, split
// into those that ran and those that never did, each ascending.
type FileCoverage struct {
	Path      string // the path the file was compiled under
	Covered   []int
	Uncovered []int
}

// Files returns the coverage of every file compiled with c so far, ordered
// by path. A file compiled more than once (each test case loads the hooks
// anew) appears once, with the counts of every compilation.
func (c *Coverage) Files() []FileCoverage {
	reps := c.c.Reports()
	out := make([]FileCoverage, len(reps))
	for i, r := range reps {
		out[i] = FileCoverage{Path: r.Path, Covered: r.Covered, Uncovered: r.Uncovered}
	}
	return out
}

// instrument inserts the counting calls into the parsed chunk of path and
// returns it with what completes the compiled prototype: the resolution of
// the calls to the file's counter (a file counts from the compilation that
// succeeded).
func (c *Coverage) instrument(path string, stmts []ast.Stmt) ([]ast.Stmt, func(*lua.FunctionProto), error) {
	out, lines, err := coverage.Instrument(stmts)
	if err != nil {
		if ie, ok := err.(*coverage.Error); ok {
			return nil, nil, &LoadError{Path: path, Line: ie.Line, Message: ie.Message}
		}
		return nil, nil, &LoadError{Path: path, Message: err.Error(), Err: err}
	}
	return out, func(p *lua.FunctionProto) { coverage.Resolve(p, c.c.File(path, lines).Func()) }, nil
}
