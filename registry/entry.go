package registry

import (
	"fmt"
	"time"

	"github.com/luahook/luahook"
)

// Default timeouts and the bounds every timeout is clamped to.
const (
	DefaultTimeout           = 5 * time.Second
	DefaultBackgroundTimeout = 60 * time.Second
	MinTimeout               = time.Millisecond
	MaxTimeout               = 10 * time.Minute
)

// Spec describes a hook to register. Only Event and Hook are required; the
// zero values of the other fields mean the defaults of DESIGN.md.
type Spec struct {
	Event   luahook.Event
	Matcher string // "" or "*" = every tool; the forms are ParseMatcher's
	Name    string // default: "owner:Event", or "kind:Event" without an owner
	Kind    luahook.HookKind
	Owner   string // a plugin, a Lua file ("hooks.d/x.lua"), or the configured set
	// Stage applies to PreToolUse only. Default: mutate for Lua and Go hooks,
	// validate for command and HTTP hooks.
	Stage         luahook.Stage
	Timeout       time.Duration // 0 = 5 s (60 s for background hooks); clamped to [1 ms, 10 min]
	FailurePolicy luahook.FailurePolicy
	Policy        bool   // still runs when only policy hooks may run (--no-hooks)
	Source        string // file:line of a Lua registration, or the config entry
	// Background and RunWhenToolSkipped apply to PostToolUse only.
	Background         bool
	RunWhenToolSkipped bool
	Hook               luahook.Hook
}

// Entry is a registered hook. Entries are immutable once registered; the
// registry hands out copies or read-only views.
type Entry struct {
	ID                 string
	Event              luahook.Event
	Matcher            string
	Name               string
	Kind               luahook.HookKind
	Owner              string
	Stage              luahook.Stage // "" for events other than PreToolUse
	Timeout            time.Duration // effective: defaults applied and clamped
	FailurePolicy      luahook.FailurePolicy
	Policy             bool
	Source             string
	Background         bool
	RunWhenToolSkipped bool
	Hook               luahook.Hook
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

// newEntry validates spec and applies the defaults.
func newEntry(spec Spec) (*Entry, error) {
	if !spec.Event.Valid() {
		_, err := luahook.ParseEvent(string(spec.Event))
		return nil, err
	}
	if spec.Hook == nil {
		return nil, fmt.Errorf("hook %q for %s: no hook function", spec.Name, spec.Event)
	}
	e := &Entry{
		Event:         spec.Event,
		Matcher:       spec.Matcher,
		Name:          spec.Name,
		Kind:          spec.Kind,
		Owner:         spec.Owner,
		FailurePolicy: spec.FailurePolicy,
		Policy:        spec.Policy,
		Source:        spec.Source,
		Hook:          spec.Hook,
	}
	switch e.Kind {
	case "":
		e.Kind = luahook.KindGo
		e.tier = tierGo
	case luahook.KindGo:
		e.tier = tierGo
	case luahook.KindLua:
		e.tier, e.group = tierLua, e.Owner
	case luahook.KindCommand, luahook.KindHTTP:
		e.tier, e.group = tierConfigured, e.Owner
	default:
		return nil, fmt.Errorf("hook %q: unknown kind %q", spec.Name, spec.Kind)
	}
	if e.Name == "" {
		prefix := e.Owner
		if prefix == "" {
			prefix = string(e.Kind)
		}
		e.Name = prefix + ":" + string(e.Event)
	}
	m, err := ParseMatcher(e.Event, spec.Matcher)
	if err != nil {
		if e.Source != "" {
			return nil, fmt.Errorf("%s: hook %q: %w", e.Source, e.Name, err)
		}
		return nil, fmt.Errorf("hook %q: %w", e.Name, err)
	}
	e.Match = m
	switch e.FailurePolicy {
	case "":
		e.FailurePolicy = luahook.FailOpen
	case luahook.FailOpen, luahook.FailClosed:
	default:
		return nil, fmt.Errorf("hook %q: unknown failure policy %q (want open or closed)", e.Name, spec.FailurePolicy)
	}
	if e.Event == luahook.PreToolUse {
		switch spec.Stage {
		case "":
			e.Stage = luahook.StageMutate
			if e.tier == tierConfigured {
				e.Stage = luahook.StageValidate
			}
		case luahook.StageMutate, luahook.StageValidate:
			e.Stage = spec.Stage
		default:
			return nil, fmt.Errorf("hook %q: unknown stage %q (want mutate or validate)", e.Name, spec.Stage)
		}
	}
	if e.Event == luahook.PostToolUse {
		e.Background = spec.Background
		e.RunWhenToolSkipped = spec.RunWhenToolSkipped
	}
	if spec.Timeout < 0 {
		return nil, fmt.Errorf("hook %q: negative timeout %v", e.Name, spec.Timeout)
	}
	e.Timeout = EffectiveTimeout(spec.Timeout, e.Background)
	return e, nil
}

// EffectiveTimeout applies the default timeout (5 s, or 60 s for background
// hooks) to a zero timeout and clamps the result to [MinTimeout, MaxTimeout].
func EffectiveTimeout(t time.Duration, background bool) time.Duration {
	if t == 0 {
		t = DefaultTimeout
		if background {
			t = DefaultBackgroundTimeout
		}
	}
	return min(max(t, MinTimeout), MaxTimeout)
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
