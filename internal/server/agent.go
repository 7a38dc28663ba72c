package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/internal/relay"
)

// The agent protocol over HTTP: POST /agent/NAME (NAME one of agent.Names)
// with the agent's own payload as the body, and for Copilot's camelCase
// payloads, which do not name their event, POST /agent/copilot/EVENT
// (/agent/copilot/preToolUse). The answer is always 200 with a JSON body
// the agent acts on: the adapter's answer (agent.Answer.Stdout), "{}" when
// it writes nothing. Every refusal (a body too large or unreadable, a
// server over its limits) is the agent's block signal (agent.Adapter.Block)
// naming the cause, because Claude Code's HTTP hooks read any other status
// as "proceed".
const (
	// ExitCodeHeader carries, on every agent answer, the exit status the
	// agent's command hook would have exited with (0, or 2 to block).
	ExitCodeHeader = "Luahook-Exit-Code"
	// RelayHeader, set to any value on a request to /agent/..., asks for
	// the whole answer as a Relay instead of the agent's body: what
	// `luahook fire --agent NAME --http URL` uses to answer as a command
	// hook (standard output, standard error and exit status).
	RelayHeader = relay.Header
)

// Relay is the body of an agent answer asked for with RelayHeader: the
// command hook's standard output (the agent's JSON, "" for none), standard
// error and exit status. Its clients read it with relay.Decode.
type Relay = relay.Relay

// emptyAnswer is the body of an answer that writes nothing: no objection.
var emptyAnswer = []byte("{}\n")

// serveAgent answers POST /agent/{agent} and /agent/{agent}/{event}: the
// same admission, body cap and budgets as the hook protocol, the payload
// decoded by the agent's adapter, fired, and encoded for the agent.
func (h *Handler) serveAgent(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	a, err := agent.Lookup(r.PathValue("agent"))
	if err != nil {
		// No adapter, so no block signal to answer with.
		h.refuse(w, r, http.StatusNotFound, err)
		return
	}
	am := h.m.agent(a.Name())
	event := r.PathValue("event")
	client, d := "", (*denial)(nil)
	if h.guard != nil {
		client, d = h.guard.authenticate(r)
	}
	if d != nil {
		// The agent's block signal, as for every refusal on its route: an
		// agent set up without its token is denied, not let through.
		h.countDenial(r, d)
		w.Header().Set("Connection", "close")
		// Not logged: a client without credentials must not be able to
		// write the decision log (nor rotate its records out).
		h.blockAgent(w, r, a, am, blockAuth, pipeline.CauseNone, event, "luahook serve refused the request: "+d.msg)
		closeRefused(w)
		return
	}
	req, t, rf := h.receive(w, r, client, nil)
	switch {
	case rf == nil:
		defer t.release()
	case rf.gone:
		h.m.gone.Inc()
		return
	case rf.over != nil:
		h.logger.LogAttrs(r.Context(), slog.LevelWarn, "request refused", slog.String("agent", string(a.Name())),
			slog.String("remote", r.RemoteAddr), slog.String("err", rf.over.msg))
		h.blockAgent(w, r, a, am, blockOverloaded, pipeline.CauseOverloaded, event, "luahook serve could not decide: "+rf.over.msg)
		return
	default:
		h.logger.LogAttrs(r.Context(), slog.LevelInfo, "request refused", slog.String("agent", string(a.Name())),
			slog.String("remote", r.RemoteAddr), slog.String("err", rf.err.Error()))
		h.blockAgent(w, r, a, am, blockBody, pipeline.CauseRead, event, "luahook serve could not read the request: "+rf.err.Error())
		return
	}
	req.Format, req.Event = string(a.Name()), event
	c := pipeline.Read(req)
	if req.CutOver != nil && c.Err() == req.CutOver {
		// Over the cap, and not a tool's output that could be cut: refused
		// as a body over the cap is.
		h.logger.LogAttrs(r.Context(), slog.LevelInfo, "request refused", slog.String("agent", string(a.Name())),
			slog.String("remote", r.RemoteAddr), slog.String("err", req.CutOver.Error()))
		h.blockAgent(w, r, a, am, blockBody, pipeline.CauseRead, event, "luahook serve could not read the request: "+req.CutOver.Error())
		return
	}
	setClient(&c, client)
	h.answerAgent(w, r, &c, start)
}

// answerAgent answers c, an agent's payload received at start: decoded by
// the agent's adapter, fired, and encoded for the agent (pipeline).
func (h *Handler) answerAgent(w http.ResponseWriter, r *http.Request, c *pipeline.Call, start time.Time) {
	a := c.Agent()
	am := h.m.agent(a.Name())
	res := h.results.get()
	defer h.results.put(res)
	rep := c.Answer(r.Context(), h.firer, h.gate(), res, nil)
	if rep.Err != nil && !rep.Unavailable {
		// on_load_error fail, and a payload that did not decode: no
		// decision, and no block signal either.
		am.decodeFailures.Inc()
	}
	if h.settled(w, r, &rep, res, http.StatusServiceUnavailable) {
		return
	}
	if rep.Fired {
		h.m.observe(res)
	}
	switch rep.Cause {
	case pipeline.CauseRead, pipeline.CauseDecode, pipeline.CauseLoad:
		// Not decided (the payload), or denied for what did not load: the
		// agent's own block signal, as fire --agent answers it.
		cause := blockLoad
		if rep.Cause != pipeline.CauseLoad {
			cause = blockDecode
			am.decodeFailures.Inc()
			h.logger.LogAttrs(r.Context(), slog.LevelInfo, "payload refused", slog.String("agent", string(a.Name())),
				slog.String("remote", r.RemoteAddr), slog.String("err", c.Err().Error()))
		}
		am.blocks[cause].Inc()
		h.m.answered.Inc()
		writeAnswer(w, r, agent.Answer{Stdout: rep.Stdout, Stderr: rep.Stderr, ExitCode: rep.ExitCode})
		return
	}
	var d agent.Decision
	if rep.Fired {
		d = agent.FromResult(*res)
	}
	am.count(d)
	h.m.answered.Inc()
	took := time.Since(start)
	h.m.decision.Observe(took.Seconds())
	if h.logger.Enabled(r.Context(), slog.LevelDebug) {
		h.logger.LogAttrs(r.Context(), slog.LevelDebug, "answered", slog.String("agent", string(a.Name())),
			slog.String("event", c.Event()), slog.String("decision", verdictLabel(d)), slog.Duration("took", took))
	}
	writeAnswer(w, r, agent.Answer{Stdout: rep.Stdout, Stderr: rep.Stderr, ExitCode: rep.ExitCode})
	if rep.Fired {
		h.shadow.offer(c.Input(), res)
	}
}

// blockAgent answers with the agent's block signal for a request that
// could not be decided, whatever on_load_error says, and counts it by
// cause. Unless logAs is CauseNone, the answer goes to the decision log
// (Options.FailClosed's Record) with that cause, as the pipeline's own
// blocks do: the agent was blocked, and no policy decided it.
func (h *Handler) blockAgent(w http.ResponseWriter, r *http.Request, a agent.Adapter, am *agentMetrics, cause blockCause, logAs pipeline.Cause, event, reason string) {
	am.blocks[cause].Inc()
	h.m.answered.Inc()
	if logAs == pipeline.CauseNone {
		writeAnswer(w, r, a.Block(event, luahook.TruncateReason(reason)))
		return
	}
	c := pipeline.Read(pipeline.Request{Format: string(a.Name()), Event: event, ReadErr: errNotTaken})
	rep := c.Undecided(pipeline.Gate{Record: h.failClose.Record, Recording: h.failClose.Recording}, reason, logAs, nil)
	writeAnswer(w, r, agent.Answer{Stdout: rep.Stdout, Stderr: rep.Stderr, ExitCode: rep.ExitCode})
}

// errNotTaken is the read error of a request blockAgent answers: its body
// was not taken, so nothing of it is decoded.
var errNotTaken = errors.New("the request was not taken")

// writeAnswer writes ans as an HTTP answer: 200, the exit status in
// ExitCodeHeader, and the agent's body, or the whole answer as a Relay when
// the request asked for it (RelayHeader).
func writeAnswer(w http.ResponseWriter, r *http.Request, ans agent.Answer) {
	body := ans.Stdout
	if len(r.Header.Get(RelayHeader)) > 0 {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(Relay{ExitCode: ans.ExitCode, Stdout: string(ans.Stdout), Stderr: ans.Stderr}); err != nil {
			panic(fmt.Sprintf("server: encoding a relay: %v", err)) // strings and an int always encode
		}
		body = b.Bytes()
	} else if len(body) == 0 {
		body = emptyAnswer
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set(ExitCodeHeader, strconv.Itoa(ans.ExitCode))
	// Given, not left to net/http: a longer body would go in chunks, which
	// luahook-fire does not read, and a refusal's connection is closed
	// right after its answer (closeRefused).
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
