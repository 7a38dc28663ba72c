package luabind

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// capStrings replaces the standard functions that can build a string far
// larger than their arguments with versions capped at Options.MaxStringBytes,
// and the pattern functions with an interruptible matcher (pattern.go).
// The string module table is the __index of the string metatable, so
// patching the table covers ("x"):rep(n) too. gopher-lua makes the module
// table the metatable itself; it gets a metatable of its own here, out of
// Lua's reach (__metatable hides it from getmetatable), so that a file that
// writes string.__concat or string.__add gives strings no metamethods:
// leavesInput counts on "x" .. t calling no Lua code.
func (st *state) capStrings() {
	L := st.L
	mod := L.G.Global.RawGetString("string").(*lua.LTable)
	format := mod.RawGetString("format").(*lua.LFunction).GFunction
	mod.RawSetString("rep", L.NewFunction(st.strRep))
	mod.RawSetString("format", L.NewFunction(func(L *lua.LState) int { return st.strFormat(L, format) }))
	mod.RawSetString("find", L.NewFunction(st.strFind))
	mod.RawSetString("match", L.NewFunction(st.strMatch))
	mod.RawSetString("gsub", L.NewFunction(st.strGsub))
	gmatch := L.NewFunction(st.strGmatch)
	mod.RawSetString("gmatch", gmatch)
	mod.RawSetString("gfind", gmatch)
	mod.RawSetString("dump", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("string.dump is not available in the luahook sandbox")
		return 0
	}))
	mod.RawSetString("__metatable", lua.LString("protected"))
	mt := L.CreateTable(0, 2)
	mt.RawSetString("__index", mod)
	mt.RawSetString("__metatable", lua.LString("protected"))
	L.SetMetatable(lua.LString(""), mt)
	tab := L.G.Global.RawGetString("table").(*lua.LTable)
	tab.RawSetString("concat", L.NewFunction(st.tableConcat))
}

// tooBig raises the error of a function whose result would pass the cap.
func (st *state) tooBig(L *lua.LState, fn string, n int) {
	L.RaiseError("%s: result of %d bytes exceeds the %s limit", fn, n, mib(st.sh.opts.MaxStringBytes))
}

func (st *state) strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || len(s) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if n > st.sh.opts.MaxStringBytes/len(s) {
		size := float64(len(s)) * float64(n)
		L.RaiseError("string.rep: result of %.0f bytes exceeds the %s limit", size, mib(st.sh.opts.MaxStringBytes))
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// strFormat checks the size string.format may produce, then runs gopher-lua's
// own. Widths and precisions have at most two digits, as in Lua 5.1.
func (st *state) strFormat(L *lua.LState, format lua.LGFunction) int {
	f := L.CheckString(1)
	size, arg := len(f), 2
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		digits := 0
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i, digits = i+1, digits+1
		}
		if i < len(f) && f[i] == '.' {
			i++
			prec := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i, prec = i+1, prec+1
			}
			digits = max(digits, prec)
		}
		if digits > 2 {
			L.RaiseError("invalid format (width or precision too long)")
		}
		size += 100
		if s, ok := L.Get(arg).(lua.LString); ok {
			if i < len(f) && f[i] == 'q' {
				size += 4*len(s) + 2
			} else {
				size += len(s)
			}
		} else {
			size += 320 // the longest float with %f
		}
		arg++
	}
	if size > st.sh.opts.MaxStringBytes {
		L.RaiseError("string.format: result of up to %d bytes exceeds the %s limit", size, mib(st.sh.opts.MaxStringBytes))
	}
	return format(L)
}

func (st *state) tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i := L.OptInt(3, 1)
	j := L.OptInt(4, t.Len())
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	size := 0
	for k := i; k <= j; k++ {
		v := t.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		size += len(lua.LVAsString(v))
		if k < j {
			size += len(sep)
		}
		if size > st.sh.opts.MaxStringBytes {
			st.tooBig(L, "table.concat", size)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for k := i; k <= j; k++ {
		b.WriteString(lua.LVAsString(t.RawGetInt(k)))
		if k < j {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}
