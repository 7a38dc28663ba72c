package coverage

import (
	"fmt"
	"slices"

	"github.com/yuin/gopher-lua/ast"
)

// Marker is the string constant that stands for the counting function in an
// instrumented chunk until Resolve.
const Marker = "\x00luahook.cover"

// maxDepth bounds the walk's recursion. The chunks it is given were already
// refused past 200 levels of nesting (luabind's rewrite); this is a second
// guard of the Go stack, not a limit a real file meets.
const maxDepth = 1000

// Error is a chunk Instrument refuses, at Line.
type Error struct {
	Line    int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Message) }

// Instrument inserts a marker call before every executable statement of the
// chunk stmts, in every block and function body, and returns the
// instrumented chunk with its executable lines in ascending order. It
// modifies the nodes of stmts in place. A string literal equal to Marker is
// an *Error.
func Instrument(stmts []ast.Stmt) ([]ast.Stmt, []int, error) {
	in := &instrumenter{}
	out := in.block(stmts, 0)
	if in.err != nil {
		return nil, nil, in.err
	}
	slices.Sort(in.lines)
	return out, slices.Compact(in.lines), nil
}

type instrumenter struct {
	lines []int
	err   *Error
}

func (in *instrumenter) fail(line int, msg string) {
	if in.err == nil {
		in.err = &Error{Line: line, Message: msg}
	}
}

func (in *instrumenter) deep(n ast.PositionHolder, depth int) bool {
	if in.err != nil {
		return true
	}
	if depth > maxDepth {
		in.fail(n.Line(), fmt.Sprintf("nesting deeper than %d levels", maxDepth))
		return true
	}
	return false
}

// mark is the statement that counts line.
func (in *instrumenter) mark(line int) ast.Stmt {
	in.lines = append(in.lines, line)
	fn := &ast.StringExpr{Value: Marker}
	fn.SetLine(line)
	fn.SetLastLine(line)
	call := &ast.FuncCallExpr{Func: fn}
	call.SetLine(line)
	call.SetLastLine(line)
	st := &ast.FuncCallStmt{Expr: call}
	st.SetLine(line)
	st.SetLastLine(line)
	return st
}

// block returns stmts with a mark before each executable statement.
func (in *instrumenter) block(stmts []ast.Stmt, depth int) []ast.Stmt {
	out := make([]ast.Stmt, 0, 2*len(stmts))
	for _, s := range stmts {
		switch s.(type) {
		case *ast.DoBlockStmt, *ast.LabelStmt:
			// `do` and `::label::` run nothing of their own.
		case *ast.RepeatStmt:
			// Its line is the `repeat` keyword's; its `until` is marked in stmt.
		default:
			out = append(out, in.mark(s.Line()))
		}
		in.stmt(s, depth+1)
		out = append(out, s)
	}
	return out
}

func (in *instrumenter) stmt(stmt ast.Stmt, depth int) {
	if in.deep(stmt, depth) {
		return
	}
	d := depth + 1
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		in.exprs(s.Lhs, d)
		in.exprs(s.Rhs, d)
	case *ast.LocalAssignStmt:
		in.exprs(s.Exprs, d)
	case *ast.FuncCallStmt:
		in.expr(s.Expr, d)
	case *ast.DoBlockStmt:
		s.Stmts = in.block(s.Stmts, d)
	case *ast.WhileStmt:
		in.expr(s.Condition, d)
		s.Stmts = in.block(s.Stmts, d)
	case *ast.RepeatStmt:
		s.Stmts = in.block(s.Stmts, d)
		in.expr(s.Condition, d)
		// The `until` line: a mark at the end of the body, where the
		// condition is evaluated next. Not after a statement that leaves the
		// body (nothing would reach it), nor after a label, which must stay
		// last to be a target outside the scope of the body's locals.
		if n := len(s.Stmts); n == 0 || !endsBlock(s.Stmts[n-1]) {
			s.Stmts = append(s.Stmts, in.mark(s.Condition.Line()))
		}
	case *ast.IfStmt:
		in.expr(s.Condition, d)
		s.Then = in.block(s.Then, d)
		// An elseif is an if in the else block: it is marked there, at its
		// own line.
		s.Else = in.block(s.Else, d)
	case *ast.NumberForStmt:
		in.expr(s.Init, d)
		in.expr(s.Limit, d)
		in.expr(s.Step, d)
		s.Stmts = in.block(s.Stmts, d)
	case *ast.GenericForStmt:
		in.exprs(s.Exprs, d)
		s.Stmts = in.block(s.Stmts, d)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			in.expr(s.Name.Func, d)
			in.expr(s.Name.Receiver, d)
		}
		in.expr(s.Func, d)
	case *ast.ReturnStmt:
		in.exprs(s.Exprs, d)
	}
}

// endsBlock reports whether no statement may follow s in its block.
func endsBlock(s ast.Stmt) bool {
	switch s.(type) {
	case *ast.ReturnStmt, *ast.BreakStmt, *ast.GotoStmt, *ast.LabelStmt:
		return true
	}
	return false
}

func (in *instrumenter) exprs(es []ast.Expr, depth int) {
	for _, e := range es {
		in.expr(e, depth)
	}
}

func (in *instrumenter) expr(e ast.Expr, depth int) {
	if e == nil || in.deep(e, depth) {
		return
	}
	d := depth + 1
	switch e := e.(type) {
	case *ast.StringExpr:
		if e.Value == Marker {
			in.fail(e.Line(), "this string literal is reserved by luahook")
		}
	case *ast.AttrGetExpr:
		in.expr(e.Object, d)
		in.expr(e.Key, d)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			in.expr(f.Key, d)
			in.expr(f.Value, d)
		}
	case *ast.FuncCallExpr:
		in.expr(e.Func, d)
		in.expr(e.Receiver, d)
		in.exprs(e.Args, d)
	case *ast.LogicalOpExpr:
		in.expr(e.Lhs, d)
		in.expr(e.Rhs, d)
	case *ast.RelationalOpExpr:
		in.expr(e.Lhs, d)
		in.expr(e.Rhs, d)
	case *ast.ArithmeticOpExpr:
		in.expr(e.Lhs, d)
		in.expr(e.Rhs, d)
	case *ast.StringConcatOpExpr:
		in.expr(e.Lhs, d)
		in.expr(e.Rhs, d)
	case *ast.UnaryMinusOpExpr:
		in.expr(e.Expr, d)
	case *ast.UnaryNotOpExpr:
		in.expr(e.Expr, d)
	case *ast.UnaryLenOpExpr:
		in.expr(e.Expr, d)
	case *ast.FunctionExpr:
		e.Stmts = in.block(e.Stmts, d)
	}
}
