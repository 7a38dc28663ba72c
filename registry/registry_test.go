package registry

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

var nop = luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })

func names(es []Entry) string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e.Name)
	}
	return b.String()
}

func mustRegister(t *testing.T, r *Registry, s luahook.Spec) func() {
	t.Helper()
	if s.Hook == nil {
		s.Hook = nop
	}
	off, err := r.Register(s)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

func TestOrderConfiguredThenLuaByFileThenGo(t *testing.T) {
	r := New()
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "go1"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "b1", Kind: luahook.KindLua, Owner: "hooks.d/20-b.lua"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "a1", Kind: luahook.KindLua, Owner: "hooks.d/10-a.lua"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "cmd1", Kind: luahook.KindCommand, Owner: "config"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "a2", Kind: luahook.KindLua, Owner: "hooks.d/10-a.lua"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "go2"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "http1", Kind: luahook.KindHTTP, Owner: "config"})
	if got, want := names(r.List(luahook.PreToolUse)), "cmd1,http1,a1,a2,b1,go1,go2"; got != want {
		t.Fatalf("order = %s, want %s", got, want)
	}
}

func TestReloadedFileKeepsItsPlace(t *testing.T) {
	r := New()
	for _, f := range []string{"10-a.lua", "20-b.lua", "30-c.lua"} {
		if err := r.ReplaceOwner(f, []luahook.Spec{{Event: luahook.PreToolUse, Name: f, Kind: luahook.KindLua, Hook: nop}}); err != nil {
			t.Fatal(err)
		}
	}
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "go"})
	// Reload the middle file twice, with two hooks the second time.
	for _, n := range []int{1, 2} {
		var specs []luahook.Spec
		for i := range n {
			specs = append(specs, luahook.Spec{Event: luahook.PreToolUse, Name: "b" + string(rune('0'+i)), Kind: luahook.KindLua, Hook: nop})
		}
		if err := r.ReplaceOwner("20-b.lua", specs); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := names(r.List(luahook.PreToolUse)), "10-a.lua,b0,b1,30-c.lua,go"; got != want {
		t.Fatalf("order = %s, want %s", got, want)
	}
}

func TestReplaceOwnerIsAllOrNothing(t *testing.T) {
	r := New()
	if err := r.ReplaceOwner("config", []luahook.Spec{{Event: luahook.Stop, Name: "old", Kind: luahook.KindCommand, Hook: nop}}); err != nil {
		t.Fatal(err)
	}
	err := r.ReplaceOwner("config", []luahook.Spec{
		{Event: luahook.Stop, Name: "new", Kind: luahook.KindCommand, Hook: nop},
		{Event: "Bogus", Name: "bad", Kind: luahook.KindCommand, Hook: nop},
	})
	if err == nil || !strings.Contains(err.Error(), `unknown event "Bogus"`) || !strings.Contains(err.Error(), "hook 2") {
		t.Fatalf("err = %v, want unknown event naming hook 2", err)
	}
	if got := names(r.All()); got != "old" {
		t.Fatalf("after failed replace: %s, want old", got)
	}
}

func TestUnregisterIsIdempotentAndRemovesOnlyItsEntry(t *testing.T) {
	r := New()
	off := mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Name: "a"})
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Name: "b"})
	off()
	off()
	if got := names(r.List(luahook.Stop)); got != "b" {
		t.Fatalf("got %s, want b", got)
	}
}

func TestDefaults(t *testing.T) {
	r := New()
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Owner: "plug"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Kind: luahook.KindCommand, Name: "bash x.sh"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PostToolUse, Background: true, Stage: luahook.StageMutate})
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Background: true, RunWhenToolSkipped: true})
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Timeout: time.Hour})
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Timeout: time.Nanosecond})
	all := r.All()
	want := []struct {
		name    string
		stage   luahook.Stage
		timeout time.Duration
		bg      bool
	}{
		{"bash x.sh", luahook.StageValidate, 5 * time.Second, false}, // configured: validate by default
		{"plug:PreToolUse", luahook.StageMutate, 5 * time.Second, false},
		{"go:PreToolUse", luahook.StageMutate, 5 * time.Second, false},
		{"go:PostToolUse", "", time.Minute, true}, // background: 60 s; stage meaningless
		{"go:Stop", "", 5 * time.Second, false},   // background only on PostToolUse
		{"go:Stop", "", 10 * time.Minute, false},  // clamped
		{"go:Stop", "", time.Millisecond, false},  // clamped
	}
	for i, w := range want {
		e := all[i]
		if e.Name != w.name || e.Stage != w.stage || e.Timeout != w.timeout || e.Background != w.bg || e.FailurePolicy != luahook.FailOpen {
			t.Errorf("entry %d = {%s %s %v bg=%v %s}, want %+v", i, e.Name, e.Stage, e.Timeout, e.Background, e.FailurePolicy, w)
		}
		if e.RunWhenToolSkipped {
			t.Errorf("entry %d: RunWhenToolSkipped outside PostToolUse", i)
		}
	}
}

func TestRegisterRejectsBadSpecs(t *testing.T) {
	r := New()
	cases := []struct {
		spec luahook.Spec
		want string
	}{
		{luahook.Spec{Event: "preToolUse", Hook: nop}, `unknown event "preToolUse"`},
		{luahook.Spec{Event: luahook.Stop}, "no hook function"},
		{luahook.Spec{Event: luahook.Stop, Hook: nop, FailurePolicy: "closd"}, `unknown failure policy "closd"`},
		{luahook.Spec{Event: luahook.PreToolUse, Hook: nop, Stage: "check"}, `unknown stage "check"`},
		{luahook.Spec{Event: luahook.Stop, Hook: nop, Timeout: -1}, "negative timeout"},
		{luahook.Spec{Event: luahook.Stop, Hook: nop, Kind: "wasm"}, `unknown kind "wasm"`},
	}
	for _, c := range cases {
		_, err := r.Register(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Register(%+v) err = %v, want %q", c.spec, err, c.want)
		}
	}
	if r.Len() != 0 {
		t.Fatalf("bad specs registered: %d", r.Len())
	}
}

func TestSnapshotsAreNotAliased(t *testing.T) {
	r := New()
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Name: "a"})
	list := r.List(luahook.Stop)
	all := r.All()
	list[0].Name = "changed"
	all[0].Policy = true
	list = append(list, Entry{Spec: luahook.Spec{Name: "extra"}})
	_ = list
	if e := r.List(luahook.Stop); len(e) != 1 || e[0].Name != "a" || e[0].Policy {
		t.Fatalf("registry changed through a snapshot: %+v", e)
	}
	// A snapshot taken before a change does not see it.
	before := r.List(luahook.Stop)
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Name: "b"})
	if len(before) != 1 {
		t.Fatalf("old snapshot grew to %d", len(before))
	}
}

func TestHasIgnoresMatcherAndCountsPerEvent(t *testing.T) {
	r := New()
	if r.Has(luahook.PreToolUse) || r.Has("nope") {
		t.Fatal("Has on empty registry")
	}
	off := mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Matcher: "nothing-matches-this"})
	if !r.Has(luahook.PreToolUse) || r.Has(luahook.PostToolUse) {
		t.Fatal("Has wrong after register")
	}
	off()
	if r.Has(luahook.PreToolUse) {
		t.Fatal("Has after unregister")
	}
}

func TestDrainCountClearByOwner(t *testing.T) {
	r := New()
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Owner: "p"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Owner: "p"})
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Owner: "q"})
	if n := r.CountByOwner("p"); n != 2 {
		t.Fatalf("CountByOwner = %d", n)
	}
	if n := r.DrainByOwner("p"); n != 2 {
		t.Fatalf("DrainByOwner = %d", n)
	}
	if n := r.CountByOwner("p"); n != 0 || r.Len() != 1 {
		t.Fatalf("after drain: p=%d len=%d", n, r.Len())
	}
	r.Clear()
	if r.Len() != 0 || r.Has(luahook.Stop) {
		t.Fatal("Clear left entries")
	}
}

// TestMatcherNamesAndOldEdgeCases: the name-list rules of before the parser,
// and the edge cases whose meaning the parser changed on purpose.
func TestMatcherNamesAndOldEdgeCases(t *testing.T) {
	cases := []struct {
		matcher, key string
		want         bool
		err          string
	}{
		{"", "bash", true, ""},
		{"*", "bash", true, ""},
		{"bash", "bash", true, ""},
		{"bash", "Bash", true, ""},
		{"BASH", "bash", true, ""},
		{"edit|write", "write", true, ""},
		{" edit | write ", "edit", true, ""},
		{"edit", "editFile", false, ""},
		{"edit", "edi", false, ""},
		{"bash", "", true, ""},                            // no key: every hook matches
		{"ed.*", "edit", true, ""},                        // was a literal name; now a regular expression, as agents write it
		{" * ", "ls", true, ""},                           // was the literal name "*"; now trimmed: every tool
		{"é|ß", "É", true, ""},                            // a regular expression now, still case-insensitive
		{"bash|*", "", false, "not a regular expression"}, // was "bash" or a literal "*"
		{"|", "", false, "an empty element"},              // was a matcher that matched nothing
	}
	for _, c := range cases {
		m, err := ParseMatcher(luahook.PreToolUse, c.matcher)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseMatcher(%q) = %v, want an error containing %q", c.matcher, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseMatcher(%q): %v", c.matcher, err)
			continue
		}
		if got := m.Match(c.key, &luahook.Input{ToolName: c.key}); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.matcher, c.key, got, c.want)
		}
	}
}

func TestConcurrentReadsDuringWrites(t *testing.T) {
	r := New()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, e := range r.Entries(luahook.PreToolUse) {
					_ = e.Matches("bash", &luahook.Input{ToolName: "bash"})
				}
				_ = r.Has(luahook.PreToolUse)
			}
		})
	}
	for i := range 200 {
		off := mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse})
		if err := r.ReplaceOwner("f.lua", []luahook.Spec{{Event: luahook.PreToolUse, Kind: luahook.KindLua, Hook: nop, Matcher: strings.Repeat("x", i%3)}}); err != nil {
			t.Fatal(err)
		}
		off()
	}
	close(stop)
	wg.Wait()
	if r.Len() != 1 {
		t.Fatalf("len = %d", r.Len())
	}
}

func TestScopeCloseUnregistersInReverseThenDrains(t *testing.T) {
	r := New()
	s := r.Scope("plug", ScopeOptions{})
	var order []string
	for _, n := range []string{"a", "b", "c"} {
		off, err := s.Register(luahook.Spec{Event: luahook.Stop, Name: n, Hook: nop})
		if err != nil {
			t.Fatal(err)
		}
		_ = off
	}
	// A hook registered under the same owner outside the scope is caught by the backstop.
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Owner: "plug", Name: "stray"})
	// Observe the reverse order through the snapshots the unregister functions leave.
	s.mu.Lock()
	for i, f := range s.undo {
		name := []string{"a", "b", "c"}[i]
		s.undo[i] = func() { order = append(order, name); f() }
	}
	s.mu.Unlock()
	if n := s.Close(); n != 1 {
		t.Fatalf("backstop drained %d, want 1 (the stray)", n)
	}
	if strings.Join(order, ",") != "c,b,a" {
		t.Fatalf("unregister order %v, want c,b,a", order)
	}
	if r.Len() != 0 {
		t.Fatalf("left %d entries", r.Len())
	}
	if s.Close() != 0 {
		t.Fatal("second Close drained something")
	}
	if _, err := s.Register(luahook.Spec{Event: luahook.Stop, Hook: nop}); !errors.Is(err, ErrScopeClosed) {
		t.Fatalf("register after close: %v", err)
	}
}

func TestInstallDrainsAfterHalfFailedSetup(t *testing.T) {
	r := New()
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Owner: "other"})
	_, err := r.Install("plug", ScopeOptions{}, func(s *Scope) error {
		if _, err := s.RegisterFunc(luahook.PreToolUse, "bash", nop, luahook.Spec{}); err != nil {
			return err
		}
		if _, err := s.RegisterFunc(luahook.Stop, "", nop, luahook.Spec{}); err != nil {
			return err
		}
		// Registered directly on the registry under the owner, bypassing the scope.
		if _, err := r.Register(luahook.Spec{Event: luahook.Stop, Owner: "plug", Hook: nop}); err != nil {
			return err
		}
		return errors.New("boom")
	})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	if n := r.CountByOwner("plug"); n != 0 {
		t.Fatalf("half-failed setup left %d hooks", n)
	}
	if r.Len() != 1 {
		t.Fatalf("other owners touched: len %d", r.Len())
	}
}

func TestScopeCapabilityGate(t *testing.T) {
	r := New()
	var logged []string
	logger := newRecordingLogger(&logged)
	warn := r.Scope("lax", ScopeOptions{Capabilities: &Capabilities{Hooks: false}, Logger: logger})
	if _, err := warn.RegisterFunc(luahook.Stop, "", nop, luahook.Spec{}); err != nil {
		t.Fatalf("non-strict gate refused: %v", err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "without declaring") {
		t.Fatalf("warning not logged: %v", logged)
	}
	strict := r.Scope("strict", ScopeOptions{Capabilities: &Capabilities{Hooks: false}, Strict: true})
	if _, err := strict.RegisterFunc(luahook.Stop, "", nop, luahook.Spec{}); err == nil || r.CountByOwner("strict") != 0 {
		t.Fatalf("strict gate let it through: %v", err)
	}
	declared := r.Scope("ok", ScopeOptions{Capabilities: &Capabilities{Hooks: true}, Strict: true})
	if _, err := declared.RegisterFunc(luahook.Stop, "", nop, luahook.Spec{}); err != nil {
		t.Fatalf("declared owner refused: %v", err)
	}
	undeclared := r.Scope("none", ScopeOptions{Strict: true})
	if _, err := undeclared.RegisterFunc(luahook.Stop, "", nop, luahook.Spec{}); err != nil {
		t.Fatalf("owner without capabilities is not gated: %v", err)
	}
}
