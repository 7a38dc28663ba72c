package runner

import (
	"context"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/registry"
)

// Explanation is what Explain found for one payload: every hook registered
// on its event, in run order, with why it took part or not and what it did,
// and the Result of the call. Its JSON (luahook explain --json) uses the
// field names below; they are only ever added to.
type Explanation struct {
	Event luahook.Event `json:"event"`
	// Key is what the matchers were compared with (luahook.Input.MatchKey):
	// the tool name, an observational event's key, or "" (every matcher).
	Key string `json:"key,omitempty"`
	// PolicyOnly is set when only hooks marked policy run (--no-hooks).
	PolicyOnly bool `json:"policyOnly,omitempty"`
	// Hooks has every hook registered on Event, in the order the runner
	// calls them (registry.RunOrder).
	Hooks []HookExplanation `json:"hooks"`
	// Result is what firing the payload decided (Result.DecidedBy names
	// the hook that decided).
	Result Result `json:"result"`

	unattached []ledger.Entry // Result.Ledger's entries no hook of Hooks made
}

// HookExplanation is one hook of an Explanation.
type HookExplanation struct {
	// Order is the hook's place in its event's run order, from 1.
	Order  int              `json:"order"`
	ID     string           `json:"id"`
	Name   string           `json:"name"`
	Source string           `json:"source,omitempty"`
	Kind   luahook.HookKind `json:"kind"`
	Stage  luahook.Stage    `json:"stage,omitempty"`
	Policy bool             `json:"policy,omitempty"`
	// Matcher is the matcher as parsed (registry.Matcher.String).
	Matcher string `json:"matcher"`
	// Matched says whether the hook took part in the call: its matcher
	// selected the payload (for a Tool(pattern) matcher on PreToolUse, the
	// input as rewritten when its turn came). Why says why, naming the part
	// of the matcher that decided (registry.Matcher.Explain).
	Matched bool   `json:"matched"`
	Why     string `json:"why"`
	// Gated is set when the hook is not called because only policy hooks
	// run and it is not one (its trace says skipped: policy-only).
	Gated bool `json:"gated,omitempty"`
	// NotRun says why a hook whose matcher selects the payload has no
	// trace: the payload was refused before any hook ran.
	NotRun string `json:"notRun,omitempty"`
	// Trace is what the hook did when it took part: its outcome, failure,
	// duration, or why it was skipped (not reached after a deny, gated,
	// background). Nil when it did not take part.
	Trace *HookTrace `json:"trace,omitempty"`
	// Decided is set on the hook Result.DecidedBy names (the first to take
	// part under that name).
	Decided bool `json:"decided,omitempty"`
	// Ledger lists the calls the hook made to its session's ledger during
	// the call, in order: what it read (has, marks, count, calls) and
	// wrote (mark, count), and what it found. Result.Ledger holds every
	// call, those of hooks that did not name themselves (a Go hook
	// without ledger.WithHook) included.
	Ledger []ledger.Entry `json:"ledger,omitempty"`
}

// Why a selected hook has no trace (HookExplanation.NotRun).
const (
	NotRunRefused = "the payload was refused before any hook ran"
	NotRunChanged = "not in this call's trace: the hooks changed while it ran"
)

// Explain fires in as Fire does (the same hooks, the same semantics, the
// same side effects: background hooks are scheduled, buffered context is
// delivered) and joins the call's trace with every hook registered on
// in.Event, by entry id, saying for each hook that did not take part which
// part of its matcher failed, and listing the calls each hook made to its
// session's ledger (the call keeps a journal of them: the one ctx carries,
// else its own). A nil in explains the refusal.
func (r *Runner) Explain(ctx context.Context, in *luahook.Input) Explanation {
	if in == nil {
		return Explanation{Hooks: []HookExplanation{}, Result: r.Fire(ctx, nil)}
	}
	entries := registry.RunOrder(r.reg.List(in.Event))
	ctx, j := journaled(ctx)
	res := r.fire(ctx, in, nil)
	r.decided(in, res, j)
	res.Ledger = j.Entries()
	x := Explanation{Event: in.Event, Key: in.MatchKey(), PolicyOnly: r.policyOnly.Load(), Result: res,
		Hooks: make([]HookExplanation, 0, len(entries))}
	traced := make(map[string]int, len(res.Trace)) // entry id -> index in the trace
	for i, t := range res.Trace {
		traced[t.ID] = i
	}
	refused := in.CheckLimits() != nil || r.guardDenies(in)
	turn := *in // the payload as the next hook sees it: PreToolUse's mutate stage rewrites it
	for i := range entries {
		e := &entries[i]
		h := HookExplanation{Order: i + 1, ID: e.ID, Name: e.Name, Source: e.Source, Kind: e.Kind, Stage: e.Stage,
			Policy: e.Policy, Matcher: e.Match.String(), Gated: x.PolicyOnly && !e.Policy}
		ok, why := e.Explain(x.Key, &turn)
		if e.Match.ReadsToolInput() && !sameJSON(turn.ToolInput, in.ToolInput) {
			why = "on the input as rewritten by the mutate stage: " + why
		}
		k, ran := traced[e.ID]
		switch {
		case ran:
			delete(traced, e.ID)
			t := res.Trace[k]
			h.Matched, h.Why, h.Trace = true, why, &t
			if in.Event == luahook.PreToolUse && rewrote(t) {
				turn.ToolInput = t.Outcome.Input
			}
		case ok && refused:
			h.Matched, h.Why, h.NotRun = true, why, NotRunRefused
		case ok:
			h.Matched, h.Why, h.NotRun = true, why, NotRunChanged
		default:
			h.Why = why
		}
		x.Hooks = append(x.Hooks, h)
	}
	for _, t := range res.Trace { // registered while the call ran
		if _, left := traced[t.ID]; left {
			x.Hooks = append(x.Hooks, HookExplanation{ID: t.ID, Name: t.Name, Source: t.Source, Kind: t.Kind, Stage: t.Stage,
				Matched: true, Why: "registered while the call ran", Trace: &t})
		}
	}
	x.markDecider()
	x.attachLedger()
	return x
}

// attachLedger gives each hook that took part the ledger calls it made:
// the entries of Result.Ledger that name it and its file (a Lua hook's
// entry id is its file, "#" and its place there). A hook's name need not
// be unique: an entry goes to the first hook that took part under its name
// and file.
func (x *Explanation) attachLedger() {
	for _, e := range x.Result.Ledger {
		made := false
		for i := range x.Hooks {
			h := &x.Hooks[i]
			if e.Hook != "" && h.Trace != nil && h.Name == e.Hook &&
				(e.File == "" || strings.HasPrefix(h.ID, e.File+"#") || sourceFile(h.Source) == e.File) {
				h.Ledger = append(h.Ledger, e)
				made = true
				break
			}
		}
		if !made {
			x.unattached = append(x.unattached, e)
		}
	}
}

// sourceFile is the file of a hook's source, "file:line" without its line.
func sourceFile(source string) string {
	if i := strings.LastIndexByte(source, ':'); i > 0 {
		return source[:i]
	}
	return source
}

// rewrote reports whether the hook of t rewrote the PreToolUse input the
// hooks after it see: a mutate-stage hook that returned an input (mutate,
// or ask with a rewrite) and did not fail.
func rewrote(t HookTrace) bool {
	return t.Stage == luahook.StageMutate && t.Failure == nil && t.Skipped == "" && t.Outcome != nil && t.Outcome.Input != nil
}

// markDecider sets Decided on the hook Result.DecidedBy names: the first
// hook of that name that was called.
func (x *Explanation) markDecider() {
	if x.Result.DecidedBy == "" {
		return
	}
	for i := range x.Hooks {
		h := &x.Hooks[i]
		if h.Name == x.Result.DecidedBy && h.Trace != nil && (h.Trace.Skipped == "" || h.Trace.Skipped == SkipValidatorMutation) {
			h.Decided = true
			return
		}
	}
}
