// Package decisionfeed keeps the latest decisions of a decision log in
// memory for luahook serve's web page: a window of summaries (Entry) to
// list, filter and page through, the whole records of the newest of them
// within a byte budget, live subscriptions for server-sent events, and
// counts per minute. Its Sink is the engine's decision-log tap
// (engine.DecisionLog.Tap), so the records it sees are masked as the log's.
package decisionfeed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luahook/luahook/internal/decisionlog"
)

// Bounds of a Feed.
const (
	// DefaultWindow is how many entries a Feed keeps by default.
	DefaultWindow = 10_000
	// MaxWindow bounds Options.Window.
	MaxWindow = 1_000_000
	// DefaultMaxBytes is the default budget of the whole records kept for
	// Detail (64 MiB), as their JSON lines count.
	DefaultMaxBytes = 64 << 20
	// DefaultQueryLimit is Query's limit when it is given none.
	DefaultQueryLimit = 100
	// MaxQueryLimit bounds Query's limit.
	MaxQueryLimit = 500
	// MaxSubscribers bounds the subscriptions open at once.
	MaxSubscribers = 64
	// DefaultSubscriptionBuffer is a subscription's buffer when
	// Subscribe is given none; MaxSubscriptionBuffer bounds it.
	DefaultSubscriptionBuffer = 256
	MaxSubscriptionBuffer     = 65_536
	// MaxCountMinutes is how far back Counts reaches (a day); counts
	// older than that are forgotten.
	MaxCountMinutes = 24 * 60
	// DefaultCountMinutes and DefaultTopRules are Counts' defaults.
	DefaultCountMinutes = 60
	DefaultTopRules     = 10
	// MaxTopRules bounds Counts' top.
	MaxTopRules = 100
)

// Bounds of an Entry: what one record can cost beyond its detail.
const (
	// MaxReasonChars is how many characters of a reason an Entry keeps.
	MaxReasonChars = 300
	// MaxNames is how many hook names, and how many file names, an Entry
	// keeps.
	MaxNames = 16
	// MaxFieldBytes bounds every other string of an Entry (names, ids),
	// cut at a character's boundary.
	MaxFieldBytes = 256
	// maxRulesPerMinute bounds the rules counted in one minute: past it a
	// rule new to that minute is left out of TopRules (Minutes still
	// count its decisions).
	maxRulesPerMinute = 256
)

// ErrTooManySubscribers is Subscribe's error when MaxSubscribers are open.
var ErrTooManySubscribers = fmt.Errorf("decisionfeed: %d subscriptions are open already", MaxSubscribers)

// ErrClosed is Subscribe's error once the Feed is closed.
var ErrClosed = errors.New("decisionfeed: the feed is closed")

// Options configure a Feed; the zero value takes the defaults.
type Options struct {
	// Window is how many entries the Feed keeps, the oldest leaving
	// first: 0 means DefaultWindow; more than MaxWindow is MaxWindow.
	Window int
	// MaxBytes bounds the whole records kept for Detail, as their JSON
	// lines count: past it the oldest records are let go (their entries
	// stay). A record larger than MaxBytes is not kept. 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// Now is the clock Counts reads, and an entry's time when its record
	// has none; nil means time.Now.
	Now func() time.Time
}

// Entry is the summary of one decision, as the page lists it. Its fields
// are bounded (MaxReasonChars, MaxNames, MaxFieldBytes). An Entry is never
// changed once made; its slices are shared and must not be modified.
type Entry struct {
	// Seq numbers the entries from 1, in the order they came.
	Seq uint64 `json:"seq"`
	// Time is when the event was decided (the record's time).
	Time     time.Time `json:"time"`
	Instance string    `json:"instance,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Session  string    `json:"session,omitempty"`
	// Client is the name serve authenticated the payload's sender as
	// (the payload's "client"), as masked in the record.
	Client string `json:"client,omitempty"`
	Event  string `json:"event"`
	Tool   string `json:"tool,omitempty"`
	// Verdict is what the agent received: the record's Delivered.Verdict
	// when it has one, else the decision as the agent reads it: "deny",
	// "ask", "allow", "block" (a Stop's continue), "rewrite" (a mutate of
	// the tool input), "context" (added context, no objection) or "none".
	Verdict string `json:"verdict"`
	// Action is the decision's action ("deny", "ask", "allow", "mutate",
	// "continue"), "" when it had none.
	Action string `json:"action,omitempty"`
	// Reason is the reason the agent was given (a fail-closed answer's
	// own, else the decision's), cut to MaxReasonChars characters.
	Reason string `json:"reason,omitempty"`
	// DecidedBy names the hook that decided, "" when none did.
	DecidedBy string `json:"decidedBy,omitempty"`
	// Hooks names the hooks of the trace, in its order (the first
	// MaxNames).
	Hooks []string `json:"hooks,omitempty"`
	// Files names the hook files that took part, sorted (the first
	// MaxNames).
	Files []string `json:"files,omitempty"`
	// Approval is how a web approval ended: its verdict ("approved",
	// "denied", "timeout", "failed"), then " by " and who decided when
	// someone did. "" when no hook routed the call to a person.
	Approval string `json:"approval,omitempty"`
	// Denied is set when the agent was refused: Verdict "deny" or
	// "block".
	Denied bool `json:"denied,omitempty"`
}

// slot is one kept entry and its record's JSON line, nil once let go.
type slot struct {
	e    Entry
	line []byte
}

// Feed keeps the latest decisions. Its methods are safe for concurrent
// use.
type Feed struct {
	window   int
	maxBytes int64
	now      func() time.Time

	// enc builds entries and lines from records, outside mu: a slow Write
	// holds up neither the page nor the subscribers.
	enc struct {
		sync.Mutex
		buf    []byte
		intern interner
	}

	mu          sync.RWMutex
	slots       []slot // slot of seq s: slots[(s-1)%window]
	seq         uint64 // the newest entry's
	detailBytes int64  // the lines' bytes together
	detailFrom  uint64 // the oldest seq that may still hold its line
	minutes     [MaxCountMinutes]minute
	subs        map[*Subscription]struct{}
	closed      bool
}

// minute counts the decisions of one minute (at: Unix time / 60).
type minute struct {
	at                 int64
	decisions, denials int
	rules              map[string]*tally
}

type tally struct{ decisions, denials int }

// New returns an empty Feed.
func New(opts Options) *Feed {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	opts.Window = min(opts.Window, MaxWindow)
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Feed{window: opts.Window, maxBytes: opts.MaxBytes, now: opts.Now,
		subs: map[*Subscription]struct{}{}, detailFrom: 1}
}

// Sink returns the Sink that feeds f (engine.DecisionLog.Tap). Its Write
// keeps a copy of what it needs of the record, never the record or its
// memory, costs the same whatever the window holds, and never waits for a
// subscriber; it returns no error. Its Close does nothing: f stays open.
func (f *Feed) Sink() decisionlog.Sink { return sink{f} }

type sink struct{ f *Feed }

func (s sink) Write(rec *decisionlog.Record) error { s.f.add(rec); return nil }
func (s sink) Close() error                        { return nil }

// add makes the record's entry and keeps it with its line.
func (f *Feed) add(rec *decisionlog.Record) {
	f.enc.Lock()
	e := f.entry(rec)
	f.enc.buf = decisionlog.AppendLine(f.enc.buf[:0], rec)
	line := bytes.Clone(bytes.TrimSuffix(f.enc.buf, []byte("\n")))
	if cap(f.enc.buf) > 1<<20 {
		f.enc.buf = nil // one huge record does not pin its buffer
	}
	f.enc.Unlock()
	if int64(len(line)) > f.maxBytes {
		line = nil
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	e.Seq = f.seq
	s := slot{e: e, line: line}
	if len(f.slots) < f.window {
		f.slots = append(f.slots, s)
	} else {
		old := &f.slots[(e.Seq-1)%uint64(f.window)]
		f.detailBytes -= int64(len(old.line))
		*old = s
		f.detailFrom = max(f.detailFrom, e.Seq-uint64(f.window)+1)
	}
	f.detailBytes += int64(len(line))
	for f.detailBytes > f.maxBytes { // ends at the newest line, which fits
		old := f.slotOf(f.detailFrom)
		f.detailBytes -= int64(len(old.line))
		old.line = nil
		f.detailFrom++
	}
	f.count(&e)
	for sub := range f.subs {
		select {
		case sub.c <- e:
		default:
			sub.dropped.Add(1)
		}
	}
}

// slotOf is the slot of seq, which the window holds; f.mu is held.
func (f *Feed) slotOf(seq uint64) *slot { return &f.slots[(seq-1)%uint64(f.window)] }

// oldest is the seq of the oldest entry kept (f.seq+1 when none); f.mu is
// held.
func (f *Feed) oldest() uint64 { return f.seq - uint64(len(f.slots)) + 1 }

// count adds e to its minute; a minute a day older than the newest one
// counted is not counted. f.mu is held.
func (f *Feed) count(e *Entry) {
	at := minuteOf(e.Time)
	m := &f.minutes[at%MaxCountMinutes]
	if m.at > at {
		return
	}
	if m.at < at {
		m.at, m.decisions, m.denials = at, 0, 0
		clear(m.rules)
	}
	m.decisions++
	if e.Denied {
		m.denials++
	}
	if e.DecidedBy == "" {
		return
	}
	t := m.rules[e.DecidedBy]
	if t == nil {
		if len(m.rules) >= maxRulesPerMinute {
			return
		}
		if m.rules == nil {
			m.rules = map[string]*tally{}
		}
		t = &tally{}
		m.rules[e.DecidedBy] = t
	}
	t.decisions++
	if e.Denied {
		t.denials++
	}
}

// minuteOf is t's minute: Unix time / 60, rounded down.
func minuteOf(t time.Time) int64 {
	s := t.Unix()
	if s < 0 {
		return 0
	}
	return s / 60
}

// Len returns how many entries f keeps.
func (f *Feed) Len() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return len(f.slots)
}

// Seq returns the newest entry's Seq, 0 when none came yet.
func (f *Feed) Seq() uint64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.seq
}

// Filter selects entries; an empty field matches every entry, and an
// entry matches when each set field does. Comparisons are exact (the page
// offers the values the entries hold).
type Filter struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	// Verdict is an Entry.Verdict, or "denied" for every entry that
	// refused the agent (deny and block).
	Verdict string `json:"verdict,omitempty"`
	// Policy is a hook or hook file: it matches an entry whose DecidedBy,
	// one of its Hooks or one of its Files equals it, or one of whose Files
	// ends in it after a slash: its base name ("10-rm.lua" matches
	// "/etc/luahook/hooks.d/10-rm.lua", "rm.lua" does not).
	// Only the first MaxNames of a trace's hooks and files are kept, so a
	// decision with more may miss.
	Policy string `json:"policy,omitempty"`
}

// Match reports whether e passes flt.
func (flt *Filter) Match(e *Entry) bool {
	if flt.Agent != "" && e.Agent != flt.Agent ||
		flt.Session != "" && e.Session != flt.Session {
		return false
	}
	if v := flt.Verdict; v != "" && e.Verdict != v && !(v == "denied" && e.Denied) {
		return false
	}
	if p := flt.Policy; p != "" && e.DecidedBy != p && !slices.Contains(e.Hooks, p) && !slices.ContainsFunc(e.Files, func(file string) bool {
		return file == p || strings.HasSuffix(file, p) && strings.ContainsRune(`/\`, rune(file[len(file)-len(p)-1]))
	}) {
		return false
	}
	return true
}

// Query returns the entries that pass flt with a Seq below before (0: from
// the newest), newest first, at most limit of them (0 or less means
// DefaultQueryLimit; more than MaxQueryLimit is MaxQueryLimit). more says
// whether older entries pass it too: the next page is before the last
// entry's Seq.
func (f *Feed) Query(flt Filter, before uint64, limit int) (entries []Entry, more bool) {
	if limit <= 0 {
		limit = DefaultQueryLimit
	}
	limit = min(limit, MaxQueryLimit)
	f.mu.RLock()
	defer f.mu.RUnlock()
	from := f.seq
	if before != 0 && before <= from {
		from = before - 1
	}
	for seq := from; seq >= f.oldest() && seq > 0; seq-- {
		e := &f.slotOf(seq).e
		if !flt.Match(e) {
			continue
		}
		if len(entries) == limit {
			return entries, true
		}
		if entries == nil {
			entries = make([]Entry, 0, min(limit, 16))
		}
		entries = append(entries, *e)
	}
	return entries, false
}

// Detail returns the whole record of entry seq, masked as the log's: a
// copy the caller owns. It is false when the entry left the window or its
// record was let go to keep within Options.MaxBytes.
func (f *Feed) Detail(seq uint64) (*decisionlog.Record, bool) {
	line, ok := f.line(seq)
	if !ok {
		return nil, false
	}
	rec := &decisionlog.Record{}
	if err := json.Unmarshal(line, rec); err != nil {
		// The line is decisionlog.AppendLine's, which decodes: unreachable.
		return nil, false
	}
	return rec, true
}

// DetailJSON returns the JSON of entry seq's record (its decision-log
// line, without the newline): a copy the caller owns, for a page that
// serves it as it is. It is false when Detail is.
func (f *Feed) DetailJSON(seq uint64) ([]byte, bool) {
	line, ok := f.line(seq)
	if !ok {
		return nil, false
	}
	return bytes.Clone(line), true
}

func (f *Feed) line(seq uint64) ([]byte, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if seq == 0 || seq > f.seq || seq < f.oldest() {
		return nil, false
	}
	line := f.slotOf(seq).line
	return line, line != nil // lines are never changed, only let go
}

// Subscription receives the entries that come after it was made.
type Subscription struct {
	f       *Feed
	c       chan Entry
	dropped atomic.Int64
	once    sync.Once
}

// Subscribe returns a subscription whose channel buffers buf entries (0
// or less means DefaultSubscriptionBuffer; more than
// MaxSubscriptionBuffer is MaxSubscriptionBuffer). An entry that finds the
// buffer full is not sent to it, and counted (Dropped): a slow subscriber
// never holds the feed up. It fails with ErrTooManySubscribers when
// MaxSubscribers are open, and ErrClosed once f is closed.
func (f *Feed) Subscribe(buf int) (*Subscription, error) {
	if buf <= 0 {
		buf = DefaultSubscriptionBuffer
	}
	buf = min(buf, MaxSubscriptionBuffer)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	if len(f.subs) >= MaxSubscribers {
		return nil, ErrTooManySubscribers
	}
	s := &Subscription{f: f, c: make(chan Entry, buf)}
	f.subs[s] = struct{}{}
	return s, nil
}

// C returns the channel of the entries; it is closed by Cancel, or when
// the Feed closes.
func (s *Subscription) C() <-chan Entry { return s.c }

// Dropped returns how many entries the subscription missed because its
// buffer was full.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }

// Cancel ends the subscription and closes its channel (the entries still
// buffered can be read). It may be called more than once.
func (s *Subscription) Cancel() {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.end()
}

// end closes s once; f.mu is held.
func (s *Subscription) end() {
	s.once.Do(func() {
		delete(s.f.subs, s)
		close(s.c)
	})
}

// Close ends every subscription (a server that shuts down ends its
// event streams) and refuses new ones. The entries stay readable and the
// Sink keeps taking records. It may be called more than once.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for s := range f.subs {
		s.end()
	}
}
