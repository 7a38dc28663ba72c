package decisionlog

import (
	"bytes"
	"fmt"
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
// one Write call (standard output or error, for containers), chained as a
// new log (see Record.Seq), without checkpoints. Closing it leaves w open.
func Writer(w io.Writer) Sink {
	opts := ChainOptions{}
	opts.check() // the zero options are valid
	return &writerSink{w: w, chain: newChain(opts)}
}

// SignedWriter is Writer with checkpoints: with opts.SigningKey set, a
// checkpoint line follows every opts.CheckpointEvery records and the last
// record before Close.
func SignedWriter(w io.Writer, opts ChainOptions) (Sink, error) {
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	return &writerSink{w: w, chain: newChain(opts)}, nil
}

type writerSink struct {
	w     io.Writer
	buf   []byte
	chain *chain // nil: unchained (the benchmarks' reference)
}

func (s *writerSink) Write(rec *Record) error {
	if s.chain == nil {
		s.buf = AppendLine(s.buf[:0], rec)
	} else {
		s.buf = s.chain.appendRecord(s.buf[:0], rec)
		if s.chain.due() {
			s.buf = s.chain.appendCheckpoint(s.buf)
		}
	}
	_, err := s.w.Write(s.buf)
	if cap(s.buf) > 1<<20 {
		s.buf = nil // one huge record does not pin its buffer
	}
	return err
}

// Close writes the closing checkpoint, if one is due.
func (s *writerSink) Close() error {
	if s.chain == nil {
		return nil
	}
	b := s.chain.appendCheckpoint(nil)
	if len(b) == 0 {
		return nil
	}
	_, err := s.w.Write(b)
	return err
}
