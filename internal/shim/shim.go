// Package shim is luahook-fire, the one-shot command hook that asks a
// resident luahook serve over its Unix socket instead of loading the hooks
// itself:
//
//	luahook-fire --socket PATH --agent NAME [--timeout 5s] [EVENT]
//
// is, to the agent, `luahook fire --agent NAME --socket PATH [EVENT]`: the
// same standard output, standard error and exit status. It links only the
// standard library and internal/unixsock, so that it starts as fast as a
// minimal Go program, where luahook itself links the whole engine.
//
// It does one thing, the usual case: read the payload, send it to the
// server, check the answer and relay it. Anything else, from a flag it does
// not know to a server that is not running, answers too slowly, is not the
// operator's own user or answers anything malformed, it hands to the
// luahook next to its own executable, else the one on PATH (luahook fire
// --agent NAME --socket PATH), with the payload it read and what is left of
// the time: that program asks again and, when it cannot decide either,
// answers as the agent's protocol wants for an undecided call (a block on
// an event that can block). luahook-fire itself never allows anything the
// server did not allow. No environment variable names the program it
// hands over to: PATH is searched only when there is no luahook next to
// it, as the agent's hooks find luahook themselves.
package shim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/luahook/luahook/internal/firstvalue"
	"github.com/luahook/luahook/internal/relay"
	"github.com/luahook/luahook/internal/unixsock"
)

const (
	// MaxPayload is the largest payload sent: luahook's own input cap
	// (luahook.DefaultMaxInputBytes, held equal by a test). A larger one
	// goes to luahook, which refuses it as it always does.
	MaxPayload = 8 << 20
	// maxAnswer caps the server's whole HTTP answer: the relay (at most
	// relay.Max, as luahook fire takes it) and the status line and headers.
	maxAnswer = relay.Max + 16<<10
	// DefaultTimeout is how long the server has to answer, as for
	// luahook fire --socket.
	DefaultTimeout = 5 * time.Second
	// readTimeout bounds the wait for the payload, as luahook fire's
	// --read-timeout does.
	readTimeout = 10 * time.Second
	// MaxScanBytes is how much of one string of the payload is kept:
	// luahook.MaxScanBytes (held equal by a test). A tool's output of any
	// size is read, its strings cut, and the server told how much was cut
	// (relay.CutHeader), as luahook fire does.
	MaxScanBytes = 1 << 20
)

// outputKeys are the members whose strings are cut: pipeline.OutputKeys
// (held equal by a test).
var outputKeys = []string{"toolResult", "tool_response", "tool_output", "error", "error_message", "output", "result_json"}

// cutMarker ends a cut string: luahook.CutMarker (held equal by a test).
func cutMarker(n int64) string {
	return "\n[luahook: the rest of this output (" + strconv.FormatInt(n, 10) +
		" bytes) was withheld: too large to scan]"
}

// handOverSlack is what luahook gets beyond the time left to start, ask and
// answer before it is killed (a variable for tests).
var handOverSlack = 10 * time.Second

const usage = `usage: luahook-fire --socket PATH --agent NAME [--timeout 5s] [EVENT]

The agent's command hook, asking the luahook serve --socket PATH that keeps
the policies loaded: it reads the agent's payload on standard input and
answers as "luahook fire --agent NAME" would (standard output, standard
error, exit status). What it cannot answer (no server, one that is too slow
or not this user's, a malformed answer, any other flag) it hands to the
luahook next to it (else the one on PATH), which blocks what it cannot
decide. "luahook install NAME --socket PATH" wires it.
`

// options are luahook-fire's command line.
type options struct {
	socket, agent, event string
	timeout              time.Duration
	// timeoutArgs are the indices of the arguments that gave --timeout
	// (the flag and its value), which luahook fire does not take.
	timeoutArgs []int
}

// Main runs luahook-fire with args (without the program name) and returns
// its exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr, luahookPath)
}

// run is Main handing what it cannot answer to the program findLuahook
// names. Main gives it luahookPath, the one way a release finds luahook:
// nothing in the environment names another program, which could answer
// for luahook (a program that exits 0 allows everything).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, findLuahook func() (string, error)) int {
	start := time.Now()
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		io.WriteString(stdout, usage)
		return 0
	}
	o, perr := parseArgs(args)
	payload, cut, rerr := readPayload(stdin)
	if perr == nil && rerr == nil {
		ans, err := ask(o, payload, cut, start.Add(o.timeout))
		if err == nil {
			io.WriteString(stdout, ans.Stdout)
			io.WriteString(stderr, ans.Stderr)
			return ans.ExitCode
		}
	}
	if cut > 0 {
		args = append(slices.Clip(args), "--output-cut", strconv.FormatInt(cut, 10))
	}
	return handOver(args, o, payload, start, findLuahook, stdout, stderr)
}

// parseArgs reads the flags luahook-fire knows; anything else is an error,
// and luahook then reads the same command line.
func parseArgs(args []string) (options, error) {
	o := options{timeout: DefaultTimeout}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--socket", "--agent", "--timeout":
			if name == "--timeout" {
				o.timeoutArgs = append(o.timeoutArgs, i)
			}
			if !hasVal {
				if i+1 == len(args) {
					return o, fmt.Errorf("%s needs a value", name)
				}
				i++
				val = args[i]
				if name == "--timeout" {
					o.timeoutArgs = append(o.timeoutArgs, i)
				}
			}
			switch name {
			case "--socket":
				o.socket = val
			case "--agent":
				o.agent = val
			case "--timeout":
				d, err := time.ParseDuration(val)
				if err != nil || d <= 0 {
					return o, fmt.Errorf("--timeout %q: want a positive duration", val)
				}
				o.timeout = d
			}
		default:
			if strings.HasPrefix(a, "-") || o.event != "" {
				return o, fmt.Errorf("unexpected argument %q", a)
			}
			o.event = a
		}
	}
	switch {
	case o.socket == "":
		return o, errors.New("--socket is required")
	case !pathName(o.agent):
		return o, fmt.Errorf("--agent %q: want the agent's name", o.agent)
	case o.event != "" && !pathName(o.event):
		return o, fmt.Errorf("event %q: want an event name", o.event)
	}
	return o, nil
}

// pathName reports whether s can be a path segment as it is: an agent's
// or an event's name.
func pathName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// readPayload reads standard input as luahook fire does, up to the end of
// the JSON object it starts with (the agent may keep the pipe open), each
// string longer than MaxScanBytes cut (cut is what was withheld), keeping
// at most MaxPayload+1 bytes, for at most readTimeout. An error comes
// with what luahook should be handed: the bytes kept when there are too
// many (luahook refuses them as it always does), else nothing.
func readPayload(in io.Reader) (payload []byte, cut int64, err error) {
	type result struct {
		b   []byte
		cut int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, cut, err := firstvalue.ReadCut(in, MaxPayload, firstvalue.Cut{Max: MaxScanBytes, Marker: cutMarker, Keys: outputKeys})
		done <- result{b, cut, err}
	}()
	t := time.NewTimer(readTimeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r.b, r.cut, r.err
	case <-t.C:
		return nil, 0, errors.New("no whole payload within the read timeout")
	}
}

// maxTraceHeader bounds a trace-context value forwarded (the W3C limit of
// tracestate is 512 characters; traceparent is 55).
const maxTraceHeader = 512

// appendTraceContext adds the trace context $TRACEPARENT and $TRACESTATE
// name to a request, as luahook fire continues it: serve's decision span is
// then a child of the caller's, whichever door the call came through. A
// value that is empty, too long or not visible ASCII is left out (it could
// not be one, and would otherwise break the request's header).
func appendTraceContext(req []byte, getenv func(string) string) []byte {
	for _, h := range [...][2]string{{"traceparent", "TRACEPARENT"}, {"tracestate", "TRACESTATE"}} {
		v := getenv(h[1])
		if v == "" || len(v) > maxTraceHeader || !headerSafe(v) {
			continue
		}
		req = append(req, h[0]+": "+v+"\r\n"...)
	}
	return req
}

// headerSafe reports whether v is visible ASCII and spaces only.
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < ' ' || v[i] > '~' {
			return false
		}
	}
	return true
}

// ask sends payload to the server and returns its answer once it is whole
// and well formed, all before deadline.
func ask(o options, payload []byte, cut int64, deadline time.Time) (relay.Relay, error) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	c, err := unixsock.Dial(ctx, o.socket)
	if err != nil {
		return relay.Relay{}, err
	}
	defer c.Close()
	if err := c.SetDeadline(deadline); err != nil {
		return relay.Relay{}, err
	}
	path := "/agent/" + o.agent
	if o.event != "" {
		path += "/" + o.event
	}
	req := make([]byte, 0, 256+len(payload))
	req = append(req, "POST "+path+" HTTP/1.1\r\nHost: luahook\r\nContent-Type: application/json\r\n"+relay.Header+": 1\r\n"...)
	if cut > 0 {
		req = append(req, relay.CutHeader+": "...)
		req = strconv.AppendInt(req, cut, 10)
		req = append(req, "\r\n"...)
	}
	req = appendTraceContext(req, os.Getenv)
	req = append(req, "Connection: close\r\nContent-Length: "...)
	req = strconv.AppendInt(req, int64(len(payload)), 10)
	req = append(req, "\r\n\r\n"...)
	req = append(req, payload...)
	if _, err := c.Write(req); err != nil {
		return relay.Relay{}, err
	}
	resp, err := io.ReadAll(io.LimitReader(c, maxAnswer+1))
	if err != nil {
		return relay.Relay{}, err
	}
	if len(resp) > maxAnswer {
		return relay.Relay{}, errors.New("answer over the cap")
	}
	body, err := httpBody(resp)
	if err != nil {
		return relay.Relay{}, err
	}
	return relay.Decode(body)
}

// httpBody returns the body of a whole HTTP/1.1 response with a 2xx status
// and a Content-Length that its body has exactly; anything else (a chunked
// body among them) is an error.
func httpBody(resp []byte) ([]byte, error) {
	head, body, ok := bytes.Cut(resp, []byte("\r\n\r\n"))
	if !ok {
		return nil, errors.New("no whole HTTP header")
	}
	lines := strings.Split(string(head), "\r\n")
	status := strings.SplitN(lines[0], " ", 3)
	if len(status) < 2 || status[0] != "HTTP/1.1" && status[0] != "HTTP/1.0" || len(status[1]) != 3 || status[1][0] != '2' {
		return nil, fmt.Errorf("answered %q", lines[0])
	}
	length := -1
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("header line %q", l)
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 || length >= 0 {
				return nil, fmt.Errorf("Content-Length %q", v)
			}
			length = n
		case "transfer-encoding":
			return nil, errors.New("a body in transfer encoding")
		}
	}
	if length != len(body) {
		return nil, fmt.Errorf("a body of %d bytes where Content-Length says %d", len(body), length)
	}
	return body, nil
}

// handOver runs luahook fire --agent NAME --socket PATH [EVENT] (the
// command line luahook-fire was given, as fire's flags) on payload, with
// what is left of the timeout, and returns its exit status. When luahook
// cannot run, the call is blocked: exit status 2 and the reason, which
// every supported agent reads as a block on an event that can block.
func handOver(args []string, o options, payload []byte, start time.Time, findLuahook func() (string, error), stdout, stderr io.Writer) int {
	luahook, err := findLuahook()
	if err != nil {
		fmt.Fprintf(stderr, "luahook-fire: could not ask luahook serve and cannot run luahook (%v); blocked because luahook could not decide\n", err)
		return 2
	}
	left := o.timeout - time.Since(start)
	if left < time.Millisecond {
		left = time.Millisecond
	}
	argv := []string{"fire"}
	for i, a := range args {
		if !slices.Contains(o.timeoutArgs, i) {
			argv = append(argv, a)
		}
	}
	argv = append(argv, "--http-timeout", left.String())
	// luahook fire ends within --http-timeout once it has started; past
	// that and a start's worth of slack it is killed and the call blocked.
	ctx, cancel := context.WithTimeout(context.Background(), left+handOverSlack)
	defer cancel()
	cmd := exec.CommandContext(ctx, luahook, argv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(payload), stdout, stderr
	// A child of luahook's still holding its output does not hold the
	// call once luahook is gone.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "luahook-fire: luahook did not answer within %v; blocked because luahook could not decide\n", left+handOverSlack)
		return 2
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	default:
		fmt.Fprintf(stderr, "luahook-fire: luahook did not answer (%v); blocked because luahook could not decide\n", err)
		return 2
	}
}

// luahookPath is the luahook a release installs with luahook-fire: the
// one next to this executable (go install ./cmd/... puts both in one
// folder), else the one on PATH, which is the one the agent's own hooks
// would run. One found through a relative PATH entry (".") is refused
// (exec.ErrDot): that would be the agent's working folder's.
func luahookPath() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		p := filepath.Join(filepath.Dir(exe), "luahook")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath("luahook")
	if err != nil {
		return "", fmt.Errorf("no luahook next to luahook-fire nor on PATH: %w", err)
	}
	return p, nil
}
