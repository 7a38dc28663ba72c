package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// bigOutputSize is the size of the tool output the big-output tests send.
const bigOutputSize = 50_000_000

// measureHook reports, as context, what a PostToolUse hook was given of the
// tool's output: its length, toolResult.cut, and whether it ends with the
// cut marker.
const measureHook = `
hook.register("PostToolUse", nil, function(input)
  local r = input.toolResult
  local marked = string.find(r.content, "bytes) was withheld: too large to scan]", 1, true) ~= nil
  return hook.context("seen len=" .. #r.content .. " cut=" .. tostring(r.cut) .. " marked=" .. tostring(marked))
end, { name = "measure" })
`

// bigOutputDir is a hooks folder with measureHook.
func bigOutputDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "measure.lua"), []byte(measureHook), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// bigOutput is a payload of head, n bytes of 'x' and tail, made as it is
// read.
func bigOutput(head string, n int, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(head), io.LimitReader(xBytes{}, int64(n)), strings.NewReader(tail))
}

type xBytes struct{}

func (xBytes) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// claudeBigOutput is Claude Code's PostToolUse payload of a Bash call whose
// standard output is n bytes.
func claudeBigOutput(cwd string, n int) io.Reader {
	return bigOutput(`{"session_id":"big1","transcript_path":"/tmp/t.jsonl","cwd":`+strconv.Quote(cwd)+
		`,"permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cat big.log"},"tool_response":{"stdout":"`,
		n, `","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_big","duration_ms":9}`)
}

// ownBigOutput is luahook's own PostToolUse payload whose
// toolResult.content is n bytes.
func ownBigOutput(cwd string, n int) io.Reader {
	return bigOutput(`{"event":"PostToolUse","toolName":"Bash","toolInput":{"command":"cat big.log"},"cwd":`+strconv.Quote(cwd)+
		`,"toolResult":{"content":"`, n, `","isError":false}}`)
}

// cutMarkerRE finds luahook.CutMarker in an answer, JSON-escaped.
var cutMarkerRE = regexp.MustCompile(`\\n\[luahook: the rest of this output \((\d+) bytes\) was withheld: too large to scan\]`)

var seenRE = regexp.MustCompile(`seen len=(\d+) cut=(\d+) marked=(true|false)`)

// checkSeen checks what measureHook reported in an answer: the output's
// first luahook.MaxScanBytes bytes and the marker (exactly, with exact:
// luahook's own format, where the output is the string), and the bytes
// withheld.
func checkSeen(t *testing.T, answer string, exact bool) {
	t.Helper()
	m := seenRE.FindStringSubmatch(answer)
	if m == nil {
		t.Fatalf("the hook did not report what it saw; answer ends %.600q", answer[max(0, len(answer)-600):])
	}
	n, _ := strconv.Atoi(m[1])
	cut, _ := strconv.ParseInt(m[2], 10, 64)
	// a cut string keeps room for its marker within MaxScanBytes
	if least := int64(bigOutputSize - luahook.MaxScanBytes); cut < least || cut > least+512 {
		t.Errorf("toolResult.cut = %d, want the output less at most %d bytes (%d)", cut, luahook.MaxScanBytes, least)
	}
	want := bigOutputSize - int(cut) + len(luahook.CutMarker(cut))
	if exact && n != want || n > luahook.MaxScanBytes || n < luahook.MaxScanBytes-512 || m[3] != "true" {
		t.Errorf("the hook saw %d bytes (marked %s); want the output's first bytes and the marker, %d in all, at most %d", n, m[3], want, luahook.MaxScanBytes)
	}
}

// checkCutAnswer checks that the answer hands the model the cut output:
// it carries the marker, and never the output's unscanned rest.
func checkCutAnswer(t *testing.T, answer string) {
	t.Helper()
	m := cutMarkerRE.FindStringSubmatch(answer)
	if m == nil {
		t.Fatalf("the answer does not carry the cut output (its marker); it ends %.300q", answer[max(0, len(answer)-300):])
	}
	if n, _ := strconv.Atoi(m[1]); n < bigOutputSize-luahook.MaxScanBytes || n > bigOutputSize-luahook.MaxScanBytes+512 {
		t.Errorf("the marker says %d bytes were withheld, want about %d", n, bigOutputSize-luahook.MaxScanBytes)
	}
	if len(answer) > 2*luahook.MaxScanBytes+(1<<20) {
		t.Errorf("the answer is %d bytes: more than the output cut", len(answer))
	}
}

// fireBig runs the luahook command (a process of its own) with payload on
// a pipe as its standard input.
func fireBig(t *testing.T, payload io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := luahookExe(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(w, payload)
		w.Close()
		copied <- err
	}()
	err = cmd.Wait()
	if cerr := <-copied; cerr != nil && err == nil {
		t.Fatalf("writing the payload: %v", cerr)
	}
	code = cmd.ProcessState.ExitCode()
	return code, out.String(), errb.String()
}

// A 50 MB tool output in Claude Code's own payload, through luahook fire
// --agent claude on a pipe: the hooks see its first MaxScanBytes bytes and
// the marker, with toolResult.cut, and the answer replaces the output with
// that cut one.
func TestBigOutputFireClaudeIsCutAndScanned(t *testing.T) {
	dir := bigOutputDir(t)
	// The hook's report is read in the trace: Claude Code's answer is the
	// agent's, its context what the agent is told. The hook's input holds
	// the output twice (toolResult.content and native's tool_response), so
	// the cap on a hook's input is raised past twice MaxScanBytes.
	cfg := filepath.Join(t.TempDir(), "luahook.toml")
	if err := os.WriteFile(cfg, []byte("[runner]\nmax_input_bytes = 16777216\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := fireBig(t, claudeBigOutput(t.TempDir(), bigOutputSize), "--dir", dir, "--config", cfg, "fire", "--agent", "claude", "--trace")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	checkSeen(t, errs, false)
	checkCutAnswer(t, out)
}

// The same in luahook's own format, through plain luahook fire: the
// content is the output's first MaxScanBytes bytes and the marker, exactly.
func TestBigOutputFireOwnFormatIsCutAndScanned(t *testing.T) {
	dir := bigOutputDir(t)
	code, out, errs := fireBig(t, ownBigOutput(t.TempDir(), bigOutputSize), "--dir", dir, "fire")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	checkSeen(t, out, true)
	checkCutAnswer(t, out)
}

// Only a tool's output is cut: a PreToolUse whose tool input holds a
// string past MaxScanBytes, within the cap, is decided on that input whole;
// one that carries a member a tool's output would be in, cut, is denied as
// a payload over the cap is (a call is never decided on a cut payload);
// and one past the cap is refused as before.
func TestBigOutputFirePreToolUseCutIsDenied(t *testing.T) {
	dir := bigOutputDir(t)
	if err := os.WriteFile(filepath.Join(dir, "size.lua"), []byte(`hook.register("PreToolUse", nil, function(input)
  return hook.context("command of " .. #input.toolInput.command .. " bytes")
end)`), 0o644); err != nil {
		t.Fatal(err)
	}
	n := luahook.MaxScanBytes + 10
	pre := bigOutput(`{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"`, n, `"}}`)
	code, out, errs := fireBig(t, pre, "--dir", dir, "fire")
	if code != 0 || !strings.Contains(out, "command of "+strconv.Itoa(n)+" bytes") {
		t.Fatalf("exit %d, stdout %.300q, stderr %.300q; want the call decided on its whole input", code, out, errs)
	}
	claude := bigOutput(`{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"`, n, `"}}`)
	code, out, errs = fireBig(t, claude, "--dir", dir, "fire", "--agent", "claude")
	if code != 2 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(errs, "payload larger than") {
		t.Fatalf("a PreToolUse with an output member past MaxScanBytes: exit %d, stdout %.300q, stderr %.300q; want it denied, the size named", code, out, errs)
	}
	// Past the cap as well: refused exactly as before strings were cut.
	pre = bigOutput(`{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"`, bigOutputSize, `"}}`)
	code, out, errs = fireBig(t, pre, "--dir", dir, "fire")
	if code != 2 || !strings.Contains(out, `"action":"deny"`) || !strings.Contains(errs, "standard input: payload larger than 8 MiB") {
		t.Fatalf("exit %d, stdout %.300q, stderr %.300q; want 2, a denial, the cap named", code, out, errs)
	}
}
