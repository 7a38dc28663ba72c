package approvals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// Shared mode (Open): the approvals of a fleet of replicas in one Redis.
//
// Under Options.RedisPrefix (P) each waiting approval is a hash P+"a:"+ID
// whose fields are "p" (the Pending as JSON), "digest", "approvers" (a
// JSON array, "" for anyone) and, once decided, "decision" (the
// runner.ApprovalDecision as JSON); the hash expires a little past the
// approval's deadline (redisTTLMargin), or decidedTTL after its decision,
// so that a second decision is told apart from one on an unknown id. The
// sorted set P+"due" holds the waiting ids scored by deadline (Unix ms),
// and every change is one message (an Event as JSON) on the channel
// P+"events". Deciding and taking down are each one server-side script, so
// a decision lands once fleet-wide, and only on an undecided approval.

// Defaults of shared mode (Options).
const (
	DefaultRedisPrefix  = "luahook:approvals:"
	DefaultRedisTimeout = time.Second
	// MaxListed caps what List returns in shared mode: the approvals of
	// the earliest deadlines, at most this many...
	MaxListed = 4096
	// MaxListedBytes: ...and at most this many bytes of them read.
	MaxListedBytes = 64 << 20
)

const (
	// redisTTLMargin is how long an approval's hash outlives its
	// deadline, and how long past it a stale id may stay in the set.
	redisTTLMargin = 30 * time.Second
	// decidedTTL is how long a decided approval is kept (its decision
	// read by the replica that waits, a second decision refused).
	decidedTTL = 5 * time.Minute
	// pollInterval is how often a replica with waiters reads their
	// approvals in Redis, in case a decision's message was missed.
	pollInterval = 500 * time.Millisecond
	// maxPollFailures is how many polls in a row may fail before the
	// replica's waiters end with an error (nobody can decide them).
	maxPollFailures = 3
	// recordSlack is what a record holds beyond its input: reasons
	// (32 of at most 8000 characters), names, times.
	recordSlack = 384 << 10
	// maxDecisionBytes caps a decision read back from Redis.
	maxDecisionBytes = 64 << 10
	// eventSlack is what an event holds beyond its approval's record.
	eventSlack = maxDecisionBytes + 1024
)

// shared is a Hub's link to the fleet's Redis.
type shared struct {
	c       *redis.Client
	ps      *redis.PubSub
	where   string // the URL, its password redacted
	prefix  string
	timeout time.Duration
	// recordCap is the most bytes an approval's record may hold, written
	// or read.
	recordCap int

	stop chan struct{}
	wg   sync.WaitGroup
}

// record is a Pending as it is stored and sent: its Input as base64, so
// that any bytes come back as they were.
type record Pending

// marshalRecord encodes p as a record, without escaping <, > and & (which
// would make a reason of them six times its size).
func marshalRecord(p Pending) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(record(p)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// wireEvent is an Event on the channel.
type wireEvent struct {
	Kind     string                   `json:"kind"`
	Approval record                   `json:"approval"`
	Decision *runner.ApprovalDecision `json:"decision,omitempty"`
}

// Open returns a Hub bounded by opts. With opts.Redis set the hub is in
// shared mode: it connects to that server and PINGs it within ctx, and
// its approvals are the fleet's (every replica Opened on the same server
// and prefix lists them, decides them once, and follows their events);
// without, Open is New.
func Open(ctx context.Context, opts Options) (*Hub, error) {
	h := New(opts)
	if opts.Redis == "" {
		return h, nil
	}
	s, err := dialShared(ctx, h.opts)
	if err != nil {
		return nil, err
	}
	h.shared = s
	ch := s.ps.Channel(redis.WithChannelSize(256))
	s.wg.Go(func() { h.follow(ch) })
	s.wg.Go(h.poll)
	return h, nil
}

// redactURL returns raw with its password hidden, or a placeholder when
// raw is no URL (whose parse error would repeat it).
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a Redis URL that does not parse)"
	}
	return u.Redacted()
}

// dialShared connects to opts.Redis and subscribes to its events channel.
func dialShared(ctx context.Context, opts Options) (*shared, error) {
	where := redactURL(opts.Redis)
	if _, err := url.Parse(opts.Redis); err != nil {
		return nil, fmt.Errorf("approvals: %s: want redis://[user:password@]host:port[/db] or rediss://", where)
	}
	ro, err := redis.ParseURL(opts.Redis)
	if err != nil {
		return nil, fmt.Errorf("approvals: redis URL %s: %w", where, err)
	}
	t := opts.RedisTimeout
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout, ro.PoolTimeout = t, t, t, t
	ro.ContextTimeoutEnabled = true
	ro.DialerRetries = 1
	ro.MaxRetries = -1 // a decision sent twice would be refused as decided already
	ro.PoolSize = 32
	ro.DisableIdentity = true
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if ro.Protocol == 0 {
		ro.Protocol = 2
	}
	s := &shared{c: redis.NewClient(ro), where: where, prefix: opts.RedisPrefix, timeout: t,
		recordCap: opts.MaxInputBytes*4/3 + recordSlack, stop: make(chan struct{})}
	pctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	if err := s.c.Ping(pctx).Err(); err != nil {
		s.c.Close()
		return nil, fmt.Errorf("approvals: redis at %s did not answer PING: %w", where, err)
	}
	s.ps = s.c.Subscribe(pctx, s.channel())
	if _, err := s.ps.Receive(pctx); err != nil {
		s.ps.Close()
		s.c.Close()
		return nil, fmt.Errorf("approvals: redis at %s: subscribing to %s: %w", where, s.channel(), err)
	}
	return s, nil
}

func (s *shared) key(id string) string { return s.prefix + "a:" + id }
func (s *shared) due() string          { return s.prefix + "due" }
func (s *shared) channel() string      { return s.prefix + "events" }

// validID reports whether id is one newID makes: 32 lower-case hex digits.
func validID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ctx returns a context bounded by parent and the call timeout.
func (s *shared) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, s.timeout)
}

// failed describes a Redis call's error, naming the server, as an
// ErrUnavailable. It does not wrap err: a call timed out on Redis is not
// one nobody decided in time (the runner tells those apart by
// context.DeadlineExceeded).
func (s *shared) failed(id, what string, err error) error {
	return fmt.Errorf("approval %s: %s through redis at %s %w: %v", id, what, s.where, ErrUnavailable, err)
}

// register puts w's approval into Redis and announces it.
func (s *shared) register(ctx context.Context, w *waiter, now time.Time) error {
	rec, err := marshalRecord(w.p)
	if err == nil && len(rec) > s.recordCap && w.p.Input != nil {
		// Too big to share with its input: shown without it, as
		// MaxInputBytes leaves it out.
		p := w.p
		p.Input = nil
		rec, err = marshalRecord(p)
	}
	if err != nil {
		return fmt.Errorf("approval %s: encoding it: %w", w.p.ID, err)
	}
	if len(rec) > s.recordCap {
		return fmt.Errorf("approval %s: %w (its reasons and names take %d bytes; the most a shared approval holds is %d)", w.p.ID, ErrFull, len(rec), s.recordCap)
	}
	approvers := ""
	if len(w.p.Approvers) > 0 {
		b, _ := json.Marshal(w.p.Approvers)
		approvers = string(b)
	}
	ev := make([]byte, 0, len(rec)+32)
	ev = append(ev, `{"kind":"pending","approval":`...)
	ev = append(append(ev, rec...), '}')
	ttl := w.p.Deadline.Sub(now)
	if ttl <= 0 {
		ttl = luahook.MaxApprovalTimeout
	}
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	pipe := s.c.TxPipeline()
	k := s.key(w.p.ID)
	pipe.HSet(ctx, k, "p", rec, "digest", w.p.Digest, "approvers", approvers, "instance", w.p.Instance)
	pipe.PExpire(ctx, k, ttl+redisTTLMargin)
	pipe.ZAdd(ctx, s.due(), redis.Z{Score: float64(w.p.Deadline.UnixMilli()), Member: w.p.ID})
	pipe.ZRemRangeByScore(ctx, s.due(), "-inf", "("+strconv.FormatInt(now.Add(-2*redisTTLMargin).UnixMilli(), 10))
	pipe.Publish(ctx, s.channel(), ev)
	if _, err := pipe.Exec(ctx); err != nil {
		return s.failed(w.p.ID, "putting it up", err)
	}
	return nil
}

// decideScript decides an approval once. KEYS: its hash, the due set, the
// events channel; ARGV: id, digest, who, the decision (JSON), how long
// to keep it (ms). It answers {"ok"}, {"notpending"}, {"decided"},
// {"digest", want} or {"notapprover", approvers}.
var decideScript = redis.NewScript(`
local t = redis.call('HMGET', KEYS[1], 'p', 'digest', 'approvers', 'decision')
if not t[1] then return {'notpending'} end
if t[4] then return {'decided'} end
if t[2] ~= ARGV[2] then return {'digest', t[2] or ''} end
if t[3] and t[3] ~= '' then
  local ok, list = pcall(cjson.decode, t[3])
  local found = false
  if ok and type(list) == 'table' then
    for _, a in ipairs(list) do
      if a == ARGV[3] then found = true break end
    end
  end
  if not found then return {'notapprover', t[3]} end
end
redis.call('HSET', KEYS[1], 'decision', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', KEYS[3], '{"kind":"decided","approval":' .. t[1] .. ',"decision":' .. ARGV[4] .. '}')
return {'ok'}
`)

// goneScript takes an undecided approval down. KEYS: its hash, the due
// set, the events channel; ARGV: id. It answers {"gone"}, {"missing"} or
// {"decided", decision}: a decision that landed first stands.
var goneScript = redis.NewScript(`
local t = redis.call('HMGET', KEYS[1], 'p', 'decision')
if t[2] then return {'decided', t[2]} end
redis.call('ZREM', KEYS[2], ARGV[1])
if not t[1] then return {'missing'} end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[3], '{"kind":"gone","approval":' .. t[1] .. '}')
return {'gone'}
`)

// decodeDecision reads a stored decision, size-checked first.
func decodeDecision(id, v string) (runner.ApprovalDecision, error) {
	var d runner.ApprovalDecision
	if len(v) > maxDecisionBytes {
		return d, fmt.Errorf("approval %s: its decision in redis holds %d bytes (at most %d)", id, len(v), maxDecisionBytes)
	}
	if err := json.Unmarshal([]byte(v), &d); err != nil {
		return d, fmt.Errorf("approval %s: its decision in redis: %w", id, err)
	}
	if d.ID != id {
		return d, fmt.Errorf("approval %s: its decision in redis names approval %.64q", id, d.ID)
	}
	return d, nil
}

// takeDown takes w's approval out of Redis unless it was decided; the
// decision is returned then.
func (s *shared) takeDown(ctx context.Context, id string) (runner.ApprovalDecision, bool, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	r, err := goneScript.Run(ctx, s.c, []string{s.key(id), s.due(), s.channel()}, id).StringSlice()
	if err != nil {
		return runner.ApprovalDecision{}, false, s.failed(id, "taking it down", err)
	}
	if len(r) == 2 && r[0] == "decided" {
		d, err := decodeDecision(id, r[1])
		return d, err == nil, err
	}
	return runner.ApprovalDecision{}, false, nil
}

// finish ends w with dec and err; h.mu is held and w waits.
func (h *Hub) finish(w *waiter, dec runner.ApprovalDecision, err error) {
	w.dec, w.err = dec, err
	h.remove(w)
	if err == nil {
		h.remember(w.p.ID)
	}
	close(w.done)
}

// settle ends the waiter of id, if it waits here, with dec.
func (h *Hub) settle(id string, dec runner.ApprovalDecision) {
	h.mu.Lock()
	if w := h.pending[id]; w != nil {
		h.finish(w, dec, nil)
	}
	h.mu.Unlock()
}

// awaitShared shares w, put up locally, through Redis and waits for its
// decision from any replica.
func (h *Hub) awaitShared(ctx context.Context, w *waiter) (runner.ApprovalDecision, error) {
	s, id := h.shared, w.p.ID
	err := s.register(ctx, w, w.p.Created)
	h.mu.Lock()
	mine := h.pending[id] == w
	if mine && err == nil {
		w.registered = true
	}
	if mine && err != nil {
		h.remove(w)
	}
	h.mu.Unlock()
	if err != nil || !mine {
		if ctx.Err() != nil || !mine {
			// It may have landed: take it down (the hub closed, or
			// the caller left, while it was put up).
			if _, _, derr := s.takeDown(context.WithoutCancel(ctx), id); derr != nil {
				h.opts.Logger.Error("web approvals: taking down an approval failed; it expires in Redis", "instance", h.opts.Instance, "err", derr)
			}
		}
		if !mine {
			<-w.done
			return w.dec, w.err
		}
		return runner.ApprovalDecision{ID: id}, err
	}
	select {
	case <-w.done:
		return w.dec, w.err
	case <-ctx.Done():
	}
	h.mu.Lock()
	mine = h.pending[id] == w
	// Leaving: the polls no longer end it when its hash goes (a
	// decision's message still does).
	w.registered = false
	h.mu.Unlock()
	if !mine {
		<-w.done
		return w.dec, w.err
	}
	dec, decided, err := s.takeDown(context.WithoutCancel(ctx), id)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.pending[id] != w:
		// Decided (or closed) meanwhile: that stands.
		<-w.done
		return w.dec, w.err
	case decided:
		// The decision landed as ctx ended: it stands.
		h.finish(w, dec, nil)
		return dec, nil
	}
	if err != nil {
		h.opts.Logger.Error("web approvals: taking down an approval failed; it expires in Redis", "instance", h.opts.Instance, "err", err)
	}
	h.finish(w, runner.ApprovalDecision{ID: id}, ctx.Err())
	return w.dec, w.err
}

// decideShared is Decide in shared mode: one script checks and decides
// the approval in Redis, whichever replica it waits on.
func (h *Hub) decideShared(id, who string, approve bool, reason, digest string) (runner.ApprovalDecision, error) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	switch {
	case closed:
		return runner.ApprovalDecision{}, fmt.Errorf("approval %.64s: %w", id, ErrClosed)
	case !validID(id):
		return runner.ApprovalDecision{}, fmt.Errorf("approval %.64s: %w", id, ErrNotPending)
	}
	s := h.shared
	d := runner.ApprovalDecision{ID: id, Approved: approve, By: who, At: h.opts.Now().UTC(), Reason: reason}
	dj, err := json.Marshal(d)
	if err != nil {
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: encoding the decision: %w", id, err)
	}
	ctx, cancel := s.ctx(context.Background())
	defer cancel()
	r, err := decideScript.Run(ctx, s.c, []string{s.key(id), s.due(), s.channel()}, id, digest, who, dj, decidedTTL.Milliseconds()).StringSlice()
	switch {
	case err != nil:
		return runner.ApprovalDecision{}, s.failed(id, "deciding it", err)
	case len(r) == 0:
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: deciding it: redis at %s answered nothing: %w", id, s.where, ErrUnavailable)
	}
	detail := ""
	if len(r) > 1 {
		detail = r[1]
	}
	switch r[0] {
	case "ok":
		h.settle(id, d)
		return d, nil
	case "notpending":
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: %w", id, ErrNotPending)
	case "decided":
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: %w", id, ErrDecided)
	case "digest":
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: %w (%.64q, want %.64q)", id, ErrDigest, digest, detail)
	case "notapprover":
		return runner.ApprovalDecision{}, fmt.Errorf("approval %s: %q is %w (%.256s)", id, who, ErrNotApprover, detail)
	}
	return runner.ApprovalDecision{}, fmt.Errorf("approval %s: deciding it: redis at %s answered %.64q: %w", id, s.where, r[0], ErrUnavailable)
}

// follow reads the fleet's events: it completes the waiters decided on
// other replicas and hands every event to the subscribers, until the
// channel closes (Close).
func (h *Hub) follow(ch <-chan *redis.Message) {
	limit := h.shared.recordCap + eventSlack
	for m := range ch {
		if len(m.Payload) > limit {
			h.opts.Logger.Error("web approvals: skipped an event from Redis past its bound", "instance", h.opts.Instance, "bytes", len(m.Payload), "max", limit)
			continue
		}
		var e wireEvent
		if err := json.Unmarshal([]byte(m.Payload), &e); err != nil || !validID(e.Approval.ID) || !knownKind(e.Kind) ||
			(e.Kind == EventDecided) != (e.Decision != nil) || (e.Decision != nil && e.Decision.ID != e.Approval.ID) {
			h.opts.Logger.Error("web approvals: skipped an event from Redis that is not one", "instance", h.opts.Instance, "err", err, "event", fmt.Sprintf("%.128q", m.Payload))
			continue
		}
		ev := Event{Kind: e.Kind, Approval: Pending(e.Approval), Decision: e.Decision}
		h.mu.Lock()
		if w := h.pending[e.Approval.ID]; w != nil && e.Decision != nil {
			h.finish(w, *e.Decision, nil)
		}
		h.deliver(ev)
		h.mu.Unlock()
	}
}

// knownKind reports whether kind is an Event's.
func knownKind(kind string) bool {
	return kind == EventPending || kind == EventDecided || kind == EventGone
}

// poll reads, every pollInterval, the approvals that wait here, for the
// decisions whose message this replica missed (a reconnect) and the
// approvals Redis lost (a restart); after maxPollFailures failed polls in
// a row their waiters end with an error: nobody could decide them.
func (h *Hub) poll() {
	s := h.shared
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	failures := 0
	var last error
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		h.mu.Lock()
		var ids []string
		for id, w := range h.pending {
			if w.registered {
				ids = append(ids, id)
			}
		}
		h.mu.Unlock()
		if len(ids) == 0 {
			failures = 0
			continue
		}
		ctx, cancel := s.ctx(context.Background())
		pipe := s.c.Pipeline()
		cmds := make([]*redis.SliceCmd, len(ids))
		for i, id := range ids {
			cmds[i] = pipe.HMGet(ctx, s.key(id), "digest", "decision")
		}
		_, err := pipe.Exec(ctx)
		cancel()
		if err != nil && !isReplyError(err) {
			failures++
			last = err
			if failures >= maxPollFailures {
				h.failWaiters(ids, fmt.Errorf("redis at %s did not answer %d checks in a row, so nobody can decide it: %v", s.where, failures, last))
			}
			continue
		}
		failures = 0
		for i, id := range ids {
			v, err := cmds[i].Result()
			switch {
			case err != nil:
				h.failWaiters([]string{id}, fmt.Errorf("reading it in redis at %s: %v", s.where, err))
			case len(v) == 2 && v[1] != nil:
				str, _ := v[1].(string)
				d, err := decodeDecision(id, str)
				if err != nil {
					h.failWaiters([]string{id}, err)
					continue
				}
				h.settle(id, d)
			case len(v) == 2 && v[0] == nil:
				h.failWaiters([]string{id}, fmt.Errorf("it is no longer in redis at %s (the server restarted, or lost it)", s.where))
			}
		}
	}
}

// isReplyError reports whether err is the server's answer to one command
// (that command failed) rather than a failure to reach it.
func isReplyError(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !errors.Is(err, redis.ErrClosed)
}

// failWaiters ends the registered waiters of ids with err (wrapped with
// the id): never an approval.
func (h *Hub) failWaiters(ids []string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		if w := h.pending[id]; w != nil && w.registered {
			h.finish(w, runner.ApprovalDecision{ID: id}, fmt.Errorf("approval %s: %w", id, err))
		}
	}
}

// ListContext returns the approvals waiting in the whole fleet (shared
// mode) or on this hub, oldest first. In shared mode it reads the due
// set's MaxListed earliest deadlines and at most MaxListedBytes of their
// records; a record past its bound or not an approval is skipped and
// logged; an error is Redis's failure.
func (h *Hub) ListContext(ctx context.Context) ([]Pending, error) {
	if h.shared == nil {
		return h.listLocal(), nil
	}
	s := h.shared
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	ids, err := s.c.ZRange(ctx, s.due(), 0, MaxListed-1).Result()
	if err != nil {
		return nil, fmt.Errorf("approvals: listing through redis at %s: %w", s.where, err)
	}
	skip := func(id, why string, args ...any) {
		h.opts.Logger.Error("web approvals: skipped an approval in Redis: "+why, append([]any{"instance", h.opts.Instance, "key", fmt.Sprintf("%.80q", s.key(id))}, args...)...)
	}
	valid := ids[:0]
	for _, id := range ids {
		if validID(id) {
			valid = append(valid, id)
		} else {
			skip(id, "its id is not one luahook makes")
		}
	}
	if len(valid) == 0 {
		return []Pending{}, nil
	}
	pipe := s.c.Pipeline()
	sizes := make([]*redis.IntCmd, len(valid))
	for i, id := range valid {
		sizes[i] = pipe.HStrLen(ctx, s.key(id), "p")
	}
	if _, err := pipe.Exec(ctx); err != nil && !isReplyError(err) {
		return nil, fmt.Errorf("approvals: listing through redis at %s: %w", s.where, err)
	}
	var read []string
	total := 0
sizing:
	for i, id := range valid {
		n, err := sizes[i].Result()
		switch {
		case err != nil:
			skip(id, "it is not an approval's hash", "err", err)
		case n == 0:
			// Gone (decided, taken down, expired) since ZRANGE.
		case n > int64(s.recordCap):
			skip(id, "it is past the bound of a record", "bytes", n, "max", s.recordCap)
		case total+int(n) > MaxListedBytes:
			h.opts.Logger.Error("web approvals: the list of the fleet's approvals is cut at its byte bound", "instance", h.opts.Instance, "listed", len(read), "max", MaxListedBytes)
			break sizing
		default:
			total += int(n)
			read = append(read, id)
		}
	}
	pipe = s.c.Pipeline()
	vals := make([]*redis.SliceCmd, len(read))
	for i, id := range read {
		vals[i] = pipe.HMGet(ctx, s.key(id), "p", "decision")
	}
	if len(read) > 0 {
		if _, err := pipe.Exec(ctx); err != nil && !isReplyError(err) {
			return nil, fmt.Errorf("approvals: listing through redis at %s: %w", s.where, err)
		}
	}
	now := h.opts.Now()
	out := make([]Pending, 0, len(read))
	for i, id := range read {
		v, err := vals[i].Result()
		if err != nil || len(v) != 2 {
			skip(id, "it is not an approval's hash", "err", err)
			continue
		}
		str, ok := v[0].(string)
		if !ok || v[1] != nil {
			continue // gone or decided since
		}
		if len(str) > s.recordCap {
			skip(id, "it is past the bound of a record", "bytes", len(str), "max", s.recordCap)
			continue
		}
		var r record
		if err := json.Unmarshal([]byte(str), &r); err != nil || r.ID != id {
			skip(id, "it does not hold an approval", "err", err)
			continue
		}
		if !r.Deadline.IsZero() && r.Deadline.Before(now) {
			continue
		}
		out = append(out, Pending(r))
	}
	sortPending(out)
	return out, nil
}

// closeShared is Close in shared mode.
func (h *Hub) closeShared() {
	s := h.shared
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	var ids []string
	for id, w := range h.pending {
		if w.registered {
			ids = append(ids, id)
		}
	}
	h.mu.Unlock()
	// Take this replica's approvals down, within one call timeout for
	// them all; a decision that landed first stands.
	decided := map[string]runner.ApprovalDecision{}
	ctx, cancel := s.ctx(context.Background())
	for _, id := range ids {
		d, ok, err := s.takeDown(ctx, id)
		if err != nil {
			h.opts.Logger.Error("web approvals: taking down an approval on close failed; it expires in Redis", "instance", h.opts.Instance, "err", err)
		}
		if ok {
			decided[id] = d
		}
	}
	cancel()
	h.mu.Lock()
	for id, w := range h.pending {
		if d, ok := decided[id]; ok {
			h.finish(w, d, nil)
		} else {
			h.finish(w, runner.ApprovalDecision{ID: id}, ErrClosed)
		}
	}
	for sub := range h.subs {
		delete(h.subs, sub)
		close(sub.ch)
	}
	h.mu.Unlock()
	close(s.stop)
	s.ps.Close()
	s.wg.Wait()
	s.c.Close()
}
