package luahook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Spec describes one hook: what it answers, who registered it and where, and
// how the runner calls it. Lua registrations, configured command and HTTP
// hooks and Go hooks are all described by a Spec; the registry keeps one per
// registered hook, with the defaults applied (see Spec.WithDefaults).
//
// Its JSON is what listings print ("luahook list --json"): the timeout in
// whole milliseconds, without the owner (the source names it) and the hook.
type Spec struct {
	Event Event `json:"event"`
	// Name defaults to "owner:Event", or "kind:Event" without an owner.
	Name string `json:"name"`
	// Matcher selects the payloads the hook runs for; "" or "*" means every
	// one. Its forms are registry.ParseMatcher's.
	Matcher string `json:"matcher"`
	// Stage applies to PreToolUse (DefaultStage gives its default) and
	// PostToolUse, where "mutate" puts a hook in the chain that rewrites the
	// tool's output: the mutate stage's hooks run first, one after
	// another in registration order, each given the output as the one
	// before left it; the others ("" there) run in parallel afterwards. It
	// is "" on the other events.
	Stage Stage `json:"stage,omitempty"`
	// Kind is the hook's transport; "" means a Go hook.
	Kind HookKind `json:"kind"`
	// Owner is a plugin, a Lua file ("10-guard.lua") or the configured set;
	// the registry replaces and drains hooks by owner.
	Owner string `json:"-"`
	// Source is the file:line of a Lua registration or of a config entry.
	Source string `json:"source"`
	// Policy keeps the hook running when only policy hooks may (--no-hooks).
	Policy bool `json:"policy"`
	// Timeout is 0 for the default (DefaultTimeout, DefaultBackgroundTimeout
	// for background hooks); the registry clamps it to [MinTimeout, MaxTimeout].
	Timeout       time.Duration `json:"timeoutMs"`
	FailurePolicy FailurePolicy `json:"failurePolicy"`
	// Background and RunWhenToolSkipped apply to PostToolUse only: a
	// background hook runs after the answer is sent, and RunWhenToolSkipped
	// runs the hook also when an allowed tool did not run.
	Background         bool `json:"background,omitempty"`
	RunWhenToolSkipped bool `json:"runWhenToolSkipped,omitempty"`
	// Mode is "" (ModeLive: the hook's outcome is enforced) or ModeShadow:
	// the hook runs on live events, its outcome is traced, logged and
	// counted, and never enforced.
	Mode Mode `json:"mode,omitempty"`
	// Version is the content hash ("sha256:" and hex) of the file that
	// registered the hook (the Lua file, the config file), empty for a Go
	// hook. Decision logs record it.
	Version string `json:"version,omitempty"`
	// Hook is what the runner calls.
	Hook Hook `json:"-"`
}

// Mode says whether a hook's outcome is enforced.
type Mode string

// The modes.
const (
	ModeLive   Mode = ""       // enforced
	ModeShadow Mode = "shadow" // run, logged and counted, never enforced
)

// Valid reports whether m is one of the modes.
func (m Mode) Valid() bool { return m == ModeLive || m == ModeShadow }

// HookKind names the transport of a hook, for traces and listings.
type HookKind string

// The kinds of hooks.
const (
	KindLua     HookKind = "lua"
	KindCommand HookKind = "command"
	KindHTTP    HookKind = "http"
	KindGo      HookKind = "go"
)

// Stage is where a PreToolUse hook runs: mutators first, then validators.
type Stage string

// The PreToolUse stages.
const (
	StageMutate   Stage = "mutate"
	StageValidate Stage = "validate"
)

// FailurePolicy says what a failure of the hook means.
type FailurePolicy string

// The failure policies.
const (
	FailOpen   FailurePolicy = "open"   // log and skip the hook
	FailClosed FailurePolicy = "closed" // deny (PreToolUse, UserPromptSubmit); open elsewhere
)

// Valid reports whether s is one of the stages.
func (s Stage) Valid() bool { return s == StageMutate || s == StageValidate }

// Valid reports whether p is one of the failure policies.
func (p FailurePolicy) Valid() bool { return p == FailOpen || p == FailClosed }

// The default timeouts, and the bounds every timeout is clamped to.
const (
	DefaultTimeout           = 5 * time.Second
	DefaultBackgroundTimeout = 60 * time.Second
	MinTimeout               = time.Millisecond
	MaxTimeout               = 10 * time.Minute
)

// MarshalJSON encodes the spec as listings print it: the timeout in whole
// milliseconds, without the owner and the hook.
func (s Spec) MarshalJSON() ([]byte, error) {
	type plain Spec // without this method
	p := plain(s)
	p.Timeout = s.Timeout / time.Millisecond // timeoutMs
	return encodeJSON(p)
}

// DefaultStage returns the stage of a PreToolUse hook of kind that names
// none: mutate for Lua and Go hooks, validate for command and HTTP hooks.
func DefaultStage(kind HookKind) Stage {
	if kind == KindCommand || kind == KindHTTP {
		return StageValidate
	}
	return StageMutate
}

// EffectiveTimeout applies the default timeout (DefaultTimeout, or
// DefaultBackgroundTimeout for background hooks) to a zero timeout and clamps
// the result to [MinTimeout, MaxTimeout].
func EffectiveTimeout(t time.Duration, background bool) time.Duration {
	if t == 0 {
		t = DefaultTimeout
		if background {
			t = DefaultBackgroundTimeout
		}
	}
	return min(max(t, MinTimeout), MaxTimeout)
}

// WithDefaults returns s with its zero values replaced by their defaults: a
// Go hook, the name "owner:Event" (or "kind:Event"), fail open, the kind's
// stage on PreToolUse (mutate or none on PostToolUse, none elsewhere), Background and RunWhenToolSkipped
// off outside PostToolUse, and the effective timeout. It checks nothing: the
// registry validates a spec before it applies the defaults.
func (s Spec) WithDefaults() Spec {
	if s.Kind == "" {
		s.Kind = KindGo
	}
	if s.Name == "" {
		prefix := s.Owner
		if prefix == "" {
			prefix = string(s.Kind)
		}
		s.Name = prefix + ":" + string(s.Event)
	}
	if s.FailurePolicy == "" {
		s.FailurePolicy = FailOpen
	}
	switch {
	case s.Event == PostToolUse:
		if s.Stage != StageMutate || s.Background { // a background hook runs after the model read the output
			s.Stage = ""
		}
	case s.Event != PreToolUse:
		s.Stage = ""
	case s.Stage == "":
		s.Stage = DefaultStage(s.Kind)
	}
	if s.Event != PostToolUse {
		s.Background, s.RunWhenToolSkipped = false, false
	}
	s.Timeout = EffectiveTimeout(s.Timeout, s.Background)
	return s
}

// Listed is one hook of a listing: its spec, its position in its event's run
// order (from 1), and its matcher as parsed ("names bash|sh",
// "regex ^(?i:mcp__.*)$", "capability @shell", `Bash command prefix "git push"`).
type Listed struct {
	Spec
	Order       int
	MatcherForm string
}

// MarshalJSON encodes the listed hook as one object: the spec's JSON (see
// Spec) with "order" after "event", the matcher as written ("*" for every
// tool) and "matcherForm" after it.
func (l Listed) MarshalJSON() ([]byte, error) {
	spec := l.Spec
	if spec.Matcher == "" {
		spec.Matcher = "*"
	}
	raw, err := spec.MarshalJSON()
	if err != nil {
		return nil, err
	}
	form, err := encodeJSON(l.MatcherForm)
	if err != nil {
		return nil, err
	}
	after := map[string]string{
		"event":   fmt.Sprintf(`"order":%d`, l.Order),
		"matcher": `"matcherForm":` + string(form),
	}
	// Copy the spec's members one by one, adding the listing's own after
	// the member they follow.
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := key.(string)
		fmt.Fprintf(&b, "%q:", k) // the spec's own keys: plain ASCII
		b.Write(val)
		if extra, ok := after[k]; ok {
			b.WriteByte(',')
			b.WriteString(extra)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encodeJSON encodes v as json.Marshal does but leaves HTML characters as
// they are: the encoder that prints the result escapes them or not.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
