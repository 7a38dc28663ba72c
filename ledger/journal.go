package ledger

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Journal collects the ledger operations of one decision: what each hook
// read of its session's ledger (has, marks, count, calls) and wrote to it
// (mark, count), and what it found or wrote. The decision log records it
// with the decision, explain shows it under each hook, and replay compares
// what a decision read then with what it reads now.
//
// NewJournal makes one with the context a decision's hooks are to be
// called under; every Ledger method called with that context, or one
// derived from it, adds an entry. Without one a ledger call pays one
// context lookup and records nothing, so a decision nobody observes keeps
// no journal. A journal holds at most MaxJournalEntries entries and counts
// the ones it left out. Its methods are safe for concurrent use: the hooks
// of an event that fans out call the ledger at once.
type Journal struct {
	mu      sync.Mutex
	entries []Entry
	dropped int
	root    scope // what the journal's context carries: no hook named
}

// MaxJournalEntries caps the entries of one Journal: a hook that reads the
// ledger in a loop does not grow a decision's record without end.
const MaxJournalEntries = 64

// maxEntryLabels caps the labels a marks entry lists.
const maxEntryLabels = 32

// The operations of an Entry.
const (
	OpMark  = "mark"  // a label given (written)
	OpHas   = "has"   // a label looked up (read)
	OpMarks = "marks" // the session's marks listed (read)
	OpCount = "count" // a counter added to (written, and its total read) or read (Delta 0)
	OpCalls = "calls" // the session's last calls listed (read)
)

// Entry is one ledger operation of a decision. Its JSON is a field of the
// decision log's records (the "ledger" list), so a field is only ever added.
type Entry struct {
	// Hook names the hook that made the call, and File its file, when the
	// caller said (WithHook: the session module always does); both are
	// empty for a Go hook that did not.
	Hook string `json:"hook,omitempty"`
	File string `json:"file,omitempty"`
	// Op is the operation: OpMark, OpHas, OpMarks, OpCount, OpCalls.
	Op string `json:"op"`
	// Name is the label (mark, has) or the counter's name (count).
	Name string `json:"name,omitempty"`
	// Found is set when has found the label (Detail and AtMs are then the
	// mark's).
	Found bool `json:"found,omitempty"`
	// Detail is the detail a mark wrote (cut as the ledger keeps it), or
	// the one has found.
	Detail string `json:"detail,omitempty"`
	// AtMs is when the mark was made (mark, has), in milliseconds since
	// the epoch.
	AtMs int64 `json:"at,omitempty"`
	// Value is a count's total after the call, or how many marks or calls
	// the listing returned.
	Value float64 `json:"value,omitempty"`
	// Delta is what a count added (0: the total was only read), WindowMs
	// the count's window in milliseconds.
	Delta    float64 `json:"delta,omitempty"`
	WindowMs int64   `json:"windowMs,omitempty"`
	// Labels are the labels marks returned, in order (the first 32).
	Labels []string `json:"labels,omitempty"`
	// Err is the error the call raised (a limit, a store that failed).
	Err string `json:"error,omitempty"`
}

// Reads reports whether what the operation returned depends on what the
// session's ledger held: every operation but a mark (a count returns the
// total it reached).
func (e Entry) Reads() bool { return e.Op != OpMark }

// String says what the call did in a line, for a person: "has
// private-data -> marked 12:03:04 (read ~/.ssh/id_rsa)", "mark
// untrusted-content (fetched https://example.com)", "count tool-calls +1
// over 10m0s -> 4". Times are local.
func (e Entry) String() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Name != "" {
		b.WriteString(" " + e.Name)
	}
	switch e.Op {
	case OpCount:
		if e.Delta != 0 {
			b.WriteString(" " + signed(e.Delta))
		}
		if e.WindowMs > 0 {
			b.WriteString(" over " + (time.Duration(e.WindowMs) * time.Millisecond).String())
		} else {
			b.WriteString(" over the session")
		}
	}
	if e.Err != "" {
		b.WriteString(" -> error: " + e.Err)
		return b.String()
	}
	switch e.Op {
	case OpMark:
		if e.Detail != "" {
			b.WriteString(" (" + e.Detail + ")")
		}
	case OpHas:
		if !e.Found {
			b.WriteString(" -> not marked")
			break
		}
		b.WriteString(" -> marked " + time.UnixMilli(e.AtMs).Format("15:04:05"))
		if e.Detail != "" {
			b.WriteString(" (" + e.Detail + ")")
		}
	case OpCount:
		b.WriteString(" -> " + strconv.FormatFloat(e.Value, 'g', -1, 64))
	case OpMarks:
		b.WriteString(" -> " + strconv.FormatFloat(e.Value, 'g', -1, 64))
		if len(e.Labels) > 0 {
			b.WriteString(": " + strings.Join(e.Labels, ", "))
		}
	case OpCalls:
		b.WriteString(" -> " + strconv.FormatFloat(e.Value, 'g', -1, 64) + " calls")
	}
	return b.String()
}

func signed(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if f > 0 {
		return "+" + s
	}
	return s
}

// journalKey is the context key of a journal scope.
type journalKey struct{}

// scope is what a context carries: the journal, and the hook whose calls
// are being recorded.
type scope struct {
	j          *Journal
	hook, file string
}

// NewJournal returns a new, empty journal and ctx carrying it: the ledger
// calls made under the context (and the contexts derived from it) are
// recorded in the journal. The two are made in one allocation: a decision
// that is observed pays for its journal, and its entries only once a hook
// calls the ledger.
func NewJournal(ctx context.Context) (context.Context, *Journal) {
	c := &journalContext{Context: ctx}
	c.j.root.j = &c.j
	return c, &c.j
}

// journalContext is a context carrying a journal, and the journal.
type journalContext struct {
	context.Context
	j Journal
}

func (c *journalContext) Value(key any) any {
	if key == (journalKey{}) {
		return &c.j.root
	}
	return c.Context.Value(key)
}

// JournalOf returns the journal ctx carries, or nil.
func JournalOf(ctx context.Context) *Journal {
	if s, _ := ctx.Value(journalKey{}).(*scope); s != nil {
		return s.j
	}
	return nil
}

// WithHook returns ctx with the ledger calls made under it attributed to
// the hook named hook, registered in file (either may be empty), when ctx
// carries a journal; ctx itself otherwise, at the cost of one lookup.
func WithHook(ctx context.Context, hook, file string) context.Context {
	s, _ := ctx.Value(journalKey{}).(*scope)
	if s == nil || s.hook == hook && s.file == file {
		return ctx
	}
	return context.WithValue(ctx, journalKey{}, &scope{j: s.j, hook: hook, file: file})
}

// Entries returns a copy of the entries recorded so far, in the order the
// calls returned.
func (j *Journal) Entries() []Entry {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.entries) == 0 {
		return nil
	}
	return append([]Entry(nil), j.entries...)
}

// Dropped returns how many entries were left out past MaxJournalEntries.
func (j *Journal) Dropped() int {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.dropped
}

// scopeOf returns the journal scope ctx carries, or nil.
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(journalKey{}).(*scope)
	return s
}

// add records e, and err when the call failed, attributed to s's hook.
func (s *scope) add(e Entry, err error) {
	e.Hook, e.File = s.hook, s.file
	if err != nil {
		e.Err = err.Error()
	}
	if len(e.Labels) > maxEntryLabels {
		e.Labels = e.Labels[:maxEntryLabels:maxEntryLabels]
	}
	j := s.j
	j.mu.Lock()
	if len(j.entries) < MaxJournalEntries {
		j.entries = append(j.entries, e)
	} else {
		j.dropped++
	}
	j.mu.Unlock()
}
