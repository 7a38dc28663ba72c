package lint

import "github.com/yuin/gopher-lua/ast"

// walker resolves every name of a chunk as gopher-lua's compiler does:
// locals (local statements, `local function`, parameters, for-loop
// variables, `self` in a method) are visible from the statement after their
// declaration to the end of their block, in nested functions too (as
// upvalues); every other name is a global. Its recursion follows the
// syntax, whose nesting Compile has bounded before.
type walker struct {
	facts  *Facts
	scopes []scope
}

// scope is one block's locals; fn marks the first block of a function body.
type scope struct {
	names map[string]bool
	fn    bool
}

func (w *walker) push(fn bool) { w.scopes = append(w.scopes, scope{fn: fn}) }
func (w *walker) pop()         { w.scopes = w.scopes[:len(w.scopes)-1] }

func (w *walker) declare(name string) {
	s := &w.scopes[len(w.scopes)-1]
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = true
}

func (w *walker) local(name string) bool {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].names[name] {
			return true
		}
	}
	return false
}

// inFunc reports whether the walk is inside a function body.
func (w *walker) inFunc() bool {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].fn {
			return true
		}
	}
	return false
}

func (w *walker) block(stmts []ast.Stmt) {
	for _, s := range stmts {
		w.stmt(s)
	}
}

// scoped walks stmts in a block of their own.
func (w *walker) scoped(stmts []ast.Stmt) {
	w.push(false)
	w.block(stmts)
	w.pop()
}

func (w *walker) exprs(es []ast.Expr) {
	for _, e := range es {
		w.expr(e)
	}
}

func (w *walker) stmt(stmt ast.Stmt) {
	switch s := stmt.(type) {
	case *ast.AssignStmt:
		w.exprs(s.Rhs)
		for _, l := range s.Lhs {
			w.target(l)
		}
	case *ast.LocalAssignStmt:
		// gopher-lua declares the name before compiling a lone function
		// value (`local function f`, and `local f = function`), so that
		// the function can call itself.
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				w.declare(s.Names[0])
				w.expr(s.Exprs[0])
				return
			}
		}
		w.exprs(s.Exprs)
		for _, n := range s.Names {
			w.declare(n)
		}
	case *ast.FuncCallStmt:
		w.expr(s.Expr)
	case *ast.DoBlockStmt:
		w.scoped(s.Stmts)
	case *ast.WhileStmt:
		w.expr(s.Condition)
		w.scoped(s.Stmts)
	case *ast.RepeatStmt:
		// The condition sees the body's locals.
		w.push(false)
		w.block(s.Stmts)
		w.expr(s.Condition)
		w.pop()
	case *ast.IfStmt:
		w.expr(s.Condition)
		w.scoped(s.Then)
		w.scoped(s.Else)
	case *ast.NumberForStmt:
		w.expr(s.Init)
		w.expr(s.Limit)
		w.expr(s.Step)
		w.push(false)
		w.declare(s.Name)
		w.block(s.Stmts)
		w.pop()
	case *ast.GenericForStmt:
		w.exprs(s.Exprs)
		w.push(false)
		for _, n := range s.Names {
			w.declare(n)
		}
		w.block(s.Stmts)
		w.pop()
	case *ast.FuncDefStmt:
		if s.Name.Func != nil { // function a() or function a.b.c()
			w.target(s.Name.Func)
			w.function(s.Func, false)
		} else { // function a.b:c(): a is read, self is a parameter
			w.expr(s.Name.Receiver)
			w.function(s.Func, true)
		}
	case *ast.ReturnStmt:
		w.exprs(s.Exprs)
	}
}

// target walks the left side of an assignment.
func (w *walker) target(e ast.Expr) {
	switch t := e.(type) {
	case *ast.IdentExpr:
		if !w.local(t.Value) {
			w.assign(t.Value, t.Line())
		}
		return
	case *ast.AttrGetExpr:
		// _G.name = v and _G["name"] = v assign a global.
		if id, ok := t.Object.(*ast.IdentExpr); ok && id.Value == "_G" && !w.local("_G") {
			if k, ok := t.Key.(*ast.StringExpr); ok {
				w.read(id.Value, id.Line(), nil)
				w.assign(k.Value, t.Line())
				return
			}
		}
		// The object is read (with the fields before the last one); the
		// last field is written, not read.
		w.expr(t.Object)
		w.expr(t.Key)
		return
	}
	w.expr(e)
}

func (w *walker) assign(name string, line int) {
	if len(w.facts.defined) < MaxRefs {
		w.facts.defined[name] = true
	}
	if w.full() {
		return
	}
	w.facts.assigns = append(w.facts.assigns, globalRef{name: name, line: line, inFunc: w.inFunc()})
}

func (w *walker) read(name string, line int, fields []field) {
	if w.full() {
		return
	}
	w.facts.reads = append(w.facts.reads, globalRef{name: name, line: line, fields: fields})
}

// full reports whether the chunk's facts have reached MaxRefs.
func (w *walker) full() bool { return len(w.facts.reads)+len(w.facts.assigns) >= MaxRefs }

func (w *walker) function(f *ast.FunctionExpr, method bool) {
	w.push(true)
	if method {
		w.declare("self")
	}
	for _, n := range f.ParList.Names {
		w.declare(n)
	}
	w.block(f.Stmts)
	w.pop()
}

func (w *walker) expr(e ast.Expr) {
	switch e := e.(type) {
	case nil:
	case *ast.IdentExpr:
		if !w.local(e.Value) {
			w.read(e.Value, e.Line(), nil)
		}
	case *ast.AttrGetExpr:
		w.chain(e, nil)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			w.expr(f.Key)
			w.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		if e.Receiver != nil {
			w.chain(e.Receiver, &field{name: e.Method, line: e.Line()})
		}
		w.expr(e.Func)
		w.exprs(e.Args)
	case *ast.LogicalOpExpr:
		w.expr(e.Lhs)
		w.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		w.expr(e.Lhs)
		w.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		w.expr(e.Lhs)
		w.expr(e.Rhs)
	case *ast.StringConcatOpExpr:
		w.expr(e.Lhs)
		w.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		w.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		w.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		w.expr(e.Expr)
	case *ast.FunctionExpr:
		w.function(e, false)
	}
}

// chain walks e, a read that may be a global followed by constant fields
// (`hook.events.Stop`), then the method name (`string:format`), if any: the
// global is recorded with its fields, so that Check can look each up in the
// sandbox's module. Any other part of the chain is walked as usual.
func (w *walker) chain(e ast.Expr, method *field) {
	var fields []field
	if method != nil {
		fields = append(fields, *method)
	}
	cur := e
	for {
		a, ok := cur.(*ast.AttrGetExpr)
		if !ok {
			break
		}
		k, ok := a.Key.(*ast.StringExpr)
		if !ok {
			// A computed key: the chain stops here; the key is walked and
			// the object is walked as a chain of its own.
			w.expr(a.Key)
			w.chain(a.Object, nil)
			return
		}
		fields = append(fields, field{name: k.Value, line: k.Line()})
		cur = a.Object
	}
	id, ok := cur.(*ast.IdentExpr)
	if !ok {
		w.expr(cur)
		return
	}
	if w.local(id.Value) {
		return
	}
	// fields were collected from the outside in.
	for i, j := 0, len(fields)-1; i < j; i, j = i+1, j-1 {
		fields[i], fields[j] = fields[j], fields[i]
	}
	w.read(id.Value, id.Line(), fields)
}
