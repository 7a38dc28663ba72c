package engine

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/internal/pipeline"
)

// DecisionLog says where an engine's decision log goes: one
// decisionlog.Record per decided event. The config's [decision_log] sets it
// up (off unless enabled there); these options override it.
type DecisionLog struct {
	// Logger, when set, receives every decision, whatever the config says;
	// the host closes it after the engine. A host that wants records in Go
	// passes decisionlog.New(decisionlog.Options{Sink: decisionlog.Func(f)}).
	Logger *decisionlog.Logger
	// To, when set, overrides where the config's log goes, and turns it on
	// or off: a file path, "stdout", "stderr" or "off". The config's other
	// [decision_log] settings (rotation, masking, queue) still apply.
	To string
	// Default is where the log goes when neither To nor the config's
	// enabled says ("stdout" in luahook serve); "" means off.
	Default string
	// Stdout and Stderr are what "stdout" and "stderr" write to; nil means
	// os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Instance names the replica in every record of the engine's own log
	// (decisionlog.Options.Instance); luahook serve sets its --instance-id.
	Instance string
}

// DecisionLogOff is the DecisionLog.To (and --decision-log) value that turns
// the log off.
const DecisionLogOff = "off"

// decisionLogState is the engine's own log: the settings it was opened with,
// the loggers a reload replaced that are still closing, and the counts of
// those that closed (so that a reload loop holds no more than the logs
// still flushing). e.mu guards it; mu guards cur, retired and past too, for
// DecisionLogStats, which must not wait for a reload.
type decisionLogState struct {
	mu       sync.Mutex
	cur      *decisionlog.Logger
	settings config.DecisionLog
	to       string
	retired  []*decisionlog.Logger
	past     decisionlog.Stats
}

// retire closes l, a log a reload replaced, in the background (bounded by
// its CloseTimeout), then folds its counts into past and forgets it.
func (d *decisionLogState) retire(l *decisionlog.Logger) {
	d.retired = append(d.retired, l)
	go func() {
		l.Close()
		d.mu.Lock()
		defer d.mu.Unlock()
		for i, r := range d.retired {
			if r == l {
				d.retired = append(d.retired[:i], d.retired[i+1:]...)
				d.past = addStats(d.past, l.Stats())
				return
			}
		}
	}()
}

func addStats(a, b decisionlog.Stats) decisionlog.Stats {
	a.Written, a.Dropped, a.Failed = a.Written+b.Written, a.Dropped+b.Dropped, a.Failed+b.Failed
	return a
}

// target is where cfg sends the log, under the engine's options.
func (e *Engine) logTarget(cfg *config.Config) string {
	o := e.opts.DecisionLog
	switch {
	case o.To != "":
		return o.To
	case cfg.DecisionLog.Enabled != nil && *cfg.DecisionLog.Enabled:
		return cfg.DecisionLog.Path
	case cfg.DecisionLog.Enabled != nil:
		return DecisionLogOff
	case o.Default != "":
		return o.Default
	}
	return DecisionLogOff
}

// openDecisionLog opens the log cfg asks for when it differs from the one
// in force; swap puts it in force. It returns nil, nil when nothing changes.
func (e *Engine) openDecisionLog(cfg *config.Config) (next *decisionlog.Logger, change bool, err error) {
	if e.opts.DecisionLog.Logger != nil {
		return nil, false, nil
	}
	to, set := e.logTarget(cfg), cfg.DecisionLog
	if to == e.dlog.to && reflect.DeepEqual(set, e.dlog.settings) {
		return nil, false, nil
	}
	if to == DecisionLogOff {
		return nil, true, nil
	}
	var sink decisionlog.Sink
	switch to {
	case "stdout":
		sink = decisionlog.Writer(orWriter(e.opts.DecisionLog.Stdout, os.Stdout))
	case "stderr":
		sink = decisionlog.Writer(orWriter(e.opts.DecisionLog.Stderr, os.Stderr))
	default:
		files := set.MaxFiles
		if files == 0 {
			files = -1 // keep none
		}
		sink, err = decisionlog.File(to, decisionlog.FileOptions{MaxBytes: set.MaxBytes, MaxFiles: files})
		if err != nil {
			return nil, false, fmt.Errorf("%s: decision_log.path: %w", orDefault(cfg.Path), err)
		}
	}
	l, err := decisionlog.New(decisionlog.Options{
		Sink: sink, Queue: set.Queue, MaxInputBytes: set.MaxInputBytes, Drop: set.Drop, Mask: set.Mask,
		MaskWith: set.MaskWith, KeepSecrets: !set.RedactSecrets, Logger: e.logger, Instance: e.opts.DecisionLog.Instance,
	})
	if err != nil {
		sink.Close()
		return nil, false, fmt.Errorf("%s: decision_log: %w", orDefault(cfg.Path), err)
	}
	return l, true, nil
}

// swapDecisionLog puts next (nil: no log) in force for cfg and closes the
// log it replaces in the background. e.mu is held.
func (e *Engine) swapDecisionLog(cfg *config.Config, next *decisionlog.Logger) {
	e.dlog.mu.Lock()
	prev := e.dlog.cur
	e.dlog.cur, e.dlog.settings, e.dlog.to = next, cfg.DecisionLog, e.logTarget(cfg)
	if prev != nil {
		e.dlog.retire(prev)
	}
	e.dlog.mu.Unlock()
	if next != nil {
		e.run.SetOnDecision(next.Observe)
	} else {
		e.run.SetOnDecision(nil)
	}
}

// recordAnswer writes the record of an answer a door gave (the pipeline's
// Gate.Record) to the decision log in force, if any: the policies' result
// with what the agent received, and the answers given without them (a
// fail-closed block, a payload that did not decode).
func (e *Engine) recordAnswer(a *pipeline.Answered) {
	l := e.decisionLogger()
	if l == nil {
		return
	}
	d := a.Delivered
	l.Deliver(a.In, a.Event, a.Res, decisionlog.Delivered{
		Verdict: d.Verdict, ExitCode: d.ExitCode, Agent: d.Agent, Cause: d.Cause, Reason: d.Reason, Note: d.Note,
	})
}

// decisionLogger is the decision log in force, nil when none (or e is).
func (e *Engine) decisionLogger() *decisionlog.Logger {
	if e == nil {
		return nil
	}
	if l := e.opts.DecisionLog.Logger; l != nil {
		return l
	}
	e.dlog.mu.Lock()
	defer e.dlog.mu.Unlock()
	return e.dlog.cur
}

// DecisionLogStats returns the counts of the engine's decision log, over
// every log a reload replaced (or of Options.DecisionLog.Logger).
func (e *Engine) DecisionLogStats() decisionlog.Stats {
	if l := e.opts.DecisionLog.Logger; l != nil {
		return l.Stats()
	}
	e.dlog.mu.Lock()
	defer e.dlog.mu.Unlock()
	s := e.dlog.past
	for _, l := range append([]*decisionlog.Logger{e.dlog.cur}, e.dlog.retired...) {
		if l != nil {
			s = addStats(s, l.Stats())
		}
	}
	return s
}

// closeDecisionLog stops logging and closes the engine's own logs, the
// current one and those a reload replaced (which may still be writing),
// waiting at most their CloseTimeout. e.mu is held.
func (e *Engine) closeDecisionLog() {
	e.run.SetOnDecision(nil)
	e.dlog.mu.Lock()
	logs := append([]*decisionlog.Logger{e.dlog.cur}, e.dlog.retired...)
	e.dlog.mu.Unlock()
	for _, l := range logs {
		if l == nil {
			continue
		}
		if err := l.Close(); err != nil {
			e.logger.Warn("decision log not flushed", "err", err)
		}
	}
}

// contentVersion is a Spec.Version: "sha256:" and the hex of sum.
func contentVersion(sum [32]byte) string { return "sha256:" + hex.EncodeToString(sum[:]) }

func orWriter(w, def io.Writer) io.Writer {
	if w == nil {
		return def
	}
	return w
}

func orDefault(path string) string {
	if path == "" {
		return "config"
	}
	return path
}
