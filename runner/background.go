package runner

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/defaults"
	"github.com/luahook/luahook/registry"
)

// Bounds of the buffer of background hook context.
const (
	MaxBufferedParts    = 16            // newest parts kept per session
	MaxBufferedBytes    = 64 << 10      // bytes of newest parts kept per session
	MaxBufferedSessions = 32            // sessions kept; the oldest inserted goes first
	DefaultSession      = "__default__" // the session of a payload without one, absent Options.SessionID
)

// Bounds of background work, whatever the payloads: a fixed number of
// workers run the queued payloads, oldest first.
const (
	DefaultBackgroundWorkers = defaults.BackgroundWorkers // default of Options.BackgroundWorkers (4)
	DefaultBackgroundQueue   = defaults.BackgroundQueue   // default of Options.BackgroundQueue (256)
	// MaxBackgroundQueueBytes bounds the tool input, tool result and prompt
	// bytes that queued payloads hold.
	MaxBackgroundQueueBytes = 64 << 20
)

// BackgroundStats counts the background work of a Runner.
type BackgroundStats struct {
	Running   int    // hooks running now
	Queued    int    // payloads waiting for a worker
	Coalesced uint64 // payloads that replaced a waiting one of the same hook and session
	Dropped   uint64 // payloads dropped because the queue was full
}

// bgKey coalesces background runs: per entry and per session.
type bgKey struct{ entry, session string }

// bgRun is the background work of one entry for one session: at most one
// payload running and one waiting.
type bgRun struct {
	key     bgKey
	e       *registry.Entry
	pending *luahook.Input // the payload that runs next; nil when none waits
	size    int            // queuedBytes(pending)
	running bool
}

// bgQueue is the FIFO of runs waiting for a worker, a ring of fixed size.
type bgQueue struct {
	ring    []*bgRun
	head, n int
}

func (q *bgQueue) push(run *bgRun) {
	q.ring[(q.head+q.n)%len(q.ring)] = run
	q.n++
}

func (q *bgQueue) pop() *bgRun {
	if q.n == 0 {
		return nil
	}
	run := q.ring[q.head]
	q.ring[q.head] = nil
	q.head = (q.head + 1) % len(q.ring)
	q.n--
	return run
}

// background is the state of a Runner's background work; Runner.bgMu guards it.
type background struct {
	closed  bool
	runs    map[bgKey]*bgRun // running or waiting
	queue   bgQueue
	waiting int // payloads waiting: queued runs and runs waiting behind their own running payload
	bytes   int // queuedBytes of the waiting payloads
	workers int // workers alive
	limit   int // workers at most

	coalesced, dropped uint64
}

func newBackground(workers, queue int) background {
	if workers <= 0 {
		workers = DefaultBackgroundWorkers
	}
	if queue <= 0 {
		queue = DefaultBackgroundQueue
	}
	return background{runs: make(map[bgKey]*bgRun), queue: bgQueue{ring: make([]*bgRun, queue)}, limit: workers}
}

// queuedBytes is what a waiting payload holds that its sender chose the size of.
func queuedBytes(in *luahook.Input) int {
	n := len(in.ToolInput) + len(in.Prompt)
	if in.ToolResult != nil {
		n += len(in.ToolResult.Content)
	}
	return n
}

// sessionKey names the session of a payload for background buffering.
func (r *Runner) sessionKey(in *luahook.Input) string {
	if in.SessionID != "" {
		return in.SessionID
	}
	if r.sessionID != nil {
		if s := r.sessionID(); s != "" {
			return s
		}
	}
	return DefaultSession
}

// schedule queues a background PostToolUse hook for a worker. When a payload
// of the same entry and session already waits, in replaces it: a burst runs
// the first and the last. When the queue is full (Options.BackgroundQueue
// payloads, or MaxBackgroundQueueBytes), in is dropped, counted and logged:
// the work already accepted keeps its place.
func (r *Runner) schedule(e *registry.Entry, tmpl *luahook.Input, session string, tr *HookTrace) {
	*tr = newTrace(e, true)
	if r.policyOnly.Load() && !e.Policy {
		tr.Skipped = SkipPolicyOnly
		return
	}
	tr.Skipped = SkipBackground
	// The payload outlives the call: it must not share the host's bytes.
	in := cloneInput(tmpl)
	in.ToolInput = bytes.Clone(tmpl.ToolInput)
	size := queuedBytes(in)
	key := bgKey{e.ID, session}
	r.bgMu.Lock()
	defer r.bgMu.Unlock()
	bg := &r.bg
	if bg.closed {
		tr.Skipped = SkipBackgroundDisabled
		return
	}
	run := bg.runs[key]
	if run != nil && run.pending != nil {
		if bg.bytes-run.size+size <= MaxBackgroundQueueBytes {
			bg.bytes += size - run.size
			run.pending, run.size = in, size
			bg.coalesced++
			return
		}
	} else if bg.waiting < len(bg.queue.ring) && bg.bytes+size <= MaxBackgroundQueueBytes {
		if run == nil {
			run = &bgRun{key: key, e: e}
			bg.runs[key] = run
		}
		run.pending, run.size = in, size
		bg.waiting++
		bg.bytes += size
		if !run.running {
			bg.queue.push(run)
			if bg.workers < bg.limit {
				bg.workers++
				r.bgWG.Add(1)
				go r.backgroundWorker()
			}
		}
		return
	}
	bg.dropped++
	tr.Skipped = SkipBackgroundDropped
	if bg.dropped&(bg.dropped-1) == 0 { // the 1st, 2nd, 4th, 8th... drop: a flood cannot flood the log
		r.log.Warn("PostToolUse background hook \""+e.Name+"\" not run: the background queue is full",
			slog.String("hook", e.Name), slog.Int("queued", bg.waiting), slog.Int("queued_bytes", bg.bytes),
			slog.Uint64("dropped", bg.dropped))
	}
}

// backgroundWorker runs queued payloads until the queue is empty. Background
// hooks are always fail-open; their context is buffered for the session's
// next PostToolUse or UserPromptSubmit.
func (r *Runner) backgroundWorker() {
	defer r.bgWG.Done()
	bg := &r.bg
	for {
		r.bgMu.Lock()
		run := bg.queue.pop()
		if run == nil || bg.closed {
			bg.workers--
			r.bgMu.Unlock()
			return
		}
		in := run.pending
		bg.waiting--
		bg.bytes -= run.size
		run.pending, run.size, run.running = nil, 0, true
		r.bgMu.Unlock()

		var tr HookTrace
		if out, _ := r.invoke(r.base, run.e, in, &tr, true); out != nil && out.AdditionalContext != "" && !isShadow(run.e) {
			r.buf.add(run.key.session, out.AdditionalContext)
		}

		r.bgMu.Lock()
		run.running = false
		if run.pending != nil && !bg.closed {
			bg.queue.push(run) // behind the runs that waited meanwhile
		} else {
			delete(bg.runs, run.key)
		}
		r.bgMu.Unlock()
	}
}

// closeBackground stops background work: no payload is queued any more, and
// those waiting are dropped.
func (r *Runner) closeBackground() {
	r.bgMu.Lock()
	defer r.bgMu.Unlock()
	bg := &r.bg
	bg.closed = true
	for bg.queue.pop() != nil {
	}
	for key, run := range bg.runs {
		run.pending = nil
		if !run.running {
			delete(bg.runs, key)
		}
	}
	bg.waiting, bg.bytes = 0, 0
}

// BackgroundStats returns the counts of the runner's background work, for a
// host to export.
func (r *Runner) BackgroundStats() BackgroundStats {
	r.bgMu.Lock()
	defer r.bgMu.Unlock()
	bg := &r.bg
	return BackgroundStats{Running: len(bg.runs) - bg.queue.n, Queued: bg.waiting, Coalesced: bg.coalesced, Dropped: bg.dropped}
}

// contextBuffer keeps the context of background hooks per session until the
// session's next PostToolUse or UserPromptSubmit takes it. The zero value is
// ready to use.
type contextBuffer struct {
	sessions atomic.Int32  // sessions holding parts: the lock-free empty check
	seq      atomic.Uint64 // numbers the parts, so a call takes only those buffered before it started

	mu    sync.Mutex
	parts map[string][]bufferedPart
	order []string // sessions, oldest inserted first
}

type bufferedPart struct {
	seq  uint64
	text string
}

// mark returns the number of the newest part buffered so far.
func (b *contextBuffer) mark() uint64 { return b.seq.Load() }

// pending reports whether any session has buffered parts, without locking.
func (b *contextBuffer) pending() bool { return b.sessions.Load() > 0 }

// add buffers part for session, cut to luahook.MaxContextChars, keeping the
// newest MaxBufferedParts parts and MaxBufferedBytes bytes of it and at most
// MaxBufferedSessions sessions (evicting the oldest inserted one other than
// session).
func (b *contextBuffer) add(session, part string) {
	// A copy: a short part may share the memory of a huge string.
	part = strings.Clone(luahook.TruncateContext(part))
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.parts == nil {
		b.parts = make(map[string][]bufferedPart)
	}
	ps, ok := b.parts[session]
	if !ok {
		b.order = append(b.order, session)
		b.sessions.Add(1)
	}
	size := len(part)
	for _, p := range ps {
		size += len(p.text)
	}
	for len(ps) > 0 && (len(ps) == MaxBufferedParts || size > MaxBufferedBytes) {
		size -= len(ps[0].text)
		copy(ps, ps[1:])
		ps[len(ps)-1] = bufferedPart{}
		ps = ps[:len(ps)-1]
	}
	b.parts[session] = append(ps, bufferedPart{seq: b.seq.Add(1), text: part})
	if len(b.order) > MaxBufferedSessions {
		for _, s := range b.order {
			if s != session {
				b.remove(s)
				break
			}
		}
	}
}

// drain takes the parts of session numbered up to cut, oldest first. Parts
// buffered after cut (by background hooks that this very call scheduled) stay
// for the session's next turn.
func (b *contextBuffer) drain(session string, cut uint64) []string {
	if !b.pending() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ps := b.parts[session]
	var out []string
	keep := ps[:0]
	for _, p := range ps {
		if p.seq <= cut {
			out = append(out, p.text)
		} else {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		if ps != nil {
			b.remove(session)
		}
	} else {
		b.parts[session] = keep
	}
	return out
}

// remove drops session; b.mu is held.
func (b *contextBuffer) remove(session string) {
	delete(b.parts, session)
	if i := slices.Index(b.order, session); i >= 0 {
		b.order = slices.Delete(b.order, i, i+1)
	}
	b.sessions.Add(-1)
}
