package luabind

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// MaxSourceBytes is the most Lua source one file may hold: a hook file, a
// lib module, a test file or a file the REPL loads. Files are read through
// no more than this (and one byte to tell a larger file), and Compile
// refuses a larger source before parsing it. Policies are kilobytes; the
// limit only keeps a runaway or hostile file from costing the host its
// memory.
const MaxSourceBytes = 4 << 20 // 4 MiB

// Chunk is a compiled Lua file: parsed and compiled once, then instantiated
// in every state of every pool built from it. A Chunk is immutable and safe
// for concurrent use.
type Chunk struct {
	path  string
	proto *lua.FunctionProto
}

// Path returns the path the chunk was compiled under; Lua errors and
// registration sources name it.
func (c *Chunk) Path() string { return c.path }

// Compile parses and compiles Lua source. path becomes the chunk name, so
// errors read "hooks.d/x.lua:12: ...". A syntax error is a *LoadError naming
// the line. A source larger than MaxSourceBytes is refused.
func Compile(path string, src []byte) (*Chunk, error) {
	if len(src) > MaxSourceBytes {
		msg := fmt.Sprintf("source of %d bytes is larger than %s", len(src), mib(MaxSourceBytes))
		return nil, &LoadError{Path: path, Message: msg, Err: errors.New(msg)}
	}
	stmts, err := parse.Parse(bytes.NewReader(src), path)
	if err != nil {
		return nil, syntaxError(path, src, err)
	}
	proto, err := compileAST(stmts, path)
	if err != nil {
		return nil, syntaxError(path, src, err)
	}
	return &Chunk{path: path, proto: proto}, nil
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
