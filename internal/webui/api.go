package webui

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/internal/decisionfeed"
)

// maxDecideBody bounds a decision's body.
const maxDecideBody = 16 << 10

// apiDecisions answers GET /ui/api/decisions?agent=&session=&verdict=&policy=&before=&limit=:
// the newest decisions that match, older than before (a Seq), at most limit
// (MaxRows by default and at most), newest first.
func (h *Handler) apiDecisions(w http.ResponseWriter, r *http.Request, _ *session) {
	if h.opts.Feed == nil {
		writeJSON(w, http.StatusOK, map[string]any{"decisions": []decisionfeed.Entry{}, "more": false})
		return
	}
	q := r.URL.Query()
	var before uint64
	if b := q.Get("before"); b != "" {
		n, err := strconv.ParseUint(b, 10, 64)
		if err != nil {
			h.fail(w, r, http.StatusBadRequest, "before: want a decision's number, got "+strconv.Quote(cut(b, 40)))
			return
		}
		before = n
	}
	limit := MaxRows
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			h.fail(w, r, http.StatusBadRequest, "limit: want a number from 1 to "+strconv.Itoa(MaxRows)+", got "+strconv.Quote(cut(l, 40)))
			return
		}
		limit = min(n, MaxRows)
	}
	list, more := h.opts.Feed.Query(filterOf(r), before, limit)
	if list == nil {
		list = []decisionfeed.Entry{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"decisions": list, "more": more, "held": h.opts.Feed.Len()})
}

// counts is the answer of GET /ui/api/counts.
type counts struct {
	decisionfeed.Counts
	// Held is how many decisions the window holds.
	Held int `json:"held"`
}

// apiCounts answers GET /ui/api/counts: decisions and denials per minute
// over the last hour, the rules that denied most, and how many decisions
// the window holds.
func (h *Handler) apiCounts(w http.ResponseWriter, r *http.Request, _ *session) {
	if h.opts.Feed == nil {
		writeJSON(w, http.StatusOK, counts{})
		return
	}
	writeJSON(w, http.StatusOK, counts{Counts: h.opts.Feed.Counts(60, 5), Held: h.opts.Feed.Len()})
}

// apiApprovals answers GET /ui/api/approvals: the approvals waiting.
func (h *Handler) apiApprovals(w http.ResponseWriter, r *http.Request, _ *session) {
	list := []approvals.Pending{}
	if h.opts.Approvals != nil {
		list = h.opts.Approvals.List()
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": list, "on": h.opts.Approvals != nil})
}

// decision is the body of POST /ui/api/approvals/{id}.
type decision struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	Digest  string `json:"digest"`
}

// apiDecide answers POST /ui/api/approvals/{id}: the logged-in person
// approves or denies the approval, as the name their token has.
func (h *Handler) apiDecide(w http.ResponseWriter, r *http.Request, s *session) {
	if h.opts.Approvals == nil {
		h.fail(w, r, http.StatusNotFound, "this server keeps no web approvals (luahook serve --approvals)")
		return
	}
	var body decision
	dec := json.NewDecoder(io.LimitReader(r.Body, maxDecideBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		h.fail(w, r, http.StatusBadRequest, "the decision must be {\"verdict\":\"approve\"|\"deny\",\"reason\":…,\"digest\":…}: "+err.Error())
		return
	}
	var approve bool
	switch body.Verdict {
	case "approve":
		approve = true
	case "deny":
	default:
		h.fail(w, r, http.StatusBadRequest, "verdict must be \"approve\" or \"deny\", got "+strconv.Quote(cut(body.Verdict, 40)))
		return
	}
	if strings.TrimSpace(body.Digest) == "" {
		h.fail(w, r, http.StatusBadRequest, "digest is missing: the decision names the call it is for")
		return
	}
	d, err := h.opts.Approvals.Decide(r.PathValue("id"), s.Name, approve, body.Reason, body.Digest)
	if err != nil {
		h.fail(w, r, approvals.StatusOf(err), err.Error())
		return
	}
	h.log.Info("ui: approval decided", "id", d.ID, "by", d.By, "approved", d.Approved)
	writeJSON(w, http.StatusOK, d)
}
