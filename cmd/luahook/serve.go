package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/internal/decisionfeed"
	"github.com/luahook/luahook/internal/metrics"
	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/internal/unixsock"
	"github.com/luahook/luahook/internal/webui"
)

type serveOptions struct {
	addr        string
	socket      string
	shadowDir   string
	maxBody     int64
	grace       time.Duration
	drainDelay  time.Duration
	instanceID  string
	limits      server.Limits
	decisionLog string
	approvals   bool
	maxApproval int
	// approvalsRedis shares the web approvals with the fleet's other
	// replicas through a Redis server (a redis:// URL).
	approvalsRedis string
	// ui serves the web page at /ui/.
	ui bool

	tokenFile    string
	tokenEnv     string
	tlsCert      string
	tlsKey       string
	clientCA     string
	allowOrigins []string
}

func newServeCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Answer the HTTP-hook protocol: POST a payload, get the outcome",
		Long: `serve runs an HTTP endpoint of the HTTP-hook protocol with hot reload of the
hooks folder and the config: POST / (or /hook) with a payload as JSON, get the
outcome as JSON, in the shapes "luahook fire" prints. A malformed payload is
answered 400 with {"error": …}, a body over --max-body 413.

POST /agent/NAME (claude, codex, copilot, cursor, gemini) answers that
agent's own hook protocol: the body is the agent's payload, the answer
always 200 with the JSON the agent acts on ("{}" for no objection), and its
command-hook exit status in the Luahook-Exit-Code header. A payload that
cannot be read, a body over --max-body or a server over its limits is
answered with the agent's block signal, naming the cause. Copilot's
camelCase payloads do not name their event: POST /agent/copilot/EVENT
(/agent/copilot/preToolUse). "luahook install NAME --http URL" wires it.

GET /healthz (liveness) answers 200 {"status":"ok"}, or "degraded" with the
load errors (the previous good version of a broken file stays live), whatever
the store does: a store outage must not get replicas restarted. GET /readyz
(readiness) answers 200 {"status":"ok"} only when the hooks loaded without
errors, the store answers (a round trip of at most 500 ms, its result reused
for 1 s) and serve is not draining; otherwise 503 with status "degraded" (and
the errors), "unready" (and the store's error under "store") or "draining".
GET /metrics serves Prometheus metrics: requests, decisions, per-hook calls,
denials, failures by kind and latency, the number of load errors and
luahook_instance_info{instance,version}.

Abusive clients cannot take the process's resources: a client has
--read-header-timeout to send its headers (slowloris), 30 s for the whole
request and 2 min idle between requests; headers over 64 KiB are answered 431;
at most --max-conns connections are open at once, and further clients wait
for one to close. Memory follows the bytes a client sends, not the length it
announces; the bodies of the requests in flight hold at most
--max-bytes-in-flight bytes together, and one client (the name it
authenticated as, else its IP address) at most
--max-client-bytes of them in at most --max-client-requests requests, so one
busy client cannot starve the others of memory or Lua states. A request over
a limit waits its turn (at most 30 s), then is answered 429 or 503 with a
body that denies.

--shadow-dir DIR runs a second hooks folder in shadow beside the live one,
the safe way to roll out a new policy set: DIR's hooks (with the same config,
its configured hooks included, and its own hot reload) see every payload the
live hooks decided, after the live answer is written, on at most 8 payloads
at once (past that a payload is not compared, only counted in
luahook_shadow_dropped_total). Their decision is never sent; where it differs
from the live one, a warning names the event, the tool and both decisions,
and luahook_shadow_decisions_total{hook="dir:BASE",agrees="false"} counts it
(BASE is DIR's base name). DIR's load errors are listed under "shadowErrors"
on /healthz and /readyz and never make serve unready. Hooks registered with
mode = "shadow" in the live folder are counted the same way under their own
name.

serve writes a decision log: one JSON line per answered payload (the
payload with secrets and the config's [decision_log] mask paths taken out,
each hook's outcome, failure and duration, the decision, what the agent
received, the luahook version and the content hash of every hook file that
took part), on standard output unless --decision-log or the config's
[decision_log] say otherwise. An agent's call blocked before any hook ran
is logged too, with its cause: a body over --max-body or unreadable
(cause "read"), a server over its limits ("overloaded"); a request refused
for its token is not, so that no one without credentials can write the
log. The log never holds a decision up: past its queue, records are
dropped and counted (luahook_decision_log_dropped_total).

--approvals serves web approvals: a PreToolUse call that a hook routes to
a person (hook.approve, or an ask with route "web") waits until an
authenticated client decides it, its timeoutMs (5 min by default, at most
10 min) runs out, or the agent gives up; then every agent receives an allow
or a deny. GET /approvals lists the waiting calls ({"approvals": [...]},
oldest first: id, digest, tool, session, agent, reasons, approvers, hooks,
deadline, input); POST /approvals/ID with {"verdict": "approve"|"deny",
"reason": …, "digest": …} decides one as the client's authenticated name:
404 when none waits, 409 when decided already or the digest is another
call's, 403 when the client is not among the approvers. At most
--max-approvals calls (256 by default; 8 MiB together) wait at once; past
that a call is denied at once. A waiting call holds one of its client's
--max-client-requests; deciding needs none. Without
--approvals such a call is denied, saying no approval is served. On
shutdown, the calls still waiting are denied. --approvals-redis URL shares
them with every replica on that Redis server: a call waiting on one replica
is listed, and decided once, on any.

--ui serves a web page at /ui/ (it needs --token-file or --token-env): log
in with a token, then approve or deny the calls waiting (with --approvals),
watch the decisions arrive live (filter by agent, session, verdict, policy),
see decisions and denials per minute and the rules that denied most, and
open one decision as the decision log recorded it. The login sets an
HttpOnly, SameSite=Strict session cookie; every change the page asks for
carries a CSRF token; a request of another site's page is refused; the page
runs under a strict Content-Security-Policy, no inline script, nothing
fetched from elsewhere. It holds the last 10,000 decisions (masked as the
decision log is), whatever --decision-log says.

serve names itself by an instance id (--instance-id, else
$LUAHOOK_INSTANCE_ID, else HOSTNAME-PID) on every log line (instance=ID), in
every decision record ("instance") and in its metrics, so that the replicas
of a fleet can be told apart in one log pipeline.

--socket PATH answers on a Unix socket too (--addr off: on it alone), for
luahook-fire, the command hook that asks this server instead of loading the
hooks in every call: "luahook install NAME --socket PATH" wires it. The
socket is made mode 0600 in a folder (made 0700 when missing) that only its
owner may write, and its clients check that the server is their own user or
root, so that no other user can answer for it. A socket left behind by a
server that died is taken over; one that answers is refused.

Clients authenticate with a bearer token (Authorization: Bearer TOKEN) from
--token-file FILE, a file only this user may read (each line TOKEN or
NAME TOKEN, NAME naming the client; # starts a comment), or from the
environment variable --token-env names; or by mutual TLS (--tls-cert,
--tls-key and --client-ca: a client certificate signed by that CA, named by
its common name). With both, a client needs both. A missing or wrong token
is answered 401 (an agent's route: the agent's block signal), and /metrics
needs it too; /healthz and /readyz stay open. The client's name reaches the
policies as input.client, whatever the payload said ("" for a token
without a name, for the Unix socket, and on loopback without
authentication), and each client has its own --max-client-requests and
--max-client-bytes. serve refuses to start on an address beyond loopback
without authentication; on loopback it warns. Whatever the authentication,
a browser's request is refused before its body is read: one with an Origin
header that --allow-origin does not list, or Sec-Fetch-Site cross-site or
same-site (403), or a POST whose Content-Type is not application/json
(415). Refused requests never reach a hook, the store or the decision log;
luahook_requests_refused_total{reason} counts them.

serve binds loopback unless --addr says otherwise. On SIGTERM or Ctrl-C it
drains: /readyz answers 503 "draining" at once and every answer carries
Connection: close, so that clients move to a new connection knowing it
(connections idle for a moment are closed), while hook requests are still
answered for --drain-delay, so that a load balancer takes the replica out of
rotation before it goes away; then serve stops accepting connections,
finishes the requests in flight (for at most --grace) and exits 0. No
request sent on a kept-alive connection is lost on the way. Set
--drain-delay to at least the load balancer's health-check interval times
the checks it needs to mark a server down (HAProxy's inter × fall), plus one
interval. Requests still running when --grace ends are cut off (their
clients see the connection close, which an HTTP hook counts as a failure:
fail-closed hooks deny) and serve exits 1, naming how many were cut.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), g, s, o) },
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8787", `listen address (port 0 picks a free port; "off": the --socket alone)`)
	cmd.Flags().StringVar(&o.socket, "socket", "", "also answer on a Unix socket at this path (for luahook-fire)")
	cmd.Flags().StringVar(&o.shadowDir, "shadow-dir", "", "a second hooks folder run in shadow: fired after each live answer, never enforced, disagreements logged and counted")
	cmd.Flags().Int64Var(&o.maxBody, "max-body", server.DefaultMaxBody, "largest request body in bytes (413 past it)")
	cmd.Flags().DurationVar(&o.grace, "grace", 10*time.Second, "how long shutdown waits for requests in flight")
	cmd.Flags().DurationVar(&o.drainDelay, "drain-delay", 0, "after SIGTERM, how long /readyz answers 503 while requests are still served, before serve stops accepting (the load balancer's check interval × fall count, plus one interval)")
	cmd.Flags().StringVar(&o.instanceID, "instance-id", "", "this replica's name in logs, decision records and metrics (default: $"+instanceEnv+", else HOSTNAME-PID)")
	cmd.Flags().IntVar(&o.limits.MaxConns, "max-conns", server.DefaultMaxConns, "most connections open at once; further clients wait (negative: no bound)")
	cmd.Flags().DurationVar(&o.limits.ReadHeaderTimeout, "read-header-timeout", server.DefaultReadHeaderTimeout, "time a client has to send its request headers")
	cmd.Flags().Int64Var(&o.limits.MaxBytesInFlight, "max-bytes-in-flight", server.DefaultMaxBytesInFlight, "body bytes the requests in flight may hold together; further requests wait their turn (negative: no bound)")
	cmd.Flags().IntVar(&o.limits.MaxClientRequests, "max-client-requests", server.DefaultMaxClientRequests, "requests one client (its authenticated name, else its IP address) may have in flight; further ones wait their turn (negative: no bound)")
	cmd.Flags().Int64Var(&o.limits.MaxClientBytes, "max-client-bytes", 0, "body bytes one client's requests in flight may hold together (0: an eighth of --max-bytes-in-flight; negative: no bound)")
	cmd.Flags().StringVar(&o.tokenFile, "token-file", "", "clients must send one of this file's bearer tokens (lines of TOKEN or NAME TOKEN; the file must be this user's alone)")
	cmd.Flags().StringVar(&o.tokenEnv, "token-env", "", "clients must send the bearer token held by the environment variable of this name")
	cmd.Flags().StringVar(&o.tlsCert, "tls-cert", "", "serve --addr over TLS with this certificate (PEM; with --tls-key)")
	cmd.Flags().StringVar(&o.tlsKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	cmd.Flags().StringVar(&o.clientCA, "client-ca", "", "clients must present a certificate signed by a CA of this PEM file (mutual TLS; needs --tls-cert)")
	cmd.Flags().StringArrayVar(&o.allowOrigins, "allow-origin", nil, "a web origin (https://dash.example.com) whose browser requests are not refused (repeatable)")
	cmd.Flags().BoolVar(&o.approvals, "approvals", false, "wait for web approvals: a call a hook routes to the web (hook.approve) waits for an authenticated client's decision on GET /approvals and POST /approvals/ID")
	cmd.Flags().StringVar(&o.approvalsRedis, "approvals-redis", "", "with --approvals, share the waiting approvals with every replica on this Redis server (redis://HOST:PORT[/DB]): each is listed and decided on any of them, once")
	cmd.Flags().BoolVar(&o.ui, "ui", false, "serve the web page at /ui/: the approvals waiting (approve, deny), the live decisions, counts per minute; log in with a token of --token-file or --token-env")
	cmd.Flags().IntVar(&o.maxApproval, "max-approvals", approvals.DefaultMaxPending, "with --approvals, most calls that may wait for a web approval at once; past it a call is denied at once")
	cmd.Flags().StringVar(&o.decisionLog, "decision-log", "", `where the decision log goes: a file, "stdout", "stderr" or "off" (default: the config's [decision_log], else stdout)`)
	return cmd
}

// openServe opens serve's engine, with what is valid of its config. In a
// project folder never trusted, serve
// starts all the same, on no policy, with the folder's refusal standing:
// every event that can block is denied naming it (luahook trust, then a
// restart), on every route, as fire denies it. An agent's HTTP hook that
// found no server would read "proceed".
func openServe(ctx context.Context, g *globalOptions, o openOptions) (*engine.Engine, []error, error) {
	// A config with problems at start (broken, or edited since it was
	// trusted) opens as far as it is valid, and fails closed, as it does
	// when it breaks on a reload: an agent's HTTP hook reads a server that
	// did not start as "proceed".
	o.partial = true
	src, err := g.sources()
	if err != nil {
		return nil, nil, err
	}
	if src.untrusted == nil {
		eng, err := g.openWith(ctx, o)
		return eng, nil, err
	}
	cfg, dir, ok := src.trusted()
	var eng *engine.Engine
	if ok {
		eng, err = g.open(ctx, cfg, dir, o)
	} else {
		eng, err = engine.New(engine.Options{Logger: o.logger, DecisionLog: o.decisionLog})
	}
	return eng, []error{src.untrusted}, err
}

// setServeMemoryLimit tells the Go runtime the memory serve is documented
// to stay under (docs/reliability.md: four bytes per byte of the bodies in
// flight, the store's total and 256 MiB for the runtime, the Lua states and
// the connections), as a soft limit at three quarters of it: past that the
// collector runs before the heap doubles, where by default it would let
// garbage grow to what is live, so that a burst of large payloads cannot
// carry the process over the bound between two collections. Unless the
// operator set GOMEMLIMIT, which then stands, or lifted the bound on the
// bodies in flight.
func setServeMemoryLimit(inFlight int64, store int) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set || inFlight <= 0 || store <= 0 {
		return
	}
	debug.SetMemoryLimit(serveMemoryLimit(inFlight, int64(store)))
}

// serveMemoryLimit is the soft memory limit setServeMemoryLimit sets.
func serveMemoryLimit(inFlight, store int64) int64 {
	return (4*inFlight + store + 256<<20) / 4 * 3
}

func runServe(ctx context.Context, g *globalOptions, s *streams, o *serveOptions) error {
	if o.drainDelay < 0 {
		return fmt.Errorf("--drain-delay %s: must not be negative", o.drainDelay)
	}
	s.stopGrace.Store(int64(o.drainDelay + o.grace + defaultStopGrace))
	auth, tlsConfig, err := o.auth()
	if err != nil {
		return err
	}
	instance, err := instanceID(o.instanceID)
	if err != nil {
		return err
	}
	logger, err := g.loggerFor("serve", s.err, true)
	if err != nil {
		return err
	}
	logger = logger.With(slog.String("instance", instance))
	dlog := engine.DecisionLog{To: o.decisionLog, ToName: "--decision-log", Default: "stdout", Stdout: s.out, Stderr: s.err, Instance: instance}
	if o.approvalsRedis != "" && !o.approvals {
		return errors.New("--approvals-redis: shares web approvals, which --approvals turns on")
	}
	var feed *decisionfeed.Feed
	if o.ui {
		if auth.Tokens.Len() == 0 {
			return errors.New("--ui: the page logs people in with a token: give --token-file FILE or --token-env NAME")
		}
		feed = decisionfeed.New(decisionfeed.Options{})
		dlog.Tap = feed.Sink()
	}
	eng, standing, err := openServe(ctx, g, openOptions{logger: logger, watch: true, decisionLog: dlog})
	if err != nil {
		return err
	}
	defer eng.Close()
	setServeMemoryLimit(o.limits.MaxBytesInFlight, eng.Config().Store.MaxBytes)
	tracing, err := startTracing(ctx, eng, instance, logger)
	if err != nil {
		return err
	}
	defer stopTracing(eng, tracing, logger)
	for _, err := range append(eng.FailClosed(), standing...) {
		logger.Error("not loaded: events that can block are denied until it is fixed", "err", err)
	}
	shadow, err := openShadow(ctx, g, o.shadowDir, logger)
	if err != nil {
		return err
	}
	if shadow != nil {
		defer shadow.Close()
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.NewCounterFunc("luahook_reloads_total", "Reloads of the hooks folder and the config applied since serve started.",
		func() float64 { return float64(eng.Stats().Reloads) })
	if _, ok := eng.StoreMetrics(); ok {
		reg.Register(server.StoreBreakerCollector(func() server.StoreBreakerStats {
			m, _ := eng.StoreMetrics()
			return server.StoreBreakerStats{State: m.Breaker, Trips: m.BreakerTrips}
		}))
	}
	health := eng.Errors
	if len(standing) > 0 {
		health = func() []error { return append(eng.Errors(), standing...) }
	}
	var hub *approvals.Hub
	if o.approvals {
		if o.maxApproval < 1 {
			return fmt.Errorf("--max-approvals %d: must be at least 1", o.maxApproval)
		}
		hub, err = approvals.Open(ctx, approvals.Options{MaxPending: o.maxApproval, Redis: o.approvalsRedis, Instance: instance, Logger: logger})
		if err != nil {
			return fmt.Errorf("--approvals-redis: %w", err)
		}
		defer hub.Close()
		eng.Runner().SetApprover(hub)
	}
	var ui *webui.Handler
	if feed != nil {
		ui, err = webui.New(webui.Options{Keys: auth.Tokens, Feed: feed, Approvals: hub, Instance: instance, Logger: logger, Registry: reg})
		if err != nil {
			return err
		}
		defer ui.Close()
	}
	opts := server.Options{MaxBody: o.maxBody, Logger: logger, Registry: reg, Health: health, Limits: o.limits,
		Shadow: shadowOptions(shadow, o.shadowDir), DecisionLog: eng.DecisionLogStats,
		StoreCheck: eng.StoreCheck, Store: storeStats(eng), Instance: instance,
		FailClosed: eng.LiveGate("", standing...), Auth: auth, Approvals: hub}
	if ui != nil {
		opts.UI = ui
	}
	opts.Propagator = tracing.Propagator()
	h := server.New(eng.Runner(), opts)
	defer h.Close()

	lns, err := o.listen(logger, auth, tlsConfig != nil)
	if err != nil {
		return err
	}
	var inFlight atomic.Int64
	srv := o.limits.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		h.ServeHTTP(w, r)
	}), logger)
	defer srv.Close()
	for _, ln := range lns {
		where := "http://" + ln.Addr().String()
		switch {
		case ln.Addr().Network() == "unix":
			where = "unix:" + ln.Addr().String()
		case tlsConfig != nil:
			where = "https://" + ln.Addr().String()
		}
		fmt.Fprintf(s.out, "luahook serve: listening on %s (%d hooks from %s)\n", where, eng.Stats().Hooks, eng.Dir())
	}
	if shadow != nil {
		fmt.Fprintf(s.out, "luahook serve: shadow set of %d hooks from %s\n", shadow.Stats().Hooks, shadow.Dir())
	}
	errc := make(chan error, len(lns))
	for _, ln := range lns {
		cfg := tlsConfig
		if ln.Addr().Network() == "unix" {
			cfg = nil // the socket's own file mode guards it
		}
		go func() { errc <- srv.Serve(ln, cfg) }()
	}
	// waitServes returns the first error of a Serve that did not end
	// because the server was shut down, once every Serve has returned.
	waitServes := func() error {
		var first error
		for range lns {
			if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) && first == nil {
				first = err
			}
		}
		return first
	}
	select {
	case err := <-errc:
		srv.Close()
		for range lns[1:] {
			<-errc
		}
		return err
	case <-ctx.Done():
	}
	h.Drain()
	if o.drainDelay > 0 {
		// Answers carry Connection: close from now on, so that the load
		// balancer opens new connections, to the replicas in rotation.
		// Without a delay, Shutdown drains once no connection is accepted:
		// a client sent away would find the port closed before it sends.
		srv.Drain()
		fmt.Fprintf(s.out, "luahook serve: draining: /readyz answers 503, requests are answered for --drain-delay %s more\n", o.drainDelay)
		logger.Info("draining", "drainDelay", o.drainDelay)
		t := time.NewTimer(o.drainDelay)
		select {
		case <-t.C:
		case err := <-errc:
			t.Stop()
			srv.Close()
			for range lns[1:] {
				<-errc
			}
			return err
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.grace)
	defer cancel()
	srv.StopAccepting() // from here on no new connection is accepted
	if ui != nil {
		ui.Close() // the page's live streams end now, not when --grace does
	}
	if hub != nil {
		// The calls still waiting for a person are denied now, saying
		// why, rather than cut off when --grace ends.
		hub.Close()
	}
	fmt.Fprintf(s.out, "luahook serve: shutting down, finishing %d request(s) in flight\n", inFlight.Load())
	if err := srv.Shutdown(sctx); err != nil {
		cut := inFlight.Load()
		srv.Close()
		if cut > 0 {
			waitServes()
			return fmt.Errorf("shutdown: %d request(s) still running after --grace %s were cut off: %w", cut, o.grace, err)
		}
		// Only connections that never sent a whole request were left.
	}
	if err := waitServes(); err != nil {
		return err
	}
	fmt.Fprintln(s.out, "luahook serve: stopped")
	return nil
}

// authFlags names the flags that make serve authenticate its clients.
const authFlags = "--token-file FILE or --token-env NAME (a bearer token), or --tls-cert, --tls-key and --client-ca (mutual TLS)"

// auth reads what authenticates serve's clients and answers browsers: the
// tokens (--token-file, --token-env), the TLS configuration (--tls-cert,
// --tls-key, --client-ca; nil without TLS) and the allowed origins. Every
// file is read, and every problem found, at start.
func (o *serveOptions) auth() (*server.Auth, *tls.Config, error) {
	a := &server.Auth{}
	if o.tokenFile != "" {
		t, err := server.ReadTokenFile(o.tokenFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--token-file: %w", err)
		}
		a.Tokens = t
	}
	if o.tokenEnv != "" {
		v, ok := os.LookupEnv(o.tokenEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return nil, nil, fmt.Errorf("--token-env %s: the environment variable is not set or empty", o.tokenEnv)
		}
		if a.Tokens == nil {
			a.Tokens = &server.Tokens{}
		}
		if err := a.Tokens.Add("", strings.TrimSpace(v), "--token-env $"+o.tokenEnv); err != nil {
			return nil, nil, err
		}
		// Read once: no hook, command hook or host module serve runs
		// inherits it.
		os.Unsetenv(o.tokenEnv)
	}
	var cfg *tls.Config
	switch {
	case o.tlsCert == "" && o.tlsKey == "" && o.clientCA == "":
	case o.tlsCert == "" || o.tlsKey == "":
		return nil, nil, errors.New("--tls-cert and --tls-key go together (--client-ca needs both)")
	case o.addr == "off":
		return nil, nil, errors.New("--tls-cert and --tls-key are for --addr, which is off (the --socket needs no TLS)")
	default:
		var err error
		if cfg, err = server.TLSConfig(o.tlsCert, o.tlsKey, o.clientCA); err != nil {
			return nil, nil, fmt.Errorf("--tls-cert, --tls-key, --client-ca: %w", err)
		}
		a.ClientCerts = o.clientCA != ""
	}
	for _, origin := range o.allowOrigins {
		norm, err := server.ParseOrigin(origin)
		if err != nil {
			return nil, nil, fmt.Errorf("--allow-origin: %w", err)
		}
		a.AllowOrigins = append(a.AllowOrigins, norm)
	}
	return a, cfg, nil
}

// listen opens serve's listeners: --addr unless it is "off", and --socket
// when set. An --addr beyond loopback needs authentication.
func (o *serveOptions) listen(logger *slog.Logger, auth *server.Auth, tls bool) ([]net.Listener, error) {
	var lns []net.Listener
	authenticated := auth.Tokens.Len() > 0 || auth.ClientCerts
	if o.addr != "off" {
		ln, err := net.Listen("tcp", o.addr)
		if err != nil {
			return nil, err
		}
		a, ok := ln.Addr().(*net.TCPAddr)
		loopback := ok && a.IP.IsLoopback()
		switch {
		case !loopback && !authenticated:
			ln.Close()
			return nil, fmt.Errorf("--addr %s listens beyond loopback without authentication: anyone who reaches it could ask the policies and spend their budgets; give %s", o.addr, authFlags)
		case !authenticated:
			logger.Warn("serving without authentication: any local user or program can ask the policies and spend their budgets; give "+authFlags,
				"addr", ln.Addr().String())
		case !loopback && !tls:
			logger.Warn("bearer tokens over plain HTTP beyond loopback: anyone on the network path can read them; give --tls-cert and --tls-key",
				"addr", ln.Addr().String())
		}
		lns = append(lns, ln)
	}
	if o.socket != "" {
		ln, err := unixsock.Listen(o.socket)
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, fmt.Errorf("--socket: %w", err)
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		return nil, errors.New(`--addr off needs --socket: nothing to listen on`)
	}
	return lns, nil
}

// openShadow opens the engine of --shadow-dir: the same config as the live
// engine, dir as its hooks folder, its own hot reload. A folder that is not
// there is an error (a mistyped flag); its files' load errors are logged
// and served on /healthz, and never stop serve. No dir: nil.
func openShadow(ctx context.Context, g *globalOptions, dir string, logger *slog.Logger) (*engine.Engine, error) {
	if dir == "" {
		return nil, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--shadow-dir %s: not a folder", dir)
	}
	src, err := g.sources()
	if err != nil {
		return nil, err
	}
	logger = logger.With("shadow", dir)
	eng, err := g.open(ctx, src.config, dir, openOptions{logger: logger, watch: true, trust: src.configTrust(),
		// The live engine logs each decision; the shadow set's disagreements are logged as warnings.
		decisionLog: engine.DecisionLog{To: engine.DecisionLogOff}})
	if err != nil {
		return nil, fmt.Errorf("--shadow-dir %s: %w", dir, err)
	}
	for _, err := range eng.Errors() {
		logger.Warn("shadow hook file not loaded; the shadow set runs without it", "err", err)
	}
	return eng, nil
}

// shadowOptions are the server's options for the shadow engine eng (nil: none).
func shadowOptions(eng *engine.Engine, dir string) *server.ShadowOptions {
	if eng == nil {
		return nil
	}
	return &server.ShadowOptions{Firer: eng.Runner(), Name: filepath.Base(filepath.Clean(dir)), Health: eng.Errors}
}

// storeStats reads the Redis store's call counts for /metrics; nil for the
// in-process store, which has none to report.
func storeStats(eng *engine.Engine) func() []server.StoreOpStats {
	if _, ok := eng.StoreMetrics(); !ok {
		return nil
	}
	return func() []server.StoreOpStats {
		m, _ := eng.StoreMetrics()
		out := make([]server.StoreOpStats, 0, len(m.Ops))
		for _, op := range m.Ops {
			buckets := make(map[float64]uint64, len(op.Buckets))
			for i, n := range op.Buckets {
				buckets[redisstore.LatencyBuckets[i]] = n
			}
			out = append(out, server.StoreOpStats{Op: op.Op,
				Results: map[string]uint64{"ok": op.OK, "error": op.Errors, "timeout": op.Timeouts, "unavailable": op.Unavailable},
				Count:   op.Count, Sum: op.Sum, Buckets: buckets})
		}
		return out
	}
}
