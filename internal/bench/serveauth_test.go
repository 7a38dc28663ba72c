package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/server"
)

// Load of BenchmarkServeAuthenticatedClients: authClients clients, each
// with its own token and kept-alive connection, posting back to back for
// authPhase; in the flooded phases, unauthenticated requests arrive at
// floodRate a second on top, spread over floodWorkers senders.
const (
	authClients  = 200
	authPhase    = 300 * time.Millisecond
	authRounds   = 10
	floodRate    = 1000
	floodWorkers = 32
)

// authServe serves `luahook serve`'s handler, with one Lua policy and a
// token for each of clients named clients, through serve's own
// server.Server on a real 127.0.0.1 listener; it returns the hook route's
// URL and the tokens.
func authServe(tb testing.TB, clients int) (string, []string) {
	tb.Helper()
	eng := openDir(tb, map[string]string{"10-bash.lua": fmt.Sprintf(validateHook, "bash")})
	tokens := make([]string, clients)
	var set server.Tokens
	for i := range tokens {
		tokens[i] = fmt.Sprintf("bench-token-%04d-0123456789abcdef", i)
		if err := set.Add(fmt.Sprintf("client-%d", i), tokens[i], "bench"); err != nil {
			tb.Fatal(err)
		}
	}
	h := server.New(eng.Runner(), server.Options{Health: eng.Errors, Auth: &server.Auth{Tokens: &set}})
	srv := server.Limits{}.NewServer(h, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln, nil) }()
	tb.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			tb.Error(err)
		}
	})
	return "http://" + ln.Addr().String() + "/hook", tokens
}

// authLoad is what one phase measured: the authenticated clients'
// latencies, and the flood's refused requests.
type authLoad struct {
	lat     []time.Duration
	elapsed time.Duration
	refused int64
}

// authClient returns the client of n authenticated clients: each keeps its
// connection from phase to phase.
func authClient(n int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n, DisableCompression: true}, Timeout: time.Minute}
}

// authenticatedLoad runs one phase: every token's client posts body to url
// through client until d has passed, each answer 200 with want; with flood,
// unauthenticated requests (no token, a wrong one, text/plain, a foreign
// Origin) come at floodRate a second, each of which must be refused.
func authenticatedLoad(ctx context.Context, client *http.Client, url string, tokens []string, body, want []byte, d time.Duration, flood bool) (authLoad, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	lat := make([][]time.Duration, len(tokens))
	errs := make([]error, len(tokens)+floodWorkers)
	var refused atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for c, token := range tokens {
		wg.Go(func() {
			auth := "Bearer " + token
			buf := make([]byte, 0, 512)
			// The phase's end lets the request in flight finish: a request
			// cancelled would close its connection, and the next phase
			// would open them all again.
			for !phaseOver(ctx) {
				t0 := time.Now()
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				if err != nil {
					errs[c] = err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", auth)
				resp, err := client.Do(req)
				if err != nil {
					errs[c] = err
					return
				}
				b := bytes.NewBuffer(buf[:0])
				_, err = b.ReadFrom(resp.Body)
				resp.Body.Close()
				if err != nil {
					errs[c] = err
					return
				}
				if resp.StatusCode != http.StatusOK || !bytes.Equal(b.Bytes(), want) {
					errs[c] = fmt.Errorf("client %d: answer %d %q", c, resp.StatusCode, b.Bytes())
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		})
	}
	if flood {
		// Every refusal closes its connection, so each flood request
		// costs the server a connection too.
		// Written by hand on a fresh connection each (every refusal
		// closes its connection): the flood's own cost here stays small,
		// so that what moves is what refusing costs serve.
		host := strings.TrimPrefix(url, "http://")
		host, path, _ := strings.Cut(host, "/")
		kinds := make([][]byte, 0, 4)
		for _, hd := range []string{
			"Content-Type: application/json\r\n",
			"Content-Type: application/json\r\nAuthorization: Bearer not-a-token-0123456789\r\n",
			"Content-Type: text/plain\r\nAuthorization: Bearer " + tokens[0] + "\r\n",
			"Content-Type: application/json\r\nAuthorization: Bearer " + tokens[0] + "\r\nOrigin: https://evil.example\r\n",
		} {
			kinds = append(kinds, fmt.Appendf(nil, "POST /%s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %d\r\n\r\n%s", path, host, hd, len(body), body))
		}
		var d net.Dialer
		// One pace for the whole flood, handed to whichever sender is
		// free; a beat no sender is free for is skipped (refused/s says
		// what was sent).
		beats := make(chan int, floodWorkers*4)
		wg.Go(func() {
			// Beats due by the time elapsed, so that a late wake-up sends
			// the ones it missed.
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			defer close(beats)
			due := 0
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				for n := int(time.Since(start).Seconds() * floodRate); due < n; due++ {
					select {
					case beats <- due:
					default:
					}
				}
			}
		})
		for w := range floodWorkers {
			wg.Go(func() {
				answer := make([]byte, 4096)
				for i := range beats {
					code, err := refusedOnce(ctx, &d, host, kinds[i%len(kinds)], answer)
					if err != nil {
						if !phaseOver(ctx) {
							errs[len(tokens)+w] = err
						}
						return
					}
					switch code {
					case "401", "403", "415":
						refused.Add(1)
					default:
						errs[len(tokens)+w] = fmt.Errorf("an unauthenticated request answered %s", code)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	l := authLoad{lat: slices.Concat(lat...), elapsed: time.Since(start), refused: refused.Load()}
	if err := errors.Join(errs...); err != nil {
		return l, err
	}
	if len(l.lat) == 0 {
		return l, errors.New("no decision in time")
	}
	return l, nil
}

// phaseOver reports whether ctx's phase has ended: its error, or its
// deadline passed (a dial with ctx's deadline may fail a moment before
// ctx says so).
func phaseOver(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ctx.Err() != nil || (ok && !time.Now().Before(d))
}

// refusedOnce sends req on a new connection to host and returns the
// status code of the answer, read to the connection's end.
func refusedOnce(ctx context.Context, d *net.Dialer, host string, req, buf []byte) (string, error) {
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Write(req); err != nil {
		return "", err
	}
	if _, err := io.ReadAtLeast(c, buf, len("HTTP/1.1 200")); err != nil {
		return "", err
	}
	code := string(buf[len("HTTP/1.1 "):len("HTTP/1.1 200")])
	_, err = io.Copy(io.Discard, c)
	return code, err
}

// p99 returns the 99th percentile of lat (sorted in place).
func p99(lat []time.Duration) time.Duration {
	slices.Sort(lat)
	return lat[len(lat)*99/100]
}

// BenchmarkServeAuthenticatedClients runs `luahook serve`'s handler and
// server with one Lua policy and 200 named tokens on a real loopback
// listener, under 200 authenticated clients, each on its own kept-alive
// connection (the load generator shares the cores). Phases without and
// with a flood of unauthenticated requests alternate (authRounds of each);
// it reports the decisions per second and the p99 latency of the
// authenticated clients in each, the flood's refusals per second, and
// p99-flood/quiet, the ratio of the two p99s (the flood must not move it
// past 1.2). ns/op is the time of one whole run.
func BenchmarkServeAuthenticatedClients(b *testing.B) {
	url, tokens := authServe(b, authClients)
	client := authClient(authClients)
	defer client.CloseIdleConnections()
	body := payload("bash", `{"command":"go test ./... -run TestRunner -count=1","timeout":120000}`)
	if _, err := authenticatedLoad(context.Background(), client, url, tokens, body, noObjection, 300*time.Millisecond, true); err != nil {
		b.Fatal(err)
	}
	var quiet, flooded authLoad
	for b.Loop() {
		quiet, flooded = authLoad{}, authLoad{}
		for range authRounds {
			for _, flood := range []bool{false, true} {
				l, err := authenticatedLoad(context.Background(), client, url, tokens, body, noObjection, authPhase, flood)
				if err != nil {
					b.Fatal(err)
				}
				into := &quiet
				if flood {
					into = &flooded
				}
				into.lat = append(into.lat, l.lat...)
				into.elapsed += l.elapsed
				into.refused += l.refused
			}
		}
	}
	q, f := p99(quiet.lat), p99(flooded.lat)
	b.ReportMetric(float64(len(quiet.lat))/quiet.elapsed.Seconds(), "decisions/s")
	b.ReportMetric(float64(q.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(flooded.lat))/flooded.elapsed.Seconds(), "flood-decisions/s")
	b.ReportMetric(float64(f.Microseconds())/1000, "flood-p99-ms")
	b.ReportMetric(float64(flooded.refused)/flooded.elapsed.Seconds(), "refused/s")
	b.ReportMetric(float64(f)/float64(q), "p99-flood/quiet")
}

// TestAuthenticatedLoadRefusesTheFloodAndAnswersEveryClient guards the load
// generator: every authenticated client is answered, every flood request
// refused.
func TestAuthenticatedLoadRefusesTheFloodAndAnswersEveryClient(t *testing.T) {
	url, tokens := authServe(t, 8)
	client := authClient(len(tokens))
	defer client.CloseIdleConnections()
	l, err := authenticatedLoad(context.Background(), client, url, tokens, payload("bash", `{"command":"ls"}`), noObjection, 400*time.Millisecond, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.lat) < len(tokens) || l.refused == 0 {
		t.Fatalf("%d decisions, %d refusals", len(l.lat), l.refused)
	}
}
