package hostbridge

import (
	"fmt"
	"reflect"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// maxPanicText bounds the text of a host function's panic or error.
const maxPanicText = 1000

// function returns fn as a Lua function of the state, built once: a guard
// that checks the Lua arguments, in front of gopher-luar's wrapper of a
// trampoline, which converts them to fn's parameter types and calls
// invoke.
func (st *State) function(fn *function) *lua.LFunction {
	if lf := st.fns[fn]; lf != nil {
		return lf
	}
	if st.fns == nil {
		st.fns = map[*function]*lua.LFunction{}
	}
	tramp := reflect.MakeFunc(fn.tramp, func(args []reflect.Value) []reflect.Value { return st.invoke(fn, args) })
	inner := luar.New(st.L, tramp.Interface()).(*lua.LFunction)
	lf := st.L.NewFunction(func(L *lua.LState) int { return st.guard(L, fn, inner) })
	st.fns[fn] = lf
	return lf
}

// guard checks a call's arguments before gopher-luar converts them: their
// number, each against its parameter (argChecker), and for a method its
// receiver; then it calls inner and raises what the call failed with.
func (st *State) guard(L *lua.LState, fn *function, inner *lua.LFunction) int {
	first := 1
	if fn.recv != nil {
		ud, _ := L.Get(1).(*lua.LUserData)
		var vw *view
		if ud != nil {
			vw, _ = ud.Value.(*view)
		}
		if vw == nil || !vw.methods || reflect.PointerTo(vw.v.Type()) != fn.recv {
			L.RaiseError("%s: call it as value:%s(...) on a host value of type %s", fn.name, fn.short, fn.recv.Elem())
		}
		first = 2
	}
	n := L.GetTop() - first + 1
	want := len(fn.in)
	if (!fn.variadic && n != want) || (fn.variadic && n < want-1) {
		more := ""
		if fn.variadic {
			more = " or more"
		}
		L.RaiseError("%s: takes %d%s arguments, got %d", fn.name, want, more, n)
	}
	for i := range n {
		var t reflect.Type
		if fn.variadic && i >= want-1 {
			t = fn.in[want-1].Elem()
		} else {
			t = fn.in[i]
		}
		a := argChecker{st: st, max: st.lim.MaxValues}
		v := L.Get(first + i)
		nv, err := a.check(v, t, 0)
		if err != nil {
			L.RaiseError("%s: argument %d: %v", fn.name, i+1, err)
		}
		if nv != v {
			L.Replace(first+i, nv)
		}
	}
	if fn.recv != nil {
		vw := L.Get(1).(*lua.LUserData).Value.(*view)
		cp := reflect.New(vw.v.Type())
		cp.Elem().Set(vw.v) // each call gets its own copy: no method changes the view
		st.recv = cp
		L.Remove(1)
	}
	L.Insert(inner, 1)
	st.failure = ""
	err := L.PCall(n, lua.MultRet, nil)
	st.recv = reflect.Value{}
	if err != nil {
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			msg = ae.Object.String()
		}
		L.RaiseError("%s: %s", fn.name, msg)
	}
	if f := st.failure; f != "" {
		st.failure = ""
		L.RaiseError("%s", f)
	}
	return L.GetTop()
}

// pending is a host function running on its own goroutine.
type pending struct {
	done chan struct{}
	// state: 0 running, 1 returned, 2 abandoned at its deadline (a stray).
	state atomic.Int32
	out   []reflect.Value
	// fail is the text of its panic, or of its error result.
	fail     string
	panicked bool
}

// invoke is the trampoline's body: it runs fn with the converted
// arguments and returns its results as Lua values, or records the failure
// for the guard to raise (st.failure).
func (st *State) invoke(fn *function, args []reflect.Value) []reflect.Value {
	outs := make([]reflect.Value, fn.nout)
	for i := range outs {
		outs[i] = reflect.Zero(lvalueType)
	}
	res, fail := st.run(fn, args)
	if fail != "" {
		st.failure = fail
		return outs
	}
	j := 0
	for i, r := range res {
		if fn.lastErr && i == len(res)-1 {
			break
		}
		c := st.converter(fn.mod)
		lv, err := c.value(r, 0, true)
		if err != nil {
			st.failure = fmt.Sprintf("%s: result %d: %v", fn.name, i+1, err)
			return outs
		}
		outs[j] = reflect.ValueOf(&lv).Elem()
		j++
	}
	return outs
}

// run calls fn on its own goroutine and waits for it or for the hook's
// context, whichever comes first; a call abandoned at the deadline is
// left to finish and counted as a stray of its module until it does.
func (st *State) run(fn *function, args []reflect.Value) ([]reflect.Value, string) {
	ctx := st.callContext()
	if err := ctx.Err(); err != nil {
		return nil, fn.name + ": " + err.Error()
	}
	if n := fn.mod.strays.Load(); n >= MaxStrays {
		return nil, fmt.Sprintf("%s: %d calls of host.%s are still running past their deadline; no new call starts until they return", fn.name, n, fn.mod.name)
	}
	full := make([]reflect.Value, 0, len(args)+2)
	if fn.recv != nil {
		full = append(full, st.recv)
	}
	if fn.ctx {
		full = append(full, reflect.ValueOf(&ctx).Elem())
	}
	full = append(full, args...)
	p := &pending{done: make(chan struct{})}
	go p.call(fn, full)
	select {
	case <-p.done:
	case <-ctx.Done():
		if p.state.CompareAndSwap(0, 2) {
			fn.mod.strays.Add(1)
			return nil, fn.name + ": " + ctx.Err().Error()
		}
		<-p.done // it returned just now
	}
	if p.panicked {
		return nil, fn.name + " panicked: " + p.fail
	}
	if p.fail != "" {
		return nil, fn.name + ": " + p.fail
	}
	return p.out, ""
}

// call runs on its own goroutine. The host's own code (the panic value's
// and the error's text included) runs here, never on the Lua goroutine.
func (p *pending) call(fn *function, args []reflect.Value) {
	defer func() {
		if r := recover(); r != nil {
			p.panicked, p.fail = true, clip(fmt.Sprint(r))
		}
		if !p.state.CompareAndSwap(0, 1) {
			fn.mod.strays.Add(-1)
		}
		close(p.done)
	}()
	if fn.variadic {
		p.out = fn.fn.CallSlice(args)
	} else {
		p.out = fn.fn.Call(args)
	}
	if fn.lastErr {
		if err, _ := p.out[len(p.out)-1].Interface().(error); err != nil {
			p.fail = clip(err.Error())
			if p.fail == "" {
				p.fail = "error"
			}
		}
	}
}

func clip(s string) string {
	if len(s) > maxPanicText {
		return s[:maxPanicText] + "..."
	}
	return s
}
