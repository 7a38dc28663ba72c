package modules

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/codec"
)

// CapStrings replaces the standard functions that can build a string far
// larger than their arguments with versions capped at Config.MaxStringBytes,
// and the pattern functions with an interruptible matcher (internal/lpattern).
// The string module table is the __index of the string metatable, so
// patching the table covers ("x"):rep(n) too. gopher-lua makes the module
// table the metatable itself; it gets a metatable of its own here, out of
// Lua's reach (__metatable hides it from getmetatable), so that a file that
// writes string.__concat or string.__add gives strings no metamethods:
// luabind's leavesInput counts on "x" .. t calling no Lua code.
func (m *Modules) CapStrings() {
	L := m.L
	mod := L.G.Global.RawGetString("string").(*lua.LTable)
	mod.RawSetString("rep", L.NewFunction(m.strRep))
	mod.RawSetString("format", L.NewFunction(m.strFormat))
	mod.RawSetString("find", L.NewFunction(m.strFind))
	mod.RawSetString("match", L.NewFunction(m.strMatch))
	mod.RawSetString("gsub", L.NewFunction(m.strGsub))
	gmatch := L.NewFunction(m.strGmatch)
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
	tab.RawSetString("concat", L.NewFunction(m.tableConcat))
	tab.RawSetString("sort", L.NewFunction(m.tableSort))
}

// tooBig raises the error of a function whose result would pass the cap.
func (m *Modules) tooBig(L *lua.LState, fn string, n int) {
	L.RaiseError("%s: result of %d bytes exceeds the %s limit", fn, n, codec.MiB(m.cfg.MaxStringBytes))
}

func (m *Modules) strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || len(s) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if n > m.cfg.MaxStringBytes/len(s) {
		size := float64(len(s)) * float64(n)
		L.RaiseError("string.rep: result of %.0f bytes exceeds the %s limit", size, codec.MiB(m.cfg.MaxStringBytes))
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// strFormat is string.format with Lua 5.1's conversions (%c %d %i %o %u %x
// %X %e %E %f %g %G %q %s, flags "-+ #0", widths and precisions of at most
// two digits), rendered as gopher-lua renders them, by Go's fmt. Anything
// else, such as Go's %v or %[1]s, is refused, and an upper bound of the
// result's size is checked before formatting.
func (m *Modules) strFormat(L *lua.LState) int {
	f := L.CheckString(1)
	size, arg := 0, 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			size++
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			size++
			continue
		}
		flags := i
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		if i-flags > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		width := 0
		for d := 0; i < len(f) && isDigit(f[i]); d++ {
			if d == 2 {
				L.RaiseError("invalid format (width or precision too long)")
			}
			width = width*10 + int(f[i]-'0')
			i++
		}
		if i < len(f) && f[i] == '.' {
			i++
			for d := 0; i < len(f) && isDigit(f[i]); d++ {
				if d == 2 {
					L.RaiseError("invalid format (width or precision too long)")
				}
				i++
			}
		}
		if i == len(f) {
			L.RaiseError("invalid option '%s' to 'format'", "%")
		}
		if strings.IndexByte("cdiouxXeEfgGqs", f[i]) < 0 {
			L.RaiseError("invalid option '%%%c' to 'format'", f[i])
		}
		if arg++; arg > L.GetTop() {
			L.ArgError(arg, "no value")
		}
		size += width + formatBound(f[i], f[flags:i], L.Get(arg))
	}
	if size > m.cfg.MaxStringBytes {
		L.RaiseError("string.format: result of up to %d bytes exceeds the %s limit", size, codec.MiB(m.cfg.MaxStringBytes))
	}
	args := make([]any, arg-1)
	for i := range args {
		args[i] = L.Get(i + 2)
	}
	L.Push(lua.LString(fmt.Sprintf(f, args...)))
	return 1
}

// formatBound is the most that Go's fmt writes for the conversion verb of v,
// before padding to a width: LString and LNumber format themselves
// (gopher-lua's value.go), every other value through its String, at most a
// type name and an address.
func formatBound(verb byte, flags string, v lua.LValue) int {
	s, ok := v.(lua.LString)
	if !ok {
		return 512 // a number: 309 digits of 1e308, a point and 99 of precision
	}
	n := len(s)
	switch verb {
	case 's', 'd', 'i': // %d of a string is the string, or 0
		return n
	case 'q': // "\xff" for a byte, at most
		return 4*n + 2
	case 'x', 'X': // "ff", "0xff" with '#', separated by spaces with ' '
		space, sharp := strings.IndexByte(flags, ' ') >= 0, strings.IndexByte(flags, '#') >= 0
		switch {
		case space && sharp:
			return 5 * n
		case space:
			return 3 * n
		case sharp:
			return 2*n + 2
		}
		return 2 * n
	}
	return n + 32 // Go's "%!c(string=...)"
}

func (m *Modules) tableConcat(L *lua.LState) int {
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
		if size > m.cfg.MaxStringBytes {
			m.tooBig(L, "table.concat", size)
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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
