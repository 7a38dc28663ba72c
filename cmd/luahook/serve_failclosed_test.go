package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeDeniesWhileAPolicyFileHasNoVersionInForce: a hook file that does
// not parse, with no earlier good version, makes serve deny every event
// that can block on its plain route and on an agent route, naming the file,
// as fire does; other events are answered. Fixed, the folder decides as its
// policies say; broken again, its last good version stays in force.
func TestServeDeniesWhileAPolicyFileHasNoVersionInForce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks, "20-broken.lua": "hook.register(\n"})
	s := startServe(t, []string{"--dir", dir})
	ls := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`
	claude := `{"session_id":"s","transcript_path":"/tmp/t","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	code, body := s.post(ls)
	if code != http.StatusOK || !strings.Contains(body, `"action":"deny"`) || !strings.Contains(body, "20-broken.lua") {
		t.Errorf("POST / with a broken file = %d %s, want a denial naming 20-broken.lua", code, body)
	}
	code, body = post(t, s.base+"/agent/claude", claude)
	if code != http.StatusOK || !strings.Contains(body, `"permissionDecision":"deny"`) || !strings.Contains(body, "20-broken.lua") {
		t.Errorf("POST /agent/claude with a broken file = %d %s, want Claude's deny naming 20-broken.lua", code, body)
	}
	if code, body := s.post(`{"event":"Stop"}`); code != http.StatusOK || body != `{}` {
		t.Errorf("Stop with a broken file = %d %s, want 200 {} (it cannot block)", code, body)
	}
	if code, body := get(t, s.base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "20-broken.lua") {
		t.Errorf("/readyz = %d %s, want 503 naming the file", code, body)
	}

	writeFiles(t, dir, map[string]string{"20-broken.lua": `hook.register("PreToolUse", "bash", function() end)`})
	eventually(t, "the fixed file to load", func() bool {
		code, body := s.post(ls)
		return code == http.StatusOK && !strings.Contains(body, `"deny"`)
	})
	writeFiles(t, dir, map[string]string{"20-broken.lua": "hook.register(\n"})
	eventually(t, "/readyz to name the file broken again", func() bool {
		code, body := get(t, s.base+"/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, filepath.Base("20-broken.lua"))
	})
	if code, body := s.post(ls); code != http.StatusOK || strings.Contains(body, `"deny"`) {
		t.Errorf("POST / after the file broke again = %d %s, want its last good version in force (no denial)", code, body)
	}
}
