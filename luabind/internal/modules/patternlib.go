package modules

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/codec"
	"github.com/luahook/luahook/luabind/internal/lpattern"
)

// The Lua-facing pattern functions, string.find, string.match, string.gmatch
// and string.gsub, on the interruptible matcher of internal/lpattern.

// newMatch prepares a match of pat in src that stops when the call's
// context is done.
func newMatch(L *lua.LState, src, pat string) *lpattern.Matcher {
	return lpattern.New(L.Context(), src, pat)
}

// protect runs a match and turns a pattern error into a Lua error.
func protect(L *lua.LState, fn func()) {
	if err := lpattern.Catch(fn); err != nil {
		L.RaiseError("%s", err.Msg)
	}
}

// pushCapture pushes capture i of the last match of ms, or the whole match
// s..e when the pattern has no captures and i is 0.
func pushCapture(L *lua.LState, ms *lpattern.Matcher, i, s, e int) {
	if text, pos, isPos := ms.Capture(i, s, e); isPos {
		L.Push(lua.LNumber(pos))
	} else {
		L.Push(lua.LString(text))
	}
}

// pushCaptures pushes every capture (the whole match when there are none and
// wholeMatch is set) and returns how many.
func pushCaptures(L *lua.LState, ms *lpattern.Matcher, s, e int, wholeMatch bool) int {
	n := ms.Captures()
	if n == 0 && wholeMatch {
		n = 1
	}
	for i := 0; i < n; i++ {
		pushCapture(L, ms, i, s, e)
	}
	return n
}

// startIndex converts Lua's 1-based, possibly negative init to an offset in
// [0, len].
func startIndex(init, n int) int {
	if init < 0 {
		init = max(n+init+1, 0)
	}
	return min(max(init-1, 0), n)
}

func (m *Modules) strFind(L *lua.LState) int  { return m.findAux(L, true) }
func (m *Modules) strMatch(L *lua.LState) int { return m.findAux(L, false) }

// findAux is string.find and string.match (lstrlib.c's str_find_aux).
func (m *Modules) findAux(L *lua.LState, find bool) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	init := startIndex(L.OptInt(3, 1), len(src))
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(pat, lpattern.Specials)) {
		if i := strings.Index(src[init:], pat); i >= 0 {
			L.Push(codec.Number(init + i + 1))
			L.Push(codec.Number(init + i + len(pat)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	ms := newMatch(L, src, pat)
	n := 0
	protect(L, func() {
		s, e := ms.Find(init)
		if s < 0 {
			L.Push(lua.LNil)
			n = 1
			return
		}
		if find {
			L.Push(codec.Number(s + 1))
			L.Push(codec.Number(e))
			n = pushCaptures(L, ms, 0, 0, false) + 2
			return
		}
		n = pushCaptures(L, ms, s, e, true)
	})
	return n
}

// strGmatch is string.gmatch (lstrlib.c's gmatch): as in Lua 5.1, '^' is not
// an anchor here.
func (m *Modules) strGmatch(L *lua.LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := newMatch(L, src, pat)
		n := 0
		protect(L, func() {
			for s := pos; s <= len(src); s++ {
				if e := ms.MatchAt(s, 0); e >= 0 {
					pos = e
					if e == s {
						pos++ // an empty match: move on at least one position
					}
					n = pushCaptures(L, ms, s, e, true)
					return
				}
			}
			pos = len(src) + 1
		})
		return n
	}))
	return 1
}

// strGsub is string.gsub with Lua 5.1's semantics (lstrlib.c's str_gsub),
// its result capped at MaxStringBytes: each piece's size is checked before
// it is appended.
func (m *Modules) strGsub(L *lua.LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTNumber, lua.LTTable, lua.LTFunction)
	repl := L.Get(3)
	maxN := L.OptInt(4, len(src)+1)
	capBytes := m.cfg.MaxStringBytes
	anchor := len(pat) > 0 && pat[0] == '^'
	p := 0
	if anchor {
		p = 1
	}
	var tmpl *template
	if _, ok := repl.(*lua.LTable); !ok {
		if _, ok := repl.(*lua.LFunction); !ok {
			tmpl = luaTemplate(lua.LVAsString(repl), func() { raiseIfDone(L, "string.gsub") })
		}
	}
	ms := newMatch(L, src, pat)
	var b strings.Builder
	// grow checks that the result can take n more bytes.
	grow := func(n int) {
		if b.Len()+n > capBytes {
			m.tooBig(L, "string.gsub", b.Len()+n)
		}
	}
	n := 0
	protect(L, func() {
		s := 0
		for n < maxN {
			e := ms.MatchAt(s, p)
			if e >= 0 {
				n++
				if tmpl != nil {
					tmpl.resolveLua(ms, s, e)
					grow(tmpl.size())
					ms.Work(tmpl.write(&b))
				} else {
					text := m.replacement(L, ms, repl, s, e)
					grow(len(text))
					b.WriteString(text)
				}
			}
			switch {
			case e > s:
				s = e
			case s < len(src):
				grow(1)
				b.WriteByte(src[s])
				s++
			default:
				s = len(src) + 1
			}
			if s > len(src) || anchor {
				break
			}
		}
		if s <= len(src) {
			grow(len(src) - s)
			b.WriteString(src[s:])
		}
	})
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// replacement returns the text that replaces the match s..e when the
// replacement is a table or a function (lstrlib.c's add_value).
func (m *Modules) replacement(L *lua.LState, ms *lpattern.Matcher, repl lua.LValue, s, e int) string {
	var val lua.LValue
	switch r := repl.(type) {
	case *lua.LTable:
		pushCapture(L, ms, 0, s, e)
		val = L.GetTable(r, L.Get(-1))
		L.Pop(1)
	case *lua.LFunction:
		L.Push(r)
		nargs := pushCaptures(L, ms, s, e, true)
		L.Call(nargs, 1)
		val = L.Get(-1)
		L.Pop(1)
	}
	switch v := val.(type) {
	case lua.LString, lua.LNumber:
		return lua.LVAsString(v)
	default:
		if lua.LVAsBool(val) {
			L.RaiseError("invalid replacement value (a %s)", val.Type().String())
		}
		return ms.Text()[s:e] // nil or false: keep the original text
	}
}
