package modules

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/store"
)

// A whole LedgerCounts keeps the store's limits as its Get, Set and Incr
// do: a counter that would pass MaxKeys is refused with the store's
// *store.LimitError, the counters before it counted and reported, and
// nothing of it written; and it keeps its bookkeeping (Counters) exact.
func TestLedgerCountsKeepsTheStoresKeyLimit(t *testing.T) {
	s := NewStore()
	t.Cleanup(s.Close)
	s.SetLimits(store.Limits{MaxKeys: 5})
	ctx := context.Background()
	item := func(name string) store.LedgerCounter {
		return store.LedgerCounter{Idx: "x" + name, Key: "k" + name, Delta: 1, Window: time.Hour}
	}
	req := store.LedgerCountsRequest{Counters: "n", MaxCounters: 10, TTL: time.Hour,
		Items: []store.LedgerCounter{item("a"), item("b"), item("c")}}
	// n, xa, ka, xb, kb: five keys; c's bookkeeping is the sixth
	reply, err := s.LedgerCounts(ctx, req)
	var le *store.LimitError
	if !errors.As(err, &le) || le.Limit != "MaxKeys" {
		t.Fatalf("a sixth key in a store of five: %v, want a MaxKeys *store.LimitError", err)
	}
	if !reflect.DeepEqual(reply.Totals, []float64{1, 1}) {
		t.Errorf("totals %v, want [1 1] (the counters before the refusal)", reply.Totals)
	}
	if st := s.Stats(); st.Keys != 5 {
		t.Errorf("the store holds %d keys, want 5", st.Keys)
	}
	if v, _, _ := s.Get(ctx, "n"); v != float64(3) {
		// c was counted in the bookkeeping before its write was refused,
		// as the generic code's Incr then Set does
		t.Errorf("the count of counters is %v, want 3", v)
	}
	if err := CheckStore(s); err != nil {
		t.Fatal(err)
	}
}

// The calls LedgerCounts reads are the last req.Calls of the ring, each
// the value stored in its slot, a value that is not a table as nil.
func TestLedgerCountsReadsTheLastCalls(t *testing.T) {
	s := NewStore()
	t.Cleanup(s.Close)
	ctx := context.Background()
	if err := s.Set(ctx, "ks", float64(5), 0); err != nil {
		t.Fatal(err)
	}
	for slot, v := range map[string]any{"kc0": json.RawMessage(`{"seq":5}`), "kc2": "text", "kc3": json.RawMessage(`{"seq":4}`)} {
		if err := s.Set(ctx, slot, v, 0); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := s.LedgerCounts(ctx, store.LedgerCountsRequest{Counters: "n", MaxCounters: 1, TTL: time.Hour,
		Items: []store.LedgerCounter{{Idx: "x", Key: "k", Window: time.Hour}}, CallsKey: "ks", CallsPrefix: "kc",
		Ring: 4, Calls: 3, MaxEntry: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := store.LedgerCountsReply{Totals: []float64{0}, Refused: -1, CallsCount: 5, CallsPresent: true, First: 3,
		Entries: []json.RawMessage{nil, json.RawMessage(`{"seq":4}`), json.RawMessage(`{"seq":5}`)}}
	if !reflect.DeepEqual(reply, want) {
		t.Errorf("got  %+v\nwant %+v", reply, want)
	}
}
