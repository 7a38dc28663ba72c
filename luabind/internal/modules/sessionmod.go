package modules

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/ledger"
)

// OpenSession opens the session module over Config.Ledger, the session
// ledger of the call in progress (its payload's sessionId):
//
//	session.mark(label[, detail])               gives the session the label
//	session.has(label) -> {label, detail, at} | nil
//	session.marks() -> {{label, detail, at}, ...}   in the order first made
//	session.count(name, window_ms[, delta]) -> total over the window
//	session.calls([n]) -> {{tool, event, ok, summary, digest, at}, ...}   newest last
//	session.digest() -> the digest the ledger gives the call in progress
//
// at is milliseconds since the epoch. Outside a hook call (while the file
// loads), or in a call whose payload has no session id, each function
// raises an error that says so; so does a label or a name that is empty or
// longer than 128 bytes, a mark past the session's bounds ([store]
// ledger_max_marks, ledger_max_bytes), and a store that fails. Each call
// runs under the hook call's context, and is recorded, with the hook's name
// and file, in the journal of ledger calls that context carries, if any.
func (m *Modules) OpenSession() {
	L := m.L
	mod := L.CreateTable(0, 6)
	mod.RawSetString("mark", L.NewFunction(m.sessionMark))
	mod.RawSetString("has", L.NewFunction(m.sessionHas))
	mod.RawSetString("marks", L.NewFunction(m.sessionMarks))
	mod.RawSetString("count", L.NewFunction(m.sessionCount))
	mod.RawSetString("calls", L.NewFunction(m.sessionCalls))
	mod.RawSetString("digest", L.NewFunction(m.sessionDigest))
	L.G.Global.RawSetString("session", mod)
}

// session returns the session id of the call in progress, or raises fn's
// error saying why there is none.
func (m *Modules) session(L *lua.LState, fn string) string {
	if m.cfg.Ledger == nil {
		L.RaiseError("%s: the session ledger is not available to this state", fn)
	}
	var id string
	var inCall bool
	if m.host != nil {
		id, inCall = m.host.CallSession()
	}
	switch {
	case !inCall:
		L.RaiseError("%s: the session ledger is only available inside a hook call (not while the file loads)", fn)
	case id == "":
		L.RaiseError("%s: this call's payload has no sessionId, so it has no session ledger", fn)
	}
	return id
}

// ledgerContext is the context a ledger call runs under: the store's
// (the hook call's), with the call attributed to the hook and its file when
// the decision keeps a journal of its ledger calls (ledger.Journal), so
// that the decision log and explain say which hook read or wrote what.
// Without a journal it is the store's context, at the cost of one lookup.
func (m *Modules) ledgerContext() context.Context {
	ctx := m.storeContext()
	if m.host == nil {
		return ctx
	}
	return ledger.WithHook(ctx, m.host.HookName(), m.cfg.Path)
}

// sessionName is argument n, a label or counter name (what), checked.
func sessionName(L *lua.LState, n int, what string) string {
	s := L.CheckString(n)
	if err := ledger.CheckName(what, s); err != nil {
		L.ArgError(n, strings.TrimPrefix(err.Error(), "ledger: "))
	}
	return s
}

func (m *Modules) sessionMark(L *lua.LState) int {
	id := m.session(L, "session.mark")
	label := sessionName(L, 1, "label")
	detail := L.OptString(2, "")
	if _, err := m.cfg.Ledger.Mark(m.ledgerContext(), id, label, detail); err != nil {
		raiseLedgerError(L, "session.mark", err)
	}
	return 0
}

func (m *Modules) sessionHas(L *lua.LState) int {
	id := m.session(L, "session.has")
	label := sessionName(L, 1, "label")
	mk, ok, err := m.cfg.Ledger.Has(m.ledgerContext(), id, label)
	if err != nil {
		raiseLedgerError(L, "session.has", err)
	}
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(markTable(L, mk))
	return 1
}

func (m *Modules) sessionMarks(L *lua.LState) int {
	id := m.session(L, "session.marks")
	marks, err := m.cfg.Ledger.Marks(m.ledgerContext(), id)
	if err != nil {
		raiseLedgerError(L, "session.marks", err)
	}
	t := L.CreateTable(len(marks), 0)
	for i, mk := range marks {
		t.RawSetInt(i+1, markTable(L, mk))
	}
	L.Push(t)
	return 1
}

func markTable(L *lua.LState, mk ledger.Mark) *lua.LTable {
	t := L.CreateTable(0, 3)
	t.RawSetString("label", lua.LString(mk.Label))
	t.RawSetString("detail", lua.LString(mk.Detail))
	t.RawSetString("at", lua.LNumber(mk.AtMs))
	return t
}

func (m *Modules) sessionCount(L *lua.LState) int {
	id := m.session(L, "session.count")
	name := sessionName(L, 1, "name")
	ms := float64(L.CheckNumber(2))
	if !(ms >= 0 && ms <= maxTTLms) || ms != math.Trunc(ms) { // NaN fails the first
		L.ArgError(2, "window_ms must be a whole number of milliseconds from 0 (the ledger's age) to ledger_max_age_ms, got "+
			strconv.FormatFloat(ms, 'g', -1, 64))
	}
	delta := float64(L.OptNumber(3, 1))
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		L.ArgError(3, "delta must be a finite number, got "+strconv.FormatFloat(delta, 'g', -1, 64))
	}
	n, err := m.cfg.Ledger.Count(m.ledgerContext(), id, name, time.Duration(ms)*time.Millisecond, delta)
	if err != nil {
		raiseLedgerError(L, "session.count", err)
	}
	L.Push(numberValue(n))
	return 1
}

func (m *Modules) sessionCalls(L *lua.LState) int {
	id := m.session(L, "session.calls")
	n := L.OptInt(1, 0)
	if n < 0 {
		L.ArgError(1, "n must be a positive number of calls (or nil: all the ledger keeps), got "+strconv.Itoa(n))
	}
	calls, err := m.cfg.Ledger.Calls(m.ledgerContext(), id, n)
	if err != nil {
		raiseLedgerError(L, "session.calls", err)
	}
	t := L.CreateTable(len(calls), 0)
	for i, c := range calls {
		ct := L.CreateTable(0, 6)
		ct.RawSetString("tool", lua.LString(c.Tool))
		ct.RawSetString("event", lua.LString(c.Event))
		ct.RawSetString("ok", lua.LBool(c.OK))
		ct.RawSetString("summary", lua.LString(c.Summary))
		ct.RawSetString("digest", lua.LString(c.Digest))
		ct.RawSetString("at", lua.LNumber(c.AtMs))
		t.RawSetInt(i+1, ct)
	}
	L.Push(t)
	return 1
}

// raiseLedgerError raises a ledger error as the error of the Lua function
// fn: "session.mark: cannot mark ...".
func raiseLedgerError(L *lua.LState, fn string, err error) {
	msg := strings.TrimPrefix(err.Error(), "ledger: ")
	L.RaiseError("%s: %s", fn, strings.TrimPrefix(msg, "store: "))
}

// sessionDigest is session.digest(): the digest of the call in progress as
// the ledger records it (its tool name and its input with the keys
// sorted), so that a hook can find the same call among session.calls().
// It needs no session id.
func (m *Modules) sessionDigest(L *lua.LState) int {
	var name string
	var input []byte
	var inCall bool
	if m.host != nil {
		name, input, inCall = m.host.CallTool()
	}
	if !inCall {
		L.RaiseError("session.digest: there is no call in progress (the file is loading)")
	}
	L.Push(lua.LString(ledger.Digest(name, input)))
	return 1
}
