package luahook

import (
	"context"
	"time"
)

// Hook is anything that can answer a lifecycle event: a Lua function, a
// subprocess, an HTTP endpoint or a Go function. The context carries the
// hook's deadline and the caller's cancellation.
//
// Call returns a nil outcome for "no objection". A failure is returned as an
// error, preferably a *Failure; any other error counts as FailError.
type Hook interface {
	Call(ctx context.Context, in *Input) (*Outcome, error)
}

// HookFunc adapts an ordinary Go function to a Hook.
type HookFunc func(ctx context.Context, in *Input) (*Outcome, error)

// Call calls f(ctx, in).
func (f HookFunc) Call(ctx context.Context, in *Input) (*Outcome, error) { return f(ctx, in) }

// ContextBound is implemented by hooks that return promptly once their context
// is done (Lua, command and HTTP hooks). The runner calls them on the caller's
// goroutine; hooks that do not implement it are run on their own goroutine so
// that one ignoring cancellation cannot hold the caller.
type ContextBound interface {
	BoundByContext() bool
}

// CallScoped is implemented by hooks that use their Input and their context
// only while Call runs: they never change the Input, and keep neither after
// Call returns (a context derived from it through the context package may
// outlive the call). Lua and command hooks convert or encode the Input at
// once and wait for everything they started.
//
// The runner lends such a hook, when it also runs on the caller's goroutine
// (ContextBound), its own payload and a recycled deadline context, instead of
// allocating a private deep copy of the payload and a context.WithTimeout on
// every call. Any other hook gets both of its own.
type CallScoped interface {
	ScopedToCall() bool
}

// Validating is implemented by hooks whose Call (and Prepared.Run) returns
// only valid outcomes: one that Outcome.Validate refuses is reported as a
// FailInvalidOutput failure instead. Lua, command and HTTP hooks validate
// what they parse (ParseOutcome); the runner validates the outcomes of
// every other hook, so that each outcome is validated once.
type Validating interface {
	ValidatesOutcomes() bool
}

// Preparer is implemented by hooks whose calls begin with work that the
// hook's own deadline should not pay for: waiting for an executor (a Lua
// state) and converting the payload into the executor's values. For a hook
// that is also ContextBound and CallScoped, the runner calls Prepare under
// the caller's context, then starts the hook's deadline and calls Run on
// what Prepare returned, exactly once. Prepare waits for an executor at most
// timeout; a wait that runs out is a FailRejected failure (the hook never
// ran), which the runner reports as an overload. Hooks that implement
// Preparer keep Call, which must do the same as Prepare followed by Run.
type Preparer interface {
	Prepare(ctx context.Context, in *Input, timeout time.Duration) (Prepared, error)
}

// Prepared is a hook call made ready by Preparer.Prepare. Run runs it under
// ctx, which carries the hook's deadline, and frees whatever Prepare took;
// it is called exactly once.
type Prepared interface {
	Run(ctx context.Context) (*Outcome, error)
}

// PreparedInto is a Prepared that can write its outcome into memory the
// caller owns (the runner's trace entry) instead of allocating it. RunInto
// is Run, called instead of it: when the hook objects, it returns o filled
// in, or an outcome of its own. o is the caller's again once the caller
// is done with the returned outcome; RunInto keeps no reference to it.
type PreparedInto interface {
	Prepared
	RunInto(ctx context.Context, o *Outcome) (*Outcome, error)
}
