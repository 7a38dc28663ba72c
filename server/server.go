// Package server answers the HTTP-hook protocol from an engine: POST a payload
// as JSON, get the outcome as JSON. It is what `luahook serve` runs, and a
// host may mount it in its own HTTP server.
package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// DefaultMaxBody is the default cap on a request body.
const DefaultMaxBody = 8 << 20

// Options configure a Handler.
type Options struct {
	MaxBody int64        // request body cap; 0 = DefaultMaxBody
	Logger  *slog.Logger // nil = discard
	// Registry receives the metrics and is served at /metrics; nil = a fresh one.
	Registry *prometheus.Registry
}

// Handler serves POST / (and POST /hook) with the hook protocol, GET /healthz
// and GET /metrics.
type Handler struct {
	fire    func(r *http.Request, in *luahook.Input) runner.Result
	healthy func() error
	opts    Options
	mux     *http.ServeMux
	m       *metrics
}

// New returns a Handler that fires payloads with fire and reports health with
// healthy (nil error = healthy).
func New(fire func(r *http.Request, in *luahook.Input) runner.Result, healthy func() error, opts Options) *Handler {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	h := &Handler{fire: fire, healthy: healthy, opts: opts, mux: http.NewServeMux(), m: newMetrics(opts.Registry)}
	h.mux.HandleFunc("POST /{$}", h.hook)
	h.mux.HandleFunc("POST /hook", h.hook)
	h.mux.HandleFunc("GET /healthz", h.health)
	h.mux.Handle("GET /metrics", promhttp.HandlerFor(opts.Registry, promhttp.HandlerOpts{}))
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) hook(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.m.requests.WithLabelValues("413").Inc()
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", h.opts.MaxBody))
			return
		}
		h.m.requests.WithLabelValues("400").Inc()
		httpError(w, http.StatusBadRequest, "reading body: "+err.Error())
		return
	}
	in, err := DecodePayload(body)
	if err != nil {
		h.m.requests.WithLabelValues("400").Inc()
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	res := h.fire(r, in)
	h.m.observe(res)
	out, err := json.Marshal(res.Outcome())
	if err != nil {
		h.m.requests.WithLabelValues("500").Inc()
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	h.m.requests.WithLabelValues("200").Inc()
	h.m.decisionSeconds.Observe(time.Since(start).Seconds())
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

func (h *Handler) health(w http.ResponseWriter, _ *http.Request) {
	if err := h.healthy(); err != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "ok (with load errors; the previous good versions are live)\n%v\n", err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Write(b)
}

// DecodePayload parses a payload strictly: it must be one JSON object with
// known fields and a known event, so that a typo is an error rather than an
// empty payload that every policy lets through.
func DecodePayload(data []byte) (*luahook.Input, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, errors.New("payload must be a JSON object")
	}
	in := &luahook.Input{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	if dec.More() {
		return nil, errors.New("payload: more than one JSON value")
	}
	if in.ToolInput != nil && string(in.ToolInput) != "null" && !luahook.IsJSONObject(in.ToolInput) {
		return nil, errors.New("payload: toolInput must be an object")
	}
	if string(in.ToolInput) == "null" {
		in.ToolInput = nil
	}
	if in.Event == "" {
		return nil, errors.New("payload: no event")
	}
	if _, err := luahook.ParseEvent(string(in.Event)); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	return in, nil
}
