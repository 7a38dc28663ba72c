package approvals

import (
	"encoding/json"
	"sync/atomic"
)

// subscriber is one Subscribe: its channel and how many events it missed.
type subscriber struct {
	ch      chan Event
	dropped atomic.Int64
}

// Subscription follows a Hub's events (Subscribe).
type Subscription struct {
	h *Hub
	s *subscriber
}

// Subscribe returns a subscription whose channel, C, receives the hub's
// events from now on, buffering up to buf of them (at least 1). A
// subscriber that does not keep up misses events (Dropped counts them)
// rather than holding the hub: a slow page must not hold the calls that
// wait. In shared mode (Open) the events are the whole fleet's, each once.
// The channel is closed by Cancel and by the hub's Close.
func (h *Hub) Subscribe(buf int) *Subscription {
	s := &subscriber{ch: make(chan Event, max(buf, 1))}
	h.mu.Lock()
	if h.closed {
		close(s.ch)
	} else {
		h.subs[s] = struct{}{}
	}
	h.mu.Unlock()
	return &Subscription{h: h, s: s}
}

// C is the channel of events.
func (s *Subscription) C() <-chan Event { return s.s.ch }

// Dropped returns how many events the subscriber missed.
func (s *Subscription) Dropped() int64 { return s.s.dropped.Load() }

// Cancel ends the subscription and closes its channel. It may be called
// more than once.
func (s *Subscription) Cancel() {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if _, ok := s.h.subs[s.s]; ok {
		delete(s.h.subs, s.s)
		close(s.s.ch)
	}
}

// publish hands a local event to the subscribers; h.mu is held. In shared
// mode it does nothing: every event, this replica's too, reaches the
// subscribers once, from the fleet's Redis channel (deliver).
func (h *Hub) publish(e Event) {
	if h.shared != nil {
		return
	}
	h.deliver(e)
}

// deliver hands e to every subscriber that has room; h.mu is held.
func (h *Hub) deliver(e Event) {
	for s := range h.subs {
		select {
		case s.ch <- e:
		default:
			s.dropped.Add(1)
		}
	}
}

// marshalWithInput encodes v, an object, with "input" set to the JSON
// text input when there is one.
func marshalWithInput(v any, input []byte) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(input) == 0 || !json.Valid(input) {
		return b, err
	}
	out := make([]byte, 0, len(b)+len(input)+10)
	out = append(out, b[:len(b)-1]...)
	out = append(out, `,"input":`...)
	out = append(out, input...)
	return append(out, '}'), nil
}
