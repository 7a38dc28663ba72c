package lint

import (
	"slices"

	"github.com/yuin/gopher-lua/ast"
)

// walker resolves every name of a chunk as gopher-lua's compiler does:
// locals (local statements, `local function`, parameters, for-loop
// variables, `self` in a method) are visible from the statement after their
// declaration to the end of their block, in nested functions too (as
// upvalues); every other name is a global. Its recursion follows the
// syntax, whose nesting Compile has bounded before.
type walker struct {
	facts  *Facts
	scopes []scope
	// fns is the stack of the function bodies the walk is in, innermost
	// last.
	fns []*ast.FunctionExpr
	// What upvalue-assign needs, kept for the walk only and bounded by
	// MaxRefs each: the function enclosing each function, the functions
	// each calls by name (a local's, or a global's resolved at the end),
	// those given to hook.register, and the assignments to top-level
	// locals with the function each is in.
	parent   map[*ast.FunctionExpr]*ast.FunctionExpr
	calls    map[*ast.FunctionExpr][]*ast.FunctionExpr
	edges    int // calls' length, all lists together
	gcalls   []globalCall
	globalFn map[string]*ast.FunctionExpr
	hooks    []*ast.FunctionExpr
	pending  []pendingUpvalue
}

// globalCall is a call by name to a global, from fn.
type globalCall struct {
	from *ast.FunctionExpr
	name string
}

// pendingUpvalue is an assignment to a top-level local inside fn, a
// warning if fn runs as a hook or in one.
type pendingUpvalue struct {
	ref globalRef
	fn  *ast.FunctionExpr
}

// scope is one block's locals, with the function each names when it was
// declared with one (`local function f`, `local f = function`). fn marks
// the first block of a function body, top a block outside every function
// body (the chunk's, and the blocks of its top-level do, if and loops),
// whose locals live as long as the state.
type scope struct {
	names map[string]bool
	funcs map[string]*ast.FunctionExpr
	fn    bool
	top   bool
}

func (w *walker) push(fn bool) {
	top := !fn && (len(w.scopes) == 0 || w.scopes[len(w.scopes)-1].top)
	w.scopes = append(w.scopes, scope{fn: fn, top: top})
}
func (w *walker) pop() { w.scopes = w.scopes[:len(w.scopes)-1] }

func (w *walker) declare(name string) {
	s := &w.scopes[len(w.scopes)-1]
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = true
}

func (w *walker) local(name string) bool { return w.scopeOf(name) >= 0 }

// scopeOf returns the index of the innermost scope declaring name, -1 for a
// global.
func (w *walker) scopeOf(name string) int {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if w.scopes[i].names[name] {
			return i
		}
	}
	return -1
}

// declareFunc declares name, a local whose value is fn.
func (w *walker) declareFunc(name string, fn *ast.FunctionExpr) {
	w.declare(name)
	s := &w.scopes[len(w.scopes)-1]
	if s.funcs == nil {
		s.funcs = map[string]*ast.FunctionExpr{}
	}
	s.funcs[name] = fn
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
			if fn, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				w.declareFunc(s.Names[0], fn)
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
			w.nameFunc(s.Name.Func, s.Func)
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
		switch i := w.scopeOf(t.Value); {
		case i < 0:
			w.assign(t.Value, t.Line())
		case w.scopes[i].top && len(w.fns) > 0:
			// A local of the top level, assigned by a function: a value
			// of the state, not of the call.
			w.upvalue(t.Value, t.Line())
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

// upvalue notes an assignment to a top-level local inside the function
// being walked; upvalues decides whether it warns.
func (w *walker) upvalue(name string, line int) {
	if len(w.pending) >= MaxRefs {
		return
	}
	w.pending = append(w.pending, pendingUpvalue{ref: globalRef{name: name, line: line, inFunc: true}, fn: w.fns[len(w.fns)-1]})
}

// nameFunc records fn as the value of the name a function statement
// assigns (`function f()`), when that name is a plain one.
func (w *walker) nameFunc(name ast.Expr, fn *ast.FunctionExpr) {
	id, ok := name.(*ast.IdentExpr)
	if !ok {
		return
	}
	if i := w.scopeOf(id.Value); i >= 0 {
		s := &w.scopes[i]
		if s.funcs == nil {
			s.funcs = map[string]*ast.FunctionExpr{}
		}
		s.funcs[id.Value] = fn
		return
	}
	if len(w.globalFn) < MaxRefs {
		if w.globalFn == nil {
			w.globalFn = map[string]*ast.FunctionExpr{}
		}
		w.globalFn[id.Value] = fn
	}
}

// call notes what upvalue-assign needs of a call: a function given to
// hook.register (the third argument, a function or a local naming one),
// and, inside a function, a call by name to a function of the file.
func (w *walker) call(e *ast.FuncCallExpr) {
	if e.Receiver == nil && w.isHookRegister(e.Func) && len(e.Args) >= 3 && len(w.hooks) < MaxRefs {
		switch a := e.Args[2].(type) {
		case *ast.FunctionExpr:
			w.hooks = append(w.hooks, a)
		case *ast.IdentExpr:
			if fn := w.localFunc(a.Value); fn != nil {
				w.hooks = append(w.hooks, fn)
			}
		}
	}
	id, ok := e.Func.(*ast.IdentExpr)
	if !ok || e.Receiver != nil || len(w.fns) == 0 {
		return
	}
	from := w.fns[len(w.fns)-1]
	if !w.local(id.Value) {
		if len(w.gcalls) < MaxRefs {
			w.gcalls = append(w.gcalls, globalCall{from: from, name: id.Value})
		}
		return
	}
	if fn := w.localFunc(id.Value); fn != nil {
		w.edge(from, fn)
	}
}

// edge records that from calls to.
func (w *walker) edge(from, to *ast.FunctionExpr) {
	if w.edges >= MaxRefs {
		return
	}
	if w.calls == nil {
		w.calls = map[*ast.FunctionExpr][]*ast.FunctionExpr{}
	}
	w.calls[from] = append(w.calls[from], to)
	w.edges++
}

// localFunc returns the function the local name was declared with, nil
// when name is not a local or not known to hold a function.
func (w *walker) localFunc(name string) *ast.FunctionExpr {
	if i := w.scopeOf(name); i >= 0 {
		return w.scopes[i].funcs[name]
	}
	return nil
}

// isHookRegister reports whether e is the global hook module's register.
func (w *walker) isHookRegister(e ast.Expr) bool {
	a, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return false
	}
	id, ok := a.Object.(*ast.IdentExpr)
	k, isStr := a.Key.(*ast.StringExpr)
	return ok && isStr && id.Value == "hook" && k.Value == "register" && !w.local("hook")
}

// upvalues keeps, of the pending assignments to top-level locals, those in
// a function that runs as a hook: one given to hook.register, a function
// such a function calls by name (transitively), or one nested in either.
func (w *walker) upvalues() []globalRef {
	if len(w.pending) == 0 || len(w.hooks) == 0 {
		return nil
	}
	for _, c := range w.gcalls {
		if fn := w.globalFn[c.name]; fn != nil {
			w.edge(c.from, fn)
		}
	}
	// Calls made by a nested function count as its enclosing function's:
	// a closure a hook defines usually runs during the call.
	children := map[*ast.FunctionExpr][]*ast.FunctionExpr{}
	for child, p := range w.parent {
		children[p] = append(children[p], child)
	}
	runs := map[*ast.FunctionExpr]bool{}
	queue := slices.Clone(w.hooks)
	for len(queue) > 0 {
		fn := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if runs[fn] {
			continue
		}
		runs[fn] = true
		queue = append(queue, w.calls[fn]...)
		queue = append(queue, children[fn]...)
	}
	var out []globalRef
	for _, p := range w.pending {
		if runs[p.fn] {
			out = append(out, p.ref)
		}
	}
	return out
}

func (w *walker) read(name string, line int, fields []field) {
	if w.full() {
		return
	}
	w.facts.reads = append(w.facts.reads, globalRef{name: name, line: line, fields: fields})
}

// full reports whether the chunk's facts have reached MaxRefs.
func (w *walker) full() bool {
	return len(w.facts.reads)+len(w.facts.assigns)+len(w.facts.upvalues) >= MaxRefs
}

func (w *walker) function(f *ast.FunctionExpr, method bool) {
	if len(w.fns) > 0 && len(w.parent) < MaxRefs {
		if w.parent == nil {
			w.parent = map[*ast.FunctionExpr]*ast.FunctionExpr{}
		}
		w.parent[f] = w.fns[len(w.fns)-1]
	}
	w.fns = append(w.fns, f)
	defer func() { w.fns = w.fns[:len(w.fns)-1] }()
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
		w.call(e)
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
