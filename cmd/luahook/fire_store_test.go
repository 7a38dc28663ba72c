package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// countingPolicy denies a session's calls past its 25th, counting in the
// store with a ten-minute window.
const countingPolicy = `
hook.register("PreToolUse", "bash", function(input)
  local n = store.incr("calls:" .. (input.sessionId or ""), 1, 600000)
  if n > 25 then
    return hook.deny("past 25 calls (call " .. n .. ")")
  end
end, { name = "count-calls", policy = true, failure_policy = "closed" })
`

// fireCalls runs n one-shot "luahook fire" processes of session, parallel
// at a time, over the hooks folder dir, with stateHome as $XDG_STATE_HOME,
// and returns how many were denied (exit status 2) and allowed (0).
func fireCalls(t *testing.T, dir, stateHome, session string, n, parallel int, extra ...string) (denied, allowed int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	payload := fmt.Sprintf(`{"toolInput":{"command":"ls"},"sessionId":%q}`, session)
	for range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			args := append([]string{"--dir", dir}, extra...)
			cmd := luahookExe(t, append(args, "fire", "PreToolUse", "--tool", "bash", "--input", payload)...)
			cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+stateHome)
			out, err := cmd.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			var ee *exec.ExitError
			switch {
			case err == nil:
				allowed++
			case errors.As(err, &ee) && ee.ExitCode() == 2 && strings.Contains(string(out), "past 25 calls"):
				denied++
			default:
				t.Errorf("fire: %v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	return denied, allowed
}

// One-shot fire keeps the store in a file under $XDG_STATE_HOME when the
// config names no backend: 30 calls of one session, each its own process
// and several at once, count together, and the five past the limit are
// denied; another session counts on its own.
func TestFireKeepsTheStoreAcrossProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks.d")
	writeTestFile(t, filepath.Join(dir, "10-count.lua"), countingPolicy)
	state := t.TempDir()
	denied, allowed := fireCalls(t, dir, state, "s1", 30, 6)
	if denied != 5 || allowed != 25 {
		t.Fatalf("30 calls of one session: %d denied, %d allowed; want 5 and 25", denied, allowed)
	}
	if denied, allowed := fireCalls(t, dir, state, "s2", 3, 3); denied != 0 || allowed != 3 {
		t.Errorf("another session: %d denied, %d allowed", denied, allowed)
	}
	fi, err := os.Stat(filepath.Join(state, "luahook", "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the store file's mode is %v", fi.Mode().Perm())
	}
}

// backend = "memory" written out is kept by fire: each call starts with an
// empty store (so nothing is denied), and check says so.
func TestFireKeepsAnExplicitMemoryStoreAndCheckWarns(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "hooks.d")
	writeTestFile(t, filepath.Join(dir, "10-count.lua"), countingPolicy)
	cfg := filepath.Join(root, "luahook.toml")
	writeTestFile(t, cfg, "[store]\nbackend = \"memory\"\n")
	state := t.TempDir()
	if denied, allowed := fireCalls(t, dir, state, "s1", 27, 3, "--config", cfg); denied != 0 || allowed != 27 {
		t.Errorf("with backend = \"memory\": %d denied, %d allowed; want 0 and 27", denied, allowed)
	}
	if _, err := os.Stat(filepath.Join(state, "luahook")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fire with backend = \"memory\" made the store's folder: %v", err)
	}

	code, out, errs := runArgs(t, "--dir", dir, "--config", cfg, "check")
	want := `warning: ` + filepath.Join(dir, "10-count.lua") + ` uses the store, which [store] backend = "memory" (` + cfg +
		`:1) keeps in the process, so a one-shot "luahook fire" forgets it between calls: remove that backend line (fire then keeps the store in a file) or set backend = "file" or "redis"`
	if code != 0 || !strings.Contains(errs, want+"\n") || !strings.Contains(out, "1 warning(s)") {
		t.Errorf("check: exit %d\n%s%s\nwant %s", code, out, errs, want)
	}
	// Without the backend line, or with hooks that do not use the store,
	// check has nothing to say.
	writeTestFile(t, cfg, "[store]\nmax_keys = 10\n")
	if _, out, errs := runArgs(t, "--dir", dir, "--config", cfg, "check"); strings.Contains(errs+out, "warning") {
		t.Errorf("check without a backend line warned:\n%s%s", out, errs)
	}
	writeTestFile(t, cfg, "[store]\nbackend = \"memory\"\n")
	// The session ledger lives in the store: a policy reading it is warned
	// about as well.
	writeTestFile(t, filepath.Join(dir, "10-count.lua"), "hook.register('PreToolUse', '*', function(input)\n  if session.has('private-data') then return hook.ask('x') end\nend)\n")
	if _, _, errs := runArgs(t, "--dir", dir, "--config", cfg, "check"); !strings.Contains(errs, filepath.Join(dir, "10-count.lua")+` uses the store, which [store] backend = "memory"`) {
		t.Errorf("check of a policy reading the session ledger did not warn:\n%s", errs)
	}
	writeTestFile(t, filepath.Join(dir, "10-count.lua"), "-- counts nothing in the store.\nlocal s = 'store.incr'\nhook.register('PreToolUse', '*', function(input) end)\n")
	if _, out, errs := runArgs(t, "--dir", dir, "--config", cfg, "check"); strings.Contains(errs+out, "warning") {
		t.Errorf("check of hooks that do not use the store warned:\n%s%s", out, errs)
	}
}

// install warns when the hooks it writes run luahook fire on policies that
// use the store while their config keeps it in the process; not when they
// ask a server, which keeps the store.
func TestInstallWarnsWhenFireCannotKeepTheStore(t *testing.T) {
	project, _ := installEnv(t)
	writeTestFile(t, filepath.Join(project, "hooks.d", "10-count.lua"), countingPolicy)
	writeTestFile(t, filepath.Join(project, "luahook.toml"), "[store]\nbackend = \"memory\"\n")
	code, out, errs := runInstallCmd(t, "claude", "--print", "--command", testLuahook)
	want := `luahook: warning: ` + filepath.Join(project, "hooks.d", "10-count.lua") + ` uses the store, which [store] backend = "memory"`
	if code != 0 || !strings.Contains(errs, want) {
		t.Errorf("install: exit %d\n%s%s\nwant %s", code, out, errs, want)
	}
	if _, _, errs := runInstallCmd(t, "claude", "--print", "--command", testLuahook, "--http", "http://127.0.0.1:8787"); strings.Contains(errs, "uses the store") {
		t.Errorf("install --http warned:\n%s", errs)
	}
	writeTestFile(t, filepath.Join(project, "luahook.toml"), "[store]\n")
	if _, _, errs := runInstallCmd(t, "claude", "--print", "--command", testLuahook); strings.Contains(errs, "uses the store") {
		t.Errorf("install with no backend line warned:\n%s", errs)
	}
}
