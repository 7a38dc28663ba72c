package server

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/metrics"
	"github.com/luahook/luahook/runner"
)

// DefaultShadowSlots is the default of ShadowOptions.Slots.
const DefaultShadowSlots = 8

// ShadowOptions run a second set of hooks (`luahook serve --shadow-dir`)
// beside the live one: every payload the handler decides is also fired at
// Firer once the live answer is written, and the two decisions
// (runner.Result.Action) are compared. The shadow decision is never
// written to a client.
type ShadowOptions struct {
	// Firer fires the shadow set (the shadow engine's runner).
	Firer Firer
	// Name labels the comparisons in luahook_shadow_decisions_total:
	// hook="dir:NAME".
	Name string
	// Slots is how many shadow firings may run at once; a payload that
	// finds them all taken is not compared, only counted in
	// luahook_shadow_dropped_total, so that a slow or hung shadow set never
	// holds more than Slots payloads. 0 means DefaultShadowSlots.
	Slots int
	// Health returns the shadow set's load errors. /healthz and /readyz list
	// them under "shadowErrors" without changing their status: the shadow set
	// decides nothing.
	Health func() []error
}

// shadowSet is a Handler's shadow set and its comparison counters.
type shadowSet struct {
	firer  Firer
	label  string
	health func() []error
	log    *slog.Logger
	slots  chan struct{}
	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	agree, disagree, dropped atomic.Uint64
}

func newShadowSet(opts *ShadowOptions, log *slog.Logger) *shadowSet {
	if opts == nil || opts.Firer == nil {
		return nil
	}
	n := opts.Slots
	if n <= 0 {
		n = DefaultShadowSlots
	}
	s := &shadowSet{firer: opts.Firer, label: "dir:" + opts.Name, health: opts.Health, log: log, slots: make(chan struct{}, n)}
	if s.health == nil {
		s.health = func() []error { return nil }
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	return s
}

// offer fires in at the shadow set on a goroutine of its own, when a slot is
// free, and compares its decision with live's. in must not change
// afterwards. A nil set does nothing.
func (s *shadowSet) offer(in *luahook.Input, live *runner.Result) {
	if s == nil {
		return
	}
	select {
	case s.slots <- struct{}{}:
	default:
		s.dropped.Add(1)
		return
	}
	if s.base.Err() != nil {
		<-s.slots
		return
	}
	liveAction, liveBy := live.Action(), live.DecidedBy
	s.wg.Add(1)
	go func() {
		defer func() { <-s.slots; s.wg.Done() }()
		res := s.firer.Fire(s.base, in)
		if s.base.Err() != nil {
			return // closing: the result of a cancelled call is not a decision
		}
		shadow := res.Action()
		if shadow == liveAction {
			s.agree.Add(1)
			return
		}
		s.disagree.Add(1)
		s.log.LogAttrs(s.base, slog.LevelWarn, "shadow set disagrees with the live decision",
			slog.String("shadow", s.label), slog.String("event", string(in.Event)), slog.String("tool", in.ToolName),
			slog.String("live", actionName(liveAction)), slog.String("liveDecidedBy", liveBy),
			slog.String("shadowDecision", actionName(shadow)), slog.String("shadowDecidedBy", res.DecidedBy),
			slog.String("shadowReason", res.Reason))
	}()
}

// close cancels the shadow firings in flight and waits for them.
func (s *shadowSet) close() {
	if s == nil {
		return
	}
	s.cancel()
	s.wg.Wait()
}

func actionName(a luahook.Action) string {
	if a == "" {
		return "none"
	}
	return string(a)
}

// shadowCollector serves luahook_shadow_decisions_total{hook,agrees}: the
// agreement of each shadow hook of the live set (runner.Runner.ShadowStats,
// when the Firer has them) and of the shadow set (hook="dir:NAME"), and
// luahook_shadow_dropped_total, the shadow set's payloads not compared.
// Hook names come from the registry, so the label values are bounded.
type shadowCollector struct {
	stats func() runner.ShadowStats // nil: the Firer has no shadow hooks
	set   *shadowSet                // nil: no shadow set
}

// shadowStatser is a Firer that counts its shadow hooks' agreement
// (*runner.Runner).
type shadowStatser interface {
	ShadowStats() runner.ShadowStats
}

func newShadowCollector(f Firer, set *shadowSet) *shadowCollector {
	c := &shadowCollector{set: set}
	if s, ok := f.(shadowStatser); ok {
		c.stats = s.ShadowStats
	}
	return c
}

var (
	shadowDecisionsDesc = metrics.NewDesc("luahook_shadow_decisions_total",
		`Verdicts of shadow hooks (hook=NAME) and of the --shadow-dir set (hook="dir:NAME") by whether they agreed with the live decision.`, "hook", "agrees")
	shadowDroppedDesc = metrics.NewDesc("luahook_shadow_dropped_total", "Payloads not fired at the --shadow-dir set because every shadow slot was busy.")
)

// Describe sends the families Collect serves.
func (c *shadowCollector) Describe(ch chan<- *metrics.Desc) {
	ch <- shadowDecisionsDesc
	ch <- shadowDroppedDesc
}

// Collect sends the agreement counts and the shadow set's dropped payloads.
func (c *shadowCollector) Collect(ch chan<- metrics.Metric) {
	if c.stats != nil {
		for name, n := range c.stats().Hooks {
			countShadow(ch, name, n.Agree, n.Disagree)
		}
	}
	if set := c.set; set != nil {
		countShadow(ch, set.label, set.agree.Load(), set.disagree.Load())
		ch <- metrics.ConstCounter(shadowDroppedDesc, float64(set.dropped.Load()))
	}
}

func countShadow(ch chan<- metrics.Metric, hook string, agree, disagree uint64) {
	ch <- metrics.ConstCounter(shadowDecisionsDesc, float64(agree), hook, "true")
	ch <- metrics.ConstCounter(shadowDecisionsDesc, float64(disagree), hook, "false")
}
