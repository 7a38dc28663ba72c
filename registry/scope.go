package registry

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/luahook/luahook"
)

// Capabilities is what an owner declares it will use.
type Capabilities struct {
	Hooks bool // the owner registers hooks
}

// ScopeOptions configure an owner-scoped handle.
type ScopeOptions struct {
	// Capabilities declared by the owner. Nil means the owner declared none and
	// is not gated. When it is set and Hooks is false, each registration is
	// logged as undeclared use, or refused when Strict is set.
	Capabilities *Capabilities
	Strict       bool
	Logger       *slog.Logger // nil = discard
}

// ErrScopeClosed is returned by Register on a closed scope.
var ErrScopeClosed = errors.New("registry: scope closed")

// Scope registers hooks under one owner (a Go plugin) and removes them all when
// closed: each registration in reverse order, then whatever the owner still has
// as a backstop (hooks registered around the scope, or by a setup that failed
// half-way).
type Scope struct {
	r     *Registry
	owner string
	opts  ScopeOptions

	mu     sync.Mutex
	undo   []func()
	closed bool
}

// Scope returns a handle for registering hooks under owner.
func (r *Registry) Scope(owner string, opts ScopeOptions) *Scope {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Scope{r: r, owner: owner, opts: opts}
}

// Install opens a scope for owner and runs setup with it. When setup fails the
// scope is closed, so nothing the setup registered stays behind, and the error
// is returned.
func (r *Registry) Install(owner string, opts ScopeOptions, setup func(*Scope) error) (*Scope, error) {
	s := r.Scope(owner, opts)
	if err := setup(s); err != nil {
		s.Close()
		return nil, fmt.Errorf("plugin %q: setup: %w", owner, err)
	}
	return s, nil
}

// Owner returns the scope's owner.
func (s *Scope) Owner() string { return s.owner }

// Register registers spec under the scope's owner (spec.Owner is overwritten;
// an empty Kind means a Go hook) and returns its unregister function.
func (s *Scope) Register(spec luahook.Spec) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("plugin %q: %w", s.owner, ErrScopeClosed)
	}
	if c := s.opts.Capabilities; c != nil && !c.Hooks {
		if s.opts.Strict {
			return nil, fmt.Errorf("plugin %q registered a %s hook without declaring the hooks capability", s.owner, spec.Event)
		}
		s.opts.Logger.Warn("plugin used hooks without declaring the hooks capability",
			"plugin", s.owner, "event", string(spec.Event), "matcher", spec.Matcher)
	}
	spec.Owner = s.owner
	off, err := s.r.Register(spec)
	if err != nil {
		return nil, fmt.Errorf("plugin %q: %w", s.owner, err)
	}
	s.undo = append(s.undo, off)
	return off, nil
}

// RegisterFunc registers a Go function as a hook; see Register.
func (s *Scope) RegisterFunc(event luahook.Event, matcher string, fn luahook.HookFunc, spec luahook.Spec) (func(), error) {
	spec.Event, spec.Matcher, spec.Hook = event, matcher, fn
	return s.Register(spec)
}

// Close unregisters the scope's hooks in reverse order, then drains the owner
// as a backstop, and returns how many hooks the backstop found. It may be
// called more than once.
func (s *Scope) Close() int {
	s.mu.Lock()
	undo := s.undo
	s.undo, s.closed = nil, true
	s.mu.Unlock()
	for i := len(undo) - 1; i >= 0; i-- {
		undo[i]()
	}
	return s.r.DrainByOwner(s.owner)
}
