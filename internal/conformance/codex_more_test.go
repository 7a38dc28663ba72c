//go:build conformance

package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexPkg is Codex's npm package in agents.txt.
const codexPkg = "@openai/codex"

// The context a SessionStart hook gives reaches the model.
func TestCodexSessionStartContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-context.lua": sessionContextPolicy})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	model := startFakeResponses(t, toolCall{Name: "exec_command", Input: map[string]any{"cmd": "true"}})
	out, err := p.codex(t, model, "do nothing")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	if !model.received("conformance: session context 7f3a") {
		t.Fatalf("the session's context never reached the model (%d requests); codex said:\n%s", model.count(), out)
	}
	observe(codexPkg, codexVersion, checkSessionContext, "yes")
}

// The context a PostToolUse hook adds reaches the model with the call's
// result.
func TestCodexPostToolUseContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-post.lua": postContextPolicy})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeResponses(t, execCall(marker))
	out, err := p.codex(t, model, "create the marker")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run (%v); codex said:\n%s", err, out)
	}
	if !model.received("conformance: after the call 91c2") {
		t.Fatalf("the PostToolUse context never reached the model (%d requests); codex said:\n%s", model.count(), out)
	}
	observe(codexPkg, codexVersion, checkPostContext, "yes")
}

// codexBlocked is what codex exec prints of a blocked prompt: that the
// hook blocked it, never the reason (docs/agents.md).
const codexBlocked = "hook: UserPromptSubmit Blocked"

// A policy's deny of the prompt keeps every request from the model; codex
// exec exits 0 and says only that a hook blocked the prompt.
func TestCodexBlockedPromptSendsNoRequest(t *testing.T) {
	p := newProject(t, map[string]string{"10-block.lua": promptBlockPolicy})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeResponses(t, execCall(marker))
	out, err := p.codex(t, model, "create the marker")
	if n := model.count(); n != 0 {
		t.Errorf("%d requests reached the model, want none; codex said:\n%s", n, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the call of a blocked prompt ran")
	}
	status := exitStatus(t, err)
	if status != "0" {
		t.Errorf("codex exec exited %s on a blocked prompt; docs/agents.md says it exits 0: %v", status, err)
	}
	shown := shownAs(out, "conformance: prompt refused 5d0e")
	if shown != "no" || !strings.Contains(out, codexBlocked) {
		t.Errorf("the block's reason is shown %q, and %q said: %v; docs/agents.md says Codex never shows a block's reason; codex said:\n%s",
			shown, codexBlocked, strings.Contains(out, codexBlocked), out)
	}
	if t.Failed() {
		return
	}
	observe(codexPkg, codexVersion, checkPromptBlocked, "yes")
	observe(codexPkg, codexVersion, checkBlockExitStatus, status)
	observe(codexPkg, codexVersion, checkBlockShown, "no (only that a hook blocked it)")
}

// A rewrite no hook approved is Codex's deny (it has no ask), whose reason
// gives the model the rewritten call to make instead: neither the original
// nor the rewritten command runs.
func TestCodexDeniesAnUnapprovedRewriteAndTellsTheModelTheRewrittenCall(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeResponses(t, rewriteCall(execCall, dir))
	out, err := p.codex(t, model, "create the file")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	for _, name := range []string{"original", "rewritten"} {
		if ran(dir, name) {
			t.Errorf("the %s command ran without an approval; codex said:\n%s", name, out)
		}
	}
	if !model.received(`\"touch ` + filepath.Join(dir, "rewritten")) {
		t.Errorf("the model never received the rewritten command; codex said:\n%s", out)
	}
	if t.Failed() {
		return
	}
	observe(codexPkg, codexVersion, checkAsk, "denied, the rewritten call is sent to the model")
}

// A policy's ask of a rewritten call is a deny in Codex (it has no ask):
// nothing runs, and the model receives the ask's reason with the rewritten
// call.
func TestCodexDeniesAHookAskAndTellsTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-ask.lua": askPolicy})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeResponses(t, rewriteCall(execCall, dir))
	out, err := p.codex(t, model, "create the file")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	for _, name := range []string{"original", "rewritten"} {
		if ran(dir, name) {
			t.Errorf("the %s command ran without an approval; codex said:\n%s", name, out)
		}
	}
	if !model.received("conformance: confirm 33aa") || !model.received(`\"touch `+filepath.Join(dir, "rewritten")) {
		t.Errorf("the model never received the ask's reason with the rewritten command; codex said:\n%s", out)
	}
	if t.Failed() {
		return
	}
	observe(codexPkg, codexVersion, checkHookAsk, "denied, the reason and the rewritten call sent to the model")
}

// A rewrite a validate-stage hook approved is Codex's allow with the
// rewritten input, which it runs: the original command never runs.
func TestCodexRunsTheApprovedRewrite(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-approve.lua": approvePolicy})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeResponses(t, rewriteCall(execCall, dir))
	out, err := p.codex(t, model, "create the file")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	if ran(dir, "original") {
		t.Errorf("the original command ran; codex said:\n%s", out)
	}
	if !ran(dir, "rewritten") {
		t.Errorf("the rewritten command did not run; codex said:\n%s", out)
	}
	if t.Failed() {
		return
	}
	observe(codexPkg, codexVersion, checkRewrite, "yes")
}

// A file added since the folder was trusted does not run, and blocks the
// prompt; Codex, which never shows a block's reason, does not name it.
func TestCodexUntrustedFileBlocksThePrompt(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
	p.luahook(t, "install", "codex", "--project")
	p.luahook(t, "trust")
	if err := os.WriteFile(filepath.Join(p.dir, "hooks.d", "30-new.lua"), []byte("-- new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeResponses(t, execCall(marker))
	out, _ := p.codex(t, model, "create the marker")
	if n := model.count(); n != 0 {
		t.Errorf("%d requests reached the model, want none; codex said:\n%s", n, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a call ran although a file of the folder is not trusted")
	}
	if !strings.Contains(out, codexBlocked) || strings.Contains(out, "30-new.lua") {
		t.Errorf("want %q and not the file's name (Codex shows no block's reason); codex said:\n%s", codexBlocked, out)
	}
	if t.Failed() {
		return
	}
	observe(codexPkg, codexVersion, checkUntrusted, "yes, without naming the file (Codex shows no reason)")
}
