package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// postBig sends payload to a luahook serve route, with its length
// announced (length > 0) or chunked, and returns the status and body.
func postBig(t *testing.T, url string, payload io.Reader, length int64) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, payload)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if length > 0 {
		req.ContentLength = length
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// bigOutputConfig is a config whose cap on a hook's input holds twice
// MaxScanBytes: an agent's hook input carries the output twice (its
// toolResult.content and native).
func bigOutputConfig(t *testing.T) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "luahook.toml")
	if err := os.WriteFile(cfg, []byte("[runner]\nmax_input_bytes = 16777216\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A 50 MB tool output sent to a real luahook serve on 127.0.0.1, in
// luahook's own format (its length announced, far past the cap on a body)
// and in Claude Code's (chunked): the body is read with the output cut, the
// hooks see its first MaxScanBytes bytes and the marker, and the answer
// replaces the output with that cut one.
func TestBigOutputServeIsCutAndScanned(t *testing.T) {
	s := startServe(t, []string{"--dir", bigOutputDir(t), "--config", bigOutputConfig(t)})
	cwd := t.TempDir()
	head := len(`{"event":"PostToolUse","toolName":"Bash","toolInput":{"command":"cat big.log"},"cwd":"` + cwd + `","toolResult":{"content":"` + `","isError":false}}`)
	code, body := postBig(t, s.base+"/", ownBigOutput(cwd, bigOutputSize), int64(head+bigOutputSize))
	if code != http.StatusOK {
		t.Fatalf("POST /: %d %.300q", code, body)
	}
	checkSeen(t, body, true)
	checkCutAnswer(t, body)

	code, body = postBig(t, s.base+"/agent/claude", claudeBigOutput(cwd, bigOutputSize), -1)
	if code != http.StatusOK {
		t.Fatalf("POST /agent/claude: %d %.300q", code, body)
	}
	checkCutAnswer(t, body)
	if !strings.Contains(body, `"updatedToolOutput"`) {
		t.Errorf("Claude Code's answer does not replace the output: %.300q", body[max(0, len(body)-300):])
	}
}

// A payload cut that is not a tool's output is refused at serve's doors as
// a body over the cap is: a PreToolUse denied naming the cap, on both
// routes, and a hook never sees it.
func TestBigOutputServePreToolUseCutIsRefused(t *testing.T) {
	s := startServe(t, []string{"--dir", bigOutputDir(t)})
	pre := func() io.Reader {
		return bigOutput(`{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"`, bigOutputSize, `"}}`)
	}
	code, body := postBig(t, s.base+"/", pre(), -1)
	if code != http.StatusOK || !strings.Contains(body, `"action":"deny"`) || !strings.Contains(body, "body larger than 8388608 bytes") {
		t.Errorf("POST /: %d %.300q; want a denial naming the cap", code, body)
	}
	claude := bigOutput(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"`, bigOutputSize, `"}}`)
	code, body = postBig(t, s.base+"/agent/claude", claude, -1)
	if code != http.StatusOK || !strings.Contains(body, `"block"`) || !strings.Contains(body, "luahook serve could not read the request: body larger than 8388608 bytes") {
		t.Errorf("POST /agent/claude: %d %.300q; want Claude Code's block naming the cap", code, body)
	}
	// Within the cap, past MaxScanBytes in the tool's input: decided on
	// it whole (no hook objects here).
	small := bigOutput(`{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"`, luahook.MaxScanBytes+1, `"}}`)
	code, body = postBig(t, s.base+"/", small, -1)
	if code != http.StatusOK || body != "{}\n" {
		t.Errorf("POST / of a tool input past MaxScanBytes: %d %.300q; want it decided: no objection", code, body)
	}
	// In a member a tool's output would be in: not decided.
	cut := bigOutput(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"`, luahook.MaxScanBytes+1, `"}`)
	code, body = postBig(t, s.base+"/agent/claude", cut, -1)
	if code != http.StatusOK || !strings.Contains(body, `"permissionDecision":"deny"`) || !strings.Contains(body, "payload larger than") {
		t.Errorf("POST /agent/claude of a PreToolUse with an output member past MaxScanBytes: %d %.300q; want a denial", code, body)
	}
}
