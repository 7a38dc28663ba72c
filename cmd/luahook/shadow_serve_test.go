package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/server"
)

const (
	allowAll = `hook.register("PreToolUse", "bash", function() end, { name = "live" })
hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm -rf", 1, true) then return hook.deny("shadow hook: no rm") end
end, { name = "next-guard", stage = "validate", mode = "shadow" })
`
	denyRm = `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm -rf", 1, true) then return hook.deny("new policy: no rm") end
end, { name = "strict" })
`
	claudeRm = `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	plainRm  = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /"}}`
	plainLs  = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`
)

func TestServeShadowDirDisagreementsAreCountedNeverEnforced(t *testing.T) {
	t.Parallel()
	live, shadow := t.TempDir(), filepath.Join(t.TempDir(), "next")
	writeFiles(t, live, map[string]string{"10-live.lua": allowAll})
	writeFiles(t, shadow, map[string]string{"10-strict.lua": denyRm})
	s := startServe(t, []string{"--dir", live}, "--shadow-dir", shadow)
	for _, body := range []string{plainRm, plainLs} {
		if code, got := s.post(body); code != http.StatusOK || got != `{}` {
			t.Fatalf("POST %s = %d %s, want the live answer (no objection)", body, code, got)
		}
	}
	resp, got := postAgent(t, s.base+"/agent/claude", []byte(claudeRm), false)
	if resp.Header.Get(server.ExitCodeHeader) != "0" || strings.Contains(string(got), "deny") {
		t.Fatalf("claude answer %s (exit %s), want no objection", got, resp.Header.Get(server.ExitCodeHeader))
	}
	want := map[string]float64{
		`luahook_shadow_decisions_total{agrees="false",hook="dir:next"}`:   2, // rm, plain and claude
		`luahook_shadow_decisions_total{agrees="true",hook="dir:next"}`:    1, // ls
		`luahook_shadow_decisions_total{agrees="false",hook="next-guard"}`: 2,
		`luahook_shadow_decisions_total{agrees="true",hook="next-guard"}`:  1,
		`luahook_shadow_dropped_total`:                                     0,
	}
	eventually(t, "the shadow comparisons are counted", func() bool {
		m := scrapeMetrics(t, s.base)
		for k, v := range want {
			if m[k] != v {
				return false
			}
		}
		return true
	})
	if m := scrapeMetrics(t, s.base); m[`luahook_hook_denials_total{event="PreToolUse",hook="next-guard"}`] != 0 {
		t.Errorf("a shadow hook's deny counted as a denial")
	}
	log := s.stderr.String()
	for _, w := range []string{"shadow set disagrees with the live decision", "event=PreToolUse", "tool=bash", "tool=Bash",
		"live=none", "shadowDecision=deny", `shadowReason="new policy: no rm"`} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
}

func TestServeShadowDirThatHangsOrFailsNeverHoldsOrChangesLiveAnswers(t *testing.T) {
	t.Parallel()
	live, shadow := t.TempDir(), filepath.Join(t.TempDir(), "hung")
	writeFiles(t, live, map[string]string{"10-guard.lua": guardHooks})
	writeFiles(t, shadow, map[string]string{
		"10-spin.lua":   `hook.register("PreToolUse", nil, function() while true do end end, { timeout_ms = 600000 })`,
		"20-broken.lua": `error("does not load")`,
	})
	s := startServe(t, []string{"--dir", live}, "--shadow-dir", shadow)
	const n = server.DefaultShadowSlots + 12
	for i := range n {
		body, want := plainRm, `{"action":"deny","reason":"no rm -rf"}`
		if i%2 == 1 {
			body, want = plainLs, `{}`
		}
		if code, got := s.post(body); code != http.StatusOK || got != want {
			t.Fatalf("POST %s = %d %s, want %s", body, code, got, want)
		}
	}
	// Every live answer came back while the shadow hook still spins: no
	// shadow firing has finished, the slots are full, the rest dropped.
	m := scrapeMetrics(t, s.base)
	for k, v := range map[string]float64{
		`luahook_shadow_decisions_total{agrees="false",hook="dir:hung"}`: 0,
		`luahook_shadow_decisions_total{agrees="true",hook="dir:hung"}`:  0,
		`luahook_shadow_dropped_total`:                                   n - server.DefaultShadowSlots,
		`luahook_load_errors`:                                            0,
	} {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	code, body := get(t, s.base+"/readyz")
	if code != http.StatusOK || !strings.Contains(body, `"status":"ok"`) || !strings.Contains(body, `"shadowErrors":[`) || !strings.Contains(body, "20-broken.lua") {
		t.Errorf("/readyz = %d %s, want ready, listing the shadow load error", code, body)
	}
	if code := s.stop(); code != 0 {
		t.Errorf("exit %d, want 0 (the spinning shadow hook is cancelled); stderr:\n%s", code, s.stderr)
	}
}

func TestServeRefusesAShadowDirThatIsNotAFolder(t *testing.T) {
	t.Parallel()
	live := t.TempDir()
	var out, errb lockedBuffer
	code := run(t.Context(), []string{"--dir", live, "serve", "--addr", "127.0.0.1:0",
		"--shadow-dir", filepath.Join(live, "missing")}, nil, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "--shadow-dir") || !strings.Contains(errb.String(), "not a folder") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
