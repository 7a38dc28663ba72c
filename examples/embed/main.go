// Command embed is a small host that embeds luahook the way an AI coding
// agent would: it opens the engine on a hooks folder, then plays a scripted
// session (session start, a prompt, tool calls that really run in a temporary
// folder, the context the hooks add after each tool, the end of the turn) and
// prints what the hooks decided. Half-way through, an operator drops a new
// policy into the hooks folder and the next tool call obeys it.
//
//	go run ./examples/embed
//
// The hooks folder is a temporary copy of the policies that ship with
// luahook (hooks.d, embedded). See README.md for the part a host author
// copies. The program imports only luahook's public packages:
// .ci/host-module builds and runs it in a module of its own.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/registry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// agentHost is the simulated agent: a workspace its tools run in, and the engine
// it asks before and after each step.
type agentHost struct {
	eng     *engine.Engine
	ws      string // the agent's working folder
	session string
	out     io.Writer
}

// run plays the session and writes its trace to out.
func run(ctx context.Context, out io.Writer) error {
	tmp, err := os.MkdirTemp("", "luahook-embed-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws, hooksDir := filepath.Join(tmp, "project"), filepath.Join(tmp, "hooks.d")
	if err := os.CopyFS(hooksDir, hooksd.FS); err != nil {
		return err
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("API_TOKEN=not-a-real-token\n"), 0o600); err != nil {
		return err
	}
	// a pnpm project: the shipped prefer-pnpm policy rewrites npm where
	// pnpm's lockfile is
	if err := os.WriteFile(filepath.Join(ws, "pnpm-lock.yaml"), []byte("lockfileVersion: '9.0'\n"), 0o644); err != nil {
		return err
	}

	// One call opens the engine: the hooks folder, an optional luahook.toml,
	// a logger. It watches the folder and reloads what changes.
	logger := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{} // a shorter trace
			}
			return a
		},
	}))
	// The host's own knowledge, for policies to read: a host module
	// (hostmodule.go), loaded in Lua with require("host.embed").
	if err := os.WriteFile(filepath.Join(hooksDir, "65-deploy-role.lua"), []byte(deployPolicy), 0o644); err != nil {
		return err
	}
	budgets := newBudgets(map[string]int{"embed-session": 5})
	eng, err := engine.Open(ctx, engine.Options{Dir: hooksDir, Logger: logger,
		Host: []host.Module{hostModule(user{Name: "ada", Role: "contributor"}, budgets)}})
	if err != nil {
		return err
	}
	defer eng.Close()
	if err := eng.Err(); err != nil {
		return fmt.Errorf("hooks did not load: %w", err)
	}

	// The host's own checks are hooks too: Go functions in a scope that
	// removes them all when closed.
	scope := eng.Registry().Scope("embed-host", registry.ScopeOptions{})
	defer scope.Close()
	_, err = scope.RegisterFunc(luahook.PostToolUse, "@shell", func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		if in.ToolResult != nil && in.ToolResult.IsError {
			return luahook.Context("The command failed: read its output before you retry it."), nil
		}
		return nil, nil
	}, luahook.Spec{Name: "failed-command-hint"})
	if err != nil {
		return err
	}

	h := &agentHost{eng: eng, ws: ws, session: "embed-session", out: out}
	st := eng.Stats()
	fmt.Fprintf(out, "embed: engine.Open loaded %d hooks from %d files in %s\n", st.Hooks, st.Files, hooksDir)

	h.sessionStart(ctx)
	if !h.prompt(ctx, "Add a greeting to hello.txt, show it, and build the project") {
		return nil
	}
	h.tool(ctx, "write", `{"path":"hello.txt","content":"hello, world\n"}`)
	h.tool(ctx, "bash", `{"command":"cat hello.txt"}`)
	h.tool(ctx, "bash", `{"command":"npm run build"}`)
	h.tool(ctx, "read", `{"path":".env"}`)
	h.tool(ctx, "bash", `{"command":"git push --force origin main"}`)
	h.tool(ctx, "bash", `{"command":"make deploy"}`)

	// An operator adds a policy while the session runs. The watcher would
	// load it within a fraction of a second; Reload does it now.
	fmt.Fprintln(out, "\n» the operator adds hooks.d/70-no-sudo.lua")
	policy := `hook.register("PreToolUse", "@shell", function(input)
  if re.match([[(^|[;&|]\s*)sudo\s]], input.toolInput.command or "") then
    return hook.deny("sudo is not available to the agent; ask the user")
  end
end, { name = "no-sudo", stage = "validate", policy = true })
`
	if err := os.WriteFile(filepath.Join(hooksDir, "70-no-sudo.lua"), []byte(policy), 0o644); err != nil {
		return err
	}
	if err := eng.Reload(ctx); err != nil {
		return err
	}
	h.tool(ctx, "bash", `{"command":"sudo id"}`)

	h.stop(ctx)
	return ctx.Err()
}

func (h *agentHost) input(ev luahook.Event) *luahook.Input {
	return &luahook.Input{Event: ev, Cwd: h.ws, SessionID: h.session}
}

func (h *agentHost) sessionStart(ctx context.Context) {
	fmt.Fprintln(h.out, "\n» session start")
	res := h.eng.Runner().SessionStart(ctx, h.input(luahook.SessionStart))
	h.context(res.AdditionalContext)
}

// prompt reports whether the prompt may reach the model.
func (h *agentHost) prompt(ctx context.Context, text string) bool {
	fmt.Fprintf(h.out, "\n» prompt %q\n", text)
	in := h.input(luahook.UserPromptSubmit)
	in.Prompt = text
	res := h.eng.Runner().UserPromptSubmit(ctx, in)
	if res.Denied() {
		fmt.Fprintf(h.out, "  ✗ blocked: %s\n", res.Reason)
		return false
	}
	h.context(res.AdditionalContext)
	return true
}

// tool asks the hooks about a tool call, runs the tool when allowed (with
// the input as the hooks rewrote it), and reports the result to the hooks.
func (h *agentHost) tool(ctx context.Context, name, input string) {
	fmt.Fprintf(h.out, "\n» %s %s\n", name, input)
	in := h.input(luahook.PreToolUse)
	in.ToolName, in.ToolInput = name, json.RawMessage(input)
	if h.eng.Runner().Has(luahook.PreToolUse) { // the cheap guard: no hook, no work
		res := h.eng.Runner().PreToolUse(ctx, in)
		if res.Denied() {
			fmt.Fprintf(h.out, "  ✗ denied: %s\n", res.Reason)
			h.eng.Runner().ToolSkipped(ctx, in, "denied by a hook: "+res.Reason)
			return
		}
		if res.Input != nil {
			fmt.Fprintf(h.out, "  ✎ rewritten to %s\n", res.Input)
			in.ToolInput = res.Input
		}
	}
	content, failed := h.runTool(ctx, name, in.ToolInput)
	status := "✓"
	if failed {
		status = "✗ failed"
	}
	fmt.Fprintf(h.out, "  %s %s\n", status, firstLine(content))

	post := h.input(luahook.PostToolUse)
	post.ToolName, post.ToolInput = name, in.ToolInput
	post.ToolResult = &luahook.ToolResult{Content: content, IsError: failed}
	res := h.eng.Runner().PostToolUse(ctx, post)
	h.context(res.AdditionalContext)
}

func (h *agentHost) stop(ctx context.Context) {
	fmt.Fprintln(h.out, "\n» stop")
	h.eng.Runner().Stop(ctx, h.input(luahook.Stop))
	fmt.Fprintln(h.out, "  ✓ turn ended")
}

func (h *agentHost) context(text string) {
	if text == "" {
		return
	}
	fmt.Fprintln(h.out, "  + context for the model:")
	for line := range strings.SplitSeq(text, "\n") {
		fmt.Fprintf(h.out, "      %s\n", line)
	}
}

// runTool runs one of the agent's tools in the workspace.
func (h *agentHost) runTool(ctx context.Context, name string, raw json.RawMessage) (content string, failed bool) {
	var in struct{ Command, Path, Content string }
	if err := json.Unmarshal(raw, &in); err != nil {
		return err.Error(), true
	}
	switch name {
	case "bash":
		cmd := exec.CommandContext(ctx, "sh", "-c", in.Command)
		cmd.Dir = h.ws
		out, err := cmd.CombinedOutput()
		if err != nil {
			return strings.TrimSpace(string(out) + "\n" + err.Error()), true
		}
		return string(out), false
	case "read", "write":
		if !filepath.IsLocal(in.Path) {
			return "path outside the workspace: " + in.Path, true
		}
		p := filepath.Join(h.ws, in.Path)
		if name == "read" {
			b, err := os.ReadFile(p)
			if err != nil {
				return err.Error(), true
			}
			return string(b), false
		}
		if err := os.WriteFile(p, []byte(in.Content), 0o644); err != nil {
			return err.Error(), true
		}
		return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), in.Path), false
	}
	return "", true
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	if s == "" {
		return "(no output)"
	}
	return s
}
