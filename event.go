package luahook

import (
	"fmt"
	"strings"
)

// Event names a lifecycle point of the host.
type Event string

// The five events that steer the host.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	SessionStart     Event = "SessionStart"
	Stop             Event = "Stop"
)

// The observational events: their outcomes are ignored and their failures are logged.
const (
	PreCompact    Event = "PreCompact"
	PostCompact   Event = "PostCompact"
	SubagentStart Event = "SubagentStart"
	SubagentStop  Event = "SubagentStop"
	SessionEnd    Event = "SessionEnd"
	Notification  Event = "Notification"
)

// NumEvents is the number of known events; Event.Index is below it.
const NumEvents = 11

var lifecycleOrder = [NumEvents]Event{
	SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification,
	SubagentStart, SubagentStop, PreCompact, PostCompact, Stop, SessionEnd,
}

// Events returns every known event in lifecycle order.
func Events() []Event {
	out := make([]Event, NumEvents)
	copy(out, lifecycleOrder[:])
	return out
}

// Index returns a small dense number for a known event and -1 for anything else.
// It is what registries use to keep one list per event without a map lookup.
func (e Event) Index() int {
	switch e {
	case SessionStart:
		return 0
	case UserPromptSubmit:
		return 1
	case PreToolUse:
		return 2
	case PostToolUse:
		return 3
	case Notification:
		return 4
	case SubagentStart:
		return 5
	case SubagentStop:
		return 6
	case PreCompact:
		return 7
	case PostCompact:
		return 8
	case Stop:
		return 9
	case SessionEnd:
		return 10
	}
	return -1
}

// Valid reports whether e is a known event. Event names are case-sensitive.
func (e Event) Valid() bool { return e.Index() >= 0 }

// Observational reports whether e only observes: outcomes ignored, failures logged.
func (e Event) Observational() bool {
	switch e {
	case PreCompact, PostCompact, SubagentStart, SubagentStop, SessionEnd, Notification:
		return true
	}
	return false
}

// CanBlock reports whether e is an event whose hooks can stop what it
// announces (PreToolUse, UserPromptSubmit): when luahook cannot decide on
// such an event, it denies and says why.
func (e Event) CanBlock() bool { return e == PreToolUse || e == UserPromptSubmit }

// ParseEvent returns the event named s, or an error that lists the known
// names. Event names are case-sensitive everywhere (payloads, the command
// line, configs, hook.register, the REPL): a name that differs from a known
// one only by case is refused with the right spelling.
func ParseEvent(s string) (Event, error) {
	e := Event(s)
	if e.Valid() {
		return e, nil
	}
	for _, known := range lifecycleOrder {
		if strings.EqualFold(string(known), s) {
			return "", fmt.Errorf("unknown event %q; event names are case-sensitive: did you mean %s?", s, known)
		}
	}
	return "", fmt.Errorf("unknown event %q (known: %s)", s, eventList())
}

func eventList() string {
	s := ""
	for i, e := range lifecycleOrder {
		if i > 0 {
			s += ", "
		}
		s += string(e)
	}
	return s
}
