package engine

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
)

// TestWarningsAreListedLoggedAndNeverStopALoad: the linter's warnings of
// the files in force are listed by Warnings (a lib module two files require
// once), logged at warn as each file loads, and the files' hooks are live;
// a reload that fixes a file drops its warnings.
func TestWarningsAreListedLoggedAndNeverStopALoad(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-a.lua": "local u = require('util')\nhook.register('PreToolUse', 'bash', function() return hooks.deny('x') end)\n",
		"20-b.lua": "local u = require('util')\nhook.register('Stop', nil, function() end, { stage = 'mutate' })\n",
	})
	writeFile(t, filepath.Join(dir, "lib", "util.lua"), "return { f = function() leak = 1 end }\n")
	rec := &logRecorder{}
	e := openEngine(t, Options{Dir: dir, Logger: slog.New(rec), NoWatch: true})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	if n := e.Stats().Hooks; n != 2 {
		t.Errorf("%d hooks, want 2: warnings must not stop a load", n)
	}
	want := []string{
		filepath.Join(dir, "10-a.lua") + ":2: warning: read of undefined global 'hooks' (did you mean 'hook'?) [undefined-global]",
		filepath.Join(dir, "20-b.lua") + `:2: warning: stage "mutate" is ignored on Stop: only PreToolUse and PostToolUse hooks run in stages (remove the stage option) [stage-ignored]`,
		filepath.Join(dir, "lib", "util.lua") + ":1: warning: assignment to global 'leak' inside a function: globals are read-only once the file has loaded, so this fails when the hook runs (for a value of the call, declare it local inside the function; for a value shared by calls, use the store module (store.get, store.set, store.incr: shared by every state, bounded) or the session ledger (session.count, session.mark: per session): a local of the file's top level is not shared, each pooled Lua state has its own) [global-assign]",
	}
	got := e.Warnings()
	if len(got) != len(want) {
		t.Fatalf("Warnings() = %v, want %d", got, len(want))
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("warning #%d = %s\nwant %s", i+1, got[i], want[i])
		}
	}
	if logged := rec.records(slog.LevelWarn, LintRecord); len(logged) != 4 { // util's once per file
		t.Errorf("logged %d warnings, want 4: %v", len(logged), logged)
	}
	writeFile(t, filepath.Join(dir, "10-a.lua"), "hook.register('PreToolUse', 'bash', function() return hook.deny('x') end)\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.Warnings(); len(got) != 2 {
		t.Errorf("after the fix, Warnings() = %v, want the two others", got)
	}
}
