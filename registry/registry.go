// Package registry keeps the ordered hooks of every event. Reads are lock-free
// (an immutable snapshot behind an atomic pointer), so firing an event never
// contends with other firings; writes copy the snapshot and swap it.
package registry

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/luahook/luahook"
)

// Registry is the ordered set of hooks for every event. The zero value is not
// usable; call New. A Registry is safe for concurrent use.
type Registry struct {
	mu   sync.Mutex // serialises writers
	snap atomic.Pointer[snapshot]
	seq  uint64
}

type snapshot struct {
	all     []*Entry // in order
	byEvent [luahook.NumEvents][]*Entry
}

// New returns an empty registry.
func New() *Registry {
	r := &Registry{}
	r.snap.Store(&snapshot{})
	return r
}

// Register adds one hook and returns a function that removes exactly that
// entry; calling it more than once is harmless.
func (r *Registry) Register(spec luahook.Spec) (unregister func(), err error) {
	e, err := newEntry(spec)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.assign(e)
	r.publish(append(slices.Clone(r.snap.Load().all), e))
	r.mu.Unlock()
	return func() { r.remove(func(x *Entry) bool { return x == e }) }, nil
}

// ReplaceOwner atomically replaces every entry of owner with the hooks of
// specs (a configured set after a config change, one Lua file after an edit).
// The replacement is built completely first: if any spec is invalid, nothing
// changes and the error names the spec. An empty specs removes the owner.
func (r *Registry) ReplaceOwner(owner string, specs []luahook.Spec) error {
	fresh := make([]*Entry, 0, len(specs))
	for i, spec := range specs {
		spec.Owner = owner
		e, err := newEntry(spec)
		if err != nil {
			return fmt.Errorf("%s: hook %d: %w", owner, i+1, err)
		}
		fresh = append(fresh, e)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	next := make([]*Entry, 0, len(r.snap.Load().all)+len(fresh))
	for _, e := range r.snap.Load().all {
		if e.Owner != owner {
			next = append(next, e)
		}
	}
	for _, e := range fresh {
		r.assign(e)
		next = append(next, e)
	}
	r.publish(next)
	return nil
}

// assign gives e its id and registration order; r.mu is held.
func (r *Registry) assign(e *Entry) {
	r.seq++
	e.seq = r.seq
	e.ID = fmt.Sprintf("h%d", r.seq)
}

// publish sorts entries and swaps in the new snapshot; r.mu is held.
func (r *Registry) publish(entries []*Entry) {
	slices.SortStableFunc(entries, func(a, b *Entry) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	s := &snapshot{all: entries}
	for _, e := range entries {
		i := e.Event.Index()
		if s.byEvent[i] == nil {
			// A cache line of its own: an array of one or two pointers
			// shares its line with other small objects, and every call
			// on every core reads it (two cores lost 10% to such a line).
			s.byEvent[i] = make([]*Entry, 0, 8)
		}
		s.byEvent[i] = append(s.byEvent[i], e)
	}
	r.snap.Store(s)
}

// remove drops the entries for which drop is true and reports how many.
func (r *Registry) remove(drop func(*Entry) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.snap.Load().all
	next := make([]*Entry, 0, len(cur))
	for _, e := range cur {
		if !drop(e) {
			next = append(next, e)
		}
	}
	n := len(cur) - len(next)
	if n > 0 {
		r.publish(next)
	}
	return n
}

// Has reports whether any hook is registered for event, ignoring matchers and
// policy gating. It is the host's cheap guard: no locks, no allocation.
func (r *Registry) Has(event luahook.Event) bool {
	i := event.Index()
	return i >= 0 && len(r.snap.Load().byEvent[i]) > 0
}

// Entries returns the registered hooks of event in order, as a read-only view
// shared with every other reader: callers must not modify the slice or the
// entries. It is the runner's hot path; List returns a copy.
func (r *Registry) Entries(event luahook.Event) []*Entry {
	i := event.Index()
	if i < 0 {
		return nil
	}
	return r.snap.Load().byEvent[i]
}

// List returns a snapshot of the hooks of event, in order. The result is a
// copy: changing it does not change the registry.
func (r *Registry) List(event luahook.Event) []Entry { return copyEntries(r.Entries(event)) }

// All returns a snapshot of every hook, in order (configured, Lua, Go).
func (r *Registry) All() []Entry { return copyEntries(r.snap.Load().all) }

func copyEntries(src []*Entry) []Entry {
	out := make([]Entry, len(src))
	for i, e := range src {
		out[i] = *e
	}
	return out
}

// DrainByOwner removes every hook of owner and returns how many it removed.
func (r *Registry) DrainByOwner(owner string) int {
	return r.remove(func(e *Entry) bool { return e.Owner == owner })
}

// CountByOwner returns how many hooks owner has registered.
func (r *Registry) CountByOwner(owner string) int {
	n := 0
	for _, e := range r.snap.Load().all {
		if e.Owner == owner {
			n++
		}
	}
	return n
}

// Len returns the number of registered hooks.
func (r *Registry) Len() int { return len(r.snap.Load().all) }

// Clear removes every hook.
func (r *Registry) Clear() { r.remove(func(*Entry) bool { return true }) }
