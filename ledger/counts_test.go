package ledger_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/redisstore/redistest"
	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind"
)

// countLedgers are ledgers over each way a count is kept: the in-process
// store whole (its LedgerCounts), the same a call at a time, and Redis
// through its scripts, each over a store of its own.
func countLedgers(t *testing.T, l ledger.Limits) map[string]*ledger.Ledger {
	t.Helper()
	whole, oneAtATime := luabind.NewStore(), luabind.NewStore()
	t.Cleanup(whole.Close)
	t.Cleanup(oneAtATime.Close)
	srv := redistest.Start(t)
	rs, err := redisstore.New(redisstore.Options{Address: srv.Addr(), KeyPrefix: "t:", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	return map[string]*ledger.Ledger{"whole": ledger.New(whole, l), "one-by-one": ledger.New(oneByOne{whole}, l),
		"redis": ledger.New(rs, l)}
}

// The cap on a session's counters (ledger_max_counters: MaxMarks) holds
// exactly however the counts are kept: a Counts that names one counter too
// many is refused at it, those before it counted, and the counter refused
// is refused again on its own while the ones counted keep counting.
func TestTheCounterCapIsExactThroughEveryBackend(t *testing.T) {
	ctx := context.Background()
	for name, lg := range countLedgers(t, ledger.Limits{MaxMarks: 3}) {
		s, other := "s-"+name, "other-"+name // "whole" and "one-by-one" share a store
		ops := []ledger.CountOp{{Name: "a", Delta: 1}, {Name: "b", Delta: 1}, {Name: "c", Delta: 2}, {Name: "d", Delta: 1}}
		_, _, err := lg.Counts(ctx, s, ops, 2)
		var le *ledger.LimitError
		if !errors.As(err, &le) || le.Limit != "ledger_max_counters" || le.Label != "d" || le.Max != 3 {
			t.Fatalf("%s: a fourth counter of three: %v, want ledger_max_counters on d", name, err)
		}
		totals, _, err := lg.Counts(ctx, s, ops[:3], 2)
		if err != nil || !reflect.DeepEqual(totals, []float64{2, 2, 4}) {
			t.Errorf("%s: the three counters under the cap: %v %v, want [2 2 4] (counted before the refusal too)", name, totals, err)
		}
		for range 3 {
			if _, err := lg.Count(ctx, s, "d", 0, 1); !errors.As(err, &le) {
				t.Fatalf("%s: d counted past the cap: %v", name, err)
			}
			if _, err := lg.Count(ctx, s, "a", time.Hour, 1); !errors.As(err, &le) {
				t.Fatalf("%s: a over another window is another counter, counted past the cap: %v", name, err)
			}
		}
		if n, err := lg.Count(ctx, other, "d", 0, 1); err != nil || n != 1 {
			t.Errorf("%s: another session's first counter: %v %v, want 1", name, n, err)
		}
	}
}

// Counters counted at once from many goroutines, each new, are held to
// the cap exactly: MaxMarks of them are counted, every other refused.
func TestConcurrentNewCountersHoldTheCap(t *testing.T) {
	ctx := context.Background()
	for name, lg := range countLedgers(t, ledger.Limits{MaxMarks: 10}) {
		var counted, refused atomic.Int64
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 5 {
					c := "c" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
					_, _, err := lg.Counts(ctx, "s-"+name, []ledger.CountOp{{Name: c, Delta: 1}, {Name: "read"}}, 1)
					var le *ledger.LimitError
					switch {
					case err == nil:
						counted.Add(1)
					case errors.As(err, &le):
						refused.Add(1)
					default:
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if counted.Load() != 10 || refused.Load() != 30 {
			t.Errorf("%s: %d new counters counted and %d refused under a cap of 10, want 10 and 30", name, counted.Load(), refused.Load())
		}
	}
}

// The in-process store answers a whole count as the generic code does a
// call at a time, and as Redis does: the same totals, refusals, calls read
// and journal, for a sequence of counts, records and reads.
func TestEveryBackendCountsAlike(t *testing.T) {
	type result struct {
		Totals  []float64
		Calls   []string
		Err     string
		Journal []string
	}
	run := func(lg *ledger.Ledger, session string) []result {
		var out []result
		ctx := context.Background()
		for i := range 12 {
			jctx, j := ledger.NewJournal(ctx)
			var r result
			ops := []ledger.CountOp{{Name: "calls", Delta: 1}, {Name: "start"}, {Name: "n" + strconv.Itoa(i%5), Delta: float64(i)}}
			totals, last, err := lg.Counts(jctx, session, ops, 1+i%3)
			r.Totals = totals
			if err != nil {
				r.Err = err.Error()
			}
			for _, c := range last {
				r.Calls = append(r.Calls, c.Tool+"/"+c.Summary+"/"+strconv.FormatBool(c.OK)+"/"+strconv.FormatInt(c.Seq, 10))
			}
			for _, e := range j.Entries() {
				r.Journal = append(r.Journal, e.String())
			}
			if i%2 == 0 {
				if err := lg.Record(ctx, session, ledger.Call{Tool: "Bash", Summary: "make " + strconv.Itoa(i), OK: i%4 == 0}); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, r)
		}
		return out
	}
	lgs := countLedgers(t, ledger.Limits{MaxMarks: 5, MaxCalls: 4})
	want := run(lgs["one-by-one"], "generic")
	refused, read := 0, 0
	for _, r := range want {
		refused += min(len(r.Err), 1)
		read += min(len(r.Calls), 1)
	}
	if refused < 2 || read < 2 {
		t.Fatalf("the sequence is refused %d times and reads calls %d times; it compares little: %+v", refused, read, want)
	}
	for _, name := range []string{"whole", "redis"} {
		got := run(lgs[name], "s-"+name)
		for i := range want {
			w, g := want[i], got[i]
			if name == "redis" && w.Err != "" {
				// a server's script answers no totals with its refusal
				w.Totals, w.Journal = nil, nil
				g.Journal = nil
			}
			if !reflect.DeepEqual(w, g) {
				t.Errorf("%s, count %d:\n got %+v\nwant %+v", name, i, g, w)
			}
		}
	}
}

// A ledger remembers the keys of the counters of the session last asked
// for: they are the session's own, built for the window counted over (a
// window of 0 is MaxAge as it is when counted), so that another session,
// or the same counter after MaxAge changed, counts in its own key.
func TestRememberedCounterKeysFollowTheSessionAndTheWindow(t *testing.T) {
	ctx := context.Background()
	for name, lg := range countLedgers(t, ledger.Limits{MaxAge: time.Hour}) {
		for i, s := range []string{"a", "a", "b", "a", "b"} {
			totals, _, err := lg.Counts(ctx, name+"-"+s, []ledger.CountOp{{Name: "n", Delta: 1}}, 0)
			want := map[string][]float64{"a": {1, 2, 0, 3}, "b": {0, 0, 1, 0, 2}}[s][i]
			if err != nil || totals[0] != want {
				t.Fatalf("%s: call %d, session %s: %v %v, want %v", name, i, s, totals, err, want)
			}
		}
		lg.SetLimits(ledger.Limits{MaxAge: 2 * time.Hour})
		if n, err := lg.Count(ctx, name+"-a", "n", 0, 1); err != nil || n != 1 {
			t.Errorf("%s: the session's counter over the new MaxAge: %v %v, want 1 (a counter of its own)", name, n, err)
		}
		if n, err := lg.Count(ctx, name+"-a", "n", time.Hour, 0); err != nil || n != 3 {
			t.Errorf("%s: the counter over the old MaxAge: %v %v, want 3", name, n, err)
		}
	}
}

var _ store.Backend = oneByOne{}
