package server

import (
	"net/http"

	"go.opentelemetry.io/otel/propagation"
)

// traced returns r with the trace context its headers carry in its
// context (Options.Propagator), so that the decision's span is a child of
// the caller's; r itself without a propagator or a traceparent header,
// at no cost.
func (h *Handler) traced(r *http.Request) *http.Request {
	if h.prop == nil || r.Header.Get("Traceparent") == "" {
		return r
	}
	return r.WithContext(h.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
}
