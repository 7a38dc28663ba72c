package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/luahook/luahook/internal/approvals"
)

// maxDecisionBody caps the body of POST /approvals/{id}.
const maxDecisionBody = 16 << 10

// decisionBody is what POST /approvals/{id} reads.
type decisionBody struct {
	// Verdict is "approve" or "deny".
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Digest is the call's digest as GET /approvals listed it: the
	// decision is for that call only.
	Digest string `json:"digest"`
}

// serveApprovals answers GET /approvals: the waiting web approvals, oldest
// first, to an authenticated client.
func (h *Handler) serveApprovals(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.client(w, r); !ok {
		return
	}
	list := h.approvals.List()
	writeJSON(w, http.StatusOK, map[string]any{"approvals": list})
}

// serveDecide answers POST /approvals/{id}: the authenticated client
// approves or denies the approval id. 404: no such approval waits; 409: it
// was decided already, or the digest is another call's; 403: the client is
// not among its approvers; 400: a body that is not a decision.
func (h *Handler) serveDecide(w http.ResponseWriter, r *http.Request) {
	who, ok := h.client(w, r)
	if !ok {
		return
	}
	var body decisionBody
	dec := json.NewDecoder(io.LimitReader(r.Body, maxDecisionBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		h.refuse(w, r, http.StatusBadRequest, errors.New("the decision must be a JSON object {\"verdict\":\"approve\"|\"deny\",\"reason\":…,\"digest\":…}: "+err.Error()))
		return
	}
	var approve bool
	switch body.Verdict {
	case "approve":
		approve = true
	case "deny":
	default:
		h.refuse(w, r, http.StatusBadRequest, errors.New("verdict must be \"approve\" or \"deny\", got "+quoteCut(body.Verdict)))
		return
	}
	if strings.TrimSpace(body.Digest) == "" {
		h.refuse(w, r, http.StatusBadRequest, errors.New("digest is missing: send the digest GET /approvals lists for this approval"))
		return
	}
	d, err := h.approvals.Decide(r.PathValue("id"), who, approve, body.Reason, body.Digest)
	if err != nil {
		h.refuse(w, r, approvals.StatusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// quoteCut quotes s, cut to 64 bytes, for an error.
func quoteCut(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	b, _ := json.Marshal(s)
	return string(b)
}
