package redisstore

import (
	"sync/atomic"
	"time"
)

type op uint8

// The calls a store counts, in Metrics order.
const (
	opGet op = iota
	opSet
	opIncr
	opDelete
	opPing
	opLedger // a session ledger operation, one script (ledger.go)
	numOps
)

var opNames = [numOps]string{"get", "set", "incr", "delete", "ping", "ledger"}

type result uint8

const (
	resultOK result = iota
	resultError
	resultTimeout
	numResults
)

// LatencyBuckets are the upper bounds, in seconds, of the latency
// histogram's buckets (a call slower than the last counts in the sum and the
// count only, as Prometheus's +Inf bucket).
var LatencyBuckets = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}

// Metrics are what a Store counted since it was made, one OpMetrics per
// kind of call: get, set, incr, delete, ping, and its breaker's state. They
// are meant for luahook_store_calls_total{op,result},
// luahook_store_call_duration_seconds{op},
// luahook_store_breaker_state{state} and
// luahook_store_breaker_trips_total.
type Metrics struct {
	Ops []OpMetrics
	// Breaker is the breaker's state: "closed" (calls go to the server),
	// "open" (they fail at once) or "half-open" (one call tries the
	// server, the others fail at once).
	Breaker string
	// BreakerTrips counts the times the breaker opened after calls in a
	// row failed (a failed try while half-open is not counted again).
	BreakerTrips uint64
}

// OpMetrics counts one kind of call.
type OpMetrics struct {
	Op string // "get", "set", "incr", "delete", "ping" or "ledger" (one operation of the session ledger)
	// Calls by result: "ok", "error" (the server refused, or could not be
	// reached) and "timeout" (no answer, or no free connection, before the
	// deadline), and "unavailable" (failed at once by the open breaker,
	// without going to the server).
	OK, Errors, Timeouts, Unavailable uint64
	// Buckets[i] counts the calls that went to the server and took at
	// most LatencyBuckets[i] seconds (cumulative, as Prometheus's le
	// buckets); Sum is their total duration in seconds and Count their
	// number (Unavailable calls are not among them).
	Buckets [len(LatencyBuckets)]uint64
	Sum     float64
	Count   uint64
}

// metrics are a Store's counters, updated without a lock.
type metrics struct {
	calls   [numOps][numResults]atomic.Uint64
	buckets [numOps][len(LatencyBuckets)]atomic.Uint64 // not cumulative; Metrics sums them
	nanos   [numOps]atomic.Uint64
	refusal [numOps]atomic.Uint64 // calls the breaker failed at once
}

// refused counts a call of o that the breaker failed at once.
func (m *metrics) refused(o op) { m.refusal[o].Add(1) }

func (m *metrics) observe(o op, r result, d time.Duration) {
	m.calls[o][r].Add(1)
	m.nanos[o].Add(uint64(max(d, 0)))
	sec := d.Seconds()
	for i, le := range LatencyBuckets {
		if sec <= le {
			m.buckets[o][i].Add(1)
			break
		}
	}
}

// Metrics returns what the store counted so far.
func (s *Store) Metrics() Metrics {
	m := &s.metrics
	out := Metrics{Ops: make([]OpMetrics, numOps),
		Breaker: breakerStateNames[s.brk.state.Load()], BreakerTrips: s.brk.trips.Load()}
	for o := range numOps {
		om := OpMetrics{Op: opNames[o],
			OK: m.calls[o][resultOK].Load(), Errors: m.calls[o][resultError].Load(), Timeouts: m.calls[o][resultTimeout].Load(),
			Unavailable: m.refusal[o].Load()}
		om.Count = om.OK + om.Errors + om.Timeouts
		om.Sum = time.Duration(m.nanos[o].Load()).Seconds()
		var cum uint64
		for i := range LatencyBuckets {
			cum += m.buckets[o][i].Load()
			om.Buckets[i] = cum
		}
		out.Ops[o] = om
	}
	return out
}
