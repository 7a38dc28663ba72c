package luabind

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
)

// luaHook is a registered Lua function as a luahook.Hook.
type luaHook struct {
	file  *File
	index int
	name  string // opts.name, or the registration's ID
}

var (
	_ luahook.Hook         = (*luaHook)(nil)
	_ luahook.ContextBound = (*luaHook)(nil)
	_ luahook.CallScoped   = (*luaHook)(nil)
	_ luahook.Preparer     = (*luaHook)(nil)
	_ luahook.Validating   = (*luaHook)(nil)
	_ luahook.Prepared     = (*prepared)(nil)
)

// ScopedToCall reports true: the input is converted to Lua tables as the
// call starts, rt's fields read the Go value only while the call runs,
// and the state lets go of the context when the call ends (coroutines
// derive theirs through the context package).
func (h *luaHook) ScopedToCall() bool { return true }

// ValidatesOutcomes reports true: what the function returns is read by
// state.outcome, which validates it.
func (h *luaHook) ValidatesOutcomes() bool { return true }

// BoundByContext reports true: the Lua VM checks the context before every
// instruction, so a call returns promptly once its context is done.
func (h *luaHook) BoundByContext() bool { return true }

// Call runs the Lua function on a state of the file's pool: Prepare, with
// no bound on the wait for a state but ctx, then Run. A deadline is a
// FailTimeout, a cancellation FailAborted, a Lua error FailError carrying
// "file:line: message", and a return value that is not an outcome
// FailInvalidOutput.
func (h *luaHook) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	p, err := h.Prepare(ctx, in, 0)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx)
}

// Prepare takes a state of the file's pool, waiting at most timeout (when
// positive) under ctx, and converts the payload into it. A payload over
// Options.MaxInputValues, or with a key twice in an object of its
// toolInput, is a FailRejected failure (the runner caps the payload's
// bytes before any hook, runner.Options.MaxInputBytes), and so is a wait that
// runs out: the file's states are all busy, luahook is overloaded. The
// payload's conversion watches ctx. What Prepare returns belongs to the
// state, so that preparing allocates nothing.
func (h *luaHook) Prepare(ctx context.Context, in *luahook.Input, timeout time.Duration) (_ luahook.Prepared, err error) {
	if in == nil {
		return nil, luahook.NoInput()
	}
	if ctx.Err() != nil {
		return nil, contextFailure(ctx, "before the Lua hook started")
	}
	sh := h.file.sh
	pool := h.file.pool
	st, err := pool.get(ctx, timeout)
	if err != nil {
		if err == errOverloaded {
			return nil, luahook.Failf(luahook.FailRejected,
				"no Lua state of %s became free within %dms (%d of %d busy): luahook is overloaded",
				sh.path, timeout.Milliseconds(), pool.live.Load(), pool.max)
		}
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			st.endCall()
			pool.discard(st)
			err = luahook.Failf(luahook.FailError, "%s: panic while converting the payload: %v", sh.path, r)
		}
	}()
	if err := st.prepare(ctx, h.index, h.name, in); err != nil {
		st.endCall()
		pool.put(st) // no Lua code ran: the state is sound
		return nil, err
	}
	st.prep.h = h
	return &st.prep, nil
}

// prepared is a call made ready by Prepare: the payload is converted into
// the state, which Run runs the function on and then gives back. One
// lives in each state.
type prepared struct {
	h  *luaHook // nil once Run has started
	st *state
}

// Run runs the prepared call under ctx, and puts the state back in the pool
// or, after a Lua error, a timeout or a cancellation, discards it.
func (p *prepared) Run(ctx context.Context) (*luahook.Outcome, error) { return p.RunInto(ctx, nil) }

// RunInto is Run writing the outcome, when the hook returns one with the
// contract's keys only (hook.deny, hook.context, ...), into *o rather than
// a new Outcome (luahook.PreparedInto). o nil: a new one.
func (p *prepared) RunInto(ctx context.Context, o *luahook.Outcome) (out *luahook.Outcome, err error) {
	h, st := p.h, p.st
	if h == nil {
		return nil, luahook.Failf(luahook.FailError, "%s: a prepared Lua call was run twice", st.sh.path)
	}
	p.h = nil
	reuse := false
	defer func() {
		if r := recover(); r != nil {
			reuse = false
			out, err = nil, luahook.Failf(luahook.FailError, "%s: panic in the Lua hook: %v", h.file.sh.path, r)
		}
		st.endCall()
		if reuse {
			h.file.pool.put(st)
		} else {
			h.file.pool.discard(st)
		}
	}()
	st.into = o
	out, reuse, err = st.run(ctx)
	return out, err
}

// call runs registered function i (prepare, then run). reuse reports
// whether the state is fit for another call.
func (st *state) call(ctx context.Context, i int, name string, in *luahook.Input) (out *luahook.Outcome, reuse bool, err error) {
	if err := st.prepare(ctx, i, name, in); err != nil {
		return nil, true, err
	}
	return st.run(ctx)
}

// prepare converts the payload for a call of registered function i, watching
// ctx. A conversion that fails runs no Lua code and leaves the state sound.
func (st *state) prepare(ctx context.Context, i int, name string, in *luahook.Input) error {
	st.in, st.name, st.fn = in, name, i
	st.mods.BeginCall()
	st.Stock.Filling = true
	input, err := st.inputTable(ctx, in)
	st.Stock.Filling = false
	if err != nil {
		st.Stock.Done(false, st.ArrayMT)
		return st.inputFailure(ctx, err)
	}
	st.input = input
	return nil
}

// inputFailure classifies an error of the payload's conversion.
func (st *state) inputFailure(ctx context.Context, err error) *luahook.Failure {
	var de *codec.DecodeError
	var doc *documentError
	if !errors.As(err, &de) || !errors.As(err, &doc) {
		return &luahook.Failure{Kind: luahook.FailError, Message: "converting the payload: " + err.Error(), Err: err}
	}
	switch de.Why {
	case codec.FaultTooMany:
		verb := " has "
		if doc.what != doc.key {
			verb = " have "
		}
		return &luahook.Failure{Kind: luahook.FailRejected, Message: st.sh.path + ": the payload's " + doc.what + verb + de.Msg, Err: err}
	case codec.FaultDuplicate:
		return &luahook.Failure{Kind: luahook.FailRejected,
			Message: fmt.Sprintf("%s: %s in %s (at offset %d): the payload is ambiguous", st.sh.path, de.Msg, doc.key, de.Offset), Err: err}
	case codec.FaultDone:
		return contextFailure(ctx, "while converting the payload")
	}
	return &luahook.Failure{Kind: luahook.FailError, Message: "the payload's " + doc.key + " is not valid JSON: " + de.Error(), Err: err}
}

// run runs the prepared call under ctx. reuse reports whether the state is
// fit for another call: not after a Lua error, a timeout or a cancellation,
// which may have left the state half-way through something.
func (st *state) run(ctx context.Context) (out *luahook.Outcome, reuse bool, err error) {
	L, i := st.L, st.fn
	st.ctx = ctx
	if ctx.Done() != nil {
		L.SetContext(ctx)
	}
	L.Push(st.fns[i])
	L.Push(st.input)
	L.Push(st.rt)
	st.input = nil
	st.stockOut = st.leanOut[i]
	err = L.PCall(2, 1, nil)
	st.stockOut = false
	if err != nil {
		st.Stock.Done(false, st.ArrayMT)
		return nil, false, st.callFailure(ctx, err)
	}
	// The outcome is read before its table goes back to the stock.
	out, err = st.outcome(L.Get(-1))
	st.Stock.Done(st.lean[i], st.ArrayMT)
	return out, true, err
}

// endCall clears what the call left in the state.
func (st *state) endCall() {
	if st.L.IsClosed() {
		return
	}
	st.L.RemoveContext()
	st.L.SetTop(0)
	st.ctx, st.in, st.name, st.input, st.stockOut, st.into = nil, nil, "", nil, false, nil
	if st.host != nil {
		st.host.EndCall()
	}
}

// callFailure classifies an error raised by a hook call.
func (st *state) callFailure(ctx context.Context, err error) *luahook.Failure {
	msg := err.Error()
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		msg = errorText(ae.Object)
		if _, isString := ae.Object.(lua.LString); !isString {
			// error({...}) carries no position of its own: take it from the
			// traceback, so every error names file and line.
			if line := lineIn(st.sh.path, "", ae.StackTrace); line > 0 {
				msg = fmt.Sprintf("%s:%d: %s", st.sh.path, line, msg)
			}
		}
	}
	if strings.HasSuffix(msg, "stack overflow") {
		msg += fmt.Sprintf(" (Lua calls nest at most %d deep)", callStackSize)
	}
	msg = luahook.TruncateReason(msg)
	if ctx.Err() != nil {
		return luahook.ContextFailure(ctx, "the Lua hook ran past its deadline: "+msg, "the Lua hook was cancelled: "+msg)
	}
	return &luahook.Failure{Kind: luahook.FailError, Message: msg, Err: err}
}

// contextFailure reports a call whose context is done outside Lua
// (luahook.ContextFailure).
func contextFailure(ctx context.Context, when string) *luahook.Failure {
	return luahook.ContextFailure(ctx, "deadline exceeded "+when, "cancelled "+when)
}

// newRT builds the read-only rt table a hook function gets as its second
// argument. Its fields are read from the call in progress, so one table per
// state serves every call: rt.deadline_ms (epoch milliseconds, nil without a
// deadline), rt.remaining_ms(), rt.cancelled(), rt.session_id, rt.cwd, rt.name,
// rt.event.
func (st *state) newRT() *lua.LTable {
	L := st.L
	remaining := L.NewFunction(func(L *lua.LState) int {
		if st.ctx == nil {
			L.Push(lua.LNil)
			return 1
		}
		d, ok := st.ctx.Deadline()
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(max(0, time.Until(d).Milliseconds())))
		return 1
	})
	cancelled := L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(st.ctx != nil && st.ctx.Err() != nil))
		return 1
	})
	rt := L.CreateTable(0, 0)
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		key, _ := L.Get(2).(lua.LString)
		switch key {
		case "remaining_ms":
			L.Push(remaining)
		case "cancelled":
			L.Push(cancelled)
		case "deadline_ms":
			if st.ctx == nil {
				return 0
			}
			d, ok := st.ctx.Deadline()
			if !ok {
				return 0
			}
			L.Push(lua.LNumber(d.UnixMilli()))
		case "name":
			L.Push(lua.LString(st.name))
		case "session_id", "cwd", "event":
			if st.in == nil {
				return 0
			}
			switch key {
			case "session_id":
				L.Push(lua.LString(st.in.SessionID))
			case "cwd":
				L.Push(lua.LString(st.in.Cwd))
			default:
				L.Push(lua.LString(st.in.Event))
			}
		default:
			return 0
		}
		return 1
	}))
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("rt is read-only")
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString("protected"))
	rt.Metatable = mt
	return rt
}
