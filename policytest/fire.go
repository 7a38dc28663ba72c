package policytest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/luabind"
)

// Bind installs the test API in a session: fire(event[, payload]), which runs
// a payload through the runner that run returns at the time of the call, and
// the expect table of assertions. defaults, if not nil, fills in what a
// payload leaves out. Test files get test(name, fn) as well; the REPL binds
// the same API so that cases can be tried at the prompt.
func Bind(ctx context.Context, s *luabind.Session, run func() *engine.Runner, defaults func(*luahook.Input)) error {
	return bind(ctx, s, run, defaults, nil, "", nil)
}

// bind is Bind with observe, if not nil, called with every payload fire
// builds (a copy, before an agent's wire format) and its result (a test case
// collects the hooks that failed and, for its mutants, the payloads), and
// payloads sent through the native format of as, when set (Options.Agent);
// unsent, if not nil, is called with the error of every payload the agent
// cannot send (a *agent.CannotSendError), before fire raises it.
func bind(ctx context.Context, s *luabind.Session, run func() *engine.Runner, defaults func(*luahook.Input),
	observe func(*luahook.Input, *engine.Result), as agent.Name, unsent func(error)) error {
	return s.Do(ctx, func(L *lua.LState) error {
		api := &api{s: s, run: run, defaults: defaults, observe: observe, as: as, unsent: unsent}
		L.SetGlobal("fire", L.NewFunction(api.fire))
		L.SetGlobal("expect", api.expectTable(L))
		return nil
	})
}

// api holds what the Lua functions of the test API need.
type api struct {
	s        *luabind.Session
	run      func() *engine.Runner
	defaults func(*luahook.Input)
	observe  func(*luahook.Input, *engine.Result)
	as       agent.Name
	unsent   func(error)
}

// fire is fire(event[, payload[, options]]) -> result. payload is shaped
// like the JSON payload (toolName, toolInput, prompt, sessionId, ...);
// unknown keys are errors, so that a typo does not fire an empty payload.
// options answers the web approval the call may ask for (testApprover).
func (a *api) fire(L *lua.LState) int {
	event, err := luahook.ParseEvent(L.CheckString(1))
	if err != nil {
		L.ArgError(1, err.Error())
	}
	in := &luahook.Input{}
	switch p := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LTable:
		raw, err := a.s.ToJSON(p)
		if err != nil {
			L.RaiseError("fire: the payload: %v", err)
		}
		if in, err = ParsePayload(raw); err != nil {
			L.RaiseError("fire: %v", err)
		}
	default:
		L.ArgError(2, "a payload table expected, got "+p.Type().String())
	}
	in.Event = event
	if a.defaults != nil {
		a.defaults(in)
	}
	var built *luahook.Input
	if a.observe != nil {
		c := *in
		c.ToolInput = slices.Clone(in.ToolInput)
		built = &c
	}
	if a.as != "" {
		if in, err = viaAgent(a.as, in); err != nil {
			var cs *agent.CannotSendError
			if a.unsent != nil && errors.As(err, &cs) {
				a.unsent(err)
			}
			L.RaiseError("fire: %v", err)
		}
	}
	r := a.run()
	if r == nil {
		L.RaiseError("fire: no hooks to fire at here (in a test file, call fire inside test(name, function() ... end))")
	}
	res := r.Fire(fireOptions(L, L.Context()), in)
	if a.observe != nil {
		a.observe(built, &res)
	}
	if err := L.Context().Err(); err != nil {
		L.RaiseError("fire: %v", err) // the case was cancelled or timed out
	}
	raw, err := json.Marshal(res)
	if err != nil {
		L.RaiseError("fire: %v", err)
	}
	v, err := a.s.FromJSON(raw)
	if err != nil {
		L.RaiseError("fire: %v", err)
	}
	L.Push(v)
	return 1
}

// ParsePayload parses a payload as fire() does: strictly, exactly as luahook
// serve and luahook fire do (luahook.DecodeInput), so that a typo is an error
// rather than an empty payload; the event is optional.
func ParsePayload(raw []byte) (*luahook.Input, error) {
	in, err := luahook.DecodeInput(raw)
	if err != nil {
		return nil, fmt.Errorf("the %w", err)
	}
	return in, nil
}

// viaAgent returns in as the adapter of the agent named name decodes it
// from the payload that agent would send. A payload the agent cannot send
// is a *agent.CannotSendError: one NativePayload cannot write, and one
// whose toolCapabilities differ from what the agent gives its tool.
func viaAgent(name agent.Name, in *luahook.Input) (*luahook.Input, error) {
	a, err := agent.Lookup(string(name))
	if err != nil {
		return nil, err
	}
	data, event, err := agent.NativePayload(a.Name(), in)
	if err != nil {
		return nil, err
	}
	req, err := a.Decode(data, event)
	if err != nil {
		return nil, err
	}
	out := req.Input
	if out == nil {
		return nil, fmt.Errorf("%s's %s has no luahook event", name, event)
	}
	if in.ToolCapabilities != nil && !slices.Equal(in.ToolCapabilities, out.ToolCapabilities) {
		return nil, &agent.CannotSendError{Agent: name, Msg: fmt.Sprintf(
			"the payload's toolCapabilities are %v, but %s gives %s (its name for %s) %v",
			in.ToolCapabilities, name, out.ToolName, in.ToolName, out.ToolCapabilities)}
	}
	// No agent sends the client: serve sets it from the caller's
	// authentication on every route, as here.
	out.Client = in.Client
	return out, nil
}
