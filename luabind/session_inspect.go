package luabind

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/codec"
)

// Limits of Format, so that printing _G or a huge table stays readable.
const (
	formatWidth    = 78  // a table fitting in this many columns prints on one line
	formatMaxDepth = 16  // deeper tables print as {...}
	formatMaxItems = 200 // further items of a table print as "... (N more)"
)

// Format renders a value of the session readably, without running any Lua
// code: strings quoted, numbers as Lua prints them, json.null as json.null,
// functions with their source line, and tables as Lua constructors with the
// array items first, then the other keys sorted, nested and indented, on one
// line when they fit; a table met again inside itself prints as <cycle>. Call
// it with the state held, or on values no hook can be changing.
func (s *Session) Format(v lua.LValue) string {
	f := formatter{st: s.st}
	return f.value(v, 0)
}

type formatter struct {
	st    *state
	stack []*lua.LTable // the tables being formatted, for cycles
}

func (f *formatter) value(v lua.LValue, indent int) string {
	switch v := v.(type) {
	case *lua.LNilType:
		return "nil"
	case lua.LBool:
		return strconv.FormatBool(bool(v))
	case lua.LNumber:
		return formatNumber(float64(v))
	case lua.LString:
		return quoteLua(string(v))
	case *lua.LFunction:
		if v.IsG || v.Proto == nil {
			return "function: builtin"
		}
		return fmt.Sprintf("function: %s:%d", v.Proto.SourceName, v.Proto.LineDefined)
	case *lua.LUserData:
		if v == f.st.Null {
			return "json.null"
		}
		return "userdata"
	case *lua.LTable:
		return f.table(v, indent)
	}
	return v.Type().String()
}

func (f *formatter) table(t *lua.LTable, indent int) string {
	t = f.st.mods.Contents(t) // a module prints its fields
	if slices.Contains(f.stack, t) {
		return "<cycle>"
	}
	if len(f.stack) >= formatMaxDepth {
		return "{...}"
	}
	f.stack = append(f.stack, t)
	defer func() { f.stack = f.stack[:len(f.stack)-1] }()

	n := 0 // the array items 1..n come first, in order
	for n < formatMaxItems*2 && t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	var keys []lua.LValue
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if i, ok := k.(lua.LNumber); ok && i >= 1 && int(i) <= n && float64(i) == math.Trunc(float64(i)) {
			continue
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	total := n + len(keys)
	items := make([]string, 0, min(total, formatMaxItems)+1)
	for i := 1; i <= n && len(items) < formatMaxItems; i++ {
		items = append(items, f.value(t.RawGetInt(i), indent+2))
	}
	for _, k := range keys {
		if len(items) >= formatMaxItems {
			break
		}
		items = append(items, f.key(k)+" = "+f.value(t.RawGet(k), indent+2))
	}
	if len(items) < total {
		items = append(items, fmt.Sprintf("... (%d more)", total-len(items)))
	}
	if len(items) == 0 {
		return "{}"
	}
	line := "{ " + strings.Join(items, ", ") + " }"
	if indent+len(line) <= formatWidth && !strings.Contains(line, "\n") {
		return line
	}
	pad := strings.Repeat(" ", indent+2)
	var b strings.Builder
	b.WriteString("{\n")
	for _, it := range items {
		b.WriteString(pad)
		b.WriteString(it)
		b.WriteString(",\n")
	}
	b.WriteString(pad[:indent])
	b.WriteByte('}')
	return b.String()
}

// key renders a table key as in a constructor: name, or [expression].
func (f *formatter) key(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok && codec.IsIdent(string(s)) && !isKeyword(string(s)) {
		return string(s)
	}
	switch k.(type) {
	case *lua.LTable:
		return "[table]"
	case *lua.LFunction:
		return "[function]"
	}
	return "[" + f.value(k, 0) + "]"
}

// compareKeys orders numbers first, then strings, then the rest by type.
func compareKeys(a, b lua.LValue) int {
	rank := func(v lua.LValue) int {
		switch v.(type) {
		case lua.LNumber:
			return 0
		case lua.LString:
			return 1
		case lua.LBool:
			return 2
		}
		return 3
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	switch a := a.(type) {
	case lua.LNumber:
		return cmp.Compare(float64(a), float64(b.(lua.LNumber)))
	case lua.LString:
		return strings.Compare(string(a), string(b.(lua.LString)))
	}
	return strings.Compare(a.String(), b.String())
}

func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// quoteLua quotes s as a Lua string literal: UTF-8 text stays readable,
// control characters and invalid bytes are escaped.
func quoteLua(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%d`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

var luaKeywords = []string{"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
	"goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"}

func isKeyword(s string) bool { return slices.Contains(luaKeywords, s) }

// Complete returns the completions of the dotted name at the end of text (the
// line up to the cursor): fragment is that name, and each candidate a full
// replacement for it. "hook.reg" gives "hook.register"; after ':' only
// functions are offered (a string's methods for a string); a bare name is
// completed from the globals and the Lua keywords. Complete never waits: it
// returns nothing while the state is in use.
func (s *Session) Complete(text string) (fragment string, candidates []string) {
	start := len(text)
	for start > 0 && strings.IndexByte("_.:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", text[start-1]) >= 0 {
		start--
	}
	fragment = text[start:]
	if fragment != "" && fragment[0] >= '0' && fragment[0] <= '9' {
		return fragment, nil
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		return fragment, nil
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return fragment, nil
	}
	cut := strings.LastIndexAny(fragment, ".:")
	var (
		container lua.LValue = s.st.L.G.Global
		methods              = false
		last                 = fragment
	)
	if cut >= 0 {
		methods = fragment[cut] == ':'
		last = fragment[cut+1:]
		container = s.st.L.G.Global
		for _, name := range strings.Split(fragment[:cut], ".") {
			t, ok := container.(*lua.LTable)
			if !ok || name == "" || strings.Contains(name, ":") {
				return fragment, nil
			}
			container = s.field(t, name)
		}
	}
	seen := map[string]bool{}
	add := func(name string, v lua.LValue) {
		if !strings.HasPrefix(name, last) || seen[name] || !codec.IsIdent(name) ||
			(strings.HasPrefix(name, "__") && !strings.HasPrefix(last, "__")) {
			return
		}
		if _, isFn := v.(*lua.LFunction); methods && !isFn {
			return
		}
		seen[name] = true
		candidates = append(candidates, fragment[:len(fragment)-len(last)]+name)
	}
	if _, ok := container.(lua.LString); ok && methods {
		container = s.st.L.G.Global.RawGetString("string")
	}
	if t, ok := container.(*lua.LTable); ok {
		for depth := 0; t != nil && depth < 4; depth++ {
			for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
				if name, ok := k.(lua.LString); ok {
					add(string(name), v)
				}
			}
			t = indexTable(t)
		}
	}
	if cut < 0 {
		for _, kw := range luaKeywords {
			add(kw, lua.LNil)
		}
	}
	slices.Sort(candidates)
	return fragment, candidates
}

// field reads t[name] raw, then through __index tables.
func (s *Session) field(t *lua.LTable, name string) lua.LValue {
	for depth := 0; t != nil && depth < 4; depth++ {
		if v := t.RawGetString(name); v != lua.LNil {
			return v
		}
		t = indexTable(t)
	}
	return lua.LNil
}

// indexTable returns the __index table of t's metatable, if it is a table.
func indexTable(t *lua.LTable) *lua.LTable {
	mt, ok := t.Metatable.(*lua.LTable)
	if !ok {
		return nil
	}
	idx, _ := mt.RawGetString("__index").(*lua.LTable)
	return idx
}
