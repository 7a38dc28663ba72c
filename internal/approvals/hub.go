// Package approvals keeps the web approvals a luahook serve is waiting
// for: a PreToolUse call that a hook routed to a person (luahook.RouteWeb)
// waits in Hub.Await until someone with the right name approves or denies
// it (Hub.Decide), its time runs out, or its caller goes away. The hub is
// in-process and bounded: at most MaxPending calls wait, holding at most
// MaxBytes of reasons and inputs together; past either, a new request is
// refused at once (the runner denies it), so that a flood of approvals
// cannot hold serve's other work. Watchers (the approvals page) follow it
// through Subscribe.
//
// A fleet of serve replicas shares its approvals through Redis (Open with
// Options.Redis, redis.go): a call waits on the replica it reached, and
// any replica lists it and decides it, once fleet-wide.
package approvals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// The hub's default bounds (Options).
const (
	DefaultMaxPending    = 256
	DefaultMaxBytes      = 8 << 20
	DefaultMaxInputBytes = 64 << 10
	// maxReasons is how many reasons of one request are kept.
	maxReasons = 32
	// maxNames bounds a request's approvers and hooks.
	maxNames = luahook.MaxApprovers
	// recentDecided is how many decided ids the hub remembers, to tell a
	// second decision from one on an approval it never had.
	recentDecided = 1024
)

// Options bound a Hub. The zero value means the defaults.
type Options struct {
	// MaxPending is how many approvals may wait at once; 0 means
	// DefaultMaxPending.
	MaxPending int
	// MaxBytes bounds the bytes the waiting approvals hold together
	// (reasons, names, inputs); 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxInputBytes is the largest tool input an approval shows; a larger
	// one is left out (Pending.InputBytes says how big it was). 0 means
	// DefaultMaxInputBytes.
	MaxInputBytes int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Instance names this replica: Pending.Instance of the approvals
	// that wait here, and its log lines.
	Instance string
	// Redis, a redis:// or rediss:// URL, shares the approvals of a fleet
	// of replicas through that server (Open; New ignores it).
	Redis string
	// RedisPrefix is put before every Redis key and the events channel;
	// "" means DefaultRedisPrefix.
	RedisPrefix string
	// RedisTimeout bounds each Redis call (connecting included); 0 means
	// DefaultRedisTimeout.
	RedisTimeout time.Duration
	// Logger takes what goes wrong out of any caller's sight (a bad value
	// read from Redis, a failed clean-up); nil means slog.Default().
	Logger *slog.Logger
}

// Errors of Decide and Await. Each is wrapped with the approval's id.
var (
	// ErrNotPending: no approval of that id waits (it never existed, or
	// timed out, or its caller went away).
	ErrNotPending = errors.New("no such approval is waiting")
	// ErrDecided: the approval was decided already; each is single-use.
	ErrDecided = errors.New("the approval was decided already")
	// ErrNotApprover: the decider is not among the approval's approvers.
	ErrNotApprover = errors.New("not among the approvers of this call")
	// ErrDigest: the decision names another call than the one waiting.
	ErrDigest = errors.New("the digest does not match the call waiting")
	// ErrFull: the hub holds as many approvals (or bytes) as it may.
	ErrFull = errors.New("too many web approvals are waiting")
	// ErrClosed: the hub was closed.
	ErrClosed = errors.New("approvals are closed (luahook serve is stopping)")
	// ErrUnavailable: the Redis server that shares the approvals with the
	// fleet did not answer, or answered what it should not; nothing was
	// decided.
	ErrUnavailable = errors.New("failed (the Redis server sharing the approvals did not answer or refused)")
)

// Pending is an approval waiting for a decision, as List and the events
// show it.
type Pending struct {
	ID      string `json:"id"`
	Digest  string `json:"digest"`
	Tool    string `json:"tool"`
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Client  string `json:"client,omitempty"`
	// Instance is the replica the call waits on (Options.Instance).
	Instance  string    `json:"instance,omitempty"`
	Reasons   []string  `json:"reasons"`
	Approvers []string  `json:"approvers,omitempty"`
	Hooks     []string  `json:"hooks"`
	Created   time.Time `json:"created"`
	Deadline  time.Time `json:"deadline"`
	// Input is the tool input asked about, when at most MaxInputBytes;
	// InputBytes is its size either way.
	Input      []byte `json:"input,omitempty"`
	InputBytes int    `json:"inputBytes"`
}

// MarshalJSON writes Input as the JSON value it is.
func (p Pending) MarshalJSON() ([]byte, error) {
	type fields Pending
	f := fields(p)
	f.Input = nil
	return marshalWithInput(f, p.Input)
}

// Event is a change of the hub: an approval that started waiting
// (EventPending), was decided (EventDecided) or stopped waiting undecided
// (EventGone: timed out, cancelled, closed).
type Event struct {
	Kind     string                   `json:"kind"`
	Approval Pending                  `json:"approval"`
	Decision *runner.ApprovalDecision `json:"decision,omitempty"`
}

// The kinds of Event.
const (
	EventPending = "pending"
	EventDecided = "decided"
	EventGone    = "gone"
)

// Hub is an in-process runner.Approver. It is safe for concurrent use.
type Hub struct {
	opts Options

	mu      sync.Mutex
	closed  bool
	pending map[string]*waiter
	bytes   int64
	decided map[string]bool // recently decided ids
	ring    []string        // decided's ids, oldest first
	subs    map[*subscriber]struct{}

	// shared links the hub to the fleet's Redis (Open); nil: in-process.
	shared *shared
}

var _ runner.Approver = (*Hub)(nil)

// waiter is one waiting approval.
type waiter struct {
	p    Pending
	size int64
	done chan struct{} // closed once decision or err is set
	dec  runner.ApprovalDecision
	err  error
	// registered: the approval is in Redis (shared mode).
	registered bool
}

// New returns a Hub bounded by opts.
func New(opts Options) *Hub {
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxInputBytes <= 0 {
		opts.MaxInputBytes = DefaultMaxInputBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RedisPrefix == "" {
		opts.RedisPrefix = DefaultRedisPrefix
	}
	if opts.RedisTimeout <= 0 {
		opts.RedisTimeout = DefaultRedisTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Hub{opts: opts, pending: map[string]*waiter{}, decided: map[string]bool{}, subs: map[*subscriber]struct{}{}}
}

// Await puts req up for a decision and waits for it (runner.Approver): it
// returns the decision, ctx's error when ctx ends first (the approval is
// taken down), or at once ErrFull past the hub's bounds and ErrClosed once
// the hub is closed.
func (h *Hub) Await(ctx context.Context, req runner.ApprovalRequest) (runner.ApprovalDecision, error) {
	w, err := h.put(ctx, &req)
	if err != nil {
		return runner.ApprovalDecision{}, err
	}
	if h.shared != nil {
		return h.awaitShared(ctx, w)
	}
	select {
	case <-w.done:
		return w.dec, w.err
	case <-ctx.Done():
	}
	h.mu.Lock()
	if h.pending[w.p.ID] != w {
		// Decided (or closed) as ctx ended: the decision stands.
		h.mu.Unlock()
		<-w.done
		return w.dec, w.err
	}
	h.remove(w)
	h.publish(Event{Kind: EventGone, Approval: w.p})
	h.mu.Unlock()
	return runner.ApprovalDecision{ID: w.p.ID}, ctx.Err()
}

// put checks req against the bounds, before anything of it is copied, and
// registers it.
func (h *Hub) put(ctx context.Context, req *runner.ApprovalRequest) (*waiter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	reasons := req.Reasons[:min(len(req.Reasons), maxReasons)]
	input := req.Input
	if len(input) > h.opts.MaxInputBytes {
		input = nil
	}
	size := int64(len(req.Digest) + len(req.Tool) + len(req.Session) + len(req.Agent) + len(req.Client) + len(input) + 256)
	for _, r := range reasons {
		size += int64(min(len(r), 4*luahook.MaxReasonChars)) + 16
	}
	for _, list := range [][]string{req.Approvers, req.Hooks} {
		if len(list) > maxNames {
			return nil, fmt.Errorf("%w: the request names %d approvers or hooks (at most %d)", ErrFull, len(list), maxNames)
		}
		for _, s := range list {
			size += int64(len(s)) + 16
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, ErrClosed
	case len(h.pending) >= h.opts.MaxPending:
		return nil, fmt.Errorf("%w (%d, the most luahook serve keeps)", ErrFull, len(h.pending))
	case h.bytes+size > h.opts.MaxBytes:
		return nil, fmt.Errorf("%w (they hold %d bytes; the most is %d)", ErrFull, h.bytes, h.opts.MaxBytes)
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	now := h.opts.Now().UTC()
	w := &waiter{size: size, done: make(chan struct{}), p: Pending{
		ID: id, Digest: req.Digest, Tool: req.Tool, Session: req.Session, Agent: req.Agent, Client: req.Client, Instance: h.opts.Instance,
		Approvers: slices.Clone(req.Approvers), Hooks: slices.Clone(req.Hooks),
		Created: now, Deadline: now.Add(req.Timeout), Input: slices.Clone(input), InputBytes: len(req.Input),
	}}
	if d, ok := ctx.Deadline(); ok && (req.Timeout <= 0 || d.Before(w.p.Deadline)) {
		w.p.Deadline = d.UTC()
	}
	w.p.Reasons = make([]string, len(reasons))
	for i, r := range reasons {
		w.p.Reasons[i] = luahook.TruncateChars(r, 4*luahook.MaxReasonChars)
	}
	h.pending[id] = w
	h.bytes += size
	h.publish(Event{Kind: EventPending, Approval: w.p})
	return w, nil
}

// newID returns an unguessable approval id: 128 random bits.
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("approval id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Decide decides the approval id as who (the name the decider
// authenticated as): approve or deny, with reason. digest must be the
// call's (Pending.Digest), so that a decision cannot land on another call
// than the one its decider saw. It fails with ErrNotPending, ErrDecided
// (each approval is decided once), ErrNotApprover (who is not among its
// approvers) or ErrDigest, and decides nothing then.
func (h *Hub) Decide(id, who string, approve bool, reason, digest string) (runner.ApprovalDecision, error) {
	reason = luahook.TruncateReason(reason)
	if h.shared != nil {
		return h.decideShared(id, who, approve, reason, digest)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.pending[id]
	switch {
	case w == nil && h.decided[id]:
		return runner.ApprovalDecision{}, fmt.Errorf("approval %.64s: %w", id, ErrDecided)
	case w == nil:
		return runner.ApprovalDecision{}, fmt.Errorf("approval %.64s: %w", id, ErrNotPending)
	case digest != w.p.Digest:
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: %w (%.64q, want %q)", id, ErrDigest, digest, w.p.Digest)
	case len(w.p.Approvers) > 0 && !slices.Contains(w.p.Approvers, who):
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: %q is %w (%v)", id, who, ErrNotApprover, w.p.Approvers)
	}
	w.dec = runner.ApprovalDecision{ID: id, Approved: approve, By: who, At: h.opts.Now().UTC(), Reason: reason}
	h.remove(w)
	h.remember(id)
	close(w.done)
	d := w.dec
	h.publish(Event{Kind: EventDecided, Approval: w.p, Decision: &d})
	return d, nil
}

// remove takes w off the waiting approvals; h.mu is held.
func (h *Hub) remove(w *waiter) {
	delete(h.pending, w.p.ID)
	h.bytes -= w.size
}

// remember keeps id among the recently decided; h.mu is held.
func (h *Hub) remember(id string) {
	if len(h.ring) == recentDecided {
		delete(h.decided, h.ring[0])
		h.ring = h.ring[1:]
	}
	h.ring = append(h.ring, id)
	h.decided[id] = true
}

// List returns the waiting approvals, oldest first: in shared mode the
// whole fleet's (ListContext), or this replica's own when Redis does not
// answer (the failure is logged).
func (h *Hub) List() []Pending {
	if h.shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.RedisTimeout)
		defer cancel()
		l, err := h.ListContext(ctx)
		if err == nil {
			return l
		}
		h.opts.Logger.Error("web approvals: listing the fleet's approvals failed; listing this replica's own", "instance", h.opts.Instance, "err", err)
	}
	return h.listLocal()
}

// listLocal returns the approvals waiting on this hub, oldest first.
func (h *Hub) listLocal() []Pending {
	h.mu.Lock()
	out := make([]Pending, 0, len(h.pending))
	for _, w := range h.pending {
		out = append(out, w.p)
	}
	h.mu.Unlock()
	sortPending(out)
	return out
}

// sortPending sorts l oldest first (by Created, then ID).
func sortPending(l []Pending) {
	slices.SortFunc(l, func(a, b Pending) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Len returns how many approvals wait on this hub (in shared mode, on
// this replica).
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pending)
}

// Close ends every waiting approval with ErrClosed (the runner denies
// those calls, naming it) and refuses new ones. Subscriptions are closed.
// Close may be called more than once. In shared mode it also takes this
// replica's undecided approvals out of Redis (one decided as Close began
// stands), stops following the fleet and closes the Redis client.
func (h *Hub) Close() {
	if h.shared != nil {
		h.closeShared()
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for _, w := range h.pending {
		w.err = ErrClosed
		w.dec = runner.ApprovalDecision{ID: w.p.ID}
		h.remove(w)
		close(w.done)
		h.publish(Event{Kind: EventGone, Approval: w.p})
	}
	for s := range h.subs {
		delete(h.subs, s)
		close(s.ch)
	}
}
