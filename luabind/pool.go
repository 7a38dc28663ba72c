package luabind

import (
	"context"
	"sync"
)

// pool holds the states of one file. It never holds more than max states:
// a token in sem stands for each busy state, idle states hold none, and a state
// is built only when a caller holds a token and no idle state is left.
//
// A retired pool (File.Close) keeps serving: a call that arrives after
// retirement, typically one that read the registry just before a reload
// swapped the file out, gets a state as usual (building a fresh one from the
// compiled chunk, since retirement closed the idle ones), and the state is
// closed when the call returns. A retired pool never keeps a state.
type pool struct {
	sem  chan struct{}
	grow func(context.Context) (*state, error)

	mu        sync.Mutex // guards the fields below
	idle      []*state
	busy      int
	created   int
	discarded int
	retired   bool
}

func newPool(max int, grow func(context.Context) (*state, error)) *pool {
	return &pool{sem: make(chan struct{}, max), grow: grow}
}

// adopt puts an already built state (the one that loaded the file) in the pool.
func (p *pool) adopt(st *state) {
	p.mu.Lock()
	p.created++
	if p.retired {
		p.mu.Unlock()
		st.close()
		return
	}
	p.idle = append(p.idle, st)
	p.mu.Unlock()
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
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		st := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.busy++
		p.mu.Unlock()
		return st, nil
	}
	p.busy++
	p.mu.Unlock()
	st, err := p.grow(ctx)
	p.mu.Lock()
	if err != nil {
		p.busy--
	} else {
		p.created++
	}
	p.mu.Unlock()
	if err != nil {
		<-p.sem
		return nil, err
	}
	return st, nil
}

// put returns a state that is fit for another call; a retired pool closes it.
func (p *pool) put(st *state) {
	p.mu.Lock()
	p.busy--
	if p.retired {
		p.mu.Unlock()
		st.close()
	} else {
		p.idle = append(p.idle, st)
		p.mu.Unlock()
	}
	<-p.sem
}

// discard closes a state that must not run again (timeout, cancel, error).
func (p *pool) discard(st *state) {
	p.mu.Lock()
	p.busy--
	p.discarded++
	p.mu.Unlock()
	st.close()
	<-p.sem
}

// retire closes the idle states and makes put close every state that comes
// back from now on. It is idempotent.
func (p *pool) retire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retired = true
	for i, st := range p.idle {
		st.close()
		p.idle[i] = nil
	}
	p.idle = nil
}

func (p *pool) stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Idle: len(p.idle), Busy: p.busy, Created: p.created, Discarded: p.discarded, Retired: p.retired}
}
