package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/luahook/luahook/luabind/internal/codec"
)

// gopher-lua's OP_CONCAT joins its operands with no size limit, inside one
// instruction the context cannot interrupt: one `..` of a hundred 16 MiB
// strings asks for 1.6 GiB. So Compile rewrites every concatenation chain
// `a .. b .. c` into a call of concatFn with the operands as arguments, and
// concatFn checks the result's size against Options.MaxStringBytes before it
// allocates it.
//
// The call's function is a string constant, concatMarker, which the compiler
// loads with LOADK; once compiled, resolveConcat replaces that constant in
// every function prototype with concatFn itself. Lua code cannot name the
// function, shadow it or reach it: it is never in a variable, a table or an
// upvalue, only in the register of the call, and the sandbox withholds
// debug, getfenv and setfenv. A source whose own string literal equals the
// marker is refused, so no literal can turn into the function.

// concatMarker is the constant that stands for concatFn until resolveConcat.
const concatMarker = "\x00luahook.concat"

// concatFn is the function every rewritten `..` calls. It is shared by the
// compiled chunks of every file and every state; nothing writes to it (its
// Env stays nil: gopher-lua reads a Go function's Env only for getfenv and
// setfenv, which the sandbox withholds).
var concatFn = &lua.LFunction{IsG: true, GFunction: luaConcat}

// concatCapKey is the registry key of a state's concatState, which
// concatFn reads (a state without it gets DefaultMaxStringBytes and no
// memo).
const concatCapKey = "luahook.concat"

// concatState is what concatFn keeps in one state: the cap, and the last
// few joins of strings alone, so that a hook that builds the same short
// text on every call ("bash-calls:" .. input.sessionId) gets the string it
// built before instead of a new one. An entry is found only by operands
// whose texts, in order, make up its string byte for byte; a join with a
// number is neither looked up nor kept (a number's text is the VM's to
// write: -0, 1e300).
type concatState struct {
	cap  int
	memo *[concatMemoEntries]concatEntry // made at the first join it may keep
	next int                             // the entry the next miss replaces
}

// concatMemoEntries, concatMemoParts and concatMemoBytes bound the memo:
// entries per state, operands per join looked up, bytes per result.
const (
	concatMemoEntries = 4
	concatMemoParts   = 4
	concatMemoBytes   = 256
)

type concatEntry struct {
	s string     // the joined string
	v lua.LValue // s, boxed once
}

// setConcatCap records the cap concatFn applies in L.
func setConcatCap(L *lua.LState, capBytes int) {
	ud := L.NewUserData()
	ud.Value = &concatState{cap: capBytes}
	L.G.Registry.RawSetString(concatCapKey, ud)
}

// memoised returns the string an earlier call joined, when it is the join
// of L's n arguments, all strings. An entry keeps only the string it
// joined, which the operands are compared with in turn, so that the memo
// never holds on to a larger string an operand was cut from.
func (c *concatState) memoised(L *lua.LState, n int) (lua.LValue, bool) {
	if c.memo == nil || n > concatMemoParts {
		return nil, false
	}
	var parts [concatMemoParts]string
	size := 0
	for k := range n {
		s, ok := L.Get(k + 1).(lua.LString)
		if !ok {
			return nil, false
		}
		parts[k] = string(s)
		size += len(s)
	}
	if size > concatMemoBytes || size > c.cap {
		return nil, false
	}
next:
	for i := range c.memo {
		e := &c.memo[i]
		if e.v == nil || len(e.s) != size {
			continue
		}
		off := 0
		for _, p := range parts[:n] {
			if e.s[off:off+len(p)] != p {
				continue next
			}
			off += len(p)
		}
		return e.v, true
	}
	return nil, false
}

// remember keeps v, a join of strings alone, for the next call that joins
// the same text.
func (c *concatState) remember(v lua.LValue) {
	if c.memo == nil {
		c.memo = new([concatMemoEntries]concatEntry)
	}
	c.memo[c.next] = concatEntry{s: string(v.(lua.LString)), v: v}
	c.next = (c.next + 1) % concatMemoEntries
}

// luaConcat is `..` over its arguments, exactly as gopher-lua's OP_CONCAT
// (vm.go, stringConcat): right to left, each run of strings and numbers
// joined at once, a __concat metamethod of either operand called for any
// other pair; but a run whose result would pass the cap is an error before
// it is joined.
func luaConcat(L *lua.LState) int {
	n := L.GetTop()
	capBytes := DefaultMaxStringBytes
	var cs *concatState
	if ud, ok := L.G.Registry.RawGetString(concatCapKey).(*lua.LUserData); ok {
		cs, _ = ud.Value.(*concatState)
	}
	if cs != nil {
		capBytes = cs.cap
		if v, ok := cs.memoised(L, n); ok {
			L.Push(v)
			return 1
		}
	}
	memo := cs != nil && n <= concatMemoParts
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			memo = false
			mm := concatMeta(L, lhs, rhs)
			if mm.Type() != lua.LTFunction {
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(mm)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		// The run i' .. i of strings and numbers, then rhs. Numbers are
		// converted once, in place, so that their size is known.
		if _, ok := rhs.(lua.LString); !ok {
			memo = false
		}
		last := lua.LString(lua.LVAsString(rhs))
		size := len(last)
		first := i
		for ; first >= 1; first-- {
			var s lua.LString
			switch v := L.Get(first).(type) {
			case lua.LString:
				s = v
			case lua.LNumber:
				s = lua.LString(v.String())
				L.Replace(first, s)
				memo = false
			default:
				goto join
			}
			size += len(s)
		}
	join:
		first++
		if size > capBytes {
			L.RaiseError("..: result of %d bytes exceeds the %s limit", size, codec.MiB(capBytes))
		}
		var b strings.Builder
		b.Grow(size)
		for k := first; k <= i; k++ {
			b.WriteString(string(L.Get(k).(lua.LString)))
		}
		b.WriteString(string(last))
		rhs = lua.LString(b.String())
		i = first - 1
	}
	if memo && n >= 2 && len(rhs.(lua.LString)) <= concatMemoBytes {
		cs.remember(rhs)
	}
	L.Push(rhs)
	return 1
}

// concatMeta is gopher-lua's metaOp2(a, b, "__concat"): the field of a's
// metatable, else of b's.
func concatMeta(L *lua.LState, a, b lua.LValue) lua.LValue {
	if mt, ok := rawMetatable(L, a).(*lua.LTable); ok {
		if mm := mt.RawGetString("__concat"); mm != lua.LNil {
			return mm
		}
	}
	if mt, ok := rawMetatable(L, b).(*lua.LTable); ok {
		return mt.RawGetString("__concat")
	}
	return lua.LNil
}

// rawMetatable is a value's metatable, ignoring __metatable.
func rawMetatable(L *lua.LState, v lua.LValue) lua.LValue {
	switch v := v.(type) {
	case *lua.LTable:
		return v.Metatable
	case *lua.LUserData:
		return v.Metatable
	}
	// Other types share one metatable per type, set only by Go code; none of
	// the sandbox's has a __metatable field.
	return L.GetMetatable(v)
}

// concatCall is the call that replaces the concatenation chain e: its
// operands in order, the one value a multiple-value operand (f() or ...)
// gives OP_CONCAT, at e's line.
func concatCall(e *ast.StringConcatOpExpr) *ast.FuncCallExpr {
	var args []ast.Expr
	var cur ast.Expr = e
	for {
		c, ok := cur.(*ast.StringConcatOpExpr)
		if !ok {
			args = append(args, cur)
			break
		}
		args = append(args, c.Lhs)
		cur = c.Rhs
	}
	for _, a := range args {
		switch a := a.(type) {
		case *ast.FuncCallExpr:
			a.AdjustRet = true
		case *ast.Comma3Expr:
			a.AdjustRet = true
		}
	}
	fn := &ast.StringExpr{Value: concatMarker}
	fn.SetLine(e.Line())
	fn.SetLastLine(e.LastLine())
	// AdjustRet: one result, and `return a .. b` stays a plain call (a tail
	// call would drop the caller's frame, and with it the line of an error).
	call := &ast.FuncCallExpr{Func: fn, Args: args, AdjustRet: true}
	call.SetLine(e.Line())
	call.SetLastLine(e.LastLine())
	return call
}

// resolveConcat replaces concatMarker with concatFn in the constants of p
// and of every function nested in it.
func resolveConcat(p *lua.FunctionProto) {
	protos := []*lua.FunctionProto{p}
	for len(protos) > 0 {
		p := protos[len(protos)-1]
		protos = append(protos[:len(protos)-1], p.FunctionPrototypes...)
		for i, k := range p.Constants {
			if s, ok := k.(lua.LString); ok && s == concatMarker {
				p.Constants[i] = concatFn
			}
		}
	}
}
