package luabind

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// errOverloaded is the error of a wait for a state that ran out.
var errOverloaded = errors.New("no Lua state became free in time")

// pool holds the states of one file. It never holds more than max states:
// live counts the states built and not yet closed, and a caller builds one
// only by raising live from below max. A caller that finds no idle state
// while max are alive waits for one to come back.
//
// A call touches only its own P's memory: idle states wait in shards, one
// per P, each with its own lock and busy count; a call takes a state from
// its own P's shard and gives it back there, so a state's memory stays in
// one core's cache instead of bouncing between cores with every call. A
// caller whose shard is empty takes an idle state from another shard before
// building one. (A shared semaphore channel and busy counter, written by
// every call, made two cores barely faster than one.)
//
// Waiting: a caller that must wait registers in waiters, in arrival
// order, and then looks again. A state that comes back while callers wait
// is handed to the longest-waiting one (put sends it on the waiter's
// channel), so that callers arriving meanwhile find nothing idle and queue
// behind: under a flood of new calls, a waiting caller is served in its
// turn. A put that finds no waiter pushes the state before it reads nwait,
// and a waiter raises nwait before it looks again, so one of them sees the
// other: no waiter sleeps while a state is idle. A state closed (discard,
// a failed build, retirement) frees a slot instead: the longest waiter is
// woken with no state, and looks again (it may build one). A waiter that
// leaves with something it did not use (it found a state on its own, or its
// wait ended) passes it on.
//
// A retired pool (File.Close) keeps serving: a call that arrives after
// retirement, typically one that read the registry just before a reload
// swapped the file out, gets a state as usual (building a fresh one from the
// compiled chunk, since retirement closed the idle ones), and the state is
// closed when the call returns. A retired pool never keeps a state.
type pool struct {
	max    int64
	grow   func(context.Context) (*state, error)
	shards []shard
	// home hands each P the index of its shard: sync.Pool keeps what a P
	// put back in that P's own slot, so a P draws the same index call after
	// call. A collection empties it, and P's then draw fresh indexes.
	home sync.Pool
	next atomic.Uint32

	// Read by every call, written rarely (a state built or closed, a caller
	// starting or ending a wait, retirement).
	retired atomic.Bool
	live    atomic.Int64
	nwait   atomic.Int32

	wmu     sync.Mutex
	waiters []chan *state // each buffered: a state handed over, or nil to look again

	// beforeRegister, when set (tests only), runs between a caller's
	// finding nothing and its registering as a waiter.
	beforeRegister func()

	created   atomic.Int64
	discarded atomic.Int64
}

// shard is one P's idle states and its count of calls in progress, padded to
// two cache lines of its own (cores fetch lines in pairs). A call counts
// itself in the shard it started on and ends in the shard it returns to, so
// one shard's count may go below zero; the sum is the number of busy states.
type shard struct {
	mu   sync.Mutex
	idle []*state
	busy atomic.Int64
	_    [128 - 8 - 24 - 8]byte // two lines: a core prefetches pairs
}

func newPool(max int, grow func(context.Context) (*state, error)) *pool {
	p := &pool{max: int64(max), grow: grow, shards: make([]shard, runtime.GOMAXPROCS(0))}
	p.home.New = func() any {
		i := int(p.next.Add(1)-1) % len(p.shards)
		return &i
	}
	return p
}

// shard returns the calling P's shard.
func (p *pool) shard() *shard {
	h := p.home.Get().(*int)
	s := &p.shards[*h]
	p.home.Put(h)
	return s
}

// adopt puts an already built state (the one that loaded the file) in the pool.
func (p *pool) adopt(st *state) {
	p.created.Add(1)
	p.live.Add(1)
	p.keep(p.shard(), st)
}

// keep hands a state that is free again to the longest waiter, or puts it
// idle in s, or closes it if the pool is retired. The flag is read under the
// shard's lock, and retire sets it before taking each shard's lock, so a
// state is either seen by retire or closed here. Either way a waiter is
// woken: it takes the state, or builds one in its place.
func (p *pool) keep(s *shard, st *state) {
	if p.nwait.Load() > 0 && p.handOff(st) {
		return
	}
	s.mu.Lock()
	if p.retired.Load() {
		s.mu.Unlock()
		p.live.Add(-1)
		st.close()
	} else {
		s.idle = append(s.idle, st)
		s.mu.Unlock()
	}
	if p.nwait.Load() > 0 {
		p.wakeOne()
	}
}

// take pops an idle state from s, or returns nil.
func (s *shard) take() *state {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.idle)
	if n == 0 {
		return nil
	}
	st := s.idle[n-1]
	s.idle[n-1] = nil
	s.idle = s.idle[:n-1]
	return st
}

// get returns an idle state, or builds one, or waits for one until ctx is
// done or, when wait is positive, for at most wait: a wait that runs out
// returns errOverloaded.
func (p *pool) get(ctx context.Context, wait time.Duration) (*state, error) {
	home := p.shard()
	home.busy.Add(1)
	st, err := p.acquire(ctx, home, wait)
	if err != nil {
		home.busy.Add(-1)
	}
	return st, err
}

// acquire takes an idle state, builds one while fewer than max are alive, or
// waits.
func (p *pool) acquire(ctx context.Context, home *shard, wait time.Duration) (*state, error) {
	var (
		w     chan *state // the caller's wake-up channel, once it waits
		timer *time.Timer
		out   <-chan time.Time
	)
	for {
		if st, err := p.takeOrBuild(ctx, home); st != nil || err != nil {
			return st, err
		}
		// Nothing idle and max alive: register, then look once more (a
		// state may have come back before the registration was seen).
		if w == nil {
			w = make(chan *state, 1)
			if wait > 0 {
				timer = time.NewTimer(wait)
				defer timer.Stop()
				out = timer.C
			}
		}
		if p.beforeRegister != nil {
			p.beforeRegister()
		}
		p.wmu.Lock()
		p.waiters = append(p.waiters, w)
		p.nwait.Add(1)
		p.wmu.Unlock()
		if st, err := p.takeOrBuild(ctx, home); st != nil || err != nil {
			if got := p.leave(w); got != nil {
				p.keep(home, got) // handed one as well: pass it on
			}
			return st, err
		}
		select {
		case st := <-w: // unregistered by the waker
			if st != nil {
				return st, nil
			}
		case <-out:
			if st := p.leave(w); st != nil {
				return st, nil // handed over as the wait ran out
			}
			return nil, errOverloaded
		case <-ctx.Done():
			if st := p.leave(w); st != nil {
				p.keep(home, st)
			}
			return nil, contextFailure(ctx, "while waiting for a free Lua state (all busy)")
		}
	}
}

// takeOrBuild takes an idle state, or builds one if fewer than max are
// alive; neither a state nor an error means max are alive and none is idle.
func (p *pool) takeOrBuild(ctx context.Context, home *shard) (*state, error) {
	for {
		if st := p.takeIdle(home); st != nil {
			return st, nil
		}
		n := p.live.Load()
		if n >= p.max {
			return nil, nil
		}
		if !p.live.CompareAndSwap(n, n+1) {
			continue
		}
		st, err := p.grow(ctx)
		if err != nil {
			p.live.Add(-1)
			if p.nwait.Load() > 0 {
				p.wakeOne() // the slot is free again
			}
			return nil, err
		}
		p.created.Add(1)
		return st, nil
	}
}

// leave unregisters w. If a waker already took w off the list, what it sent
// was not used: a state is returned to the caller, and a wake-up with no
// state goes to the next waiter.
func (p *pool) leave(w chan *state) *state {
	p.wmu.Lock()
	for i, x := range p.waiters {
		if x == w {
			p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
			p.nwait.Add(-1)
			p.wmu.Unlock()
			return nil
		}
	}
	p.wmu.Unlock()
	st := <-w // the waker's send is buffered: drain it so w is clean
	if st == nil {
		p.wakeOne()
	}
	return st
}

// handOff gives st to the longest-waiting caller, and reports whether there
// was one.
func (p *pool) handOff(st *state) bool {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if len(p.waiters) == 0 {
		return false
	}
	p.popWaiter() <- st
	return true
}

// wakeOne wakes the longest-waiting caller, if any, to look again.
func (p *pool) wakeOne() {
	p.wmu.Lock()
	if len(p.waiters) > 0 {
		p.popWaiter() <- nil
	}
	p.wmu.Unlock()
}

// popWaiter takes the longest-waiting caller off the list; p.wmu is held.
func (p *pool) popWaiter() chan *state {
	w := p.waiters[0]
	p.waiters[0] = nil
	p.waiters = p.waiters[1:]
	p.nwait.Add(-1)
	return w
}

// takeIdle takes an idle state from the caller's shard, or from any other.
func (p *pool) takeIdle(home *shard) *state {
	if st := home.take(); st != nil {
		return st
	}
	for i := range p.shards {
		if s := &p.shards[i]; s != home {
			if st := s.take(); st != nil {
				return st
			}
		}
	}
	return nil
}

// put returns a state that is fit for another call to the caller's shard; a
// retired pool closes it.
func (p *pool) put(st *state) {
	s := p.shard()
	s.busy.Add(-1)
	p.keep(s, st)
}

// discard closes a state that must not run again (timeout, cancel, error).
func (p *pool) discard(st *state) {
	p.shard().busy.Add(-1)
	p.discarded.Add(1)
	p.live.Add(-1)
	st.close()
	if p.nwait.Load() > 0 {
		p.wakeOne() // a waiter may build a state in its place
	}
}

// retire closes the idle states and makes put close every state that comes
// back from now on. It is idempotent.
func (p *pool) retire() {
	p.retired.Store(true)
	for i := range p.shards {
		s := &p.shards[i]
		s.mu.Lock()
		for j, st := range s.idle {
			p.live.Add(-1)
			st.close()
			s.idle[j] = nil
		}
		s.idle = nil
		s.mu.Unlock()
	}
}

func (p *pool) stats() Stats {
	idle, busy := 0, int64(0)
	for i := range p.shards {
		s := &p.shards[i]
		s.mu.Lock()
		idle += len(s.idle)
		s.mu.Unlock()
		busy += s.busy.Load()
	}
	return Stats{Idle: idle, Busy: int(busy), Created: int(p.created.Load()), Discarded: int(p.discarded.Load()), Retired: p.retired.Load()}
}
