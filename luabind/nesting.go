package luabind

import (
	"bytes"
	"fmt"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// maxNesting bounds how deep a Lua file's syntax nests: brackets, blocks,
// function bodies, chains of unary operators and chains of binary operators
// (gopher-lua's compiler recurses on each, on the Go stack: a file of 1.5
// million "{" overflows it, a fatal error). 200 is Lua 5.1's own limit on
// syntax levels (LUAI_MAXCCALLS). A `..` chain counts as one level, since
// Compile turns it into one call. An elseif is an if nested in the else
// branch, for gopher-lua as for this count (its compiler recurses on it, and
// takes a minute over a chain of 70,000).
const maxNesting = 200

// maxScanDepth bounds the estimate that scanNesting makes before the parser
// runs. gopher-lua's parser keeps a stack of 256-byte entries, several per
// open bracket, block or pending operator, grown by doubling: without a
// bound, 1 MiB of "(" costs it a GiB. The estimate counts brackets and
// blocks plus the operators of each unfinished expression, an upper bound of
// the nesting that real code stays far below, so it is looser than
// maxNesting (which the walk after parsing checks exactly); at this bound
// the parser's stack stays under about 4 MiB (about 1 KiB a level). It is
// also what a file may hold of places that could open a level for
// openingsBound to accept it without the token scan: the shell reader's
// largest modules hold about 2,300.
const maxScanDepth = 20 * maxNesting

// nestingError is the error of a file nested past the limit at line.
func nestingError(path string, line int) *LoadError {
	return &LoadError{Path: path, Line: line, Message: fmt.Sprintf("nesting deeper than %d levels", maxNesting)}
}

// scanNesting refuses a source whose estimated nesting passes maxScanDepth.
// A source with fewer places that could open a level than that bound is
// accepted at once (openingsBound); any other is read with gopher-lua's own
// scanner (scanTokens).
func scanNesting(path string, src []byte) *LoadError {
	if 1+openingsBound(src) <= maxScanDepth {
		return nil
	}
	return scanTokens(path, src, maxScanDepth)
}

// openingKeywords are the keywords that raise scanTokens' estimate.
var openingKeywords = [][]byte{[]byte("function"), []byte("do"), []byte("if"), []byte("repeat"),
	[]byte("and"), []byte("or"), []byte("not")}

// openingsBound counts, without tokenising, places in src where a token
// that raises scanTokens' estimate could start: every byte of ( { [ + - * /
// % ^ # < > ~, every ".." and "==" (overlapping pairs counted), and every
// occurrence of an opening keyword, even inside a longer word, a string or
// a comment. Each such token holds at least one place of its own, so the
// estimate, which starts at 1 and rises by one per such token, never passes
// 1 plus this count.
func openingsBound(src []byte) int {
	n := 0
	for i, c := range src {
		switch c {
		case '(', '{', '[', '+', '-', '*', '/', '%', '^', '#', '<', '>', '~':
			n++
		case '.', '=':
			if i+1 < len(src) && src[i+1] == c {
				n++
			}
		}
	}
	for _, kw := range openingKeywords {
		n += bytes.Count(src, kw)
	}
	return n
}

// scanTokens reads src's tokens with gopher-lua's own scanner, so that
// strings and comments are read exactly as the parser reads them, and
// refuses a source whose estimated nesting passes limit. A token the
// scanner cannot read ends the scan: the parser stops at the same place.
func scanTokens(path string, src []byte, limit int) *LoadError {
	sc := parse.NewScanner(bytes.NewReader(src), path)
	lx := &parse.Lexer{PrevTokenType: parse.TNil}
	// ops[i]: operators of the unfinished expression at bracket level i.
	ops := make([]int, 1, 64)
	depth := 1
	for {
		tok, err := sc.Scan(lx)
		if err != nil || tok.Type == parse.EOF {
			return nil
		}
		lx.PrevTokenType = tok.Type
		top := len(ops) - 1
		switch tok.Type {
		case '(', '{', '[', parse.TFunction, parse.TDo, parse.TIf, parse.TRepeat:
			ops = append(ops, 0)
			depth++
		case ')', '}', ']', parse.TEnd, parse.TUntil:
			if top > 0 {
				depth -= 1 + ops[top]
				ops = ops[:top]
			}
		case '+', '-', '*', '/', '%', '^', '#', '<', '>', parse.T2Comma, parse.TEqeq, parse.TNeq,
			parse.TLte, parse.TGte, parse.TAnd, parse.TOr, parse.TNot:
			ops[top]++
			depth++
		case ',', ';', '=', parse.TThen, parse.TElse, parse.TElseIf, parse.TReturn, parse.TLocal,
			parse.TIn, parse.TWhile, parse.TFor, parse.TBreak, parse.TGoto:
			// The expression before is complete: the parser has reduced it.
			depth -= ops[top]
			ops[top] = 0
		}
		if depth > limit {
			return &LoadError{Path: path, Line: tok.Pos.Line,
				Message: fmt.Sprintf("nesting deeper than %d levels (more than %d brackets, blocks and operators open at once)", maxNesting, maxScanDepth)}
		}
	}
}

// rewrite walks a parsed chunk before it is compiled: it checks that no
// node nests deeper than maxNesting (its own recursion stops there), turns
// every concatenation chain into a call of concatFn (concat.go) and refuses
// a string literal equal to concatMarker.
type rewrite struct {
	path string
	err  *LoadError
}

func (w *rewrite) fail(line int, err *LoadError) {
	if w.err == nil {
		err.Line = line
		w.err = err
	}
}

// enter reports whether a node at depth may be walked, failing when it is too deep.
func (w *rewrite) enter(n ast.PositionHolder, depth int) bool {
	if w.err != nil {
		return false
	}
	if depth > maxNesting {
		w.fail(n.Line(), nestingError(w.path, 0))
		return false
	}
	return true
}

func (w *rewrite) block(stmts []ast.Stmt, depth int) {
	for _, s := range stmts {
		w.stmt(s, depth)
	}
}

func (w *rewrite) exprs(es []ast.Expr, depth int) {
	for i := range es {
		es[i] = w.expr(es[i], depth)
	}
}

func (w *rewrite) stmt(stmt ast.Stmt, depth int) {
	if !w.enter(stmt, depth) {
		return
	}
	d := depth + 1
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		w.exprs(s.Lhs, d)
		w.exprs(s.Rhs, d)
	case *ast.LocalAssignStmt:
		w.exprs(s.Exprs, d)
	case *ast.FuncCallStmt:
		s.Expr = w.expr(s.Expr, d)
	case *ast.DoBlockStmt:
		w.block(s.Stmts, d)
	case *ast.WhileStmt:
		s.Condition = w.expr(s.Condition, d)
		w.block(s.Stmts, d)
	case *ast.RepeatStmt:
		w.block(s.Stmts, d)
		s.Condition = w.expr(s.Condition, d)
	case *ast.IfStmt:
		s.Condition = w.expr(s.Condition, d)
		w.block(s.Then, d)
		w.block(s.Else, d)
	case *ast.NumberForStmt:
		s.Init = w.expr(s.Init, d)
		s.Limit = w.expr(s.Limit, d)
		if s.Step != nil {
			s.Step = w.expr(s.Step, d)
		}
		w.block(s.Stmts, d)
	case *ast.GenericForStmt:
		w.exprs(s.Exprs, d)
		w.block(s.Stmts, d)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			if s.Name.Func != nil {
				s.Name.Func = w.expr(s.Name.Func, d)
			}
			if s.Name.Receiver != nil {
				s.Name.Receiver = w.expr(s.Name.Receiver, d)
			}
		}
		w.expr(s.Func, d)
	case *ast.ReturnStmt:
		w.exprs(s.Exprs, d)
	}
}

// expr walks e and returns what replaces it.
func (w *rewrite) expr(e ast.Expr, depth int) ast.Expr {
	if e == nil || !w.enter(e, depth) {
		return e
	}
	d := depth + 1
	switch e := e.(type) {
	case *ast.StringExpr:
		if e.Value == concatMarker {
			w.fail(e.Line(), &LoadError{Path: w.path, Message: "this string literal is reserved by luahook"})
		}
	case *ast.AttrGetExpr:
		e.Object = w.expr(e.Object, d)
		e.Key = w.expr(e.Key, d)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = w.expr(f.Key, d)
			}
			f.Value = w.expr(f.Value, d)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = w.expr(e.Func, d)
		}
		if e.Receiver != nil {
			e.Receiver = w.expr(e.Receiver, d)
		}
		w.exprs(e.Args, d)
	case *ast.LogicalOpExpr:
		e.Lhs = w.expr(e.Lhs, d)
		e.Rhs = w.expr(e.Rhs, d)
	case *ast.RelationalOpExpr:
		e.Lhs = w.expr(e.Lhs, d)
		e.Rhs = w.expr(e.Rhs, d)
	case *ast.ArithmeticOpExpr:
		e.Lhs = w.expr(e.Lhs, d)
		e.Rhs = w.expr(e.Rhs, d)
	case *ast.StringConcatOpExpr:
		call := concatCall(e)
		w.exprs(call.Args, d)
		return call
	case *ast.UnaryMinusOpExpr:
		e.Expr = w.expr(e.Expr, d)
	case *ast.UnaryNotOpExpr:
		e.Expr = w.expr(e.Expr, d)
	case *ast.UnaryLenOpExpr:
		e.Expr = w.expr(e.Expr, d)
	case *ast.FunctionExpr:
		w.block(e.Stmts, d)
	}
	return e
}
