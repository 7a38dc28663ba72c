package modules

import (
	"context"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestMatchAnyWatchesTheContextAsItWalks: re.match_any looks at the call's
// context every matchAnyCheck values it visits, so that a table too large
// to walk within the hook's deadline stops the call; counted in values,
// with the context cancelled before the walk starts.
func TestMatchAnyWatchesTheContextAsItWalks(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	var m Modules
	m.Init(L, Config{Regexps: &Regexps{}}, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	L.SetContext(ctx)
	walk := func(n int) error {
		tb := L.CreateTable(n, 0)
		for i := 1; i <= n; i++ {
			tb.RawSetInt(i, lua.LString("x"))
		}
		return L.CallByParam(lua.P{Fn: L.NewFunction(m.reMatchAny), NRet: 1, Protect: true}, lua.LString("y"), tb)
	}
	if err := walk(matchAnyCheck - 1); err != nil {
		t.Fatalf("a walk of fewer values than the check's period: %v", err)
	}
	if got := L.Get(-1); got != lua.LFalse {
		t.Fatalf("no string matches: got %v", got)
	}
	L.Pop(1)
	err := walk(matchAnyCheck)
	if err == nil || !strings.Contains(err.Error(), "re.match_any: context canceled") {
		t.Fatalf("a walk reaching the check's period with the context done: %v, want the context's error", err)
	}
}
