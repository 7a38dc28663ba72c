package luabind

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// pool holds the states of one file. It never holds more than max states:
// a token in sem stands for each busy state, idle states hold none, and a state
// is built only when a caller holds a token and no idle state is left.
//
// Idle states wait in shards, one per P: a call takes a state from its own
// P's shard first, and gives it back there, so that a state's memory stays
// in one core's cache instead of bouncing between cores with every call
// (one shared stack made two cores slower than one). A caller whose shard is
// empty takes an idle state from another shard before building one.
//
// A retired pool (File.Close) keeps serving: a call that arrives after
// retirement, typically one that read the registry just before a reload
// swapped the file out, gets a state as usual (building a fresh one from the
// compiled chunk, since retirement closed the idle ones), and the state is
// closed when the call returns. A retired pool never keeps a state.
type pool struct {
	sem    chan struct{}
	grow   func(context.Context) (*state, error)
	shards []shard
	// home hands each P the index of its shard: sync.Pool keeps what a P
	// put back in that P's own slot, so a P draws the same index call after
	// call. A collection empties it, and P's then draw fresh indexes.
	home sync.Pool
	next atomic.Uint32

	retired   atomic.Bool
	live      atomic.Int64 // states built and not closed
	busy      atomic.Int64
	created   atomic.Int64
	discarded atomic.Int64
}

// shard is one P's idle states, padded to its own cache lines.
type shard struct {
	mu   sync.Mutex
	idle []*state
	_    [32]byte // 64 bytes in all
}

func newPool(max int, grow func(context.Context) (*state, error)) *pool {
	p := &pool{sem: make(chan struct{}, max), grow: grow, shards: make([]shard, runtime.GOMAXPROCS(0))}
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

// keep puts an idle state in s, or closes it if the pool is retired. The
// flag is read under the shard's lock, and retire sets it before taking each
// shard's lock, so a state is either seen by retire or closed here.
func (p *pool) keep(s *shard, st *state) {
	s.mu.Lock()
	if p.retired.Load() {
		s.mu.Unlock()
		p.live.Add(-1)
		st.close()
		return
	}
	s.idle = append(s.idle, st)
	s.mu.Unlock()
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

// get returns an idle state, or builds one, or waits for one until ctx is done.
func (p *pool) get(ctx context.Context) (*state, error) {
	select {
	case p.sem <- struct{}{}:
	default:
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, contextFailure(ctx, "while waiting for a free Lua state (all busy)")
		}
	}
	p.busy.Add(1)
	home := p.shard()
	for {
		if st := p.takeIdle(home); st != nil {
			return st, nil
		}
		// Build a state only while fewer than max exist. With max alive and
		// this caller holding a token, fewer than max are busy elsewhere, so
		// one is idle, or about to be: a scan can miss a state that another
		// caller put back in a shard already scanned while a third took the
		// one ahead. Look again.
		if n := p.live.Load(); n < int64(cap(p.sem)) {
			if !p.live.CompareAndSwap(n, n+1) {
				continue
			}
			st, err := p.grow(ctx)
			if err != nil {
				p.live.Add(-1)
				p.busy.Add(-1)
				<-p.sem
				return nil, err
			}
			p.created.Add(1)
			return st, nil
		}
		runtime.Gosched()
	}
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
	p.busy.Add(-1)
	p.keep(p.shard(), st)
	<-p.sem
}

// discard closes a state that must not run again (timeout, cancel, error).
func (p *pool) discard(st *state) {
	p.busy.Add(-1)
	p.discarded.Add(1)
	p.live.Add(-1)
	st.close()
	<-p.sem
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
	idle := 0
	for i := range p.shards {
		s := &p.shards[i]
		s.mu.Lock()
		idle += len(s.idle)
		s.mu.Unlock()
	}
	return Stats{Idle: idle, Busy: int(p.busy.Load()), Created: int(p.created.Load()), Discarded: int(p.discarded.Load()), Retired: p.retired.Load()}
}
