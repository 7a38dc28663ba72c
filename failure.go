package luahook

import (
	"context"
	"errors"
	"fmt"
)

// FailureKind classifies why a hook produced no usable outcome.
type FailureKind string

// The failure kinds of the contract.
const (
	FailTimeout       FailureKind = "timeout"        // the hook's deadline passed
	FailError         FailureKind = "error"          // the hook raised, panicked, or its transport failed
	FailExit          FailureKind = "exit"           // a command hook exited non-zero (not 2)
	FailInvalidOutput FailureKind = "invalid_output" // the output is not a valid outcome
	FailRejected      FailureKind = "rejected"       // the hook was refused before it ran
	FailAborted       FailureKind = "aborted"        // the caller cancelled
)

// Failure is the typed error every transport returns when a hook fails.
// Callers test for it with errors.As.
type Failure struct {
	Kind    FailureKind `json:"kind"`
	Message string      `json:"message"`
	Err     error       `json:"-"` // the underlying cause, if any
}

// Error returns "kind: message".
func (f *Failure) Error() string { return string(f.Kind) + ": " + f.Message }

// Unwrap returns the underlying cause.
func (f *Failure) Unwrap() error { return f.Err }

// Failf builds a Failure of the given kind with a formatted message.
func Failf(kind FailureKind, format string, args ...any) *Failure {
	return &Failure{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// AsFailure returns err as a *Failure, classifying plain errors as FailError.
// It returns nil for a nil error.
func AsFailure(err error) *Failure {
	if err == nil {
		return nil
	}
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return &Failure{Kind: FailError, Message: err.Error(), Err: err}
}

// ContextFailure is the failure of a call that ctx ended before it was
// answered: FailTimeout, saying timedOut, when a deadline passed, else
// FailAborted, saying cancelled; ctx's error is the cause. A hook reports a
// call cut short through it; the runner, which knows whether the deadline
// that passed was the hook's own, has the last word on the kind.
func ContextFailure(ctx context.Context, timedOut, cancelled string) *Failure {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		return &Failure{Kind: FailTimeout, Message: timedOut, Err: err}
	}
	return &Failure{Kind: FailAborted, Message: cancelled, Err: err}
}

// ErrNoInput says a call had no payload (a nil *Input): the caller's
// mistake. The runner refuses a nil payload before it calls any hook; a
// hook called directly with one answers NoInput(), whatever its transport.
var ErrNoInput = errors.New("no payload (nil input)")

// NoInput is the failure of a hook called without a payload: FailRejected,
// since the hook never ran.
func NoInput() *Failure {
	return &Failure{Kind: FailRejected, Message: ErrNoInput.Error(), Err: ErrNoInput}
}
