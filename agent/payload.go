package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/luahook/luahook"
)

// fields names where a native payload keeps what luahook.Input needs. An
// empty name is a field the dialect does not have.
type fields struct {
	event, session, cwd, toolName, toolInput, prompt string
	// toolInputText: the tool input may also be an object written as a JSON string.
	toolInputText bool
}

// claudeFields is the snake_case payload of Claude Code, Codex, Gemini CLI,
// Cursor and Copilot's PascalCase dialect.
var claudeFields = fields{event: "hook_event_name", session: "session_id", cwd: "cwd",
	toolName: "tool_name", toolInput: "tool_input", prompt: "prompt"}

// mapping is what one native event becomes.
type mapping struct {
	event luahook.Event
	// failure: a tool failure, delivered as PostToolUse with toolResult.isError.
	failure bool
}

// decoded is a native payload read into a Request, for an adapter to complete.
type decoded struct {
	n   *native
	req *Request
}

// decode reads the common part of a native payload: the event (from the
// payload's f.event field, or the caller's event when the dialect has none),
// and for a mapped event the session, cwd, tool and prompt.
func decode(agent Name, data []byte, event string, f fields, events map[string]mapping) (decoded, error) {
	fail := func(ev string, err error) (decoded, error) {
		return decoded{}, &DecodeError{Agent: agent, Event: ev, Err: err}
	}
	n, err := parseNative(data)
	if err != nil {
		return fail(event, err)
	}
	return decodeNative(agent, n, event, f, events)
}

// decodeNative is decode on a payload already read.
func decodeNative(agent Name, n *native, event string, f fields, events map[string]mapping) (decoded, error) {
	fail := func(ev string, err error) (decoded, error) {
		return decoded{}, &DecodeError{Agent: agent, Event: ev, Err: err}
	}
	var err error
	name := event
	if f.event != "" {
		got, err := n.str(f.event)
		if err != nil {
			return fail(event, err)
		}
		switch {
		case got == "" && event == "":
			return fail("", fmt.Errorf("no %q", f.event))
		case got != "" && event != "" && got != event:
			return fail(event, fmt.Errorf("%s is %q, but the hook is configured for %q", f.event, keyName(got), event))
		case got != "":
			name = got
		}
	} else if event == "" {
		return fail("", errors.New("the payload does not name its event; the hook configuration must (luahook fire --agent NAME EVENT)"))
	}
	if len(name) > luahook.MaxIDBytes {
		return fail("", fmt.Errorf("event name is %d bytes, over the limit of %d", len(name), luahook.MaxIDBytes))
	}
	req := &Request{Agent: agent, Event: name, Native: n.data}
	m, ok := events[name]
	if !ok {
		return decoded{n: n, req: req}, nil
	}
	in := &luahook.Input{Event: m.event, Agent: string(agent), Native: n.data}
	for _, s := range [...]struct {
		key string
		to  *string
	}{{f.session, &in.SessionID}, {f.cwd, &in.Cwd}} {
		if s.key == "" {
			continue
		}
		if *s.to, err = n.str(s.key); err != nil {
			return fail(name, err)
		}
	}
	switch m.event {
	case luahook.PreToolUse, luahook.PostToolUse:
		if in.ToolName, err = n.str(f.toolName); err != nil {
			return fail(name, err)
		}
		if f.toolInputText {
			in.ToolInput, err = n.objectOrString(f.toolInput)
		} else {
			in.ToolInput, err = n.object(f.toolInput)
		}
		if err != nil {
			return fail(name, err)
		}
		in.ToolCapabilities = Capabilities(in.ToolName)
	case luahook.UserPromptSubmit:
		if in.Prompt, err = n.str(f.prompt); err != nil {
			return fail(name, err)
		}
	}
	req.Input = in
	return decoded{n: n, req: req}, nil
}

// finish checks the decoded payload's limits and returns its request.
func (d decoded) finish() (*Request, error) {
	defer d.n.release() // the request holds copies of what it needs
	if in := d.req.Input; in != nil {
		if err := in.CheckLimits(); err != nil {
			return nil, &DecodeError{Agent: d.req.Agent, Event: d.req.Event, Err: err}
		}
	}
	return d.req, nil
}

// fail is a DecodeError on the decoded payload's event.
func (d decoded) fail(err error) error {
	return &DecodeError{Agent: d.req.Agent, Event: d.req.Event, Err: err}
}

// toolResult sets in.ToolResult from the text of the payload's key.
func (d decoded) toolResult(key string, isError bool) error {
	content, err := d.n.text(key)
	if err != nil {
		return d.fail(err)
	}
	d.req.Input.ToolResult = &luahook.ToolResult{Content: content, IsError: isError}
	return nil
}

// answer is a JSON answer on stdout, exit 0.
func answer(v any) Answer { return Answer{Stdout: marshal(v)} }

// block is the block signal every agent reads on an event that can block:
// exit 2 with the reason on stderr, plus the agent's JSON refusal v on
// stdout (the body of an HTTP answer, where the exit code does not reach).
func block(v any, reason string) Answer {
	return Answer{Stdout: marshal(v), Stderr: reason + "\n", ExitCode: 2}
}

// proceed is the answer on an event that cannot block, when luahook cannot
// decide: nothing on stdout, exit 0, and the reason on stderr for the log.
func proceed(reason string) Answer { return Answer{Stderr: reason + "\n"} }

// marshal writes v as one line of JSON, HTML characters unescaped (a
// command's "2>&1" stays readable in the agent's log).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only strings, booleans and JSON objects that were decoded
		// before reach here.
		panic(fmt.Sprintf("agent: encoding an answer: %v", err))
	}
	return b.Bytes()
}

// errorAt is a value of the wrong type.
func errorAt(key, want string, got []byte) error {
	return fmt.Errorf("%s must be %s, got %s", key, want, snippet(got))
}
