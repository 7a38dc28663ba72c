package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bareRound is how long each side of BenchmarkServeBareThroughput runs in
// one round, and bareRounds how many rounds one iteration runs.
const (
	bareRound  = 250 * time.Millisecond
	bareRounds = 7
)

// bareDecision is the floor a serve answer cannot go under: a plain net/http
// handler that decodes the payload with encoding/json and makes validateHook's
// decision in Go.
func bareDecision(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Event     string `json:"event"`
		ToolName  string `json:"toolName"`
		ToolInput struct {
			Command string `json:"command"`
		} `json:"toolInput"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	answer := struct {
		Action string `json:"action,omitempty"`
		Reason string `json:"reason,omitempty"`
	}{} // no objection
	if in.ToolName == "bash" && strings.Contains(in.ToolInput.Command, "rm -rf") {
		answer.Action, answer.Reason = "deny", "no"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer)
}

// BenchmarkServeBareThroughput runs one load generator (loadClients
// keep-alive clients, the same payload bytes) against a bare net/http
// handler making the decision in Go (bareDecision) and against `luahook
// serve`'s handler with one Lua policy making it (validateHook), both on
// real 127.0.0.1 listeners in the same process, alternating bareRound of
// each for bareRounds rounds per iteration. It reports the median decisions
// per second of each side, serve/bare (the median of the rounds' ratios:
// the two sides of a round run back to back, so a burst of other work on a
// shared machine spoils one round, not the figure) and the median p99
// latency of each side.
func BenchmarkServeBareThroughput(b *testing.B) {
	body := payload("bash", `{"command":"go test ./... -run TestRunner -count=1","timeout":120000}`)
	sides := []struct {
		url string
		st  []loadStats
	}{
		{url: serveHandler(b, http.HandlerFunc(bareDecision)) + "/hook"},
		{url: serveEngine(b) + "/hook"},
	}
	for _, s := range sides {
		if _, err := generateLoad(context.Background(), s.url, body, noObjection, loadClients, 200*time.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		for round := range bareRounds {
			for k := range sides {
				s := &sides[(round+k)%len(sides)]
				st, err := generateLoad(context.Background(), s.url, body, noObjection, loadClients, bareRound)
				if err != nil {
					b.Fatal(err)
				}
				s.st = append(s.st, st)
			}
		}
	}
	rate := func(sts []loadStats) float64 {
		vs := make([]float64, len(sts))
		for i, st := range sts {
			vs[i] = st.rate()
		}
		return oneShotMedian(vs)
	}
	p99 := func(sts []loadStats) float64 {
		vs := make([]float64, len(sts))
		for i, st := range sts {
			vs[i] = float64(st.p99.Microseconds()) / 1000
		}
		return oneShotMedian(vs)
	}
	ratios := make([]float64, len(sides[0].st))
	for i := range ratios {
		ratios[i] = sides[1].st[i].rate() / sides[0].st[i].rate()
	}
	b.ReportMetric(rate(sides[0].st), "bare-decisions/s")
	b.ReportMetric(rate(sides[1].st), "serve-decisions/s")
	b.ReportMetric(oneShotMedian(ratios), "serve/bare")
	b.ReportMetric(p99(sides[0].st), "bare-p99-ms")
	b.ReportMetric(p99(sides[1].st), "serve-p99-ms")
}

// TestBareDecisionAnswersAsServe guards the floor's fairness: on the
// payload BenchmarkServeBareThroughput sends, and on one the policy
// denies, the bare handler answers what serve answers, byte for byte.
func TestBareDecisionAnswersAsServe(t *testing.T) {
	bare := serveHandler(t, http.HandlerFunc(bareDecision)) + "/hook"
	lua := serveEngine(t) + "/hook"
	for _, cmd := range []string{`"go test ./... -count=1"`, `"rm -rf /"`} {
		body := payload("bash", `{"command":`+cmd+`}`)
		var want []byte
		for _, url := range []string{lua, bare} {
			resp, err := http.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %v", url, resp.StatusCode, err)
			}
			if want == nil {
				want = got
			} else if string(got) != string(want) {
				t.Errorf("%s: bare answers %q, serve %q", cmd, got, want)
			}
		}
	}
}
