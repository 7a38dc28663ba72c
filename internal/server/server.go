// Package server answers the HTTP-hook protocol: POST a payload as JSON, get
// the outcome as JSON, in the same shapes as `luahook fire` prints. It is what
// `luahook serve` runs, and a host may mount a Handler in its own HTTP server.
//
//	h := server.New(eng.Runner(), server.Options{Health: eng.Errors})
//	http.ListenAndServe("127.0.0.1:8787", h)
//
// The Handler is stateless between requests (the hooks' own store aside), so
// any number of them can run behind a load balancer. Limits builds the
// http.Server and listener that keep abusive clients (slowloris, huge
// headers, thousands of idle connections) from taking the process's
// resources, and Server (Limits.NewServer) serves them with a shutdown
// that loses no request; Auth authenticates clients and refuses browsers.
// `luahook serve` runs with their defaults.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/internal/decisionlog"
	"github.com/luahook/luahook/internal/firstvalue"
	"github.com/luahook/luahook/internal/metrics"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/relay"
	"github.com/luahook/luahook/runner"
	"go.opentelemetry.io/otel/propagation"
)

// DefaultMaxBody is the default cap on a request body: the payload cap,
// luahook.DefaultMaxInputBytes (8 MiB).
const DefaultMaxBody = luahook.DefaultMaxInputBytes

// Firer fires one payload at hooks and returns what they decided.
// *runner.Runner is a Firer.
type Firer interface {
	Fire(ctx context.Context, in *luahook.Input) runner.Result
}

var _ Firer = (*runner.Runner)(nil)

// Options configure a Handler. The zero value is usable.
type Options struct {
	// MaxBody caps a request body in bytes; a larger body is answered 413.
	// Zero or less means DefaultMaxBody.
	MaxBody int64
	// Logger receives a debug line per answered payload and an info line per
	// refused request. Nil discards.
	Logger *slog.Logger
	// Registry receives the handler's metrics and is what /metrics serves, so
	// a caller may add its own collectors (client_golang's
	// collectors.NewGoCollector, collectors.NewProcessCollector). One
	// Registry serves one Handler. Nil means a fresh registry.
	Registry *metrics.Registry
	// Health returns the current load errors (engine.Engine.Errors). They
	// show on /healthz and in the luahook_load_errors gauge. Nil means none.
	Health func() []error
	// FailClosed is the engine's fail-closed state (engine.Engine's
	// Undecidable and CloseOver with its FailClosed problems). The zero
	// value leaves every result as the policies reached it.
	FailClosed FailClosed
	// Limits bound the body bytes and the requests in flight, overall and
	// per client (MaxBytesInFlight, MaxClientRequests, MaxClientBytes), and
	// how long a request waits for its turn (ReadTimeout). Pass the same
	// Limits as to HTTPServer and Listener.
	Limits Limits
	// Shadow, when set, fires every decided payload at a second set of
	// hooks too, after the live answer, and counts where they disagree
	// (see ShadowOptions). Close stops it.
	Shadow *ShadowOptions
	// DecisionLog returns the decision log's counts
	// (engine.Engine.DecisionLogStats), served as
	// luahook_decision_log_written_total, _dropped_total and _failed_total.
	// Nil: no such metrics.
	DecisionLog func() decisionlog.Stats
	// StoreCheck makes a round trip to the store behind the Lua store
	// module (engine.Engine.StoreCheck); /readyz answers 503 with status
	// "unready" and the error under "store" while it fails. Each check is
	// bounded by StoreCheckTimeout and its result answers /readyz for
	// StoreCheckEvery. Nil: the store is not checked. /healthz never checks
	// it: a store outage must not get replicas restarted.
	StoreCheck func(context.Context) error
	// StoreCheckTimeout bounds one store check; 0 means
	// DefaultStoreCheckTimeout.
	StoreCheckTimeout time.Duration
	// StoreCheckEvery is how long a store check's result is reused; 0
	// means DefaultStoreCheckEvery.
	StoreCheckEvery time.Duration
	// Store returns the counts of the store's calls, served as
	// luahook_store_calls_total{op,result} and
	// luahook_store_call_duration_seconds{op}. Nil: no such metrics.
	Store func() []StoreOpStats
	// Instance names this replica in a fleet; served as
	// luahook_instance_info{instance,version} 1 when set.
	Instance string
	// Auth, when set, refuses browsers' requests and authenticates
	// clients (see Auth); `luahook serve` always sets it. Nil: every
	// request is let in unnamed, for a host that mounts the handler
	// behind its own authentication.
	Auth *Auth
	// Approvals, when set, serves the web approvals it keeps (the same
	// hub the runner awaits, runner.Options.Approver) to authenticated
	// clients: GET /approvals lists the waiting ones, POST
	// /approvals/{id} decides one as the client. Nil: no such routes.
	Approvals *approvals.Hub
	// UI, when set, serves the web page under /ui/ (webui.Handler): it
	// answers browsers itself, with its own login, session cookie, CSRF
	// token and same-origin checks, so the Auth's refusal of browsers'
	// requests does not apply there. Nil: no page.
	UI http.Handler
	// Propagator, when set, reads the trace context of each request
	// (traceparent, tracestate) into its context, so that the decision's
	// span continues the caller's trace (telemetry.Provider.Propagator).
	// Nil: requests' trace headers are not read.
	Propagator propagation.TextMapPropagator
}

// Handler serves the hook protocol on POST / and POST /hook, each coding
// agent's own protocol on POST /agent/NAME (see ExitCodeHeader), the health
// status on GET /healthz (liveness), readiness on GET /readyz (503 while
// there are load errors, the store does not answer or the handler drains)
// and the Prometheus metrics on GET /metrics.
//
// With Options.Auth, requests are refused before their body is read as
// Auth says, and each payload's input.client is the name its client
// authenticated as; without, input.client is always empty. Either way
// what the payload itself said of its client is overridden.
//
// A hook request's body must be one payload object (luahook.DecodePayload) of at most
// Options.MaxBody bytes: a malformed payload is answered 400 with
// {"error": "..."} naming what is wrong, a larger body 413. A good payload is
// fired with the request's context, so a client that gives up cancels its
// hooks, and answered 200 with runner.Result.Outcome as JSON.
type Handler struct {
	firer     Firer
	failClose FailClosed
	maxBody   int64
	logger    *slog.Logger
	health    func() []error
	mux       *http.ServeMux
	m         *handlerMetrics
	adm       *admission
	reread    time.Duration  // the time an admitted request has to send its body
	shadow    *shadowSet     // nil without Options.Shadow
	store     *storeProbe    // nil without Options.StoreCheck
	guard     *guard         // nil without Options.Auth
	approvals *approvals.Hub // nil without Options.Approvals
	ui        http.Handler   // nil without Options.UI
	results   resultPool

	draining atomic.Bool

	prop propagation.TextMapPropagator // nil without Options.Propagator
}

var _ http.Handler = (*Handler)(nil)

// FailClosed applies what the engine could not load to the handler's
// answers, on every route alike: the pipeline's Gate (engine.Engine's
// LiveGate), with the on-load-error mode in force, Undecidable (asked
// before any hook runs: a request is refused with 503 while nothing may be
// decided) and CloseOver (an event that can block is denied while a policy
// file or the config has no version in force; an agent's route then
// answers with the agent's block signal).
type FailClosed = pipeline.Gate

// New returns a Handler that fires payloads at f.
func New(f Firer, opts Options) *Handler {
	h := &Handler{firer: f, failClose: opts.FailClosed, maxBody: opts.MaxBody, logger: opts.Logger, health: opts.Health, mux: http.NewServeMux(), ui: opts.UI,
		prop: opts.Propagator}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBody
	}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	if h.health == nil {
		h.health = func() []error { return nil }
	}
	reg := opts.Registry
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	lim := opts.Limits.withDefaults()
	h.adm, h.reread = newAdmission(lim), lim.ReadTimeout
	h.m = newMetrics(reg, func() int { return len(h.health()) }, h.adm.inUse)
	h.shadow = newShadowSet(opts.Shadow, h.logger)
	reg.MustRegister(newShadowCollector(f, h.shadow))
	if opts.DecisionLog != nil {
		registerDecisionLog(reg, opts.DecisionLog)
	}
	if opts.Store != nil {
		reg.MustRegister(storeCollector(opts.Store))
	}
	if opts.Instance != "" {
		registerInstance(reg, opts.Instance)
	}
	h.store = newStoreProbe(opts.StoreCheck, opts.StoreCheckTimeout, opts.StoreCheckEvery)
	h.guard = newGuard(opts.Auth, reg)
	h.mux.HandleFunc("POST /{$}", h.serveHook)
	h.mux.HandleFunc("POST /hook", h.serveHook)
	h.mux.HandleFunc("POST /agent/{agent}", h.serveAgent)
	h.mux.HandleFunc("POST /agent/{agent}/{event}", h.serveAgent)
	h.mux.HandleFunc("GET /healthz", h.serveHealth)
	h.mux.HandleFunc("GET /readyz", h.serveReady)
	h.mux.Handle("GET /metrics", h.authenticated(reg))
	if opts.Approvals != nil {
		// Deciding goes around admission: a flood of calls waiting for
		// approval must not keep anyone from deciding them.
		h.approvals = opts.Approvals
		h.mux.HandleFunc("GET /approvals", h.serveApprovals)
		h.mux.HandleFunc("POST /approvals/{id}", h.serveDecide)
	}
	return h
}

// ServeHTTP refuses what a browser may have sent (Options.Auth), then
// routes the request; the web page (Options.UI) checks its own.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.ui != nil && (r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, "/ui/")) {
		h.ui.ServeHTTP(w, r)
		return
	}
	if h.guard != nil {
		if d := h.guard.browser(r); d != nil {
			h.deny(w, r, d)
			return
		}
	}
	r = h.traced(r)
	h.mux.ServeHTTP(w, r)
}

// Close cancels the shadow firings in flight (Options.Shadow) and waits for
// them; later payloads are not fired at the shadow set. The handler goes on
// answering. Close may be called more than once.
func (h *Handler) Close() { h.shadow.close() }

func (h *Handler) serveHook(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	client, ok := h.client(w, r)
	if !ok {
		return
	}
	buf := getBuffer()
	req, t, rf := h.receive(w, r, client, *buf)
	body := req.Payload
	switch {
	case rf == nil:
		defer t.release()
	case rf.over != nil:
		h.refuseOverloaded(w, r, rf.over)
		return
	case rf.gone:
		h.m.gone.Inc()
		return
	case rf.code == http.StatusRequestEntityTooLarge:
		// A payload over the cap is not decided, as fire does not decide
		// it: one whose event can block is denied, naming the cap.
		c := pipeline.Read(pipeline.Request{Payload: rf.partial, ReadErr: rf.err})
		var res runner.Result
		rep := c.Answer(r.Context(), h.firer, h.gate(), &res, nil)
		if rep.Err != nil {
			h.refuse(w, r, rf.code, rf.err)
			return
		}
		h.m.answered.Inc()
		h.logger.LogAttrs(r.Context(), slog.LevelInfo, "payload refused, denied", slog.String("remote", r.RemoteAddr), slog.String("err", rf.err.Error()))
		writeBody(w, rep.Stdout)
		return
	default:
		h.refuse(w, r, rf.code, rf.err)
		return
	}
	c := pipeline.Read(req)
	setClient(&c, client)
	if c.Agent() != nil {
		// An agent's own payload sent to the hook protocol's route is
		// answered as that agent's route answers it, as fire does.
		h.answerAgent(w, r, &c, start)
		recycle(buf, body)
		return
	}
	// The Input and any error own copies of what they hold of the body.
	recycle(buf, body)
	res := h.results.get()
	defer h.results.put(res)
	out := getBuffer()
	rep := c.Answer(r.Context(), h.firer, h.gate(), res, *out)
	code := http.StatusBadRequest
	if req.CutOver != nil && c.Err() == req.CutOver {
		// Over the cap, and not a tool's output that could be cut: as a
		// body over the cap is refused.
		code = http.StatusRequestEntityTooLarge
	}
	if h.settled(w, r, &rep, res, code) {
		return
	}
	if rep.Fired {
		h.m.observe(res)
	} else {
		h.logger.LogAttrs(r.Context(), slog.LevelInfo, "payload refused, denied", slog.String("remote", r.RemoteAddr), slog.String("err", c.Err().Error()))
	}
	h.m.answered.Inc()
	took := time.Since(start)
	if rep.Fired {
		h.m.decision.Observe(took.Seconds())
	}
	if in := c.Input(); rep.Fired && h.logger.Enabled(r.Context(), slog.LevelDebug) {
		h.logger.LogAttrs(r.Context(), slog.LevelDebug, "answered", slog.String("event", string(in.Event)),
			slog.String("tool", in.ToolName), slog.String("decision", decisionOf(res)),
			slog.Int("hooks", len(res.Trace)), slog.Duration("took", took))
	}
	writeBody(w, rep.Stdout)
	recycle(out, rep.Stdout)
	if rep.Fired {
		h.shadow.offer(c.Input(), res)
	}
}

// settled disposes of a Reply that has no answer to write, and reports
// whether it did: a client that gave up (the cancelled call's result is
// counted, not used), or nothing to answer (Err: 503 when the policies may
// not decide, else code).
func (h *Handler) settled(w http.ResponseWriter, r *http.Request, rep *pipeline.Reply, res *runner.Result, code int) bool {
	switch {
	case rep.Fired && r.Context().Err() != nil:
		h.m.observe(res)
		h.m.gone.Inc()
	case rep.Err != nil && rep.Unavailable:
		h.refuse(w, r, http.StatusServiceUnavailable, rep.Err)
	case rep.Err != nil:
		h.refuse(w, r, code, rep.Err)
	default:
		return false
	}
	return true
}

// setClient makes the payload's client the one the request authenticated
// as, whatever the payload said: a client must not pass for another, nor
// spend another's budget in the policies.
func setClient(c *pipeline.Call, client string) {
	if in := c.Input(); in != nil {
		in.Client = client
	}
}

// gate is the pipeline's gate: Options.FailClosed.
func (h *Handler) gate() pipeline.Gate { return h.failClose }

// refusal is why a request's body was not received: the client went away
// (gone), waited in vain for its turn (over), or sent a body that is too
// large or broken (code and err).
type refusal struct {
	gone bool
	over *overloaded
	code int
	err  error
	// partial is the start of a body over the cap (pipeline.Oversize),
	// for the event it names.
	partial []byte
}

// receive admits a request of client (see admission) and reads its body
// (readBody: its long strings cut, at most MaxBody bytes kept), into buf's
// array when it fits. The caller releases the ticket when it received the
// body, and sets the request's format and event.
func (h *Handler) receive(w http.ResponseWriter, r *http.Request, client string, buf []byte) (pipeline.Request, *ticket, *refusal) {
	// What a body costs is what is kept of it, at most MaxBody: a longer
	// one is read, its tool output cut (or refused, past the cap kept).
	reserve := r.ContentLength
	if reserve < 0 || reserve > h.maxBody {
		reserve = h.maxBody
	}
	t, err := h.adm.admit(r.Context(), r.RemoteAddr, client, reserve)
	if err != nil {
		var o *overloaded
		if errors.As(err, &o) {
			return pipeline.Request{}, nil, &refusal{over: o}
		}
		return pipeline.Request{}, nil, &refusal{gone: true}
	}
	// The wait for a turn does not eat the time to send the body.
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.reread))
	req, err := readBody(buf, r.Body, r.ContentLength, h.maxBody)
	if err != nil {
		t.release()
		code := http.StatusBadRequest
		var partial []byte
		if errors.Is(err, firstvalue.ErrTooLarge) {
			code, err = http.StatusRequestEntityTooLarge, bodyTooLarge(h.maxBody)
			partial = pipeline.Oversize(req.Payload)
		}
		return pipeline.Request{}, nil, &refusal{code: code, err: err, partial: partial}
	}
	// A client that cut the payload before sending it (luahook fire
	// --socket, luahook-fire) says how much it withheld: the payload is
	// decided as cut, as the client would have decided it. A count that
	// is not a number is ignored; one on a payload that is not a tool's
	// output refuses it as cut.
	if v := r.Header.Get(relay.CutHeader); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > req.Cut {
			req.Cut = n
		}
	}
	return req, t, nil
}

func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, code int, err error) {
	h.m.requests.WithLabelValues(fmt.Sprint(code)).Inc()
	h.logger.LogAttrs(r.Context(), slog.LevelInfo, "request refused", slog.Int("status", code),
		slog.String("remote", r.RemoteAddr), slog.String("err", err.Error()))
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

// refuseOverloaded answers a request that waited in vain for its turn. The
// status says overloaded (429 or 503, with Retry-After) and the body is a
// denial with the reason as well as an error: agents take an error status for
// "proceed", so a client that reads the body must find "deny" there.
func (h *Handler) refuseOverloaded(w http.ResponseWriter, r *http.Request, o *overloaded) {
	h.m.requests.WithLabelValues(fmt.Sprint(o.code)).Inc()
	h.logger.LogAttrs(r.Context(), slog.LevelWarn, "request refused", slog.Int("status", o.code),
		slog.String("remote", r.RemoteAddr), slog.String("err", o.msg))
	w.Header().Set("Retry-After", "1")
	writeJSON(w, o.code, map[string]string{"action": "deny", "reason": "luahook serve could not decide: " + o.msg, "error": o.msg})
}

// healthStatus is the body of /healthz and /readyz.
type healthStatus struct {
	// Status is ok | degraded (load errors), and on /readyz also unready
	// (the store does not answer) | draining (Drain was called).
	Status string   `json:"status"`
	Errors []string `json:"errors,omitempty"`
	// Store is the store check's error (/readyz only).
	Store string `json:"store,omitempty"`
	// ShadowErrors are the shadow set's load errors; they leave Status alone.
	ShadowErrors []string `json:"shadowErrors,omitempty"`
}

// serveHealth answers 200 as long as the handler serves. Load errors make
// the status "degraded" and are listed, but do not fail the check: the
// previous good version of a broken file stays live, and a restart would
// not repair the file. Alert on the luahook_load_errors gauge instead.
func (h *Handler) serveHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, h.status())
}

// serveReady answers readiness: 200 {"status":"ok"} when the hooks loaded
// without errors, the store answers (Options.StoreCheck) and the handler is
// not draining; otherwise 503 with status "draining", "unready" (the
// store's error under "store") or "degraded" (the load errors), so that a
// load balancer sends payloads only to replicas that can decide them with
// the policies on disk. /healthz stays liveness.
func (h *Handler) serveReady(w http.ResponseWriter, r *http.Request) {
	st := h.status()
	switch {
	case h.draining.Load():
		// The store is not asked: the replica is leaving whatever it says.
		st.Status = StatusDraining
	default:
		if err := h.store.result(r.Context()); err != nil {
			st.Status, st.Store = StatusUnready, err.Error()
		}
	}
	code := http.StatusOK
	if st.Status != "ok" {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, st)
}

// status is the body of /healthz and /readyz.
func (h *Handler) status() healthStatus {
	st := healthStatus{Status: "ok"}
	if errs := h.health(); len(errs) > 0 {
		st.Status = "degraded"
		for _, err := range errs {
			st.Errors = append(st.Errors, err.Error())
		}
	}
	if h.shadow != nil {
		for _, err := range h.shadow.health() {
			st.ShadowErrors = append(st.ShadowErrors, err.Error())
		}
	}
	return st
}

// writeBody answers 200 with b, an outcome's JSON line.
func writeBody(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(code)
	io.Copy(w, &buf)
}
