package modules

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestReMatchFastFormAnswersAsTheCall: re.match called for one result goes
// through its fast form (reMatchFast, no call frame) once the state has
// looked its pattern up; the same call for two results always goes through
// reMatch. Both answer alike for patterns the automaton decides, patterns
// with needed literals, patterns it leaves to the regexp and subjects past
// its work bound, and the fast form really answers the calls it takes.
func TestReMatchFastFormAnswersAsTheCall(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	m := &Modules{L: L, cfg: Config{Regexps: &Regexps{}, MaxStringBytes: 1 << 20}}
	m.OpenRe()
	patterns := []string{`abc`, `^abc`, `abc$`, `(?i)ÉTÉ`, `[^A-Za-z0-9 ._/=,:@+%-]`, `\bword\b`, `(?m)^x`,
		`^ *(?:[^ ]*=[^ ]* +)*(?:[^ ]*[/=])?(?i:sudo|env|bash[0-9.]*)/*(?: |$)|\.env\b`, `a|b|c`, ``}
	subjects := []string{"", "abc", "xabc", "abcx", "été", "ÉTÉ!", "go test ./...", "a word here", "y\nx",
		"sudo rm -rf /", "cat .env", "FOO=1 bash -c x", strings.Repeat("q", fastRegexpWork+1) + "abc"}
	for _, p := range patterns {
		for _, s := range subjects {
			L.SetGlobal("p", lua.LString(p))
			L.SetGlobal("s", lua.LString(s))
			err := L.DoString(`
				first = re.match(p, s)   -- looks the pattern up
				fast = re.match(p, s)    -- one result: the fast form when it decides
				call, _ = re.match(p, s) -- two results: always the call`)
			if err != nil {
				t.Fatalf("%q on %q: %v", p, s, err)
			}
			first, fast, call := L.GetGlobal("first"), L.GetGlobal("fast"), L.GetGlobal("call")
			if first != call || fast != call {
				t.Errorf("%q on %.20q: first %v, fast form %v, call %v", p, s, first, fast, call)
			}
		}
	}

	// The fast form answers what it decides, and declines the rest.
	fn := L.GetGlobal("re").(*lua.LTable).RawGetString("match").(*lua.LFunction)
	if fn.Fast == nil || fn.Fast.Call == nil {
		t.Fatal("re.match has no fast form")
	}
	results := make([]lua.LValue, 1)
	if n := fn.Fast.Call(fn, []lua.LValue{lua.LString("never looked up"), lua.LString("x")}, results); n != -1 {
		t.Error("the fast form answered a pattern the state never looked up")
	}
	// (the state remembers a pattern by the address of its text: the one
	// the chunk looked up)
	L.SetGlobal("p", lua.LString(`abc`))
	if err := L.DoString(`x = re.match(p, "")`); err != nil {
		t.Fatal(err)
	}
	if n := fn.Fast.Call(fn, []lua.LValue{L.GetGlobal("p"), lua.LString("xabcx")}, results); n != 1 || results[0] != lua.LTrue {
		t.Errorf("the fast form on a pattern looked up: %d, %v; want 1, true", n, results[0])
	}
	L.SetGlobal("w", lua.LString(`\bword\b`))
	if err := L.DoString(`x = re.match(w, "")`); err != nil {
		t.Fatal(err)
	}
	p := L.GetGlobal("p")
	for _, args := range [][]lua.LValue{
		{p},
		{p, lua.LNumber(1)},
		{lua.LNumber(1), lua.LString("1")},
		{p, lua.LString("abc"), lua.LString("extra")},
		{L.GetGlobal("w"), lua.LString("a word")},               // \b: the automaton does not take it
		{p, lua.LString(strings.Repeat("q", fastRegexpWork+1))}, // past one search's work
	} {
		if pat, ok := args[0].(lua.LString); ok {
			// look the case's pattern up right before: the state remembers
			// a few patterns, by the address of their text
			L.SetGlobal("q", pat)
			if err := L.DoString(`x = re.match(q, "")`); err != nil {
				t.Fatal(err)
			}
			if n := fn.Fast.Call(fn, []lua.LValue{pat, lua.LString("")}, results); n != 1 {
				t.Fatalf("%q was not looked up (%d): the case would decline for another reason", pat, n)
			}
		}
		if n := fn.Fast.Call(fn, args, results); n != -1 {
			t.Errorf("the fast form answered %v with %v; it must leave that to the call", args, results[:max(n, 0)])
		}
	}

	// What the call raises is still raised.
	for _, code := range []string{`x = re.match("(", "a")`, `x = re.match({}, "a")`, `x = re.match("a")`} {
		if err := L.DoString(code); err == nil {
			t.Errorf("%s: no error", code)
		} else if !strings.Contains(err.Error(), "re.match") {
			t.Errorf("%s: %v, want re.match's error", code, err)
		}
	}
}
