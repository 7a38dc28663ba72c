package runner

import (
	"context"
	"log/slog"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// canBlock reports whether ev is an event whose hooks can stop what it
// announces (luahook.Event.CanBlock).
func canBlock(ev luahook.Event) bool { return ev.CanBlock() }

// failureDenial returns the denial that replaces a hook's failure on an
// event that can block, or "" when the failure is only skipped. A hook
// refused before it ran (kind rejected: the payload is over a limit, the
// hook is overloaded) judged nothing, so it denies whatever its failure
// policy; any other failure denies when the hook is fail-closed.
func failureDenial(ev luahook.Event, e *registry.Entry, f *luahook.Failure) string {
	switch {
	case f.Kind == luahook.FailRejected:
		return string(ev) + " hook \"" + e.Name + "\" could not run (" + f.Error() +
			"); the action was denied because luahook could not decide"
	case e.FailurePolicy == luahook.FailClosed:
		return failClosedReason(ev, e.Name, f)
	}
	return ""
}

// refused checks in before any hook of ev sees it: a nil in (luahook.ErrNoInput),
// and in's identifiers against their limits (luahook.Input.CheckLimits). It
// reports whether in was refused, with the Result to return: a denial
// naming the fault on an event that can block or that is unknown (ev ""
// for a nil in), else an empty Result and a log record. A payload within
// its limits costs one walk over its fields.
func (r *Runner) refused(ctx context.Context, ev luahook.Event, in *luahook.Input) (Result, bool) {
	var err error
	if in == nil {
		err = luahook.ErrNoInput
	} else {
		err = in.CheckLimits()
	}
	if err == nil {
		return Result{}, false
	}
	res := Result{Event: ev}
	what := "payload"
	if ev != "" {
		what = string(ev) + " payload"
	}
	if ev == "" || canBlock(ev) {
		res.deny(what + " refused before any hook ran: " + err.Error() +
			"; the action was denied because luahook could not decide")
		return res, true
	}
	r.log.LogAttrs(ctx, slog.LevelWarn, string(ev)+" payload refused, no hook ran: "+err.Error(),
		slog.String("event", string(ev)))
	return res, true
}
