package decisionlog

import (
	"bytes"
	"io"
	"maps"
	"slices"

	"github.com/luahook/luahook"
)

// Sink is where a Logger's records go. A Logger calls Write from one
// goroutine only, never on the path of a decision, and Close once, when it
// closes.
//
// Write must not keep rec or anything it points to past its return: the
// Logger reuses that memory for the next record (Func hands its function
// a copy).
type Sink interface {
	Write(rec *Record) error
	Close() error
}

// Flusher is a Sink that gathers records before it writes them. The
// Logger calls Flush whenever its queue is empty, so that a record waits
// no longer than the records behind it.
type Flusher interface {
	Flush() error
}

// Func returns a Sink that hands each record to f, for a host that keeps
// records its own way. f owns the record it is given. It is called from the
// Logger's one writer goroutine: a slow f delays only the records after it,
// never a decision; a full queue drops records (Logger.Dropped).
func Func(f func(Record)) Sink { return funcSink(f) }

type funcSink func(Record)

// clone returns a copy of r that shares no memory the builder reuses:
// every slice, map and pointer of the record is copied.
func (r *Record) clone() Record {
	c := *r
	c.Input = bytes.Clone(r.Input)
	c.Masked = slices.Clone(r.Masked)
	c.Hooks = slices.Clone(r.Hooks)
	for i := range c.Hooks {
		c.Hooks[i].Outcome = cloneOutcome(c.Hooks[i].Outcome)
		if f := c.Hooks[i].Failure; f != nil {
			fc := *f
			c.Hooks[i].Failure = &fc
		}
	}
	c.Decision.Outcome = cloneOutcome(r.Decision.Outcome)
	if r.Delivered != nil {
		d := *r.Delivered
		c.Delivered = &d
	}
	if r.Approval != nil {
		a := *r.Approval
		a.Approvers = slices.Clone(a.Approvers)
		c.Approval = &a
	}
	c.Ledger = slices.Clone(r.Ledger)
	for i := range c.Ledger {
		c.Ledger[i].Labels = slices.Clone(c.Ledger[i].Labels)
	}
	c.Files = maps.Clone(r.Files)
	return c
}

// cloneOutcome returns a copy of o (nil for nil): the outcomes of a record
// are the builder's masked copies, rewritten for the next record.
func cloneOutcome(o *luahook.Outcome) *luahook.Outcome {
	if o == nil {
		return nil
	}
	c := *o
	c.Input = bytes.Clone(o.Input)
	c.Output = bytes.Clone(o.Output)
	c.Redact = slices.Clone(o.Redact)
	c.Approvers = slices.Clone(o.Approvers)
	return &c
}

func (f funcSink) Write(rec *Record) error { f(rec.clone()); return nil }
func (f funcSink) Close() error            { return nil }

// Writer returns a Sink that writes one JSON line per record to w, each in
// one Write call (standard output or error, for containers). Closing it
// leaves w open.
func Writer(w io.Writer) Sink { return &writerSink{w: w} }

type writerSink struct {
	w   io.Writer
	buf []byte
}

func (s *writerSink) Write(rec *Record) error {
	s.buf = AppendLine(s.buf[:0], rec)
	_, err := s.w.Write(s.buf)
	if cap(s.buf) > 1<<20 {
		s.buf = nil // one huge record does not pin its buffer
	}
	return err
}

func (s *writerSink) Close() error { return nil }
