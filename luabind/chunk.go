package luabind

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/luahook/luahook/luabind/internal/codec"
	"github.com/luahook/luahook/luabind/internal/lint"
)

// Chunk is a compiled Lua file: parsed and compiled once, then instantiated
// in every state of every pool built from it. A Chunk is immutable and safe
// for concurrent use.
type Chunk struct {
	path  string
	proto *lua.FunctionProto
	lint  *lint.Facts // what the linter checks once the file has loaded

	// the chunk's functions and the upvalues they assign (fixedUpvalues)
	upvalOnce sync.Once
	upvals    fixedUpvalues
}

// fixedUpvalues tells which upvalues of a chunk's functions hold their
// value for good once the chunk has run: those of its own functions that
// no function of it assigns (codec.AssignedUpvalues).
type fixedUpvalues struct {
	protos   map[*lua.FunctionProto]bool
	assigned map[string]bool
	none     bool // an assignment without a name: no upvalue is fixed
}

// fixed returns the value upvalue i of fn holds for good, or ok false.
func (u *fixedUpvalues) fixed(fn *lua.LFunction, i int) (lua.LValue, bool) {
	if u.none || fn == nil || fn.IsG || !u.protos[fn.Proto] || i >= len(fn.Upvalues) || i >= len(fn.Proto.DbgUpvalues) ||
		u.assigned[fn.Proto.DbgUpvalues[i]] {
		return nil, false
	}
	return fn.Upvalues[i].Value(), true
}

// fixedUpvalues returns what the reuse analysis may take as fixed of the
// upvalues of c's functions, worked out once per chunk.
func (c *Chunk) fixedUpvalues() *fixedUpvalues {
	c.upvalOnce.Do(func() {
		c.upvals.protos, c.upvals.assigned, c.upvals.none = codec.AssignedUpvalues(c.proto)
	})
	return &c.upvals
}

// Path returns the path the chunk was compiled under; Lua errors and
// registration sources name it.
func (c *Chunk) Path() string { return c.path }

// Compile parses and compiles Lua source, under the default limits of
// Options (a source of at most DefaultMaxSourceBytes). It is
// Options{}.Compile.
func Compile(path string, src []byte) (*Chunk, error) { return Options{}.Compile(path, src) }

// Compile parses and compiles Lua source. path becomes the chunk name, so
// errors read "hooks.d/x.lua:12: ...". A syntax error, a source larger than
// o.MaxSourceBytes or nested deeper than 200 levels is a *LoadError naming
// the line; the size and the nesting are checked before the parser and the
// compiler run, so that no source can exhaust their memory or Go stack.
// Every `..` of the chunk is compiled as a call of a function that checks
// the size of its result against the state's MaxStringBytes (concat.go).
// With o.Coverage, the chunk is instrumented to count its lines (coverage.go).
// With o.DiskCache (and no Coverage), a source compiled before under the
// same path by the same executable is read back from the cache instead.
//
// Every Lua source luahook runs goes through this function: hook files, lib
// modules, and the code of sessions (the REPL, policy tests).
func (o Options) Compile(path string, src []byte) (*Chunk, error) {
	return o.compileSum(path, src, nil)
}

// compileSum is Compile with the SHA-256 of src when the caller has it
// already (nil: computed here if the disk cache needs it).
func (o *Options) compileSum(path string, src []byte, sum *[sha256.Size]byte) (*Chunk, error) {
	limit := o.MaxSourceBytes
	if limit <= 0 {
		limit = DefaultMaxSourceBytes
	}
	if len(src) > limit {
		return nil, sourceTooBig(path, len(src), limit)
	}
	if o.DiskCache != nil && o.Coverage == nil {
		if sum == nil {
			s := sha256.Sum256(src)
			sum = &s
		}
		return o.DiskCache.compile(o, path, src, *sum)
	}
	return o.compileSource(path, src)
}

// compileSource is Compile without the cache; the caller has checked the
// source's size.
func (o *Options) compileSource(path string, src []byte) (*Chunk, error) {
	if err := scanNesting(path, src); err != nil {
		return nil, err
	}
	stmts, err := parse.Parse(bytes.NewReader(src), path)
	if err != nil {
		return nil, syntaxError(path, src, err)
	}
	w := rewrite{path: path}
	w.block(stmts, 0)
	if w.err != nil {
		return nil, w.err
	}
	facts := lint.Scan(path, stmts, src) // before coverage adds its calls
	var resolveCoverage func(*lua.FunctionProto)
	if o.Coverage != nil {
		if stmts, resolveCoverage, err = o.Coverage.instrument(path, stmts); err != nil {
			return nil, err
		}
	}
	proto, err := compileAST(stmts, path)
	if err != nil {
		return nil, syntaxError(path, src, err)
	}
	resolveConcat(proto)
	if resolveCoverage != nil {
		resolveCoverage(proto)
	}
	return &Chunk{path: path, proto: proto, lint: facts}, nil
}

// sourceTooBig is the error of a source of n bytes, past limit. A reader
// stops at limit+1 bytes, so that size only says "larger".
func sourceTooBig(path string, n, limit int) *LoadError {
	if n == limit+1 {
		return &LoadError{Path: path, Message: fmt.Sprintf("file larger than the %s limit on Lua source", codec.MiB(limit))}
	}
	return &LoadError{Path: path, Message: fmt.Sprintf("file of %d bytes exceeds the %s limit on Lua source", n, codec.MiB(limit))}
}

func compileAST(stmts []ast.Stmt, path string) (proto *lua.FunctionProto, err error) {
	defer func() {
		// lua.Compile reports most errors by value, but guard the host anyway.
		if r := recover(); r != nil {
			err = fmt.Errorf("compile error: %v", r)
		}
	}()
	return lua.Compile(stmts, path)
}

func syntaxError(path string, src []byte, err error) *LoadError {
	le := &LoadError{Path: path, Message: err.Error(), Err: err}
	var pe *parse.Error
	var ce *lua.CompileError
	switch {
	case errors.As(err, &pe):
		le.Message = strings.TrimSpace(pe.Message)
		if pe.Pos.Line == parse.EOF {
			le.Line = bytes.Count(src, []byte("\n")) + 1
			le.Message += " at end of file"
		} else {
			le.Line = pe.Pos.Line
			if pe.Token != "" {
				le.Message += fmt.Sprintf(" near '%s'", pe.Token)
			}
		}
	case errors.As(err, &ce):
		le.Line, le.Message = ce.Line, ce.Message
	}
	return le
}

// LoadError reports why a file (or a lib module it requires) could not be
// compiled or loaded. Path and Line locate the cause; Line is 0 when unknown.
type LoadError struct {
	Path    string
	Line    int
	Message string
	Err     error // the underlying Lua or context error, if any
}

// Error returns "path:line: message".
func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Message)
	}
	return e.Path + ": " + e.Message
}

// Unwrap returns the underlying error.
func (e *LoadError) Unwrap() error { return e.Err }

// splitPosition splits a Lua error message "src:line: text" into its parts.
// It returns line 0 and the whole message when there is no position.
func splitPosition(msg string) (src string, line int, text string) {
	// The source may itself contain ':' (Windows paths), so scan for ":<digits>: ".
	for i := 0; i < len(msg); i++ {
		if msg[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(msg) && msg[j] == ':' {
			n, err := strconv.Atoi(msg[i+1 : j])
			if err == nil {
				return msg[:i], n, strings.TrimPrefix(msg[j+1:], " ")
			}
		}
		if strings.ContainsAny(msg[:i], "\n") {
			break
		}
	}
	return "", 0, msg
}

// lineIn finds the innermost line of path in a Lua error message or its stack
// traceback ("\thooks.d/x.lua:5: in main chunk"); 0 if path does not appear.
func lineIn(path, msg, trace string) int {
	if src, line, _ := splitPosition(msg); src == path {
		return line
	}
	for _, l := range strings.Split(trace, "\n") {
		l = strings.TrimSpace(l)
		if src, line, _ := splitPosition(l); src == path && line > 0 {
			return line
		}
	}
	return 0
}
