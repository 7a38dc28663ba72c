package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/relay"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/internal/unixsock"
)

// defaultHTTPTimeout is how long fire --http waits for the server: well
// below the agents' own hook timeouts (30 s and more), so that luahook's
// block reaches the agent before the agent gives up on the hook.
const defaultHTTPTimeout = 5 * time.Second

// fireForward is fire --agent NAME --http URL: the payload is decoded here
// (to know its event, and to refuse a broken one without asking), sent to
// the luahook serve at URL/agent/NAME[/EVENT] and its answer relayed. When
// the server cannot decide for it (unreachable, too slow, anything but a
// well-formed 2xx answer), fire cannot either: undecided answers.
func fireForward(ctx context.Context, s *streams, o *fireOptions, c *pipeline.Call, event string) error {
	g := pipeline.Gate{Mode: (*engine.Engine)(nil).OnLoadError(o.onLoadError)}
	if c.Err() != nil || c.Input() == nil {
		// A payload that did not decode, or an event luahook has no
		// equivalent of: answered here, without asking.
		var res engine.Result
		rep := c.Answer(ctx, nil, g, &res, nil)
		return writeForwarded(s, c, rep)
	}
	a := c.Agent()
	client := &http.Client{
		// A redirect is not an answer: a server that moved must be named.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var target, where string
	if o.socket != "" {
		target, _ = agentURL("http://luahook", a.Name(), event)
		where = "unix:" + o.socket
		client.Transport = socketTransport(o.socket)
	} else {
		var err error
		if target, err = agentURL(o.http, a.Name(), event); err != nil {
			return fmt.Errorf("--http: %w", err)
		}
		where = target
	}
	ans, err := askServer(ctx, client, target, c.Native(), o.httpTimeout)
	if err != nil {
		rep := c.Undecided(g, fmt.Sprintf("luahook serve at %s could not decide: %v", where, err), pipeline.CauseServer, nil)
		return writeForwarded(s, c, rep)
	}
	return writeAnswer(s, ans, nil)
}

// writeForwarded writes an answer fire --http gave without the server.
func writeForwarded(s *streams, c *pipeline.Call, rep pipeline.Reply) error {
	if rep.Err != nil {
		return rep.Err
	}
	var diag bytes.Buffer
	for _, w := range rep.Warn {
		fmt.Fprintln(&diag, "luahook: warning:", termtext.Block(w.Error()))
	}
	return writeReply(s, c, rep, &diag)
}

// agentURL is the server's path for the agent: base/agent/NAME, and
// /EVENT when the command line names the event (Copilot's camelCase
// payloads do not).
func agentURL(base string, name agent.Name, event string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%q: want http://HOST:PORT or https://HOST:PORT", base)
	}
	p := strings.TrimRight(u.Path, "/") + "/agent/" + string(name)
	if event != "" {
		p += "/" + url.PathEscape(event)
	}
	return u.Scheme + "://" + u.Host + p, nil
}

// askServer posts the native payload to target, asking for the whole
// answer (server.RelayHeader), and returns it once it is well formed
// (relay.Decode): a 2xx status, one server.Relay object of at most
// relay.Max with its three keys each once, exit
// status 0 or 2, and standard output empty or one JSON object.
func askServer(ctx context.Context, client *http.Client, target string, payload []byte, timeout time.Duration) (agent.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		return agent.Answer{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set(server.RelayHeader, "1")
	resp, err := client.Do(hr)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return agent.Answer{}, fmt.Errorf("no answer within --http-timeout %v", timeout)
		}
		return agent.Answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, relay.Max+1))
	switch {
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		return agent.Answer{}, fmt.Errorf("no whole answer within --http-timeout %v", timeout)
	case err != nil:
		return agent.Answer{}, fmt.Errorf("reading the answer: %w", err)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return agent.Answer{}, fmt.Errorf("answered %s: %s", resp.Status, luahook.TruncateChars(strings.TrimSpace(string(body)), 200))
	case len(body) > relay.Max:
		return agent.Answer{}, fmt.Errorf("answer larger than %s", byteSize(relay.Max))
	}
	rel, err := relay.Decode(body)
	if err != nil {
		return agent.Answer{}, fmt.Errorf("not a luahook answer (%v): %s", err, luahook.TruncateChars(strings.TrimSpace(string(body)), 200))
	}
	ans := agent.Answer{Stderr: rel.Stderr, ExitCode: rel.ExitCode}
	if rel.Stdout != "" {
		ans.Stdout = []byte(rel.Stdout)
	}
	return ans, nil
}

// socketTransport dials the Unix socket at path for every request, and
// uses a connection only when the process at its other end runs as this
// user or root (unixsock.Dial).
func socketTransport(path string) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return unixsock.Dial(ctx, path)
		},
		DisableKeepAlives: true,
	}
}
