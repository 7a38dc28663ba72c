package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/server"
)

// Load of BenchmarkServeThroughput: clients keep-alive connections, each
// posting payloads back to back for loadDuration.
const (
	loadClients  = 8
	loadDuration = 2 * time.Second
)

// loadStats is what one run of the load generator measured.
type loadStats struct {
	decisions int
	elapsed   time.Duration
	p50, p99  time.Duration
}

func (s loadStats) rate() float64 { return float64(s.decisions) / s.elapsed.Seconds() }

// serveEngine starts `luahook serve`'s handler over an engine with one Lua
// policy on a real 127.0.0.1 listener and returns its base URL
// (http://127.0.0.1:PORT): the hook protocol is on /hook, Claude Code's on
// /agent/claude.
func serveEngine(tb testing.TB) string {
	tb.Helper()
	eng := openDir(tb, map[string]string{"10-bash.lua": fmt.Sprintf(validateHook, "bash")})
	return serveHandler(tb, server.New(eng.Runner(), server.Options{Health: eng.Errors}))
}

// serveHandler serves h on a real 127.0.0.1 listener until the benchmark
// ends and returns its base URL (http://127.0.0.1:PORT).
func serveHandler(tb testing.TB, h http.Handler) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	tb.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			tb.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// noObjection is the answer when the policy lets the call through without
// an explicit allow, on the hook protocol and every agent path.
var noObjection = []byte("{}\n")

// generateLoad posts body to url from clients goroutines, each on its own
// keep-alive connection, until d has passed, and measures every decision;
// every answer must be 200 with the body want.
func generateLoad(ctx context.Context, url string, body, want []byte, clients int, d time.Duration) (loadStats, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	lat := make([][]time.Duration, clients)
	errs := make([]error, clients)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			buf := make([]byte, 0, 512)
			for ctx.Err() == nil {
				t0 := time.Now()
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
				if err != nil {
					errs[c] = err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errs[c] = err
					}
					return
				}
				b := bytes.NewBuffer(buf[:0])
				_, err = b.ReadFrom(resp.Body)
				resp.Body.Close()
				if err != nil {
					if ctx.Err() == nil {
						errs[c] = err
					}
					return
				}
				if resp.StatusCode != http.StatusOK || !bytes.Equal(b.Bytes(), want) {
					errs[c] = fmt.Errorf("answer %d %q", resp.StatusCode, b.Bytes())
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		})
	}
	wg.Wait()
	st := loadStats{elapsed: time.Since(start)}
	if err := errors.Join(errs...); err != nil {
		return st, err
	}
	all := slices.Concat(lat...)
	if len(all) == 0 {
		return st, errors.New("no decision in time")
	}
	slices.Sort(all)
	st.decisions = len(all)
	st.p50 = all[len(all)/2]
	st.p99 = all[len(all)*99/100]
	return st, nil
}

// BenchmarkServeThroughput runs `luahook serve`'s handler with one Lua policy
// on a real loopback listener under a load generator in the same process:
// loadClients keep-alive clients for loadDuration. It reports decisions per
// second and the p50 and p99 latency a client saw; ns/op is the time of one
// whole run.
func BenchmarkServeThroughput(b *testing.B) {
	body := payload("bash", `{"command":"go test ./... -run TestRunner -count=1","timeout":120000}`)
	serveLoad(b, serveEngine(b)+"/hook", body, noObjection)
}

// BenchmarkServeClaudeThroughput is BenchmarkServeThroughput on Claude
// Code's HTTP-hook protocol (POST /agent/claude, Claude's own PreToolUse
// payload, "{}" back): what `luahook install claude --http` wires.
func BenchmarkServeClaudeThroughput(b *testing.B) {
	body := []byte(`{"session_id":"abc123","transcript_path":"/home/dev/.claude/projects/p/abc123.jsonl","cwd":"/home/dev/project",` +
		`"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"go test ./... -run TestRunner -count=1","timeout":120000},"tool_use_id":"toolu_01ABC123"}`)
	serveLoad(b, serveEngine(b)+"/agent/claude", body, noObjection)
}

// serveLoad runs the load generator against url and reports decisions per
// second and the p50 and p99 latency a client saw.
func serveLoad(b *testing.B, url string, body, want []byte) {
	// Warm up: states built, connections open.
	if _, err := generateLoad(context.Background(), url, body, want, loadClients, 200*time.Millisecond); err != nil {
		b.Fatal(err)
	}
	var st loadStats
	for b.Loop() {
		var err error
		if st, err = generateLoad(context.Background(), url, body, want, loadClients, loadDuration); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(st.rate(), "decisions/s")
	b.ReportMetric(float64(st.p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(st.p99.Microseconds())/1000, "p99-ms")
}

// TestServeAnswersEveryClientUnderLoad guards the load generator itself:
// against a real serve handler, every client gets decisions, none fails.
func TestServeAnswersEveryClientUnderLoad(t *testing.T) {
	url := serveEngine(t) + "/hook"
	st, err := generateLoad(context.Background(), url, payload("bash", `{"command":"ls"}`), noObjection, 4, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if st.decisions < 4 || st.p99 < st.p50 {
		t.Fatalf("%+v", st)
	}
}
