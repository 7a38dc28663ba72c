package luabind

import (
	"context"
	"errors"
	"testing"
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
		got, err := p.get(context.Background())
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
