package webui

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
)

// decisionView is one decision opened on the page, as `luahook explain`
// tells it, from the decision log's record of it (masked as the log is):
// the event, each hook in the order it ran with what it answered, the
// decision and who made it, what the agent received, the web approval.
type decisionView struct {
	page
	Seq     uint64
	Rec     *decisionlog.Record
	Heading string
	Hooks   []hookView
	// Decision, DecidedBy, Delivered and Approval are explain's closing
	// lines.
	Decision, DecidedBy, Delivered, Approval string
	Ledger                                   []string
	Input                                    []byte
}

type hookView struct {
	Order                         int
	Name, Source, Kind, Mode      string
	Answer, Failure, Skipped, Why string
	Duration                      float64
}

func (h *Handler) serveDecision(w http.ResponseWriter, r *http.Request, s *session) {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "no such decision: want its number, got "+strconv.Quote(cut(r.PathValue("seq"), 40)))
		return
	}
	if h.opts.Feed == nil {
		h.fail(w, r, http.StatusNotFound, "this page keeps no decisions")
		return
	}
	rec, ok := h.opts.Feed.Detail(seq)
	if !ok {
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("decision %d is no longer in the page's window (the decision log has it)", seq))
		return
	}
	h.render(w, r, http.StatusOK, "decision.html", explainRecord(h.page(fmt.Sprintf("luahook: decision %d", seq), s), seq, rec))
}

// explainRecord builds the view of rec.
func explainRecord(p page, seq uint64, rec *decisionlog.Record) decisionView {
	v := decisionView{page: p, Seq: seq, Rec: rec, Input: rec.Input}
	v.Heading = string(rec.Event)
	if rec.ToolName != "" {
		v.Heading += ", tool name " + strconv.Quote(rec.ToolName)
	}
	for i, hk := range rec.Hooks {
		hv := hookView{Order: i + 1, Name: hk.Name, Source: hk.Source, Kind: string(hk.Kind), Mode: hk.Mode, Skipped: hk.Skipped, Duration: hk.DurationMs}
		if hk.Outcome != nil {
			hv.Answer = outcomeWords(hk.Outcome)
		} else if hk.Failure == nil && hk.Skipped == "" {
			hv.Answer = "no objection"
		}
		if f := hk.Failure; f != nil {
			hv.Failure = string(f.Kind) + ": " + f.Message
		}
		v.Hooks = append(v.Hooks, hv)
	}
	d := rec.Decision
	switch {
	case d.Action == "":
		v.Decision = "no objection"
	case d.Reason != "":
		v.Decision = string(d.Action) + ": " + d.Reason
	default:
		v.Decision = string(d.Action)
	}
	v.DecidedBy = d.DecidedBy
	if v.DecidedBy == "" {
		v.DecidedBy = "no hook (nothing objected)"
	}
	if dl := rec.Delivered; dl != nil {
		parts := []string{dl.Verdict}
		if dl.Agent != "" {
			parts = append(parts, "to "+dl.Agent)
		}
		parts = append(parts, "exit status "+strconv.Itoa(dl.ExitCode))
		if dl.Cause != "" {
			parts = append(parts, "cause: "+dl.Cause)
		}
		if dl.Reason != "" {
			parts = append(parts, "reason: "+dl.Reason)
		}
		if dl.Note != "" {
			parts = append(parts, dl.Note)
		}
		v.Delivered = strings.Join(parts, "; ")
	}
	if a := rec.Approval; a != nil {
		s := a.Verdict
		if a.By != "" {
			s += " by " + a.By
		}
		if !a.At.IsZero() {
			s += " at " + a.At.UTC().Format("2006-01-02 15:04:05Z")
		}
		if a.Reason != "" {
			s += ": " + a.Reason
		}
		v.Approval = s
	}
	for _, e := range rec.Ledger {
		v.Ledger = append(v.Ledger, e.Hook+": "+e.String())
	}
	return v
}

// outcomeWords says what a hook answered, as explain does.
func outcomeWords(o *luahook.Outcome) string {
	var b strings.Builder
	b.WriteString(string(o.Action))
	if o.Action == "" {
		b.WriteString("no objection")
	}
	if o.Route == luahook.RouteWeb {
		b.WriteString(" (routed to a person on the approvals page")
		if len(o.Approvers) > 0 {
			b.WriteString(": " + strings.Join(o.Approvers, ", "))
		}
		b.WriteString(")")
	}
	if o.Reason != "" {
		b.WriteString(": " + o.Reason)
	}
	if o.AdditionalContext != "" {
		b.WriteString(" — context: " + o.AdditionalContext)
	}
	return b.String()
}
