//go:build conformance

package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiPkg is Gemini CLI's npm package in agents.txt.
const geminiPkg = "@google/gemini-cli"

// The context a SessionStart hook gives reaches the model.
func TestGeminiCLISessionStartContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-context.lua": sessionContextPolicy})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	model := startFakeGemini(t, toolCall{Name: "run_shell_command", Input: map[string]any{"command": "true", "description": "nothing"}})
	out, err := p.gemini(t, model, "do nothing")
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	if !model.received("conformance: session context 7f3a") {
		t.Fatalf("the session's context never reached the model (%d requests); gemini said:\n%s", model.count(), out)
	}
	observe(geminiPkg, geminiVersion, checkSessionContext, "yes")
}

// The context an AfterTool hook adds reaches the model with the call's
// result.
func TestGeminiCLIPostToolUseContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-post.lua": postContextPolicy})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeGemini(t, shellCall(marker))
	out, err := p.gemini(t, model, "create the marker")
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run (%v); gemini said:\n%s", err, out)
	}
	if !model.received("conformance: after the call 91c2") {
		t.Fatalf("the AfterTool context never reached the model (%d requests); gemini said:\n%s", model.count(), out)
	}
	observe(geminiPkg, geminiVersion, checkPostContext, "yes")
}

// A policy's deny of the prompt (BeforeAgent) keeps every request from the
// model, the routing classifier's included; gemini -p exits 0 and shows the
// reason only as a [WARNING] line (docs/agents.md).
func TestGeminiCLIBlockedPromptSendsNoRequest(t *testing.T) {
	p := newProject(t, map[string]string{"10-block.lua": promptBlockPolicy})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeGemini(t, shellCall(marker))
	out, err := p.gemini(t, model, "create the marker")
	if n := model.count(); n != 0 {
		t.Errorf("%d requests reached the model, want none; gemini said:\n%s", n, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the call of a blocked prompt ran")
	}
	status := exitStatus(t, err)
	if status != "0" {
		t.Errorf("gemini -p exited %s on a blocked prompt; docs/agents.md says it exits 0: %v", status, err)
	}
	shown := shownAs(out, "conformance: prompt refused 5d0e")
	if shown != "as a [WARNING] line" {
		t.Errorf("the block's reason is shown %q; docs/agents.md says only as a [WARNING] line; gemini said:\n%s", shown, out)
	}
	if t.Failed() {
		return
	}
	observe(geminiPkg, geminiVersion, checkPromptBlocked, "yes")
	observe(geminiPkg, geminiVersion, checkBlockExitStatus, status)
	observe(geminiPkg, geminiVersion, checkBlockShown, shown)
}

// shownAs says how out shows reason: "no", "as a [WARNING] line" or "yes".
func shownAs(out, reason string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, reason) {
			if strings.Contains(line, "[WARNING]") {
				return "as a [WARNING] line"
			}
			return "yes"
		}
	}
	return "no"
}

// A rewrite no hook approved reaches Gemini CLI as the rewritten input
// with no decision (never an approval): the original never runs, and the
// rewritten call meets the CLI's own rules, which --yolo approves.
func TestGeminiCLIRunsAnUnapprovedRewriteUnderItsOwnRules(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeGemini(t, rewriteCall(shellCall, dir))
	out, err := p.gemini(t, model, "create the file")
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	if ran(dir, "original") {
		t.Errorf("the original command ran; gemini said:\n%s", out)
	}
	if !ran(dir, "rewritten") {
		t.Errorf("the rewritten command did not run, although --yolo approves every call; gemini said:\n%s", out)
	}
	if t.Failed() {
		return
	}
	observe(geminiPkg, geminiVersion, checkAsk, "the rewritten call runs under the agent's own rules (--yolo approves it)")
}

// A policy's ask of a rewritten call is Gemini CLI's own confirmation,
// which --yolo does not skip: in gemini -p, where no one can answer it,
// neither the original nor the rewritten command runs, the run ends there
// without telling the model, and the ask's reason is shown (systemMessage,
// which gemini -p prints as a hook system message).
func TestGeminiCLIHookAskRunsNothingInNonInteractiveMode(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-ask.lua": askPolicy})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeGemini(t, rewriteCall(shellCall, dir))
	out, err := p.gemini(t, model, "create the file")
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	for _, name := range []string{"original", "rewritten"} {
		if ran(dir, name) {
			t.Errorf("the %s command ran without an approval; gemini said:\n%s", name, out)
		}
	}
	if n := model.streamed(); n != 1 {
		t.Errorf("%d conversation requests, want only the one that asked for the call: the run ends at the ask; gemini said:\n%s", n, out)
	}
	if !strings.Contains(out, "Hook system message: conformance: confirm 33aa") {
		t.Errorf("the ask's reason is not shown as a hook system message; gemini said:\n%s", out)
	}
	if t.Failed() {
		return
	}
	observe(geminiPkg, geminiVersion, checkHookAsk, "nothing runs; the run ends there, the reason shown as a hook system message, the model told nothing")
}

// A rewrite a validate-stage hook approved runs as rewritten: the original
// command never runs.
func TestGeminiCLIRunsTheApprovedRewrite(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-approve.lua": approvePolicy})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeGemini(t, rewriteCall(shellCall, dir))
	out, err := p.gemini(t, model, "create the file")
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	if ran(dir, "original") {
		t.Errorf("the original command ran; gemini said:\n%s", out)
	}
	if !ran(dir, "rewritten") {
		t.Errorf("the rewritten command did not run; gemini said:\n%s", out)
	}
	if t.Failed() {
		return
	}
	observe(geminiPkg, geminiVersion, checkRewrite, "yes")
}

// A file added since the folder was trusted does not run, and blocks the
// prompt, naming it.
func TestGeminiCLIUntrustedFileBlocksThePrompt(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
	p.luahook(t, "install", "gemini", "--project")
	p.luahook(t, "trust")
	if err := os.WriteFile(filepath.Join(p.dir, "hooks.d", "30-new.lua"), []byte("-- new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeGemini(t, shellCall(marker))
	out, _ := p.gemini(t, model, "create the marker")
	if n := model.count(); n != 0 {
		t.Errorf("%d requests reached the model, want none; gemini said:\n%s", n, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a call ran although a file of the folder is not trusted")
	}
	if !strings.Contains(out, "30-new.lua") || !strings.Contains(out, "luahook trust") {
		t.Errorf("the block does not name the new file and the way out; gemini said:\n%s", out)
	}
	if t.Failed() {
		return
	}
	observe(geminiPkg, geminiVersion, checkUntrusted, "yes")
}
