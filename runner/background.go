package runner

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// Bounds of the buffer of background hook context.
const (
	MaxBufferedParts    = 16            // newest parts kept per session
	MaxBufferedBytes    = 64 << 10      // bytes of newest parts kept per session
	MaxBufferedSessions = 32            // sessions kept; the oldest inserted goes first
	DefaultSession      = "__default__" // the session of a payload without one, absent Options.SessionID
)

// bgKey coalesces background runs: per entry and per session.
type bgKey struct{ entry, session string }

// bgRun is a running background hook and the payload that runs next.
type bgRun struct {
	pending *luahook.Input
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

// schedule starts a background PostToolUse hook, or, when one is already
// running for the same entry and session, makes in its single pending
// payload, replacing any earlier one: a burst runs the first and the last.
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
	key := bgKey{e.ID, session}
	r.bgMu.Lock()
	defer r.bgMu.Unlock()
	if r.bgClosed {
		tr.Skipped = SkipBackgroundDisabled
		return
	}
	if run, ok := r.bgRunning[key]; ok {
		run.pending = in
		return
	}
	r.bgRunning[key] = &bgRun{}
	r.bgWG.Add(1)
	go r.runBackground(key, e, in)
}

// runBackground runs one entry for one session until no payload is pending.
// Background hooks are always fail-open; their context is buffered for the
// session's next PostToolUse or UserPromptSubmit.
func (r *Runner) runBackground(key bgKey, e *registry.Entry, in *luahook.Input) {
	defer r.bgWG.Done()
	for {
		var tr HookTrace
		if out, _ := r.invoke(r.base, e, in, &tr, true); out != nil && out.AdditionalContext != "" {
			r.buf.add(key.session, out.AdditionalContext)
		}
		r.bgMu.Lock()
		run := r.bgRunning[key]
		in, run.pending = run.pending, nil
		if in == nil || r.bgClosed {
			delete(r.bgRunning, key)
			r.bgMu.Unlock()
			return
		}
		r.bgMu.Unlock()
	}
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
