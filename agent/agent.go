package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luahook/luahook"
)

// Name identifies a coding agent, as the command line spells it.
type Name string

// The agents with an adapter.
const (
	Claude  Name = "claude"
	Codex   Name = "codex"
	Copilot Name = "copilot"
	Cursor  Name = "cursor"
	Gemini  Name = "gemini"
)

// Adapter speaks one agent's hook protocol: it reads the agent's native
// payload and writes exactly the answer the agent reads. Adapters hold no
// state and are safe for concurrent use.
type Adapter interface {
	// Name is the agent's name.
	Name() Name
	// Decode reads a native payload, which the caller has already capped in
	// size. event is the agent's event name when the caller knows it (the
	// hook configuration names it); it is required for payloads that do not
	// carry it (Copilot's camelCase dialect) and, when given, must agree
	// with the payload's own. Errors are *DecodeError.
	Decode(data []byte, event string) (*Request, error)
	// Encode turns a decision on req into the agent's answer. Parts of the
	// decision the event cannot carry are dropped (see the package doc);
	// an answer with no decision is what "no objection" looks like.
	Encode(req *Request, d Decision) Answer
	// Block is the answer when luahook cannot decide (undecodable payload,
	// broken hook file, deadline...): the agent's block signal, with reason,
	// on an event that can block; the answer that lets the agent proceed on
	// any other event. event is the agent's event name, "" when unknown
	// (then the answer blocks whatever the event).
	Block(event, reason string) Answer
}

// Request is a decoded native payload.
type Request struct {
	// Agent is the agent that sent it.
	Agent Name
	// Event is the agent's own name for the event (hook_event_name, or the
	// name the caller gave).
	Event string
	// Input is the payload in luahook's contract, or nil when the event has
	// no luahook equivalent: then the answer is Encode(req, Decision{}),
	// without firing.
	Input *luahook.Input
	// Native is the payload as the agent sent it (white space around it
	// trimmed); it shares the decoded bytes.
	Native json.RawMessage
}

// Answer is what an agent reads back: stdout bytes, stderr text and exit
// code for a command hook. Over HTTP the body is Stdout (the JSON every
// block and decision carries), with a 2xx status; Stderr and ExitCode are
// for command hooks only.
type Answer struct {
	Stdout   []byte // nil: write nothing
	Stderr   string // "": write nothing
	ExitCode int
}

// DecodeError is a native payload that could not be decoded.
type DecodeError struct {
	Agent Name
	// Event is the agent's event name when it could be read ("" if not):
	// what Block needs.
	Event string
	Err   error
}

func (e *DecodeError) Error() string {
	if e.Event != "" {
		return fmt.Sprintf("%s %s payload: %v", e.Agent, e.Event, e.Err)
	}
	return fmt.Sprintf("%s payload: %v", e.Agent, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// adapters is every adapter, in the order Names lists them.
var adapters = [...]Adapter{claudeAdapter{}, codexAdapter{}, copilotAdapter{}, cursorAdapter{}, geminiAdapter{}}

// Names returns the agents with an adapter.
func Names() []Name {
	out := make([]Name, len(adapters))
	for i, a := range adapters {
		out[i] = a.Name()
	}
	return out
}

// Lookup returns the adapter of the agent named name (case-insensitive),
// or an error listing the known names.
func Lookup(name string) (Adapter, error) {
	for _, a := range adapters {
		if strings.EqualFold(string(a.Name()), name) {
			return a, nil
		}
	}
	known := make([]string, len(adapters))
	for i, a := range adapters {
		known[i] = string(a.Name())
	}
	return nil, fmt.Errorf("unknown agent %q (known: %s, auto)", name, strings.Join(known, ", "))
}
