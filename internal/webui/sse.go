package webui

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/luahook/luahook/internal/approvals"
	"github.com/luahook/luahook/internal/decisionfeed"
)

// streamBuffer is how many events a stream's subscriptions buffer: past
// it, a page that does not keep up misses events and is told to fetch
// again (a "resync" event), rather than holding the decisions.
const streamBuffer = 256

// stream is one open /ui/events: who opened it (a stream must not be of
// zero size, whose pointers may all be equal).
type stream struct{ who string }

// serveEvents answers GET /ui/events?agent=&session=&verdict=&policy= with
// server-sent events: "decision" (a decisionfeed.Entry that matches the
// filter), "approval" (an approvals.Event), "resync" (events were missed:
// fetch the lists again), and a comment every Heartbeat. The stream ends
// when the session does, when the client goes, or when the handler
// closes. At most MaxStreams are open at once (503 past it).
func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request, s *session) {
	st := &stream{who: s.Name}
	h.mu.Lock()
	if h.closed || len(h.streams) >= h.opts.MaxStreams {
		n := len(h.streams)
		h.mu.Unlock()
		w.Header().Set("Retry-After", "10")
		h.fail(w, r, http.StatusServiceUnavailable, "too many live streams are open ("+strconv.Itoa(n)+"): close a page")
		return
	}
	h.streams[st] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.streams, st)
		h.mu.Unlock()
	}()

	flt := filterOf(r)
	var decisions <-chan decisionfeed.Entry
	var feedSub *decisionfeed.Subscription
	if h.opts.Feed != nil {
		sub, err := h.opts.Feed.Subscribe(streamBuffer)
		if err != nil {
			h.fail(w, r, http.StatusServiceUnavailable, err.Error())
			return
		}
		feedSub, decisions = sub, sub.C()
		defer sub.Cancel()
	}
	var events <-chan approvals.Event
	var hubSub *approvals.Subscription
	if h.opts.Approvals != nil {
		hubSub = h.opts.Approvals.Subscribe(streamBuffer)
		events = hubSub.C()
		defer hubSub.Cancel()
	}

	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(event string, v any) bool {
		var data []byte
		if v != nil {
			b, err := json.Marshal(v)
			if err != nil {
				return true
			}
			data = b
		}
		rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
		var err error
		if event == "" {
			_, err = w.Write([]byte(": ping\n\n"))
		} else {
			buf := make([]byte, 0, len(event)+len(data)+16)
			buf = append(buf, "event: "...)
			buf = append(buf, event...)
			buf = append(buf, "\ndata: "...)
			buf = append(buf, data...)
			buf = append(buf, "\n\n"...)
			_, err = w.Write(buf)
		}
		return err == nil && rc.Flush() == nil
	}
	if !write("hello", map[string]any{"seq": h.seq()}) {
		return
	}
	beat := time.NewTicker(h.opts.Heartbeat)
	defer beat.Stop()
	var missedFeed, missedHub int64
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			write("bye", map[string]string{"reason": "luahook serve is stopping"})
			return
		case e, ok := <-decisions:
			if !ok {
				decisions = nil
				continue
			}
			if flt.Match(&e) && !write("decision", e) {
				return
			}
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if !write("approval", e) {
				return
			}
		case <-beat.C:
			if !h.opts.Now().Before(s.expires) {
				write("bye", map[string]string{"reason": "the session ended: log in again"})
				return
			}
			if !write("", nil) {
				return
			}
		}
		// A stream that missed events says so once per run of them.
		var mf, mh int64
		if feedSub != nil {
			mf = feedSub.Dropped()
		}
		if hubSub != nil {
			mh = hubSub.Dropped()
		}
		if mf != missedFeed || mh != missedHub {
			missedFeed, missedHub = mf, mh
			if !write("resync", map[string]int64{"missedDecisions": mf, "missedApprovals": mh}) {
				return
			}
		}
	}
}

// seq is the newest decision's number, 0 without a feed.
func (h *Handler) seq() uint64 {
	if h.opts.Feed == nil {
		return 0
	}
	return h.opts.Feed.Seq()
}
