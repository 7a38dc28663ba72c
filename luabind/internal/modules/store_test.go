package modules

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/store"
)

// fakeClock is a store clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func fakeStore(l store.Limits) (*Store, *fakeClock) {
	c := &fakeClock{now: time.Unix(1000, 0)}
	s := &Store{now: c.Now}
	s.SetLimits(l)
	return s, c
}

// checkStore verifies the store's bookkeeping (CheckStore): its byte
// count, and that the expiry heap holds exactly the entries with a TTL, in
// heap order.
func checkStore(t *testing.T, s *Store) {
	t.Helper()
	if err := CheckStore(s); err != nil {
		t.Fatal(err)
	}
}

func TestStoreLimitErrorsAreTyped(t *testing.T) {
	s := NewStore()
	s.SetLimits(store.Limits{MaxKeys: 1})
	if err := s.Set(context.Background(), "a", 1.0, 0); err != nil {
		t.Fatal(err)
	}
	var le *store.LimitError
	if err := s.Set(context.Background(), "b", 1.0, 0); !errors.As(err, &le) || le.Limit != "MaxKeys" || le.Max != 1 || le.Key != "b" {
		t.Errorf("Set past MaxKeys = %v, want a *store.LimitError on MaxKeys", err)
	}
	if _, err := s.Incr(context.Background(), strings.Repeat("k", 2000), 1, 0); !errors.As(err, &le) || le.Limit != "MaxKeyBytes" || le.Size != 2000 || len(le.Key) != 64 {
		t.Errorf("Incr of a long key = %v, want a *store.LimitError on MaxKeyBytes with the key cut", err)
	}
}

// The default limit on the number of keys holds through the Go API too.
func TestStoreRefusesTheKeyPastDefaultMaxKeys(t *testing.T) {
	s := NewStore()
	for i := range store.DefaultMaxKeys {
		if err := s.Set(context.Background(), fmt.Sprint(i), true, 0); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
	}
	if err := s.Set(context.Background(), "one more", true, 0); err == nil || !strings.Contains(err.Error(), "its limit of 100000 keys") {
		t.Fatalf("key %d: %v, want refused", store.DefaultMaxKeys+1, err)
	}
	if err := s.Set(context.Background(), "0", "replacing a key adds none", 0); err != nil {
		t.Errorf("replacing a key at the limit: %v", err)
	}
}

// A full store never evicts a live entry to make room: a rate limiter's
// counter evicted would be its limit reset.
func TestStoreNeverEvictsLiveEntriesWhenFull(t *testing.T) {
	s, clock := fakeStore(store.Limits{MaxKeys: 10})
	for i := range 10 {
		if _, err := s.Incr(context.Background(), fmt.Sprint("calls:", i), 5, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(30 * time.Second)
	if _, err := s.Incr(context.Background(), "calls:new", 1, time.Minute); err == nil {
		t.Fatal("an 11th key was stored in a store of 10")
	}
	for i := range 10 {
		if n, err := s.Incr(context.Background(), fmt.Sprint("calls:", i), 1, time.Minute); err != nil || n != 6 {
			t.Errorf("counter %d = %v, %v after a refused write, want 6", i, n, err)
		}
	}
}

// When a write would pass a limit, expired entries are dropped first and
// the write goes through if that makes room.
func TestStoreDropsExpiredEntriesBeforeRefusing(t *testing.T) {
	s, clock := fakeStore(store.Limits{MaxKeys: 100, MaxBytes: 100 * 20})
	for i := range 100 {
		if err := s.Set(context.Background(), fmt.Sprintf("old%02d", i), strings.Repeat("x", 15), time.Second); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Second)
	for i := range 100 {
		if err := s.Set(context.Background(), fmt.Sprintf("new%02d", i), strings.Repeat("y", 15), 0); err != nil {
			t.Fatalf("write %d over expired entries: %v", i, err)
		}
	}
	if st := s.Stats(); st != (StoreStats{Keys: 100, Bytes: 2000}) {
		t.Errorf("stats %+v, want the 100 new keys only", st)
	}
	checkStore(t, s)
}

// Entries with a TTL are removed within storeSweepInterval of their expiry
// though nothing reads nor writes them: their count and bytes go down.
func TestStoreExpiresEntriesWithoutReads(t *testing.T) {
	s := NewStore()
	defer s.Close()
	for i := range 1000 {
		if err := s.Set(context.Background(), fmt.Sprintf("session:%04d", i), strings.Repeat("x", 100), 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Set(context.Background(), "forever", "v", 0); err != nil {
		t.Fatal(err)
	}
	want := StoreStats{Keys: 1, Bytes: len("forever") + 1}
	deadline := time.Now().Add(20*time.Millisecond + 4*storeSweepInterval + time.Second)
	for s.Stats() != want {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v %v after the entries expired, want %+v", s.Stats(), time.Until(deadline), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	checkStore(t, s)
}

// A flood of distinct keys with a TTL keeps the store at what is live: each
// write drops expired entries, and a full store drops them all first.
func TestStoreStaysBoundedUnderAFloodOfExpiringKeys(t *testing.T) {
	s, clock := fakeStore(store.Limits{MaxKeys: 64})
	peak := 0
	for i := range 100_000 {
		if _, err := s.Incr(context.Background(), fmt.Sprint("bash-calls:", i), 1, 10*time.Millisecond); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		clock.Advance(time.Millisecond)
		peak = max(peak, s.Stats().Keys)
	}
	// At most 10 keys are live at once; a write drops up to writeSweep
	// expired ones, more than the one that expires per write.
	if peak > 11 {
		t.Errorf("the store held up to %d keys, want at most the 11 live ones", peak)
	}
	checkStore(t, s)
}

// The sweeper is a timer, not a goroutine: an idle store costs none, and
// Close stops it, leaving the store usable (writes still drop expired
// entries).
func TestStoreCloseStopsTheSweeper(t *testing.T) {
	before := runtime.NumGoroutine()
	s := NewStore()
	for i := range 100 {
		if err := s.Set(context.Background(), fmt.Sprint(i), 1.0, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Set(context.Background(), "soon", 1.0, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if g := goroutinesSettle(before); g > before {
		t.Errorf("%d goroutines with a sweeper armed, %d before", g, before)
	}
	s.Close()
	s.Close()
	time.Sleep(storeSweepInterval + 100*time.Millisecond)
	if n := s.Stats().Keys; n != 101 {
		t.Errorf("%d keys: the sweeper ran after Close", n)
	}
	if err := s.Set(context.Background(), "after close", 1.0, 0); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Keys != 101 || st.Expiring != 100 {
		t.Errorf("stats %+v after a write past the expiry, want the expired entry dropped", st)
	}
	if g := goroutinesSettle(before); g > before {
		t.Errorf("%d goroutines after Close, %d before", g, before)
	}
}

// goroutinesSettle returns the number of goroutines once it is at most
// want, or after 2 s: a store another test of the package left open runs
// its sweeper on a goroutine of its own for the moment its timer fires,
// which a single count can catch; a goroutine this test's store kept would
// still be there.
func goroutinesSettle(want int) int {
	deadline := time.Now().Add(2 * time.Second)
	g := runtime.NumGoroutine()
	for g > want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		g = runtime.NumGoroutine()
	}
	return g
}

func TestStoreSweepsExpiredEntries(t *testing.T) {
	now := time.Unix(1000, 0)
	s := &Store{now: func() time.Time { return now }}
	for i := 0; i < 5000; i++ {
		if err := s.Set(context.Background(), strings.Repeat("k", 1+i%7)+string(rune('a'+i%26))+time.Duration(i).String(), "v", time.Millisecond); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Millisecond)
	}
	if n := s.Stats().Keys; n > 2100 {
		t.Errorf("%d entries kept of 5000 that expired one by one, want them swept", n)
	}
}

// BenchmarkStoreIncr is a rate limiter's call: a counter with a TTL, counted
// once per call, in a store holding 10,000 other such counters.
func BenchmarkStoreIncr(b *testing.B) {
	s := NewStore()
	defer s.Close()
	for i := range 10_000 {
		s.Incr(context.Background(), fmt.Sprint("calls:", i), 1, time.Minute)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Incr(context.Background(), "calls:42", 1, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreSetNewKeys writes distinct keys with a short TTL: the
// store's worst case, where each write creates an entry and expires others.
func BenchmarkStoreSetNewKeys(b *testing.B) {
	s := NewStore()
	defer s.Close()
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprint("session:", i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.Set(context.Background(), keys[i%len(keys)], "v", time.Millisecond); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
