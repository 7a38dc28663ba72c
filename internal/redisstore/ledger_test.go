package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/redisstore/redistest"
	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/ledger"
)

// generic hides a store's ledger scripts: a ledger over it runs the
// ledger's generic code, a Get, Set or Incr at a time.
type generic struct{ store.Backend }

// ledgerStore is a Redis store on a fresh redis-server, closed when t ends.
func ledgerStore(t testing.TB, srv *redistest.Server, prefix string, l store.Limits) *redisstore.Store {
	t.Helper()
	s, err := redisstore.New(redisstore.Options{Address: srv.Addr(), KeyPrefix: prefix, Limits: l, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// roundTrips is how many calls the store sent to its server so far.
func roundTrips(s *redisstore.Store) uint64 {
	var n uint64
	for _, op := range s.Metrics().Ops {
		n += op.Count
	}
	return n
}

// Every operation of the ledger on a Redis store is one round trip: a
// script the server runs whole (or, for has and a count's read, one GET),
// where the generic code takes two to five.
func TestEveryLedgerOperationIsOneRoundTrip(t *testing.T) {
	srv := redistest.Start(t)
	s := ledgerStore(t, srv, "rt:", store.Limits{})
	lg := ledger.New(s, ledger.Limits{MaxCalls: 4})
	g := ledger.New(generic{s}, ledger.Limits{MaxCalls: 4})
	ctx := context.Background()
	ops := []struct {
		name string
		do   func(*ledger.Ledger) error
	}{
		{"mark a new label", func(lg *ledger.Ledger) error {
			_, err := lg.Mark(ctx, "s", "private-data", "read ~/.ssh/id_rsa")
			return err
		}},
		{"mark a held label", func(lg *ledger.Ledger) error { _, err := lg.Mark(ctx, "s", "private-data", "read .env"); return err }},
		{"has", func(lg *ledger.Ledger) error { _, _, err := lg.Has(ctx, "s", "private-data"); return err }},
		{"marks", func(lg *ledger.Ledger) error { _, err := lg.Marks(ctx, "s"); return err }},
		{"count a new counter", func(lg *ledger.Ledger) error { _, err := lg.Count(ctx, "s", "calls", 0, 1); return err }},
		{"count a known counter", func(lg *ledger.Ledger) error { _, err := lg.Count(ctx, "s", "calls", 0, 1); return err }},
		{"read a count", func(lg *ledger.Ledger) error { _, err := lg.Count(ctx, "s", "calls", 0, 0); return err }},
		{"record a call", func(lg *ledger.Ledger) error {
			return lg.Record(ctx, "s", ledger.Call{Tool: "Bash", Event: "PostToolUse", OK: true, Summary: "ls", Digest: "d"})
		}},
		{"calls", func(lg *ledger.Ledger) error { _, err := lg.Calls(ctx, "s", 0); return err }},
		{"counts and the last calls", func(lg *ledger.Ledger) error {
			totals, calls, err := lg.Counts(ctx, "s", []ledger.CountOp{{Name: "calls", Delta: 1}, {Name: "start"}, {Name: "shell", Delta: 1}}, 2)
			if err == nil && (len(totals) != 3 || totals[1] != 0 || len(calls) == 0) {
				err = fmt.Errorf("counts = %v, %d calls", totals, len(calls))
			}
			return err
		}},
	}
	genericTrips := 0
	for _, op := range ops {
		before := roundTrips(s)
		if err := op.do(lg); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		if n := roundTrips(s) - before; n != 1 {
			t.Errorf("%s took %d round trips, want 1", op.name, n)
		}
		before = roundTrips(s)
		if err := op.do(g); err != nil {
			t.Fatalf("%s (generic): %v", op.name, err)
		}
		genericTrips += int(roundTrips(s) - before)
	}
	// The generic code is what the scripts replace: it takes more.
	if genericTrips <= len(ops)+len(ops)/2 {
		t.Errorf("the generic ledger took %d round trips for %d operations; the test no longer compares anything", genericTrips, len(ops))
	}
	t.Logf("%d operations: %d round trips scripted, %d generic", len(ops), len(ops), genericTrips)
}

// A ledger kept through the scripts is the ledger the generic code keeps:
// each reads what the other wrote, and both refuse at the same bounds.
func TestScriptedAndGenericLedgersReadEachOther(t *testing.T) {
	srv := redistest.Start(t)
	s := ledgerStore(t, srv, "both:", store.Limits{})
	lim := ledger.Limits{MaxMarks: 4, MaxCalls: 3, MaxBytes: 200}
	sc, g := ledger.New(s, lim), ledger.New(generic{s}, lim)
	ctx := context.Background()
	mustMark := func(lg *ledger.Ledger, label, detail string) {
		t.Helper()
		if _, err := lg.Mark(ctx, "s", label, detail); err != nil {
			t.Fatalf("mark %s: %v", label, err)
		}
	}
	mustMark(g, "a", "one")
	mustMark(sc, "b", "two")
	mustMark(sc, "a", "one, again")
	mustMark(g, "b", "two, again")
	mustMark(sc, "c", "")
	ms, err1 := sc.Marks(ctx, "s")
	mg, err2 := g.Marks(ctx, "s")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !reflect.DeepEqual(ms, mg) {
		t.Fatalf("the two read different marks:\nscripted %+v\ngeneric  %+v", ms, mg)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s=%s@%d", m.Label, m.Detail, m.Slot))
	}
	if want := []string{"a=one, again@1", "b=two, again@2", "c=@3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("marks %v, want %v", got, want)
	}
	for _, lg := range []*ledger.Ledger{sc, g} {
		m, ok, err := lg.Has(ctx, "s", "b")
		if err != nil || !ok || m.Detail != "two, again" || m.Slot != 2 {
			t.Errorf("has b = %+v %v %v", m, ok, err)
		}
	}
	// The bytes: a..c hold 1+10 + 1+10 + 1 = 23 of 200; a detail of 180
	// passes them whichever code writes it, and changes nothing.
	long := string(make([]byte, 180))
	var le *ledger.LimitError
	for name, lg := range map[string]*ledger.Ledger{"scripted": sc, "generic": g} {
		if _, err := lg.Mark(ctx, "s", "d", long); !errors.As(err, &le) || le.Limit != "ledger_max_bytes" {
			t.Errorf("%s: a mark past ledger_max_bytes: %v", name, err)
		}
	}
	mustMark(g, "d", "fits")
	for name, lg := range map[string]*ledger.Ledger{"scripted": sc, "generic": g} {
		if _, err := lg.Mark(ctx, "s", "e", ""); !errors.As(err, &le) || le.Limit != "ledger_max_marks" {
			t.Errorf("%s: a fifth mark of four: %v", name, err)
		}
	}
	// After the refusals, one more byte and then the rest up to 200 fit:
	// nothing was left counted.
	mustMark(sc, "a", string(make([]byte, 200-(1+1+10+1+4)-1)))

	// Counters: the same count, and the same bound on their number.
	for i := range 6 {
		lg := []*ledger.Ledger{sc, g}[i%2]
		n, err := lg.Count(ctx, "s", "calls", time.Hour, 1)
		if err != nil || n != float64(i+1) {
			t.Fatalf("count %d = %v, %v", i+1, n, err)
		}
	}
	for i := range 3 {
		if _, err := []*ledger.Ledger{sc, g}[i%2].Count(ctx, "s", fmt.Sprint("c", i), time.Hour, 1); err != nil {
			t.Fatal(err)
		}
	}
	for name, lg := range map[string]*ledger.Ledger{"scripted": sc, "generic": g} {
		if _, err := lg.Count(ctx, "s", "one too many", time.Hour, 1); !errors.As(err, &le) || le.Limit != "ledger_max_counters" {
			t.Errorf("%s: a fifth counter of four: %v", name, err)
		}
	}

	// Calls: a ring of 3, written by both in turn, read alike by both.
	for i := range 7 {
		lg := []*ledger.Ledger{sc, g}[i%2]
		if err := lg.Record(ctx, "s", ledger.Call{Tool: "Bash", Event: "PostToolUse", OK: i%3 != 0, Summary: fmt.Sprint("echo ", i), Digest: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	cs, err1 := sc.Calls(ctx, "s", 0)
	cg, err2 := g.Calls(ctx, "s", 0)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !reflect.DeepEqual(cs, cg) {
		t.Fatalf("the two read different calls:\nscripted %+v\ngeneric  %+v", cs, cg)
	}
	var seqs []string
	for _, c := range cs {
		seqs = append(seqs, fmt.Sprintf("%d:%s:%v", c.Seq, c.Summary, c.OK))
	}
	if want := []string{"5:echo 4:true", "6:echo 5:true", "7:echo 6:false"}; !reflect.DeepEqual(seqs, want) {
		t.Errorf("calls %v, want %v", seqs, want)
	}
	last2, err := sc.Calls(ctx, "s", 2)
	if err != nil || len(last2) != 2 || last2[0].Seq != 6 {
		t.Errorf("the last 2 calls = %+v, %v", last2, err)
	}
	// Another session sees none of it.
	if ms, err := sc.Marks(ctx, "t"); err != nil || len(ms) != 0 {
		t.Errorf("session t's marks = %v, %v", ms, err)
	}
}

// A list longer than one reply holds (the marks of a session allowed
// more than a reply's values) is read in pages, whole and in order.
func TestALedgerListPastOneReplyIsReadWhole(t *testing.T) {
	srv := redistest.Start(t)
	s := ledgerStore(t, srv, "pages:", store.Limits{})
	const n = 1500
	lg := ledger.New(s, ledger.Limits{MaxMarks: n, MaxBytes: 1 << 20})
	ctx := context.Background()
	for i := range n {
		if _, err := lg.Mark(ctx, "s", fmt.Sprint("label-", i), "x"); err != nil {
			t.Fatal(err)
		}
	}
	before := roundTrips(s)
	marks, err := lg.Marks(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if trips := roundTrips(s) - before; trips != 2 {
		t.Errorf("%d marks read in %d round trips, want 2 pages", n, trips)
	}
	if len(marks) != n {
		t.Fatalf("read %d marks, want %d", len(marks), n)
	}
	for i, m := range marks {
		if m.Label != fmt.Sprint("label-", i) || m.Slot != int64(i+1) {
			t.Fatalf("mark %d is %+v", i, m)
		}
	}
}

// Replicas marking one session at once each take a slot of their own, and
// the bound holds exactly: the scripts run whole on the server.
func TestConcurrentMarksThroughTheScriptsHoldTheBound(t *testing.T) {
	srv := redistest.Start(t)
	const max = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for w := range 4 {
		s := ledgerStore(t, srv, "conc:", store.Limits{})
		lg := ledger.New(s, ledger.Limits{MaxMarks: max})
		wg.Go(func() {
			for i := range 15 {
				_, err := lg.Mark(context.Background(), "s", fmt.Sprintf("w%d-%d", w, i), "d")
				var le *ledger.LimitError
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case errors.As(err, &le):
					refused++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != max || refused != 60-max {
		t.Errorf("%d marks made and %d refused, want %d and %d", ok, refused, max, 60-max)
	}
	lg := ledger.New(ledgerStore(t, srv, "conc:", store.Limits{}), ledger.Limits{MaxMarks: max})
	marks, err := lg.Marks(context.Background(), "s")
	if err != nil || len(marks) != max {
		t.Fatalf("the session holds %d marks (%v), want %d", len(marks), err, max)
	}
	for i, m := range marks {
		if m.Slot != int64(i+1) {
			t.Errorf("mark %s in slot %d at place %d", m.Label, m.Slot, i+1)
		}
	}
}

// A ledger write past the store's limits is refused before anything is
// sent, as a Set is.
func TestLedgerScriptsCheckTheLimitsFirst(t *testing.T) {
	srv := redistest.Start(t)
	s := ledgerStore(t, srv, "lim:", store.Limits{MaxKeyBytes: 64})
	lg := ledger.New(s, ledger.Limits{})
	ctx := context.Background()
	before := roundTrips(s)
	var le *store.LimitError
	if _, err := lg.Mark(ctx, "s", "a-label-long-enough-to-pass-the-key-limit-with-the-prefix", "d"); !errors.As(err, &le) || le.Limit != "MaxKeyBytes" {
		t.Errorf("a mark whose key is past MaxKeyBytes: %v", err)
	}
	if _, err := lg.Count(ctx, "s", "a-counter-long-enough-to-pass-the-key-limit-with-the-prefix", time.Hour, 1); !errors.As(err, &le) {
		t.Errorf("a count whose key is past MaxKeyBytes: %v", err)
	}
	if n := roundTrips(s) - before; n != 0 {
		t.Errorf("%d round trips for writes refused by the limits, want 0", n)
	}
}

// BenchmarkLedgerRedis times each ledger operation on a local
// redis-server, through the scripts and through the generic code (what a
// backend without them runs), and reports the round trips of each.
func BenchmarkLedgerRedis(b *testing.B) {
	srv := redistest.Start(b)
	s := ledgerStore(b, srv, "bench:", store.Limits{})
	ctx := context.Background()
	for _, kind := range []string{"scripted", "generic"} {
		var lg *ledger.Ledger
		if kind == "scripted" {
			lg = ledger.New(s, ledger.Limits{})
		} else {
			lg = ledger.New(generic{s}, ledger.Limits{})
		}
		session := "bench-" + kind
		if _, err := lg.Mark(ctx, session, "private-data", "read ~/.ssh/id_rsa"); err != nil {
			b.Fatal(err)
		}
		for i := range 40 {
			if err := lg.Record(ctx, session, ledger.Call{Tool: "Bash", Event: "PostToolUse", OK: true, Summary: fmt.Sprint("make test ", i), Digest: "0123456789abcdef0123456789abcdef"}); err != nil {
				b.Fatal(err)
			}
		}
		ops := []struct {
			name string
			do   func() error
		}{
			{"has", func() error { _, _, err := lg.Has(ctx, session, "private-data"); return err }},
			{"mark", func() error { _, err := lg.Mark(ctx, session, "private-data", "read .env"); return err }},
			{"count", func() error { _, err := lg.Count(ctx, session, "calls", 0, 1); return err }},
			{"record", func() error {
				return lg.Record(ctx, session, ledger.Call{Tool: "Bash", Event: "PostToolUse", OK: true, Summary: "make test", Digest: "0123456789abcdef0123456789abcdef"})
			}},
			{"calls2", func() error { _, err := lg.Calls(ctx, session, 2); return err }},
			{"calls", func() error { _, err := lg.Calls(ctx, session, 0); return err }},
		}
		for _, op := range ops {
			b.Run(kind+"/"+op.name, func(b *testing.B) {
				before := roundTrips(s)
				b.ReportAllocs()
				for b.Loop() {
					if err := op.do(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(roundTrips(s)-before)/float64(b.N), "roundtrips/op")
			})
		}
	}
}

// With a small value limit, a page holds what that limit allows in bytes:
// the list is read whole, in as many round trips as its bytes need, and no
// reply passes what the store's guard lets a reply hold.
func TestALedgerListIsPagedByTheValueLimit(t *testing.T) {
	srv := redistest.Start(t)
	s := ledgerStore(t, srv, "bytes:", store.Limits{MaxValueBytes: 2048})
	lg := ledger.New(s, ledger.Limits{MaxBytes: 1 << 20})
	ctx := context.Background()
	const n = 20
	detail := strings.Repeat("d", 300)
	for i := range n {
		if _, err := lg.Mark(ctx, "s", fmt.Sprint("label-", i), detail); err != nil {
			t.Fatal(err)
		}
	}
	before := roundTrips(s)
	marks, err := lg.Marks(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	// 20 marks of ~360 bytes, 2,048 a page: 5 marks a page, 4 pages.
	if trips := roundTrips(s) - before; trips < 4 || trips > 5 {
		t.Errorf("%d marks of ~360 bytes read in %d round trips with a value limit of 2 KiB, want 4 or 5", n, trips)
	}
	if len(marks) != n {
		t.Fatalf("read %d marks, want %d", len(marks), n)
	}
	for i, m := range marks {
		if m.Label != fmt.Sprint("label-", i) || m.Detail != detail {
			t.Fatalf("mark %d is %+v", i, m)
		}
	}
}
