package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// policy decides by the command: rm denies, sudo asks, make allows, npm is
// rewritten to pnpm, anything else gets no objection.
const policy = `hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("^rm ") then return hook.deny("no rm") end
  if cmd:find("^sudo ") then return hook.ask("sudo needs a person") end
  if cmd == "make" then return hook.allow() end
  if cmd:find("^npm ") then return hook.mutate({ command = "p" .. cmd }) end
end, { name = "guard" })`

// newRunner returns a runner whose one hook file is policy, in real Lua.
func newRunner(t *testing.T) *runner.Runner {
	t.Helper()
	c, err := luabind.Compile("10-guard.lua", []byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	f, err := luabind.Load(context.Background(), c, luabind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	reg := registry.New()
	if err := reg.ReplaceOwner("10-guard.lua", luabind.Specs(f.Registrations())); err != nil {
		t.Fatal(err)
	}
	r := runner.New(runner.Options{Registry: reg})
	t.Cleanup(r.Close)
	return r
}

func own(cmd string) string {
	return `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"` + cmd + `"},"cwd":"/w"}`
}

func claude(cmd string) string {
	return `{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"}}`
}

func answer(t *testing.T, r *runner.Runner, g Gate, req Request) Reply {
	t.Helper()
	var res runner.Result
	c := Read(req)
	return c.Answer(context.Background(), r, g, &res, nil)
}

// TestOwnFormatKeepsEachVerdict: in luahook's own format every verdict has
// its own bytes, and only a denial exits 2; no objection is never an allow.
func TestOwnFormatKeepsEachVerdict(t *testing.T) {
	r := newRunner(t)
	for _, tc := range []struct{ cmd, stdout, stderr string }{
		{"rm -rf x", `{"action":"deny","reason":"no rm"}`, "no rm\n"},
		{"sudo ls", `{"action":"ask","reason":"sudo needs a person"}`, ""},
		{"make", `{"action":"allow"}`, ""},
		{"npm i", `{"action":"mutate","input":{"command":"pnpm i"}}`, ""},
		{"ls", `{}`, ""},
	} {
		rep := answer(t, r, Gate{}, Request{Payload: []byte(own(tc.cmd))})
		wantExit := 0
		if tc.stderr != "" {
			wantExit = 2
		}
		if string(rep.Stdout) != tc.stdout+"\n" || rep.Stderr != tc.stderr || rep.ExitCode != wantExit || rep.Err != nil || !rep.Fired {
			t.Errorf("%s: %q %q exit %d err %v fired %v; want %s, %q, exit %d", tc.cmd, rep.Stdout, rep.Stderr, rep.ExitCode, rep.Err, rep.Fired, tc.stdout, tc.stderr, wantExit)
		}
	}
}

// TestAnAgentsPayloadAtTheOwnDoorIsAnsweredInItsProtocol: a Claude Code
// payload sent as luahook's own is recognised, decided, and answered as
// Claude Code reads answers.
func TestAnAgentsPayloadAtTheOwnDoorIsAnsweredInItsProtocol(t *testing.T) {
	r := newRunner(t)
	for _, format := range []string{"", Auto, "claude"} {
		c := Read(Request{Format: format, Payload: []byte(claude("rm -rf x"))})
		if c.Agent() == nil || c.Agent().Name() != "claude" {
			t.Fatalf("format %q: agent %v, want claude", format, c.Agent())
		}
		var res runner.Result
		rep := c.Answer(context.Background(), r, Gate{}, &res, nil)
		if !strings.Contains(string(rep.Stdout), `"permissionDecision":"deny"`) || !rep.Fired {
			t.Errorf("format %q: %s, want Claude Code's deny", format, rep.Stdout)
		}
	}
	rep := answer(t, r, Gate{}, Request{Payload: []byte(claude("ls"))})
	if strings.Contains(string(rep.Stdout), "allow") || rep.ExitCode != 0 {
		t.Errorf("no objection answered %q exit %d: an agent must not read an approval", rep.Stdout, rep.ExitCode)
	}
}

// TestUndecodablePayloadsFollowTheMode: a payload that cannot be read or
// decoded is denied on an event that can block (deny, the default), let
// through with a warning or refused as an error as the mode says, in both
// formats.
func TestUndecodablePayloadsFollowTheMode(t *testing.T) {
	r := newRunner(t)
	dup := `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"rm -rf /","command":"ls"}}`
	badClaude := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"x","command":"y"},"session_id":"s","cwd":"/w","transcript_path":"/t"}`
	cut := errors.New("over the 8 MiB cap")

	rep := answer(t, r, Gate{}, Request{Payload: []byte(dup)})
	if rep.ExitCode != 2 || !strings.Contains(string(rep.Stdout), `"action":"deny"`) || !strings.Contains(string(rep.Stdout), "duplicate key") || rep.Cause != CauseDecode || rep.Fired {
		t.Errorf("duplicate key, deny: %q exit %d cause %d", rep.Stdout, rep.ExitCode, rep.Cause)
	}
	rep = answer(t, r, Gate{}, Request{Payload: []byte(`{"event":"PreToolUse","toolName":"bash"`), ReadErr: cut})
	if rep.ExitCode != 2 || !strings.Contains(string(rep.Stdout), "8 MiB") || rep.Cause != CauseRead {
		t.Errorf("cut short, deny: %q exit %d cause %d", rep.Stdout, rep.ExitCode, rep.Cause)
	}
	rep = answer(t, r, Gate{}, Request{Payload: []byte(`{"event":"PostToolUse","toolName":"bash","toolInput":{"a":1,"a":2}}`)})
	if rep.Err == nil || len(rep.Stdout) != 0 {
		t.Errorf("an event that cannot block: %q, %v; want an error and no answer", rep.Stdout, rep.Err)
	}
	for _, mode := range []string{ModeSkip, ModeFail} {
		if rep := answer(t, r, Gate{Mode: mode}, Request{Payload: []byte(dup)}); rep.Err == nil {
			t.Errorf("own format, %s: %q, want an error (nothing decided, nothing approved)", mode, rep.Stdout)
		}
	}

	rep = answer(t, r, Gate{}, Request{Format: "claude", Payload: []byte(badClaude)})
	if rep.ExitCode != 2 || rep.Cause != CauseDecode || !strings.Contains(rep.Stderr, "duplicate key") {
		t.Errorf("claude, deny: %q %q exit %d", rep.Stdout, rep.Stderr, rep.ExitCode)
	}
	rep = answer(t, r, Gate{Mode: ModeSkip}, Request{Format: "claude", Payload: []byte(badClaude)})
	if rep.ExitCode != 0 || len(rep.Warn) != 1 || rep.Err != nil {
		t.Errorf("claude, skip: exit %d warn %v err %v", rep.ExitCode, rep.Warn, rep.Err)
	}
	rep = answer(t, r, Gate{Mode: ModeFail}, Request{Format: "claude", Payload: []byte(badClaude)})
	if rep.Err == nil || len(rep.Stdout) != 0 {
		t.Errorf("claude, fail: %q %v, want an error", rep.Stdout, rep.Err)
	}
	if rep := answer(t, r, Gate{}, Request{Format: "nosuchagent", Payload: []byte(own("ls"))}); rep.Err == nil {
		t.Error("an unknown agent: no error")
	}
}

// TestTheGateDecidesOverThePolicies: Undecidable refuses before any hook
// runs; CloseOver's closed answers an agent with its block signal and
// luahook's own format with the denial, exit 2.
func TestTheGateDecidesOverThePolicies(t *testing.T) {
	r := newRunner(t)
	notDecided := errors.New("not decided: 1 load error(s)")
	rep := answer(t, r, Gate{Undecidable: func() error { return notDecided }}, Request{Payload: []byte(own("ls"))})
	if rep.Err != notDecided || !rep.Unavailable || rep.Fired {
		t.Errorf("undecidable: %+v", rep)
	}
	closeOver := func(res *runner.Result) ([]error, bool, error) {
		res.Verdict, res.Reason = luahook.VerdictDeny, "20-broken.lua did not load"
		return nil, true, nil
	}
	rep = answer(t, r, Gate{CloseOver: closeOver}, Request{Payload: []byte(own("make"))})
	if rep.ExitCode != 2 || !strings.Contains(string(rep.Stdout), "20-broken.lua") || rep.Cause != CauseLoad || !rep.Fired {
		t.Errorf("closed, own format: %q exit %d cause %d", rep.Stdout, rep.ExitCode, rep.Cause)
	}
	rep = answer(t, r, Gate{CloseOver: closeOver}, Request{Format: "claude", Payload: []byte(claude("make"))})
	if rep.ExitCode != 2 || !strings.Contains(rep.Stderr, "20-broken.lua") || rep.Cause != CauseLoad {
		t.Errorf("closed, claude: %q %q exit %d cause %d", rep.Stdout, rep.Stderr, rep.ExitCode, rep.Cause)
	}
}

// TestAnInterruptedCallIsNotAnApproval: a context that ends while the hooks
// run gives the agent its block signal, and luahook's own format an error.
func TestAnInterruptedCallIsNotAnApproval(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("SIGTERM"))
	var res runner.Result
	c := Read(Request{Format: "claude", Payload: []byte(claude("ls"))})
	rep := c.Answer(ctx, r, Gate{}, &res, nil)
	if rep.ExitCode != 2 || !strings.Contains(rep.Stderr, "SIGTERM") || rep.Cause != CauseInterrupted || !rep.Fired {
		t.Errorf("claude: %q %q exit %d", rep.Stdout, rep.Stderr, rep.ExitCode)
	}
	c = Read(Request{Payload: []byte(own("ls"))})
	rep = c.Answer(ctx, r, Gate{}, &res, nil)
	if rep.Err == nil || len(rep.Stdout) != 0 {
		t.Errorf("own format: %q %v, want an error", rep.Stdout, rep.Err)
	}
}

// TestTheEventOverridesThePayloads: in luahook's own format the door's
// event (fire EVENT) replaces the payload's, and a payload with neither is
// refused.
func TestTheEventOverridesThePayloads(t *testing.T) {
	c := Read(Request{Event: "PreToolUse", Payload: []byte(`{"toolName":"bash","toolInput":{"command":"rm -rf x"}}`)})
	if c.Err() != nil || c.Input().Event != luahook.PreToolUse {
		t.Fatalf("%v %+v", c.Err(), c.Input())
	}
	if c := Read(Request{Payload: []byte(`{"toolName":"bash"}`)}); c.Err() == nil || !strings.Contains(c.Err().Error(), `an "event" key`) {
		t.Errorf("no event: %v", c.Err())
	}
	if c := Read(Request{Event: "PreToolUsee", Payload: []byte(`{}`)}); c.Err() == nil || !strings.Contains(c.Err().Error(), "PreToolUsee") {
		t.Errorf("unknown event: %v", c.Err())
	}
}
