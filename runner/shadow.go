package runner

import (
	"context"
	"log/slog"
	"sync"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// Shadow hooks (luahook.ModeShadow) are called like live hooks, with the
// same deadline and payload, and traced with HookTrace.Mode set, but their
// outcome never changes a Result: a shadow deny, ask, allow, rewrite,
// continue or context is left out, a shadow hook's failure never denies
// whatever its failure policy, and a shadow hook never becomes DecidedBy.
//
// On the sequential events (PreToolUse, UserPromptSubmit) the shadow hooks
// run after the live ones, mutators then validators, each on the payload the
// live hooks left (the final tool input), so that they cannot change the
// live decision path; they run after a live deny too, so that every event
// says what they would have decided. On the parallel events they run beside
// the live hooks.
//
// On the events that decide (PreToolUse, UserPromptSubmit, Stop) each shadow
// hook's verdict, what its outcome or failure would have made the event
// decide had it been the only live hook (shadowAction), is compared with the
// live decision (Result.Action) and counted as agreeing or not
// (Runner.ShadowStats). The other events decide nothing and count nothing.

// MaxShadowCounters bounds the hook names Runner.ShadowStats counts. When
// a new name finds the table full, the counters of hooks no longer
// registered as shadow hooks are dropped first; if it is still full, the
// verdict is not counted (ShadowStats.Uncounted).
const MaxShadowCounters = 1024

// ShadowCount is how often one shadow hook's verdict agreed with the live
// decision of the event, and how often not.
type ShadowCount struct {
	Agree, Disagree uint64
}

// ShadowStats are the agreement counters of a Runner's shadow hooks.
type ShadowStats struct {
	// Hooks maps a shadow hook's name to its counts; only hooks registered
	// as shadow hooks now are listed.
	Hooks map[string]ShadowCount
	// Uncounted is how many verdicts found the table full (MaxShadowCounters).
	Uncounted uint64
}

// shadowCounts is the Runner's table of agreement counters.
type shadowCounts struct {
	mu        sync.Mutex
	m         map[string]*ShadowCount
	uncounted uint64
}

// ShadowStats returns the agreement counts of the shadow hooks registered
// now; counters of hooks no longer registered are dropped.
func (r *Runner) ShadowStats() ShadowStats {
	live := r.shadowNames()
	sc := &r.shadow
	sc.mu.Lock()
	defer sc.mu.Unlock()
	st := ShadowStats{Hooks: make(map[string]ShadowCount, len(sc.m)), Uncounted: sc.uncounted}
	for name, c := range sc.m {
		if !live[name] {
			delete(sc.m, name)
			continue
		}
		st.Hooks[name] = *c
	}
	return st
}

// shadowNames returns the names of the registered shadow hooks.
func (r *Runner) shadowNames() map[string]bool {
	names := map[string]bool{}
	for _, e := range r.reg.All() {
		if e.Mode == luahook.ModeShadow {
			names[e.Name] = true
		}
	}
	return names
}

// countShadow counts one verdict of the shadow hook name.
func (r *Runner) countShadow(name string, agrees bool) {
	sc := &r.shadow
	sc.mu.Lock()
	defer sc.mu.Unlock()
	c := sc.m[name]
	if c == nil {
		if len(sc.m) >= MaxShadowCounters {
			sc.mu.Unlock()
			live := r.shadowNames() // reads the registry without the lock held
			sc.mu.Lock()
			for n := range sc.m {
				if !live[n] {
					delete(sc.m, n)
				}
			}
		}
		if c = sc.m[name]; c == nil {
			if len(sc.m) >= MaxShadowCounters {
				sc.uncounted++
				return
			}
			if sc.m == nil {
				sc.m = make(map[string]*ShadowCount)
			}
			c = new(ShadowCount)
			sc.m[name] = c
		}
	}
	if agrees {
		c.Agree++
	} else {
		c.Disagree++
	}
}

// judgeShadow compares the verdict of the shadow hook e, traced in tr, with
// live, the live decision of the event ev (Result.Action), counts it and logs
// a disagreement. in is the payload as the event was fired (a PreToolUse
// rewrite is told from no change against its tool input). Events that decide
// nothing, and hooks that were not called, count nothing.
func (r *Runner) judgeShadow(ctx context.Context, ev luahook.Event, in *luahook.Input, e *registry.Entry, tr *HookTrace, live luahook.Action) {
	if !decides(ev) || tr.Skipped == SkipPolicyOnly || (tr.Failure != nil && tr.Failure.Kind == luahook.FailAborted) {
		return // no verdict: not called, or the caller gave up
	}
	would := shadowAction(ev, in, e, tr)
	agrees := would == live
	r.countShadow(e.Name, agrees)
	if !agrees && r.log.Enabled(ctx, slog.LevelInfo) {
		r.log.LogAttrs(ctx, slog.LevelInfo, "shadow hook \""+e.Name+"\" disagrees with the live decision",
			slog.String("event", string(ev)), slog.String("tool", in.ToolName),
			slog.String("hook", e.Name), slog.String("source", e.Source),
			slog.String("live", actionWord(live)), slog.String("shadow", actionWord(would)))
	}
}

// actionWord names an action for a log line; "" is "none".
func actionWord(a luahook.Action) string {
	if a == "" {
		return "none"
	}
	return string(a)
}

// shadowAction is what the event ev would have decided (Result.Action) had
// the shadow hook e, traced in tr, been its only live hook: its outcome, or
// the denial its failure would have caused (failureDenial).
func shadowAction(ev luahook.Event, in *luahook.Input, e *registry.Entry, tr *HookTrace) luahook.Action {
	if tr.Failure != nil {
		if canBlock(ev) && failureDenial(ev, e, tr.Failure) != "" {
			return luahook.ActionDeny
		}
		return noDecision(ev)
	}
	o := tr.Outcome
	if o == nil {
		return noDecision(ev)
	}
	switch ev {
	case luahook.PreToolUse:
		switch o.Action {
		case luahook.ActionDeny, luahook.ActionAsk:
			return o.Action
		case luahook.ActionMutate:
			if tr.Stage == luahook.StageValidate {
				if e.FailurePolicy == luahook.FailClosed {
					return luahook.ActionDeny // as validatorMutated would
				}
				return ""
			}
			if o.Input != nil && !sameJSON(in.ToolInput, o.Input) {
				return luahook.ActionMutate
			}
		case luahook.ActionAllow:
			return luahook.ActionAllow
		}
		return ""
	case luahook.UserPromptSubmit:
		switch o.Action {
		case luahook.ActionDeny, luahook.ActionAllow:
			return o.Action
		}
	case luahook.Stop:
		if o.Action == luahook.ActionContinue {
			return luahook.ActionContinue
		}
	}
	return ""
}

// noDecision is the action of an event on which no hook objected: none,
// on every event (no objection is not an approval).
func noDecision(luahook.Event) luahook.Action { return "" }

// decides reports whether shadow verdicts on ev are compared and counted.
func decides(ev luahook.Event) bool {
	return ev == luahook.PreToolUse || ev == luahook.UserPromptSubmit || ev == luahook.Stop
}

// isShadow reports whether e is a shadow hook.
func isShadow(e *registry.Entry) bool { return e.Mode == luahook.ModeShadow }
