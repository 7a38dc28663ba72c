package decisionlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/logconf"
	"github.com/luahook/luahook/runner"
)

// Defaults of a Logger's bounds.
const (
	// DefaultQueue is how many records may wait for the writer (1024).
	DefaultQueue = logconf.DefaultQueue
	// MaxQueue bounds Options.Queue (1,000,000).
	MaxQueue = logconf.MaxQueue
	// DefaultMaxInputBytes is the largest payload a record carries (64
	// KiB, as luahook.Input.Size counts it); a larger one is logged as its
	// digest and size, Truncated.
	DefaultMaxInputBytes = logconf.DefaultMaxInputBytes
	// DefaultMaxQueueBytes bounds the payload bytes the waiting records
	// hold together (32 MiB).
	DefaultMaxQueueBytes = 32 << 20
	// DefaultCloseTimeout bounds how long Close waits for the queue to be
	// written (5 s).
	DefaultCloseTimeout = 5 * time.Second
)

// Options configure a Logger. Only Sink is required.
type Options struct {
	// Sink receives the records (File, Writer, Func).
	Sink Sink
	// Queue is how many records may wait for the writer (which takes them
	// in batches: as many again may be in the batch it writes); when it is
	// full a record is dropped and counted (Dropped), never waited for. 0
	// means DefaultQueue.
	Queue int
	// MaxInputBytes is the largest payload (luahook.Input.Size) a record
	// carries; a larger payload is logged as its digest and size
	// (Record.Truncated). 0 means DefaultMaxInputBytes.
	MaxInputBytes int
	// MaxQueueBytes bounds the payload bytes of the waiting records
	// together; past it records are dropped and counted. 0 means
	// DefaultMaxQueueBytes.
	MaxQueueBytes int64
	// Drop lists JSON paths of the payload whose members are left out of
	// the log ("toolInput.env"), Mask paths whose values are replaced by
	// MaskWith ("toolInput.headers.Authorization"); see ParsePath. Both
	// apply to rewritten tool inputs too (the toolInput paths), and to the
	// record's own copies of the payload's top-level members (a path
	// "sessionId" names the record's sessionId as well). A string a Mask
	// path took out is masked wherever else the record holds it: in a
	// string equal to it, and, when it has 8 bytes or more, in a string
	// that contains it (a hook's reason that quotes it).
	Drop, Mask []string
	// MaskWith replaces masked values, strings that hold a secret and keys
	// that do (numbered when their object has the mask as a key already:
	// MaskWith#2, MaskWith#3). "" means DefaultMaskWith.
	MaskWith string
	// KeepSecrets leaves strings that match the built-in secret patterns
	// (Secrets) as they are; by default every such string of the record is
	// replaced, wherever it is and whether it is a value or a key: the
	// payload and its native form, the record's top-level fields, the
	// hooks' names, sources, outcomes and failures, the decision, the files.
	KeepSecrets bool
	// CloseTimeout bounds how long Close waits for the waiting records to
	// be written. 0 means DefaultCloseTimeout.
	CloseTimeout time.Duration
	// Instance, when set, is every record's Instance: the replica that
	// decided, in a fleet of luahook serve processes writing to one log
	// pipeline.
	Instance string
	// Logger receives the sink's write errors (the first of a run of
	// them). Nil discards them.
	Logger *slog.Logger
}

// Stats count what a Logger did with the decisions it was given.
type Stats struct {
	Written uint64 // records the sink took
	Dropped uint64 // records dropped: the queue was full or the Logger closed
	Failed  uint64 // records the sink refused (write errors)
}

// Logger writes one Record per decided event to its Sink. Its Observe
// method is a runner.DecisionFunc: on the decision's path it only copies
// what the record needs and queues it; masking, encoding and writing happen
// on the Logger's one writer goroutine. Its methods are safe for concurrent
// use.
type Logger struct {
	sink     Sink
	mask     masker
	maxInput int
	maxBytes int64
	instance string
	timeout  time.Duration
	log      *slog.Logger
	limit    int // Options.Queue
	wakeAt   int

	// The queue. The decisions' side appends under mu; the writer takes
	// the whole slice at once, so the two sides meet once per batch, not
	// once per record (a channel's lock and count would move between the
	// cores at every record).
	// At most limit records wait, and at most limit more are in the batch
	// the writer is writing; queued bounds the bytes of both.
	mu       sync.Mutex
	waiting  []*pending
	queued   int64 // payload bytes waiting or in the writer's batch
	finished bool  // the writer is gone: what comes now is dropped

	idle    atomic.Bool // the writer waits for a first record
	wake    chan struct{}
	full    chan struct{} // the queue reached wakeAt
	closed  atomic.Bool
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	closeMu sync.Mutex
	err     error

	// the writer's counts, on a cache line of their own
	_                        [64]byte
	written, dropped, failed atomic.Uint64
}

// New returns a Logger writing to opts.Sink and starts its writer. A bad
// path in Drop or Mask is an error naming it; the sink is not closed then.
func New(opts Options) (*Logger, error) {
	if opts.Sink == nil {
		return nil, errors.New("decisionlog: no sink")
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.Queue > MaxQueue {
		return nil, fmt.Errorf("decisionlog: queue of %d records is over the bound of %d", opts.Queue, MaxQueue)
	}
	if opts.MaxInputBytes <= 0 {
		opts.MaxInputBytes = DefaultMaxInputBytes
	}
	if opts.MaxQueueBytes <= 0 {
		opts.MaxQueueBytes = DefaultMaxQueueBytes
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	if opts.MaskWith == "" {
		opts.MaskWith = DefaultMaskWith
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var secrets *secretTable
	if !opts.KeepSecrets {
		secrets = secretTables() // built here, so a broken table fails New, not a record
	}
	l := &Logger{
		sink: opts.Sink, maxInput: opts.MaxInputBytes, maxBytes: opts.MaxQueueBytes,
		timeout: opts.CloseTimeout, log: opts.Logger, instance: opts.Instance,
		mask:  masker{with: opts.MaskWith, secrets: !opts.KeepSecrets, table: secrets},
		limit: opts.Queue, wakeAt: max(1, opts.Queue/4),
		stop: make(chan struct{}), done: make(chan struct{}),
		wake: make(chan struct{}, 1), full: make(chan struct{}, 1),
	}
	for _, list := range []struct {
		paths []string
		dst   *[]path
		key   string
	}{{opts.Drop, &l.mask.drop, "drop"}, {opts.Mask, &l.mask.mask, "mask"}} {
		for _, s := range list.paths {
			p, err := ParsePath(s)
			if err != nil {
				return nil, fmt.Errorf("decisionlog: %s: %w", list.key, err)
			}
			*list.dst = append(*list.dst, p)
		}
	}
	runLowPriority(l.run)
	return l, nil
}

// Observe queues the record of one decision; it is a runner.DecisionFunc.
// It never waits: when the queue is full, or the Logger is closed, the
// record is dropped and counted.
func (l *Logger) Observe(in *luahook.Input, res *runner.Result) {
	l.queue(in, res, nil, false)
}

// Deliver queues the record of one answer and of what it carried (d): in
// is the payload (nil when it could not be read or decoded: the record's
// input is then null, its event the name the payload gave, in the agent's
// words), res the policies' result (nil when no hook ran). Like Observe,
// it never waits.
func (l *Logger) Deliver(in *luahook.Input, event string, res *runner.Result, d Delivered) {
	var own luahook.Input
	noInput := in == nil
	if noInput {
		own = luahook.Input{Event: luahook.Event(event), Agent: d.Agent}
		in = &own
	}
	var none runner.Result
	if res == nil {
		none.Event = in.Event
		res = &none
	}
	l.queue(in, res, &d, noInput)
}

// queue queues the record of (in, res), with d when the answer is known.
func (l *Logger) queue(in *luahook.Input, res *runner.Result, d *Delivered, noInput bool) {
	if l.closed.Load() {
		l.dropped.Add(1)
		return
	}
	l.mu.Lock()
	full := len(l.waiting) >= l.limit
	l.mu.Unlock()
	if full { // not worth a copy
		l.dropped.Add(1)
		return
	}
	p := capture(in, res, l.maxInput)
	p.noInput = noInput
	p.hasDelivered = d != nil
	if d != nil {
		p.delivered = *d
	}
	l.mu.Lock()
	if l.finished || len(l.waiting) >= l.limit || l.queued+p.cost > l.maxBytes {
		l.mu.Unlock()
		l.dropped.Add(1)
		p.release()
		return
	}
	l.waiting = append(l.waiting, p)
	l.queued += p.cost
	n := len(l.waiting)
	l.mu.Unlock()
	// The writer is woken for the first record after it fell idle and when
	// the queue fills up, not for every record: a wake-up is a system call
	// on the decision's path.
	if l.idle.Load() && l.idle.CompareAndSwap(true, false) {
		signal(l.wake)
	}
	if n >= l.wakeAt {
		signal(l.full)
	}
}

// signal sends on a channel of one without waiting.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

var _ runner.DecisionFunc = (*Logger)(nil).Observe

// Dropped returns how many records were dropped: the queue was full, or
// the Logger was closed.
func (l *Logger) Dropped() uint64 { return l.dropped.Load() }

// Stats returns the Logger's counts.
func (l *Logger) Stats() Stats {
	return Stats{Written: l.written.Load(), Dropped: l.dropped.Load(), Failed: l.failed.Load()}
}

// Close stops taking records, writes the ones waiting for at most
// Options.CloseTimeout, and closes the sink. A sink still blocked after
// the timeout is abandoned (its goroutine ends when its write returns) and
// the records not written are counted as dropped. Close may be called more
// than once; later calls return the first one's result.
func (l *Logger) Close() error {
	l.closeMu.Lock()
	defer l.closeMu.Unlock()
	l.once.Do(func() {
		l.closed.Store(true)
		close(l.stop)
		t := time.NewTimer(l.timeout)
		defer t.Stop()
		select {
		case <-l.done:
		case <-t.C:
			l.err = fmt.Errorf("decisionlog: the sink did not take the waiting records within %s; they were dropped", l.timeout)
		}
	})
	return l.err
}

// run is the writer: it writes each queued record and, once stopped, the
// records still queued, then closes the sink.
func (l *Logger) run() {
	defer close(l.done)
	b := builder{instance: l.instance}
	failing := false
	var written uint64
	write := func(p *pending) {
		if l.closed.Load() && l.abandoned() {
			l.dropped.Add(1)
			p.release()
			return
		}
		rec := b.record(p, &l.mask)
		p.release()
		if err := l.sink.Write(rec); err != nil {
			l.failed.Add(1)
			if !failing {
				l.log.Warn("decision log: write failed; records are counted as failed until a write succeeds", "err", err)
			}
			failing = true
			return
		}
		failing = false
		written++
	}
	flusher, _ := l.sink.(Flusher)
	var batch []*pending
	// drain writes what waits, batch after batch, until nothing does.
	drain := func() {
		for {
			l.mu.Lock()
			batch, l.waiting = l.waiting, batch[:0]
			l.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			var cost int64
			for _, p := range batch {
				cost += p.cost
				write(p)
			}
			clear(batch)
			if cap(batch) > 4*DefaultQueue {
				batch = nil // one burst does not pin its slice
			}
			l.mu.Lock()
			l.queued -= cost
			l.mu.Unlock()
			l.written.Add(written)
			written = 0
		}
		if flusher != nil {
			if err := flusher.Flush(); err != nil {
				l.failed.Add(1)
				l.log.Warn("decision log: write failed", "err", err)
			}
		}
	}
	// finish writes what waits and closes the sink; a record that comes
	// after it is dropped.
	finish := func() {
		drain()
		l.mu.Lock()
		l.finished = true
		late := len(l.waiting)
		for _, p := range l.waiting {
			p.release()
		}
		l.waiting = nil
		l.mu.Unlock()
		l.dropped.Add(uint64(late))
		l.closeSink()
	}
	timer := time.NewTimer(batchWindow)
	defer timer.Stop()
	for {
		l.idle.Store(true)
		if l.waitingCount() == 0 {
			select {
			case <-l.wake:
			case <-l.stop:
				finish()
				return
			}
		}
		l.idle.Store(false)
		// Gather the records of a short window, then write them at once.
		timer.Reset(batchWindow)
		select {
		case <-timer.C:
		case <-l.full:
		case <-l.stop:
			finish()
			return
		}
		drain()
	}
}

// waitingCount is how many records wait for the writer.
func (l *Logger) waitingCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waiting)
}

// batchWindow is how long the writer gathers records after the first one
// that woke it: at most one wake-up per window on the decisions' path.
const batchWindow = 5 * time.Millisecond

func (l *Logger) closeSink() {
	if err := l.sink.Close(); err != nil {
		l.log.Warn("decision log: close failed", "err", err)
	}
}

// abandoned reports whether Close gave up waiting.
func (l *Logger) abandoned() bool {
	if !l.closeMu.TryLock() {
		return false // Close is waiting
	}
	defer l.closeMu.Unlock()
	return l.err != nil
}

// digest returns "sha256:" and the hex SHA-256 of data.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	var b [len("sha256:") + 2*sha256.Size]byte
	copy(b[:], "sha256:")
	hex.Encode(b[len("sha256:"):], sum[:])
	return string(b[:])
}

// payloadJSON is the payload's JSON, as the digest covers it.
func payloadJSON(in *luahook.Input) ([]byte, error) { return json.Marshal(in) }
