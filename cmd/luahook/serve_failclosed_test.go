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
	if m := scrapeMetrics(t, s.base); m[`luahook_agent_blocks_total{agent="claude",cause="load"}`] != 1 {
		t.Errorf("the agent route's fail-closed answer is not counted as a block of cause load: %v", m[`luahook_agent_blocks_total{agent="claude",cause="load"}`])
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

// TestServeUnderOnLoadErrorFailDecidesNothingAndFiresNoHook: with
// on_load_error = "fail" and a file that has no version in force, both
// routes answer 503 before any hook runs (a hook's side effects, such as a
// rate limit's counter, must not move for a call that is not decided).
func TestServeUnderOnLoadErrorFailDecidesNothingAndFiresNoHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"luahook.toml":          "hooks_dir = \"hooks.d\"\n[runner]\non_load_error = \"fail\"\n",
		"hooks.d/10-guard.lua":  guardHooks,
		"hooks.d/20-broken.lua": "hook.register(\n",
	})
	s := startServe(t, []string{"--config", filepath.Join(dir, "luahook.toml")})
	ls := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"}}`
	claude := `{"session_id":"s","transcript_path":"/tmp/t","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	if code, body := s.post(ls); code != http.StatusServiceUnavailable || !strings.Contains(body, "not decided") {
		t.Errorf("POST / = %d %s, want 503 not decided", code, body)
	}
	if code, body := post(t, s.base+"/agent/claude", claude); code != http.StatusServiceUnavailable || !strings.Contains(body, "not decided") {
		t.Errorf("POST /agent/claude = %d %s, want 503 not decided", code, body)
	}
	if m := scrapeMetrics(t, s.base); m[`luahook_hook_calls_total{event="PreToolUse",hook="guard",kind="lua"}`] != 0 {
		t.Errorf("a hook ran for a call that was not decided: %v calls", m[`luahook_hook_calls_total{event="PreToolUse",hook="guard",kind="lua"}`])
	}
}

// TestServeAnswersAnAgentsPayloadOnThePlainRouteAsItsAgent: Claude Code's
// own payload sent to POST / (an HTTP hook pointed at the plain route) is
// answered in Claude's protocol, as /agent/claude answers it, not refused
// with a 400 that Claude Code reads as proceed.
func TestServeAnswersAnAgentsPayloadOnThePlainRouteAsItsAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"10-guard.lua": guardHooks})
	s := startServe(t, []string{"--dir", dir})
	rm := `{"session_id":"s","transcript_path":"/tmp/t","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	plainCode, plain := s.post(rm)
	agentCode, want := post(t, s.base+"/agent/claude", rm)
	if plainCode != http.StatusOK || plain != want || agentCode != http.StatusOK || !strings.Contains(plain, `"permissionDecision":"deny"`) {
		t.Errorf("POST / = %d %s; POST /agent/claude = %d %s; want the same Claude denial", plainCode, plain, agentCode, want)
	}
}
