package shim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/otheruser"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/relay"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/internal/unixsock"
)

// payload is what the agent sends on standard input.
const payload = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`

// handedOut and handedErr are what the stand-in luahook writes, and
// handedCode its exit status: none of them is anything luahook-fire or a
// server would write itself.
const (
	handedOut  = "handed over\n"
	handedErr  = "luahook stand-in\n"
	handedCode = 3
)

// shortDir makes a folder with a short path (a Unix socket's path must stay
// under about 100 bytes, which t.TempDir's may not) and removes it after t.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "us")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// socketPath is a path for a socket, in a folder of its own.
func socketPath(t *testing.T) string {
	return filepath.Join(shortDir(t), "s")
}

// standIn is a stand-in for luahook: a shell script that records its
// arguments and standard input, writes handedOut and handedErr and exits
// with handedCode.
type standIn struct{ dir, path string }

// writeScript writes an executable shell script of body at dir/name.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func newStandIn(t *testing.T, dir string) *standIn {
	t.Helper()
	q := "'" + dir + "'"
	// cat and mv by their paths: tests set PATH to find luahook alone.
	cat, mv := lookPath(t, "cat"), lookPath(t, "mv")
	p := writeScript(t, dir, "luahook", cat+` > `+q+`/stdin
for a in "$@"; do printf '%s\0' "$a"; done > `+q+`/argv.tmp
`+mv+` `+q+`/argv.tmp `+q+`/argv
printf '`+strings.TrimSuffix(handedOut, "\n")+`\n'
printf '`+strings.TrimSuffix(handedErr, "\n")+`\n' >&2
exit `+strconv.Itoa(handedCode)+`
`)
	return &standIn{dir, p}
}

// handTo is the program runMain hands over to: the test build's way to
// point luahook-fire at a stand-in (Main itself finds luahook only next to
// its executable or on PATH). "" hands over to nothing: the call is blocked.
var handTo string

// useLuahook has runMain hand over to path until t ends.
func useLuahook(t *testing.T, path string) {
	t.Helper()
	handTo = path
	t.Cleanup(func() { handTo = "" })
}

// lookPath returns the absolute path of the program name.
func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		p, err = filepath.Abs(p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// useStandIn points luahook-fire at a new stand-in for t.
func useStandIn(t *testing.T) *standIn {
	s := newStandIn(t, t.TempDir())
	useLuahook(t, s.path)
	return s
}

func (s *standIn) ran() bool {
	_, err := os.Stat(filepath.Join(s.dir, "argv"))
	return err == nil
}

// check fails t unless the stand-in ran once Main returned: it got in
// the payload, and as its arguments fire, want and
// --http-timeout with a duration in (0, maxLeft]; and Main passed on its
// output and exit status and wrote nothing of its own.
func (s *standIn) check(t *testing.T, code int, stdout, stderr string, in []byte, want []string, maxLeft time.Duration) {
	t.Helper()
	if !s.ran() {
		t.Fatalf("luahook was not handed the call: Main = %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code != handedCode {
		t.Errorf("Main = %d, want luahook's exit status %d", code, handedCode)
	}
	if stdout != handedOut {
		t.Errorf("stdout %q, want luahook's %q", stdout, handedOut)
	}
	if stderr != handedErr {
		t.Errorf("stderr %q, want luahook's %q", stderr, handedErr)
	}
	if err := sameBytes(filepath.Join(s.dir, "stdin"), in); err != nil {
		t.Errorf("luahook's stdin: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(s.dir, "argv"))
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	head := append([]string{"fire"}, want...)
	if len(argv) != len(head)+2 || !slices.Equal(argv[:len(head)], head) || argv[len(head)] != "--http-timeout" {
		t.Fatalf("luahook's arguments %q, want %q then --http-timeout DURATION", argv, head)
	}
	left, err := time.ParseDuration(argv[len(argv)-1])
	if err != nil || left <= 0 || left > maxLeft {
		t.Errorf("--http-timeout %q (%v, %v), want a duration in (0, %v]", argv[len(argv)-1], left, err, maxLeft)
	}
}

// sameBytes returns nil when the file at path holds want, and else what
// differs. It reads the file a piece at a time: want may be megabytes.
func sameBytes(path string, want []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return sameStream(f, want)
}

// sameStream returns nil when r holds want to its end, and else what
// differs.
func sameStream(r io.Reader, want []byte) error {
	buf := make([]byte, 64<<10)
	off := 0
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if off+n > len(want) || !bytes.Equal(buf[:n], want[off:off+n]) {
				return fmt.Errorf("differs from the %d bytes wanted (%.40q...) within bytes %d to %d: %.40q...", len(want), want, off, off+n, buf[:n])
			}
			off += n
		}
		if err == io.EOF {
			if off != len(want) {
				return fmt.Errorf("%d bytes, want %d (%.40q...)", off, len(want), want)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// runMain runs Main on in with args and returns its exit status, output
// and how long it took.
func runMain(args []string, in []byte) (code int, stdout, stderr string, took time.Duration) {
	var out, errb bytes.Buffer
	start := time.Now()
	code = run(args, bytes.NewReader(in), &out, &errb, func() (string, error) {
		if handTo == "" {
			return "", errors.New("no luahook for this test")
		}
		return handTo, nil
	})
	return code, out.String(), errb.String(), time.Since(start)
}

// serveHTTP serves h on a socket at path that unixsock.Listen makes, as
// luahook serve --socket does, until t ends.
func serveHTTP(t *testing.T, path string, h http.Handler) {
	t.Helper()
	ln, err := unixsock.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
}

// serveRaw runs handle on each connection to a socket at path until t
// ends; a handle that waits for stop returns then.
func serveRaw(t *testing.T, path string, handle func(c net.Conn, stop <-chan struct{})) {
	t.Helper()
	ln, err := unixsock.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				handle(c, stop)
			})
		}
	})
	t.Cleanup(func() {
		close(stop)
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
}

// readRequest reads a whole HTTP request from c, so that what is written
// next is the answer to it.
func readRequest(c net.Conn) error {
	r, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, r.Body)
	return err
}

// rawAnswer serves answer, written as is, to each request.
func rawAnswer(answer string) func(net.Conn, <-chan struct{}) {
	return func(c net.Conn, _ <-chan struct{}) {
		if readRequest(c) == nil {
			io.WriteString(c, answer)
		}
	}
}

// relayJSON is the body the server answers with for r, as server.Relay is
// written: one JSON line.
func relayJSON(r server.Relay) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		panic(err)
	}
	return b.String()
}

// writeBody answers status and body as luahook serve does: a body of 2048
// bytes or more with its Content-Length, for net/http would chunk it.
func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	if len(body) >= 2048 {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// answer is a handler that answers body with status 200.
func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		writeBody(w, http.StatusOK, body)
	}
}

// allow is a well-formed answer that allows with output: what a server
// that luahook-fire must not ask, or must not be believed, answers.
var allow = server.Relay{ExitCode: 0, Stdout: `{"allowed":true}`, Stderr: "server\n"}

// counted returns h counting its calls in n.
func counted(n *atomic.Int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	})
}

// luahook-fire cuts a payload's long strings as luahook does: at the same
// size, with the same marker, so that serve and luahook read its cut
// payload as their own.
func TestLuahookFireCutsAsLuahookDoes(t *testing.T) {
	if MaxScanBytes != luahook.MaxScanBytes {
		t.Errorf("MaxScanBytes = %d, luahook.MaxScanBytes = %d: want them equal", MaxScanBytes, luahook.MaxScanBytes)
	}
	if !slices.Equal(outputKeys, pipeline.OutputKeys) {
		t.Errorf("outputKeys = %q, pipeline.OutputKeys = %q: want them equal", outputKeys, pipeline.OutputKeys)
	}
	for _, n := range []int64{1, 48951506} {
		if got, want := cutMarker(n), luahook.CutMarker(n); got != want {
			t.Errorf("cutMarker(%d) = %q, luahook.CutMarker = %q", n, got, want)
		}
	}
}

func TestMaxPayloadIsLuahooksInputCap(t *testing.T) {
	if MaxPayload != luahook.DefaultMaxInputBytes {
		t.Errorf("MaxPayload = %d, luahook.DefaultMaxInputBytes = %d: want them equal", MaxPayload, luahook.DefaultMaxInputBytes)
	}
	if relay.Max < 2*MaxPayload || maxAnswer < relay.Max {
		t.Errorf("relay.Max = %d, maxAnswer = %d, twice MaxPayload %d: a relay of a rewritten payload would not fit", relay.Max, maxAnswer, 2*MaxPayload)
	}
}

// request is what a handler saw of a request.
type request struct {
	method, path, relay, contentType string
	body                             []byte
}

func TestAnswersRelayed(t *testing.T) {
	big := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"` + strings.Repeat("x", 100<<10) + `"}}}`
	for _, c := range []struct {
		name  string
		args  func(path string) []string
		path  string
		relay server.Relay
	}{
		{
			name:  "exit 0",
			args:  func(p string) []string { return []string{"--socket", p, "--agent", "claude", "PreToolUse"} },
			path:  "/agent/claude/PreToolUse",
			relay: server.Relay{ExitCode: 0, Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, Stderr: "note <&>\n"},
		},
		{
			name: "exit 2",
			args: func(p string) []string {
				return []string{"--agent", "claude", "PreToolUse", "--socket", p, "--timeout", "2s"}
			},
			path:  "/agent/claude/PreToolUse",
			relay: server.Relay{ExitCode: 2, Stderr: "blocked: rm -rf is not allowed\n"},
		},
		{
			name: "flags with =",
			args: func(p string) []string {
				return []string{"--socket=" + p, "--agent=claude", "--timeout=2s", "PreToolUse"}
			},
			path:  "/agent/claude/PreToolUse",
			relay: server.Relay{ExitCode: 0},
		},
		{
			name:  "no event",
			args:  func(p string) []string { return []string{"--socket", p, "--agent", "codex"} },
			path:  "/agent/codex",
			relay: server.Relay{ExitCode: 2, Stdout: " {\"decision\":\"block\"}\n", Stderr: ""},
		},
		{
			name:  "large answer",
			args:  func(p string) []string { return []string{"--socket", p, "--agent", "claude", "PreToolUse"} },
			path:  "/agent/claude/PreToolUse",
			relay: server.Relay{ExitCode: 0, Stdout: big, Stderr: "rewritten\n"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := useStandIn(t)
			path := socketPath(t)
			var mu sync.Mutex
			var seen []request
			body := relayJSON(c.relay)
			serveHTTP(t, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				seen = append(seen, request{r.Method, r.URL.Path, r.Header.Get(server.RelayHeader), r.Header.Get("Content-Type"), b})
				mu.Unlock()
				writeBody(w, http.StatusOK, body)
			}))

			code, stdout, stderr, _ := runMain(c.args(path), []byte(payload))
			if s.ran() {
				t.Errorf("luahook was handed a call the server answered well")
			}
			if code != c.relay.ExitCode || stdout != c.relay.Stdout || stderr != c.relay.Stderr {
				t.Errorf("Main = %d, stdout %.100q, stderr %q; want the server's %d, %.100q, %q", code, stdout, stderr, c.relay.ExitCode, c.relay.Stdout, c.relay.Stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 1 {
				t.Fatalf("the server was asked %d times, want once", len(seen))
			}
			r := seen[0]
			if r.method != http.MethodPost || r.path != c.path || r.relay == "" || r.contentType != "application/json" || string(r.body) != payload {
				t.Errorf("the server was asked %s %s, %s %q, Content-Type %q, body %q; want POST %s with %s set, application/json and the payload %q",
					r.method, r.path, server.RelayHeader, r.relay, r.contentType, r.body, c.path, server.RelayHeader, payload)
			}
		})
	}
}

func TestHandsOverWhatItCannotUse(t *testing.T) {
	// ok is a well-formed allow and pad one too large for net/http to
	// send unchunked without a Content-Length: the cases below break only
	// how they are sent, so that relaying them would be allowing what the
	// server did not answer well.
	ok := relayJSON(allow)
	pad := relayJSON(server.Relay{Stdout: `{"pad":"` + strings.Repeat("p", 5000) + `"}`})
	std := func(p string) []string { return []string{"--socket", p, "--agent", "claude", "PreToolUse"} }
	for _, c := range []struct {
		name string
		// serve serves on path; nil: nothing listens there.
		serve func(t *testing.T, path string)
		// args is the command line, want what luahook is to get of it
		// after fire (nil: args).
		args, want func(path string) []string
		// maxLeft bounds the --http-timeout luahook gets.
		maxLeft time.Duration
		// serverUnasked: the command line is wrong, so goodServer (when
		// it serves) must not be asked at all.
		serverUnasked bool
	}{
		{name: "no server", args: std},
		{name: "stale socket", serve: func(t *testing.T, path string) {
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			ln.SetUnlinkOnClose(false)
			ln.Close()
		}, args: std},
		{name: "status 500", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeBody(w, http.StatusInternalServerError, ok)
			}))
		}, args: std},
		{name: "status 404", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeBody(w, http.StatusNotFound, ok)
			}))
		}, args: std},
		{name: "chunked answer", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, pad[:len(pad)/2])
				w.(http.Flusher).Flush()
				io.WriteString(w, pad[len(pad)/2:])
			}))
		}, args: std},
		{name: "chunked answer, crafted", serve: func(t *testing.T, path string) {
			// Its Content-Length counts the body as sent: only the
			// chunks' framing is wrong in it.
			body := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(ok), ok)
			serveRaw(t, path, rawAnswer(fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: %d\r\n\r\n%s", len(body), body)))
		}, args: std},
		{name: "body in a transfer encoding", serve: func(t *testing.T, path string) {
			// Well formed but for its Transfer-Encoding, which says the
			// body is not what it looks like.
			serveRaw(t, path, rawAnswer(fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(ok), ok)))
		}, args: std},
		{name: "exit status 1", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(`{"exitCode":1,"stdout":"","stderr":"error\n"}`))
		}, args: func(p string) []string {
			return []string{"--socket", p, "--timeout=2s", "--agent", "claude", "PreToolUse"}
		}, want: std, maxLeft: 2 * time.Second},
		// encoding/json would take each of these for an allow.
		{name: "null", serve: func(t *testing.T, path string) { serveHTTP(t, path, answer(`null`)) }, args: std},
		{name: "empty object", serve: func(t *testing.T, path string) { serveHTTP(t, path, answer(`{}`)) }, args: std},
		{name: "a key missing", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(`{"exitCode":0,"stdout":""}`))
		}, args: std},
		{name: "a key twice", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(`{"exitCode":2,"stdout":"","stderr":"no","exitCode":0}`))
		}, args: std},
		{name: "a key in another case", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(`{"ExitCode":0,"stdout":"","stderr":""}`))
		}, args: std},
		{name: "a closing brace after the relay", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(ok+"}"))
		}, args: std},
		{name: "exit status 0.0", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(`{"exitCode":0.0,"stdout":"","stderr":""}`))
		}, args: std},
		{name: "stderr not a string", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(`{"exitCode":0,"stdout":"","stderr":null}`))
		}, args: std},
		// A socket named --timeout is a socket: luahook gets it as given.
		{name: "socket named --timeout", args: func(string) []string {
			return []string{"--socket", "--timeout", "--agent", "claude", "PreToolUse"}
		}},
		{name: "unknown field", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(`{"exitCode":0,"stdout":"","stderr":"","decision":"allow"}`))
		}, args: std},
		{name: "stdout not a JSON object", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(relayJSON(server.Relay{Stdout: "hello"})))
		}, args: std},
		{name: "stdout a JSON array", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(relayJSON(server.Relay{Stdout: `[{"a":1}]`})))
		}, args: std},
		{name: "stdout two JSON objects", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(relayJSON(server.Relay{Stdout: `{} {}`})))
		}, args: std},
		{name: "two JSON values", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer(ok+ok))
		}, args: std},
		{name: "not JSON", serve: func(t *testing.T, path string) {
			serveHTTP(t, path, answer("allow\n"))
		}, args: std},
		{name: "Content-Length over the body", serve: func(t *testing.T, path string) {
			serveRaw(t, path, rawAnswer(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(ok)+10, ok)))
		}, args: std},
		{name: "Content-Length under the body", serve: func(t *testing.T, path string) {
			serveRaw(t, path, rawAnswer(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(ok)-1, ok)))
		}, args: std},
		{name: "no Content-Length", serve: func(t *testing.T, path string) {
			serveRaw(t, path, rawAnswer("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"+ok))
		}, args: std},
		{name: "two Content-Lengths", serve: func(t *testing.T, path string) {
			serveRaw(t, path, rawAnswer(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Length: %d\r\n\r\n%s", len(ok), len(ok), ok)))
		}, args: std},
		{name: "no HTTP header", serve: func(t *testing.T, path string) {
			serveRaw(t, path, rawAnswer(ok))
		}, args: std},
		{name: "header cut short", serve: func(t *testing.T, path string) {
			serveRaw(t, path, rawAnswer("HTTP/1.1 200 OK\r\nContent-Length: 5"))
		}, args: std},
		{name: "closed without answer", serve: func(t *testing.T, path string) {
			serveRaw(t, path, rawAnswer(""))
		}, args: std},
		{name: "unknown flag", serve: goodServer, args: func(p string) []string {
			return []string{"--socket", p, "--agent", "claude", "--bogus", "PreToolUse"}
		}, serverUnasked: true},
		{name: "unknown flag in the event's place", serve: goodServer, args: func(p string) []string {
			return []string{"--socket", p, "--agent", "claude", "--bogus"}
		}, serverUnasked: true},
		{name: "no --socket", args: func(string) []string { return []string{"--agent", "claude", "PreToolUse"} }, serverUnasked: true},
		{name: "--socket without value", args: func(string) []string { return []string{"--agent", "claude", "--socket"} }, serverUnasked: true},
		{name: "no --agent", serve: goodServer, args: func(p string) []string { return []string{"--socket", p, "PreToolUse"} }, serverUnasked: true},
		{name: "bad agent name", serve: goodServer, args: func(p string) []string {
			return []string{"--socket", p, "--agent", "../x", "PreToolUse"}
		}, serverUnasked: true},
		{name: "bad event name", serve: goodServer, args: func(p string) []string {
			return []string{"--socket", p, "--agent", "claude", "Pre/ToolUse"}
		}, serverUnasked: true},
		{name: "two events", serve: goodServer, args: func(p string) []string {
			return []string{"--socket", p, "--agent", "claude", "PreToolUse", "PostToolUse"}
		}, serverUnasked: true},
		{name: "bad --timeout", serve: goodServer, args: func(p string) []string {
			return []string{"--socket", p, "--timeout", "0s", "--agent", "claude", "PreToolUse"}
		}, want: std, serverUnasked: true},
		{name: "hanging server", serve: func(t *testing.T, path string) {
			serveRaw(t, path, func(c net.Conn, stop <-chan struct{}) {
				readRequest(c)
				<-stop
			})
		}, args: func(p string) []string {
			return []string{"--socket", p, "--agent", "claude", "--timeout", "300ms", "PreToolUse"}
		}, want: std, maxLeft: 300 * time.Millisecond},
		{name: "server never reads", serve: func(t *testing.T, path string) {
			serveRaw(t, path, func(c net.Conn, stop <-chan struct{}) { <-stop })
		}, args: func(p string) []string {
			return []string{"--timeout=300ms", "--socket", p, "--agent", "claude", "PreToolUse"}
		}, want: std, maxLeft: 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := useStandIn(t)
			path := socketPath(t)
			asked.Store(0)
			if c.serve != nil {
				c.serve(t, path)
			}
			args := c.args(path)
			want := args
			if c.want != nil {
				want = c.want(path)
			}
			maxLeft := c.maxLeft
			if maxLeft == 0 {
				maxLeft = DefaultTimeout
			}
			code, stdout, stderr, took := runMain(args, []byte(payload))
			s.check(t, code, stdout, stderr, []byte(payload), want, maxLeft)
			if limit := maxLeft + time.Second; took > limit && took > 2*time.Second {
				t.Errorf("Main took %v, want at most %v", took, limit)
			}
			if c.serverUnasked && asked.Load() != 0 {
				t.Errorf("the server was asked %d times, want none", asked.Load())
			}
		})
	}
}

// asked counts the calls to goodServer's handler.
var asked atomic.Int64

// goodServer serves a well-formed allow on path, counting its calls in
// asked.
func goodServer(t *testing.T, path string) {
	serveHTTP(t, path, counted(&asked, answer(relayJSON(allow))))
}

func TestHangingServerHandsOverInTime(t *testing.T) {
	s := useStandIn(t)
	path := socketPath(t)
	serveRaw(t, path, func(c net.Conn, stop <-chan struct{}) {
		readRequest(c)
		<-stop
	})
	args := []string{"--socket", path, "--agent", "claude", "--timeout", "300ms", "PreToolUse"}
	code, stdout, stderr, took := runMain(args, []byte(payload))
	if took > 2*time.Second {
		t.Errorf("Main took %v with --timeout 300ms, want well under 2s", took)
	}
	if took < 300*time.Millisecond {
		t.Errorf("Main took %v, want it to wait the 300ms --timeout for the server", took)
	}
	// The server had the whole --timeout: what is left for luahook is
	// next to nothing (luahook-fire gives it 1ms at least).
	s.check(t, code, stdout, stderr, []byte(payload), []string{"--socket", path, "--agent", "claude", "PreToolUse"}, 50*time.Millisecond)
}

func TestBlocksWhenLuahookCannotRun(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, luahook string }{
		{"missing", filepath.Join(dir, "no-such-luahook")},
		{"not executable", func() string {
			p := filepath.Join(dir, "luahook.txt")
			if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}()},
		{"killed", writeScript(t, dir, "killed", "cat >/dev/null\nkill -9 $$\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			useLuahook(t, c.luahook)
			path := socketPath(t) // nothing listens
			code, stdout, stderr, _ := runMain([]string{"--socket", path, "--agent", "claude", "PreToolUse"}, []byte(payload))
			if code != 2 {
				t.Errorf("Main = %d, want 2 (blocked)", code)
			}
			if !strings.Contains(stderr, "blocked") {
				t.Errorf("stderr %q does not say the call was blocked", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

// mainEnv, set, has TestHelperMain run Main on the command line it holds
// (JSON), as the program luahook-fire would.
const mainEnv = "SHIM_TEST_MAIN"

// TestHelperMain is not a test: it is luahook-fire in
// TestHandsOverToTheLuahookNextToIt, and does nothing unless mainEnv is
// set.
func TestHelperMain(t *testing.T) {
	v := os.Getenv(mainEnv)
	if v == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(v), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	os.Exit(Main(args, os.Stdin, os.Stdout, os.Stderr))
}

// installFire places this test binary in dir as luahook-fire, as a
// release installs it, and returns its path.
func installFire(t *testing.T, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "luahook-fire")
	if err := os.Link(os.Args[0], exe); err != nil {
		b, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return exe
}

// runInstalled runs exe (installFire's) as luahook-fire with args on in,
// in folder wd, with PATH set to path and the variables of env added to
// this process's environment, and returns its exit status and output.
func runInstalled(t *testing.T, exe, wd, path string, env []string, args []string, in string) (code int, stdout, stderr string) {
	t.Helper()
	argv, _ := json.Marshal(args)
	cmd := exec.Command(exe, "-test.run=^TestHelperMain$", "-test.count=1")
	cmd.Dir = wd
	base := slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "PATH=") })
	cmd.Env = append(append(base, env...), "PATH="+path, mainEnv+"="+string(argv),
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Stdin = strings.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestHandsOverToTheLuahookNextToItElseOnPATH runs this test binary as
// luahook-fire from a folder of its own, as a release installs it: it hands
// over to the luahook in that folder, else to the one on PATH (never to one
// found through a relative PATH entry, which names the agent's working
// folder), and blocks when there is none.
func TestHandsOverToTheLuahookNextToItElseOnPATH(t *testing.T) {
	for _, c := range []struct {
		name string
		// next, onPath: a stand-in next to luahook-fire, in a PATH folder.
		next, onPath bool
		// dotPath: PATH is "." and the working folder holds a stand-in.
		dotPath bool
		// want is the stand-in that must answer; "" none: a block.
		want string
	}{
		{name: "next to it", next: true, onPath: true, want: "next"},
		{name: "on PATH", onPath: true, want: "path"},
		{name: "none", want: ""},
		{name: "only through a relative PATH entry", dotPath: true, want: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, pathDir, wd := t.TempDir(), t.TempDir(), t.TempDir()
			exe := installFire(t, dir)
			stands := map[string]*standIn{}
			if c.next {
				stands["next"] = newStandIn(t, dir)
			}
			if c.onPath {
				stands["path"] = newStandIn(t, pathDir)
			}
			path := pathDir
			if c.dotPath {
				stands["dot"] = newStandIn(t, wd)
				path = "."
			}
			fire := []string{"--socket", socketPath(t), "--agent", "claude", "PreToolUse"} // nothing listens
			code, stdout, stderr := runInstalled(t, exe, wd, path, nil, fire, payload)
			for name, s := range stands {
				if name == c.want {
					s.check(t, code, stdout, stderr, []byte(payload), fire, DefaultTimeout)
				} else if s.ran() {
					t.Errorf("the luahook %s ran; want %q", name, c.want)
				}
			}
			if c.want == "" && (code != 2 || stdout != "" || !strings.Contains(stderr, "blocked")) {
				t.Errorf("no luahook to hand over to: exit status %d, stdout %q, stderr %q; want 2 and a block", code, stdout, stderr)
			}
		})
	}
}

// TestNoEnvironmentVariableNamesTheDecider: LUAHOOK_FIRE_LUAHOOK, which
// once named the program luahook-fire hands over to, is no switch of the
// shipped program. Set to true (or to a stand-in that would answer), with
// no server and no luahook to ask, rm -rf ~ is blocked, not allowed.
func TestNoEnvironmentVariableNamesTheDecider(t *testing.T) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	rm := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`
	for _, decider := range []string{truePath, "stand-in"} {
		t.Run(filepath.Base(decider), func(t *testing.T) {
			dir := t.TempDir()
			exe := installFire(t, dir)
			var s *standIn
			if decider == "stand-in" {
				s = newStandIn(t, t.TempDir())
				decider = s.path
			}
			fire := []string{"--socket", socketPath(t), "--agent", "claude", "PreToolUse"} // nothing listens
			code, stdout, stderr := runInstalled(t, exe, dir, t.TempDir(), []string{"LUAHOOK_FIRE_LUAHOOK=" + decider}, fire, rm)
			if code != 2 || stdout != "" || !strings.Contains(stderr, "blocked") {
				t.Errorf("LUAHOOK_FIRE_LUAHOOK=%s: exit status %d, stdout %q, stderr %q; want 2 and a block", decider, code, stdout, stderr)
			}
			if s != nil && s.ran() {
				t.Errorf("the program LUAHOOK_FIRE_LUAHOOK names ran")
			}
		})
	}
}

func TestPayloadOverTheCapIsNotSent(t *testing.T) {
	s := useStandIn(t)
	path := socketPath(t)
	var calls atomic.Int64
	serveHTTP(t, path, counted(&calls, answer(relayJSON(allow))))
	big := bytes.Repeat([]byte("a"), MaxPayload+1)
	args := []string{"--socket", path, "--agent", "claude", "PreToolUse"}
	code, stdout, stderr, _ := runMain(args, big)
	if n := calls.Load(); n != 0 {
		t.Errorf("the server was asked %d times with a payload over the cap, want none", n)
	}
	s.check(t, code, stdout, stderr, big, args, DefaultTimeout)
}

func TestPayloadAtTheCapIsSent(t *testing.T) {
	s := useStandIn(t)
	path := socketPath(t)
	// MaxPayload bytes with no string to cut: {"p":[ 1,1,...,1]}
	in := append([]byte(`{"p":[ `), bytes.Repeat([]byte("1,"), (MaxPayload-10)/2)...)
	in = append(in, `1]}`...)
	if len(in) != MaxPayload {
		t.Fatalf("a payload of %d bytes, want %d", len(in), MaxPayload)
	}
	var got atomic.Int64
	serveHTTP(t, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sameStream(r.Body, in) == nil {
			got.Add(1)
		}
		writeBody(w, http.StatusOK, relayJSON(allow))
	}))
	code, stdout, stderr, _ := runMain([]string{"--socket", path, "--agent", "claude", "PreToolUse"}, in)
	if s.ran() {
		t.Error("luahook was handed a payload at the cap, want it sent")
	}
	if got.Load() != 1 {
		t.Errorf("the server got the whole payload %d times, want once", got.Load())
	}
	if code != allow.ExitCode || stdout != allow.Stdout || stderr != allow.Stderr {
		t.Errorf("Main = %d, %q, %q; want the server's answer", code, stdout, stderr)
	}
}

func TestFloodingServerIsCut(t *testing.T) {
	s := useStandIn(t)
	path := socketPath(t)
	written := make(chan int64, 1)
	serveRaw(t, path, func(c net.Conn, _ <-chan struct{}) {
		var n int64
		defer func() { written <- n }()
		if readRequest(c) != nil {
			return
		}
		m, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n")
		n += int64(m)
		chunk := bytes.Repeat([]byte(`{"a":1}`), 64<<10/7)
		for err == nil {
			m, err = c.Write(chunk)
			n += int64(m)
		}
	})
	// A --timeout the flood would run into if it were read without bound.
	args := []string{"--socket", path, "--agent", "claude", "--timeout", "30s", "PreToolUse"}
	code, stdout, stderr, took := runMain(args, []byte(payload))
	// Under the race detector reading the capped answer takes a couple of
	// seconds; reading the flood without bound would run into --timeout.
	if took > 15*time.Second {
		t.Errorf("Main took %v reading a flood, want it cut at %d bytes long before", took, maxAnswer)
	}
	s.check(t, code, stdout, stderr, []byte(payload), []string{"--socket", path, "--agent", "claude", "PreToolUse"}, 30*time.Second)
	select {
	case n := <-written:
		// What the server got written: what luahook-fire read, and what
		// the socket buffered when it stopped.
		if n > maxAnswer+8<<20 {
			t.Errorf("the server wrote %d bytes before luahook-fire hung up, want about %d", n, maxAnswer)
		}
	case <-time.After(5 * time.Second):
		t.Error("the flooding server still writes: luahook-fire did not hang up")
	}
}

// serveEnv, set, has TestHelperServe serve a well-formed allow on the
// socket path it holds.
const serveEnv = "SHIM_TEST_SERVE"

// TestHelperServe is not a test: it is the server of another user in
// TestServerOfAnotherUserIsNotBelieved, and does nothing unless serveEnv
// is set. It says "ready" once it listens and serves until its standard
// input closes.
func TestHelperServe(t *testing.T) {
	path := os.Getenv(serveEnv)
	if path == "" {
		return
	}
	ln, err := unixsock.Listen(path)
	if err != nil {
		t.Fatalf("uid %d: %v", os.Geteuid(), err)
	}
	defer ln.Close()
	go http.Serve(ln, answer(relayJSON(allow)))
	otheruser.Ready()
}

// otherUser is the user TestServerOfAnotherUserIsNotBelieved's server
// runs as.
const otherUser = otheruser.UID

// TestServerOfAnotherUserIsNotBelieved has a luahook serve of another user
// answer a well-formed allow: luahook-fire must not relay it, and hands the
// call to luahook instead. Only root can start a process of another user;
// run as another user, the test holds the other half of the rule: a server
// of the caller's own user is believed.
func TestServerOfAnotherUserIsNotBelieved(t *testing.T) {
	s := useStandIn(t)
	if os.Geteuid() != 0 {
		path := socketPath(t)
		serveHTTP(t, path, answer(relayJSON(allow)))
		code, stdout, stderr, _ := runMain([]string{"--socket", path, "--agent", "claude", "PreToolUse"}, []byte(payload))
		if s.ran() || code != allow.ExitCode || stdout != allow.Stdout || stderr != allow.Stderr {
			t.Errorf("server of uid %d (ours): Main = %d, %q, %q, handed over %v; want the server's answer", os.Geteuid(), code, stdout, stderr, s.ran())
		}
		return
	}

	// The socket's folder is the other user's own, closed to others, as
	// unixsock.Listen wants it; the binary goes in an open one.
	sockDir := shortDir(t)
	if err := os.Chown(sockDir, otherUser, otherUser); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sockDir, "s")
	exeDir := shortDir(t)
	if err := os.Chmod(exeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	otheruser.Start(t, exeDir, "TestHelperServe", serveEnv+"="+path)

	// The server answers well: what luahook-fire refuses is its user.
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, "unix", path)
	}}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Post("http://luahook/agent/claude/PreToolUse", "application/json", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != relayJSON(allow) {
		t.Fatalf("the other user's server answered %d %q, want 200 %q", resp.StatusCode, body, relayJSON(allow))
	}

	args := []string{"--socket", path, "--agent", "claude", "PreToolUse"}
	code, stdout, stderr, _ := runMain(args, []byte(payload))
	s.check(t, code, stdout, stderr, []byte(payload), args, DefaultTimeout)
}

// An agent may keep the hook's standard input open after the payload:
// luahook-fire asks the server once the payload's object is whole, without
// waiting for the end of the stream, and sends the payload alone.
func TestPayloadFromAnOpenPipe(t *testing.T) {
	s := useStandIn(t)
	path := socketPath(t)
	var mu sync.Mutex
	var got []byte
	serveHTTP(t, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = b
		mu.Unlock()
		writeBody(w, http.StatusOK, relayJSON(allow))
	}))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // only once Main returned
	if _, err := io.WriteString(w, payload+"\n"); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := Main([]string{"--socket", path, "--agent", "claude", "PreToolUse"}, r, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case res := <-done:
		if s.ran() || res.code != allow.ExitCode || res.stdout != allow.Stdout || res.stderr != allow.Stderr {
			t.Errorf("Main = %d, %q, %q, handed over %v; want the server's answer", res.code, res.stdout, res.stderr, s.ran())
		}
	case <-time.After(5 * time.Second):
		w.Close()
		<-done
		t.Fatal("Main waited for the end of standard input although the payload was whole")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.TrimSpace(string(got)) != payload {
		t.Errorf("the server got %q, want the payload %q", got, payload)
	}
}

func TestHelp(t *testing.T) {
	s := useStandIn(t)
	for _, arg := range []string{"-h", "--help"} {
		code, stdout, stderr, _ := runMain([]string{arg}, []byte(payload))
		if code != 0 || !strings.Contains(stdout, "usage: luahook-fire --socket PATH --agent NAME") || stderr != "" {
			t.Errorf("luahook-fire %s = %d, stdout %q, stderr %q; want 0 and the usage", arg, code, stdout, stderr)
		}
	}
	if s.ran() {
		t.Error("luahook was handed a call for help")
	}
}

// A luahook that never answers does not hold the call: past the time left
// and handOverSlack it is killed (its child holding the output too) and
// the call is blocked.
func TestHungLuahookIsKilledAndTheCallBlocked(t *testing.T) {
	dir := t.TempDir()
	p := writeScript(t, dir, "luahook", "cat >/dev/null\nsleep 60\necho late\n")
	useLuahook(t, p)
	defer func(d time.Duration) { handOverSlack = d }(handOverSlack)
	handOverSlack = 200 * time.Millisecond
	start := time.Now()
	code, stdout, stderr, _ := runMain([]string{"--socket", filepath.Join(dir, "none"), "--agent", "claude", "--timeout", "100ms", "PreToolUse"}, []byte(payload))
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Main took %v with a hung luahook, want it killed after about 300ms", took)
	}
	if code != 2 || stdout != "" || !strings.Contains(stderr, "luahook did not answer within") || !strings.Contains(stderr, "blocked") {
		t.Errorf("Main = %d, stdout %q, stderr %q; want 2 and a block naming the bound", code, stdout, stderr)
	}
}

// luahook-fire hands $TRACEPARENT and $TRACESTATE to serve as headers, as
// luahook fire continues them itself; a value that could break the
// request (a line break, past 512 bytes) is left out.
func TestTraceContextGoesToTheServer(t *testing.T) {
	path := socketPath(t)
	got := make(chan http.Header, 1)
	serveHTTP(t, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- r.Header.Clone()
		writeBody(w, http.StatusOK, relayJSON(allow))
	}))
	parent := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, c := range []struct {
		name, parent, state string
		wantParent, want    string
	}{
		{"both", parent, "vendor=x", parent, "vendor=x"},
		{"a line break", parent + "\r\nX-Evil: 1", "", "", ""},
		{"too long", parent, strings.Repeat("a", maxTraceHeader+1), parent, ""},
		{"none", "", "", "", ""},
	} {
		env := map[string]string{"TRACEPARENT": c.parent, "TRACESTATE": c.state}
		req := appendTraceContext(nil, func(k string) string { return env[k] })
		if strings.Contains(string(req), "X-Evil") {
			t.Fatalf("%s: the header was broken: %q", c.name, req)
		}
		t.Setenv("TRACEPARENT", c.parent)
		t.Setenv("TRACESTATE", c.state)
		_, err := ask(options{socket: path, agent: "claude"}, []byte(`{}`), 0, time.Now().Add(30*time.Second))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		h := <-got
		if h.Get("traceparent") != c.wantParent || h.Get("tracestate") != c.want || h.Get("X-Evil") != "" {
			t.Errorf("%s: the server got traceparent %q, tracestate %q, X-Evil %q; want %q, %q, none",
				c.name, h.Get("traceparent"), h.Get("tracestate"), h.Get("X-Evil"), c.wantParent, c.want)
		}
	}
}
