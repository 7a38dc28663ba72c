package luabind

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// A caller whose own shard is empty takes an idle state from any other shard
// before it builds a new one, and gives it back to its own.
func TestPoolTakesAnIdleStateFromAnyShardBeforeBuildingOne(t *testing.T) {
	grown := 0
	p := newPool(4, func(context.Context) (*state, error) {
		grown++
		return nil, errors.New("built a state while one was idle")
	})
	p.shards = make([]shard, 4) // as on a 4-core machine
	st := &state{}
	for i := range p.shards {
		for j := range p.shards {
			p.shards[j].idle = nil
		}
		p.shards[i].idle = []*state{st}
		got, err := p.get(context.Background(), 0)
		if err != nil || got != st {
			t.Fatalf("idle state in shard %d: got %p, %v", i, got, err)
		}
		p.put(got)
		if n := p.stats().Idle; n != 1 {
			t.Fatalf("%d idle states after put, want 1", n)
		}
	}
	if grown != 0 {
		t.Fatalf("built %d states", grown)
	}
	if s := p.stats(); s.Busy != 0 || s.Idle != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// Callers that wait for a state, some of them giving up while they wait,
// never deadlock and never raise the pool past max: every state that comes
// back, and every wake-up a leaving waiter did not use, reaches a waiter.
func TestPoolWaitersGivingUpNeverStrandTheOthers(t *testing.T) {
	const max, callers, rounds = 2, 16, 300
	var built atomic.Int64
	p := barePool(max, &built)
	var inUse atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if (c+r)%3 == 0 {
					// A third of the waits end early, many while registered.
					ctx, cancel = context.WithTimeout(ctx, time.Duration(r%50)*time.Microsecond)
				}
				st, err := p.get(ctx, 0)
				cancel()
				if err != nil {
					continue
				}
				if n := inUse.Add(1); n > max {
					errs <- fmt.Errorf("%d states in use at once, max %d", n, max)
				}
				runtime.Gosched()
				inUse.Add(-1)
				if r%17 == 0 {
					p.discard(st) // a waiter builds one in its place
				} else {
					p.put(st)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("callers still waiting after 30 s: a wake-up was lost (stats %+v, %d waiting)", p.stats(), p.nwait.Load())
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if s := p.stats(); s.Busy != 0 || s.Idle > max || p.live.Load() > max || p.nwait.Load() != 0 {
		t.Errorf("stats %+v, live %d, waiting %d after every caller left", s, p.live.Load(), p.nwait.Load())
	}
	if built.Load() < 2 {
		t.Errorf("built %d states", built.Load())
	}
}

// A state that comes back between a caller's finding nothing and its
// registering as a waiter wakes nobody (no one is registered yet): the
// caller looks again after registering, and takes it.
func TestPoolCallerLooksAgainAfterRegistering(t *testing.T) {
	p := barePool(1, nil)
	held, err := p.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	p.beforeRegister = func() {
		p.beforeRegister = nil
		p.put(held)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := p.get(ctx, 0)
	if err != nil || got != held {
		t.Fatalf("get = %p, %v; want the state put back while it registered", got, err)
	}
}

// A waiter that leaves with what it was sent and did not use (its wait
// ended as it came) passes it to the next waiter: a state handed over, or a
// wake-up to build one in place of a discarded state.
func TestPoolLeavingWaiterPassesItsWakeUpOn(t *testing.T) {
	for _, discard := range []bool{false, true} {
		t.Run(fmt.Sprintf("discard=%v", discard), func(t *testing.T) {
			p := barePool(1, nil)
			held, err := p.get(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			// A registers first, then B waits behind it.
			a := make(chan *state, 1)
			p.wmu.Lock()
			p.waiters = append(p.waiters, a)
			p.nwait.Add(1)
			p.wmu.Unlock()
			got := make(chan *state, 1)
			go func() {
				st, _ := p.get(context.Background(), 0)
				got <- st
			}()
			for p.nwait.Load() != 2 {
				time.Sleep(time.Millisecond)
			}
			if discard {
				p.discard(held) // wakes A, the longest waiting, to build one
			} else {
				p.put(held) // hands the state to A
			}
			// A gives up without looking, as acquire does when its wait ends.
			if st := p.leave(a); st != nil {
				p.keep(p.shard(), st)
			}
			select {
			case st := <-got:
				if st == nil || (!discard && st != held) {
					t.Errorf("B got %p, want the state put back (or a new one)", st)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("B still waits: what A was sent was lost")
			}
		})
	}
}

// A state that comes back while callers wait goes to the longest-waiting
// caller, not to one that arrives just then: under a flood of new calls, a
// caller that waits is served in its turn instead of starving until its
// timeout.
func TestPoolHandsAReturnedStateToTheLongestWaiter(t *testing.T) {
	p := barePool(1, nil)
	held, err := p.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *state, 1)
	go func() {
		st, _ := p.get(context.Background(), 0)
		got <- st
	}()
	for p.nwait.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	p.put(held)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if st, err := p.get(ctx, 0); err == nil {
		t.Fatalf("a caller arriving as the state came back took it (%p) ahead of the waiting caller", st)
	}
	select {
	case st := <-got:
		if st != held {
			t.Errorf("the waiter got %p, want the state put back", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter never got the state")
	}
}

// barePool is a pool of up to max bare Lua states, counting the states it
// builds in built (when not nil).
func barePool(max int, built *atomic.Int64) *pool {
	return newPool(max, func(context.Context) (*state, error) {
		if built != nil {
			built.Add(1)
		}
		return &state{L: lua.NewState(lua.Options{SkipOpenLibs: true})}, nil
	})
}
