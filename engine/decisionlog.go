package engine

import (
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"sync"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/internal/pipeline"
)

// DecisionLog says where an engine's decision log goes: one
// decisionlog.Record per decided event. The config's [decision_log] sets it
// up (off unless enabled there); these options override it. Tap gives a
// host the records too, whether the log is on or off.
type DecisionLog struct {
	// Logger, when set, receives every decision, whatever the config says;
	// the host closes it after the engine. A host that wants records in Go
	// passes decisionlog.New(decisionlog.Options{Sink: decisionlog.Func(f)}).
	Logger *decisionlog.Logger
	// To, when set, overrides where the config's log goes, and turns it on
	// or off: a file path, "stdout", "stderr" or "off". The config's other
	// [decision_log] settings (rotation, masking, queue) still apply.
	To string
	// ToName names To in errors as the host's user knows it: luahook
	// serve and fire set "--decision-log". Empty: "DecisionLog.To".
	ToName string
	// Default is where the log goes when neither To nor the config's
	// enabled says ("stdout" in luahook serve); "" means off.
	Default string
	// Stdout and Stderr are what "stdout" and "stderr" write to; nil means
	// os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Instance names the replica in every record of the engine's own log
	// (decisionlog.Options.Instance); luahook serve sets its --instance-id.
	Instance string
	// Tap, when set, receives every record of the logs the engine opens,
	// besides their sink, masked as the config's [decision_log] says (a
	// live view of the decisions: luahook serve's web page). When the log
	// is off (To "off", or neither the config nor Default turn it on) the
	// engine still opens one whose only sink is Tap; its counts are not
	// the log's (DecisionLogStats leaves them out). A reload that changes
	// the log keeps the tap.
	//
	// Tap's Write is called from one goroutine at a time (the log's
	// writer, or a replaced log's while it finishes), never on a
	// decision's path; it must not keep the record past its return (see
	// decisionlog.Sink) and should not block, for it delays the log's
	// sink. Its errors are not the log's failures: they are logged as
	// warnings, not counted. The engine never closes Tap. Tap is not used
	// with Logger, which is the host's to compose.
	Tap decisionlog.Sink
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
	curTap   bool // cur writes to the tap only: the log is off
	settings config.DecisionLog
	to       string
	retired  []retiredLog
	past     decisionlog.Stats
	// tap is DecisionLog.Tap as every log writes to it, one at a time;
	// made by the first log opened with a Tap.
	tap *tapSink
}

// retiredLog is a log a reload replaced, still closing; tapOnly when it
// wrote to the tap only, its counts not the log's.
type retiredLog struct {
	l       *decisionlog.Logger
	tapOnly bool
}

// retire closes l, a log a reload replaced, in the background (bounded by
// its CloseTimeout), then folds its counts into past (unless tapOnly) and
// forgets it.
func (d *decisionLogState) retire(l *decisionlog.Logger, tapOnly bool) {
	d.retired = append(d.retired, retiredLog{l, tapOnly})
	go func() {
		l.Close()
		d.mu.Lock()
		defer d.mu.Unlock()
		for i, r := range d.retired {
			if r.l == l {
				d.retired = append(d.retired[:i], d.retired[i+1:]...)
				if !tapOnly {
					d.past = addStats(d.past, l.Stats())
				}
				return
			}
		}
	}()
}

// tapSink is DecisionLog.Tap shared by the engine's logs: a replaced log
// still finishing and the one in force each have a writer, so it takes
// their records one at a time. A failing tap is warned of once per run of
// failures.
type tapSink struct {
	mu      sync.Mutex
	sink    decisionlog.Sink
	log     *slog.Logger
	failing bool
}

func (t *tapSink) write(rec *decisionlog.Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed(t.sink.Write(rec))
}

func (t *tapSink) flush() {
	f, ok := t.sink.(decisionlog.Flusher)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed(f.Flush())
}

// failed notes the result of a write or flush; t.mu is held.
func (t *tapSink) failed(err error) {
	if err != nil && !t.failing {
		t.log.Warn("decision log: the tap's write failed; the log goes on", "err", err)
	}
	t.failing = err != nil
}

// teeSink is the sink of a log the engine opens with a tap: its own sink
// (nil when the log is off and the tap is all it writes to), then the tap.
// Only the log's sink's errors are the log's; Close closes it, not the tap.
type teeSink struct {
	log decisionlog.Sink
	tap *tapSink
}

func (s *teeSink) Write(rec *decisionlog.Record) error {
	var err error
	if s.log != nil {
		err = s.log.Write(rec)
	}
	s.tap.write(rec)
	return err
}

func (s *teeSink) Flush() error {
	var err error
	if f, ok := s.log.(decisionlog.Flusher); ok {
		err = f.Flush()
	}
	s.tap.flush()
	return err
}

func (s *teeSink) Close() error {
	if s.log == nil {
		return nil
	}
	return s.log.Close()
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

// logTargetName names where the log target to (logTarget) came from, for
// an error about it: the host's option when it set To (by its ToName) or
// Default, else the config's decision_log.path.
func (e *Engine) logTargetName(cfg *config.Config, to string) string {
	o := e.opts.DecisionLog
	switch {
	case o.To != "" && o.ToName != "":
		return o.ToName + " " + to
	case o.To != "":
		return "DecisionLog.To " + to
	case cfg.DecisionLog.Enabled != nil && *cfg.DecisionLog.Enabled:
		return orDefault(cfg.Path) + ": decision_log.path"
	}
	return "DecisionLog.Default " + to
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
	tap := e.opts.DecisionLog.Tap
	if to == DecisionLogOff && tap == nil {
		return nil, true, nil
	}
	var sink decisionlog.Sink
	chain := decisionlog.ChainOptions{CheckpointEvery: set.CheckpointEvery}
	if set.SigningKey != "" && to != DecisionLogOff {
		if chain.SigningKey, err = decisionlog.LoadSigningKey(set.SigningKey); err != nil {
			return nil, false, fmt.Errorf("%s: decision_log.signing_key: %w", orDefault(cfg.Path), err)
		}
	}
	switch to {
	case DecisionLogOff: // the tap only
	case "stdout":
		sink, err = decisionlog.SignedWriter(orWriter(e.opts.DecisionLog.Stdout, os.Stdout), chain)
	case "stderr":
		sink, err = decisionlog.SignedWriter(orWriter(e.opts.DecisionLog.Stderr, os.Stderr), chain)
	default:
		files := set.MaxFiles
		if files == 0 {
			files = -1 // keep none
		}
		sink, err = decisionlog.File(to, decisionlog.FileOptions{MaxBytes: set.MaxBytes, MaxFiles: files, MaxAge: set.MaxAge, Chain: chain})
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", e.logTargetName(cfg, to), err)
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: decision_log: %w", orDefault(cfg.Path), err)
	}
	if tap != nil {
		if e.dlog.tap == nil {
			e.dlog.tap = &tapSink{sink: tap, log: e.logger}
		}
		sink = &teeSink{log: sink, tap: e.dlog.tap}
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
	prev, prevTap := e.dlog.cur, e.dlog.curTap
	e.dlog.cur, e.dlog.settings, e.dlog.to = next, cfg.DecisionLog, e.logTarget(cfg)
	e.dlog.curTap = next != nil && e.dlog.to == DecisionLogOff
	if prev != nil {
		e.dlog.retire(prev, prevTap)
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
// every log a reload replaced (or of Options.DecisionLog.Logger). A log
// opened for DecisionLog.Tap alone, while the log is off, does not count.
func (e *Engine) DecisionLogStats() decisionlog.Stats {
	if l := e.opts.DecisionLog.Logger; l != nil {
		return l.Stats()
	}
	e.dlog.mu.Lock()
	defer e.dlog.mu.Unlock()
	s := e.dlog.past
	if e.dlog.cur != nil && !e.dlog.curTap {
		s = addStats(s, e.dlog.cur.Stats())
	}
	for _, r := range e.dlog.retired {
		if !r.tapOnly {
			s = addStats(s, r.l.Stats())
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
	logs := []*decisionlog.Logger{e.dlog.cur}
	for _, r := range e.dlog.retired {
		logs = append(logs, r.l)
	}
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
