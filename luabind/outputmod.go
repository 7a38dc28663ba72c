package luabind

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

var (
	keyRedact       lua.LValue = lua.LString("redact")
	keyOutput       lua.LValue = lua.LString("output")
	actionRedact    lua.LValue = lua.LString(luahook.ActionRedact)
	actionReplace   lua.LValue = lua.LString(luahook.ActionReplaceOutput)
	redactEntryKeys            = map[string]bool{"pattern": true, "text": true, "from": true, "to": true, "label": true}
)

// hookRedact is hook.redact(list[, reason]) -> {action = "redact", redact =
// list, reason = reason}: the parts of a PostToolUse output to take out
// before the model reads it. Each entry of list is a string (that text,
// wherever it occurs) or a table with one of pattern (an RE2 expression:
// every match), text (a literal text) or from and to (the 1-based,
// inclusive byte positions string.find gives, in toolResult.content as
// the hook was given it), and a label saying what it is ("a GitHub
// token"). A single entry table may be given instead of a list. The
// entries are checked here, so that a mistake is raised at the line of
// the call; the outcome carries them in the wire form (start, end: a
// 0-based span, end excluded).
func (st *state) hookRedact(L *lua.LState) int {
	arg := L.CheckTable(1)
	L.OptString(2, "")
	list := L.CreateTable(arg.Len(), 0)
	single := arg.RawGetString("pattern") != lua.LNil || arg.RawGetString("text") != lua.LNil ||
		arg.RawGetString("from") != lua.LNil
	n := arg.Len()
	if single {
		n = 1
	}
	if n == 0 {
		L.ArgError(1, "a list of redactions expected (strings, or tables with pattern, text, or from and to, and a label), got an empty table")
	}
	if n > luahook.MaxRedactions {
		L.ArgError(1, "at most "+strconv.Itoa(luahook.MaxRedactions)+" redactions, got "+strconv.Itoa(n))
	}
	for i := 1; i <= n; i++ {
		v := lua.LValue(arg)
		if !single {
			v = arg.RawGetInt(i)
		}
		list.RawSetInt(i, redactEntry(L, i, v))
	}
	keys, vals := []lua.LValue{keyAction, keyRedact, keyReason}, []lua.LValue{actionRedact, list, L.Get(2)}
	if s, ok := vals[2].(lua.LString); !ok || s == "" {
		keys, vals = keys[:2], vals[:2]
	}
	L.Push(st.outcomeTable(L, keys, vals))
	return 1
}

// redactEntry checks the i-th entry of hook.redact's list and returns it
// in the wire form.
func redactEntry(L *lua.LState, i int, v lua.LValue) *lua.LTable {
	at := "hook.redact: entry " + strconv.Itoa(i)
	out := L.CreateTable(0, 2)
	switch e := v.(type) {
	case lua.LString:
		if e == "" {
			L.RaiseError("%s: an empty text", at)
		}
		out.RawSetString("text", e)
		return out
	case *lua.LTable:
		var from, to lua.LValue = lua.LNil, lua.LNil
		kinds := 0
		e.ForEach(func(k, val lua.LValue) {
			ks, ok := k.(lua.LString)
			if !ok || !redactEntryKeys[string(ks)] {
				L.RaiseError("%s: unknown key %s (want pattern, text, or from and to, and label)", at, k.String())
			}
			switch ks {
			case "from":
				from = val
			case "to":
				to = val
			default:
				s, ok := val.(lua.LString)
				if !ok {
					L.RaiseError("%s: %s must be a string, got %s", at, string(ks), val.Type().String())
				}
				if ks != "label" {
					if s == "" {
						L.RaiseError("%s: an empty %s", at, string(ks))
					}
					kinds++
				}
				out.RawSetString(string(ks), s)
			}
		})
		if from != lua.LNil || to != lua.LNil {
			kinds++
			f, okf := from.(lua.LNumber)
			t, okt := to.(lua.LNumber)
			if !okf || !okt || f != lua.LNumber(int(f)) || t != lua.LNumber(int(t)) {
				L.RaiseError("%s: from and to must both be whole numbers (string.find's positions)", at)
			}
			if f < 1 || t < f {
				L.RaiseError("%s: from %d to %d is not a span of the output (from ≥ 1, to ≥ from)", at, int(f), int(t))
			}
			out.RawSetString("start", lua.LNumber(int(f)-1))
			out.RawSetString("end", t)
		}
		if kinds != 1 {
			L.RaiseError("%s: give exactly one of pattern, text, or from and to", at)
		}
		return out
	}
	L.RaiseError("%s: a string or a table expected, got %s", at, v.Type().String())
	return nil
}

// hookReplaceOutput is hook.replace_output(value[, reason]) -> {action =
// "replace_output", output = value, reason = reason}: a PostToolUse
// output replaced whole, by a string (the text the model reads) or a
// table (the tool's own shape, as JSON).
func (st *state) hookReplaceOutput(L *lua.LState) int {
	v := L.Get(1)
	switch v.(type) {
	case lua.LString, *lua.LTable:
	default:
		L.ArgError(1, "a string or a table expected, got "+v.Type().String())
	}
	L.OptString(2, "")
	keys, vals := []lua.LValue{keyAction, keyOutput, keyReason}, []lua.LValue{actionReplace, v, L.Get(2)}
	if s, ok := vals[2].(lua.LString); !ok || s == "" {
		keys, vals = keys[:2], vals[:2]
	}
	L.Push(st.outcomeTable(L, keys, vals))
	return 1
}
