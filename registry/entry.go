package registry

import (
	"fmt"

	"github.com/luahook/luahook"
)

// Entry is a registered hook: its Spec with the defaults applied (the
// timeout is the effective one, clamped), the registry's id for it and its
// matcher parsed. Entries are immutable once registered; the registry hands
// out copies or read-only views.
type Entry struct {
	luahook.Spec
	ID string
	// Match is Matcher parsed (its String is the form "luahook list" shows).
	Match Matcher

	tier  int    // configured, then Lua files, then Go hooks
	group string // the owner inside a tier that sorts by owner
	seq   uint64 // registration order
}

// Matches reports whether the entry runs for the payload in, whose match key
// for the event fired is key (see Matcher.Match).
func (e *Entry) Matches(key string, in *luahook.Input) bool { return e.Match.Match(key, in) }

// BoundByContext reports whether the entry's hook returns promptly once its
// context is done (see luahook.ContextBound).
func (e *Entry) BoundByContext() bool {
	cb, ok := e.Hook.(luahook.ContextBound)
	return ok && cb.BoundByContext()
}

// ScopedToCall reports whether the entry's hook uses its Input and context
// only while Call runs (see luahook.CallScoped).
func (e *Entry) ScopedToCall() bool {
	s, ok := e.Hook.(luahook.CallScoped)
	return ok && s.ScopedToCall()
}

const (
	tierConfigured = iota
	tierLua
	tierGo
)

// newEntry validates spec and applies the defaults (luahook.Spec.WithDefaults).
// Only Event and Hook are required.
func newEntry(spec luahook.Spec) (*Entry, error) {
	if !spec.Event.Valid() {
		_, err := luahook.ParseEvent(string(spec.Event))
		return nil, err
	}
	if spec.Hook == nil {
		return nil, fmt.Errorf("hook %q for %s: no hook function", spec.Name, spec.Event)
	}
	e := &Entry{}
	switch spec.Kind {
	case "", luahook.KindGo:
		e.tier = tierGo
	case luahook.KindLua:
		e.tier, e.group = tierLua, spec.Owner
	case luahook.KindCommand, luahook.KindHTTP:
		e.tier, e.group = tierConfigured, spec.Owner
	default:
		return nil, fmt.Errorf("hook %q: unknown kind %q", spec.Name, spec.Kind)
	}
	e.Spec = spec.WithDefaults()
	m, err := ParseMatcher(e.Event, spec.Matcher)
	if err != nil {
		if e.Source != "" {
			return nil, fmt.Errorf("%s: hook %q: %w", e.Source, e.Name, err)
		}
		return nil, fmt.Errorf("hook %q: %w", e.Name, err)
	}
	e.Match = m
	if spec.FailurePolicy != "" && !spec.FailurePolicy.Valid() {
		return nil, fmt.Errorf("hook %q: unknown failure policy %q (want open or closed)", e.Name, spec.FailurePolicy)
	}
	if (e.Event == luahook.PreToolUse || e.Event == luahook.PostToolUse) && spec.Stage != "" && !spec.Stage.Valid() {
		return nil, fmt.Errorf("hook %q: unknown stage %q (want mutate or validate)", e.Name, spec.Stage)
	}
	if !spec.Mode.Valid() {
		return nil, fmt.Errorf("hook %q: unknown mode %q (want \"shadow\", or \"\" for a live hook)", e.Name, spec.Mode)
	}
	if spec.Timeout < 0 {
		return nil, fmt.Errorf("hook %q: negative timeout %v", e.Name, spec.Timeout)
	}
	return e, nil
}

// less orders entries: configured hooks first (config order), then Lua files
// by file name and registration order inside the file, then Go hooks in
// registration order. Because a replaced set keeps its owner, a reloaded file
// keeps its place.
func less(a, b *Entry) bool {
	if a.tier != b.tier {
		return a.tier < b.tier
	}
	if a.group != b.group {
		return a.group < b.group
	}
	return a.seq < b.seq
}
