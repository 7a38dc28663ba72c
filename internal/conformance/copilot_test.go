//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copilotPkg and copilotVersion are the release of Copilot CLI in
// agents.txt.
const (
	copilotPkg     = "@github/copilot"
	copilotVersion = "1.0.102"
)

// copilot runs Copilot CLI's prompt mode on prompt in the project, asking
// model as a custom provider (BYOK: no GitHub login, and COPILOT_OFFLINE
// keeps it from every other host), every tool allowed by the CLI itself
// (--allow-all-tools: only luahook can stop a call). --trust-folder
// trusts the project for this session only: Copilot runs no hook of an
// untrusted folder's .github/hooks, and says nothing. The npm package
// unpacks the CLI under the temporary HOME's .cache on its first run.
func (p *project) copilot(t *testing.T, model *fakeCompletions, prompt string) (string, error) {
	t.Helper()
	return p.copilotWith(t, model, prompt, "--trust-folder")
}

// copilotWith is copilot with flags in place of --trust-folder.
func (p *project) copilotWith(t *testing.T, model *fakeCompletions, prompt string, flags ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"-p", prompt, "--allow-all-tools", "--no-auto-update"}, flags...)
	cmd := exec.CommandContext(ctx, agentBin(t, copilotPkg, copilotVersion, "copilot"), args...)
	cmd.Dir = p.dir
	cmd.WaitDelay = 5 * time.Second // its shells may hold the output open
	cmd.Env = p.env("COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+model.URL,
		"COPILOT_PROVIDER_API_KEY=conformance", "COPILOT_MODEL=fake-model")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// copilotCall is Copilot CLI's shell tool creating the marker.
func copilotCall(marker string) toolCall {
	return toolCall{Name: "bash", Input: map[string]any{"command": "touch " + marker, "description": "create the marker"}}
}

// fakeCompletions speaks OpenAI's Chat Completions API (streamed) far
// enough for Copilot CLI's custom provider: a request offering tools whose
// messages hold no tool result is answered with one tool call; any other
// with the text "done".
type fakeCompletions struct{ recorder }

func (m *fakeCompletions) conversation() int { return m.count() }

// chatMessage is what the fake reads of a message of the conversation.
type chatMessage struct {
	Role string `json:"role"`
}

func (m chatMessage) isToolResult() bool { return m.Role == "tool" }

func startFakeCompletions(t *testing.T, call toolCall) *fakeCompletions {
	t.Helper()
	return startFakeCompletionsOf(t, call)
}

// startFakeCompletionsOf is startFakeCompletions answering with calls in
// turn: a request whose messages hold n tool results gets calls[n], the
// text "done" once they are all made (a model doing what it is told: the
// rewritten call a block gives, say).
func startFakeCompletionsOf(t *testing.T, calls ...toolCall) *fakeCompletions {
	t.Helper()
	m := &fakeCompletions{}
	m.answer = func(w http.ResponseWriter, r *http.Request, body []byte, _ int) {
		var req struct {
			Stream   bool              `json:"stream"`
			Tools    []json.RawMessage `json:"tools"`
			Messages []chatMessage     `json:"messages"`
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") || json.Unmarshal(body, &req) != nil || !req.Stream {
			http.Error(w, `{"error":{"type":"invalid_request_error","message":"fake model: not a streamed chat completions request"}}`, http.StatusNotFound)
			return
		}
		delta, finish := `{"role":"assistant","content":"done"}`, "stop"
		results := 0
		for _, m := range req.Messages {
			if m.isToolResult() {
				results++
			}
		}
		if len(req.Tools) > 0 && results < len(calls) {
			call := calls[results]
			args, _ := json.Marshal(string(call.arguments()))
			delta = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_fake_%d","type":"function","function":{"name":%q,"arguments":%s}}]}`, results, call.Name, args)
			finish = "tool_calls"
		}
		const head = `{"id":"chatcmpl-fake","object":"chat.completion.chunk","created":1,"model":"fake-model","choices":[{"index":0,`
		sse(w, [2]string{"", head + `"delta":` + delta + `,"finish_reason":null}]}`},
			[2]string{"", head + `"delta":{},"finish_reason":"` + finish + `"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`},
			[2]string{"", "[DONE]"})
	}
	m.start(t, "/v1")
	return m
}

// A policy's block of the prompt: no request reaches the model (Copilot
// CLI sends no title or other request of its own in prompt mode), no call
// runs, and the user is shown the reason. Copilot CLI exits 1.
func TestCopilotBlockedPromptSendsNoRequest(t *testing.T) {
	p := newProject(t, map[string]string{"10-prompt.lua": promptPolicy})
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeCompletions(t, copilotCall(marker))
	out, err := p.copilot(t, model, "the password is s3cr3t: create the marker")
	if n := model.count(); n != 0 {
		t.Fatalf("%d requests reached the model, want none; copilot said:\n%s", n, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the call of a blocked prompt ran")
	}
	observe(copilotPkg, copilotVersion, checkPromptBlocked, "yes")
	if !strings.Contains(out, "conformance: no secrets in prompts") {
		t.Errorf("the user is not shown the block's reason; copilot said:\n%s", out)
	} else {
		observe(copilotPkg, copilotVersion, checkBlockShown, "yes")
	}
	observe(copilotPkg, copilotVersion, checkBlockExitStatus, exitStatus(t, err))
}

// The context a sessionStart hook gives reaches the model.
func TestCopilotSessionStartContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-context.lua": sessionContextPolicy})
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	model := startFakeCompletions(t, toolCall{Name: "bash", Input: map[string]any{"command": "true", "description": "nothing"}})
	if out, err := p.copilot(t, model, "do nothing"); err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	if !model.received("conformance: session context 7f3a") {
		t.Fatalf("the session's context never reached the model (%d requests)", model.count())
	}
	observe(copilotPkg, copilotVersion, checkSessionContext, "yes")
}

// The context a postToolUse hook adds after a call reaches the model with
// the call's result.
func TestCopilotPostToolUseContextReachesTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-post.lua": postContextPolicy})
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeCompletions(t, copilotCall(marker))
	if out, err := p.copilot(t, model, "create the marker"); err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run: %v", err)
	}
	if !model.received("conformance: after the call 91c2") {
		t.Fatalf("the postToolUse context never reached the model (%d requests)", model.count())
	}
	observe(copilotPkg, copilotVersion, checkPostContext, "yes")
}

// The context of a prompt that goes on, and of a call that goes on,
// reaches the model: Copilot CLI reads additionalContext on
// userPromptSubmitted and preToolUse too.
func TestCopilotPromptAndPreToolUseContextReachTheModel(t *testing.T) {
	p := newProject(t, map[string]string{"10-context.lua": `hook.register("UserPromptSubmit", nil, function()
  return hook.context("conformance: prompt context 2c4d")
end)
hook.register("PreToolUse", "@shell", function()
  return hook.context("conformance: before the call 6e8f")
end)
`})
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeCompletions(t, copilotCall(marker))
	out, err := p.copilot(t, model, "create the marker")
	if err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run: %v", err)
	}
	for _, text := range []string{"conformance: prompt context 2c4d", "conformance: before the call 6e8f"} {
		if !model.received(text) {
			t.Errorf("%q never reached the model (%d requests); copilot said:\n%s", text, model.count(), out)
		}
	}
}

// runRewrite runs Copilot CLI on a call of touch DIR/original under
// rewritePolicy, with approvePolicy when approve, and reports which of the
// two files exist afterwards.
func runRewrite(t *testing.T, approve bool) (original, rewritten bool) {
	t.Helper()
	policies := map[string]string{"10-rewrite.lua": rewritePolicy}
	if approve {
		policies["20-approve.lua"] = approvePolicy
	}
	p := newProject(t, policies)
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeCompletions(t, rewriteCall(copilotCall, dir))
	out, err := p.copilot(t, model, "create the file")
	if err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	if model.count() < 2 {
		t.Fatalf("the model heard nothing after its call (%d requests); copilot said:\n%s", model.count(), out)
	}
	return ran(dir, "original"), ran(dir, "rewritten")
}

// A rewrite a hook explicitly allowed (permissionDecision "allow" with
// modifiedArgs) runs as rewritten: the original command never runs.
func TestCopilotRunsTheApprovedRewrite(t *testing.T) {
	original, rewritten := runRewrite(t, true)
	if original || !rewritten {
		t.Fatalf("the original command ran: %v, the rewritten one ran: %v; want only the rewritten one", original, rewritten)
	}
	observe(copilotPkg, copilotVersion, checkRewrite, "yes")
}

// A rewrite no hook approved is modifiedArgs without a decision, which
// leaves the rewritten call to Copilot CLI's own permission rules: under
// --allow-all-tools it runs as rewritten, unasked (there is no ask to
// refuse), and the original command never runs.
func TestCopilotRunsAnUnapprovedRewriteUnderItsOwnRules(t *testing.T) {
	original, rewritten := runRewrite(t, false)
	if original || !rewritten {
		t.Fatalf("the original command ran: %v, the rewritten one ran: %v; want only the rewritten one, as --allow-all-tools approves it", original, rewritten)
	}
	observe(copilotPkg, copilotVersion, checkAsk, "no ask: the rewrite runs under --allow-all-tools")
}

// A policy's ask of a rewritten call, where Copilot CLI cannot ask (prompt
// mode): neither the original nor the rewritten command runs, and the
// model receives the ask's reason.
func TestCopilotDeniesAnAskInPromptMode(t *testing.T) {
	p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-ask.lua": askPolicy})
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	dir := t.TempDir()
	model := startFakeCompletions(t, rewriteCall(copilotCall, dir))
	out, err := p.copilot(t, model, "create the file")
	if err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	for _, name := range []string{"original", "rewritten"} {
		if ran(dir, name) {
			t.Errorf("the %s command ran with no one to answer the ask; copilot said:\n%s", name, out)
		}
	}
	if !model.received("conformance: confirm 33aa") {
		t.Errorf("the model never received the ask's reason; copilot said:\n%s", out)
	}
	if !t.Failed() {
		observe(copilotPkg, copilotVersion, checkHookAsk, "denied, the reason sent to the model")
	}
}

// A file added since the folder was trusted does not run, and blocks the
// prompt, naming it and the way out.
func TestCopilotUntrustedFileBlocksThePrompt(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	if err := os.WriteFile(filepath.Join(p.dir, "hooks.d", "30-new.lua"), []byte("-- new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := startFakeCompletions(t, copilotCall(filepath.Join(t.TempDir(), "marker")))
	out, _ := p.copilot(t, model, "create the marker")
	if n := model.count(); n != 0 {
		t.Fatalf("%d requests reached the model, want none; copilot said:\n%s", n, out)
	}
	if !strings.Contains(out, "30-new.lua") || !strings.Contains(out, "luahook trust") {
		t.Fatalf("the block does not name the new file and the way out; copilot said:\n%s", out)
	}
	observe(copilotPkg, copilotVersion, checkUntrusted, "yes")
}

// Copilot CLI runs no hook of a project folder it has not been told to
// trust (interactively, or with --trust-folder), and says nothing: the
// hooks luahook install --project wrote do not run there, and a denied
// call runs. This is why the suite runs it with --trust-folder.
func TestCopilotRunsNoProjectHookOfAnUntrustedFolder(t *testing.T) {
	p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
	p.luahook(t, "install", "copilot", "--project")
	p.luahook(t, "trust")
	marker := filepath.Join(t.TempDir(), "marker")
	model := startFakeCompletions(t, copilotCall(marker))
	out, err := p.copilotWith(t, model, "create the marker")
	if err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the call did not run (%v): Copilot CLI now runs the hooks of a folder it was not told to trust; copilot said:\n%s", err, out)
	}
	if model.received("conformance: no markers here") {
		t.Fatalf("the policy's reason reached the model: a hook ran")
	}
}
