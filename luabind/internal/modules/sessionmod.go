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
//	session.counts({{name, window_ms[, delta]}, ...}[, n]) -> {totals}, {calls} | nil
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
	mod := L.CreateTable(0, 7)
	mod.RawSetString("mark", L.NewFunction(m.sessionMark))
	mod.RawSetString("has", L.NewFunction(m.sessionHas))
	mod.RawSetString("marks", L.NewFunction(m.sessionMarks))
	mod.RawSetString("count", L.NewFunction(m.sessionCount))
	mod.RawSetString("counts", L.NewFunction(m.sessionCounts))
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

// windowArg checks a count's window in milliseconds; bad raises the error
// that names where it was given.
func windowArg(ms float64, bad func(string)) time.Duration {
	if !(ms >= 0 && ms <= maxTTLms) || ms != math.Trunc(ms) { // NaN fails the first
		bad("window_ms must be a whole number of milliseconds from 0 (the ledger's age) to ledger_max_age_ms, got " +
			strconv.FormatFloat(ms, 'g', -1, 64))
	}
	return time.Duration(ms) * time.Millisecond
}

// deltaArg checks a count's delta.
func deltaArg(delta float64, bad func(string)) float64 {
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		bad("delta must be a finite number, got " + strconv.FormatFloat(delta, 'g', -1, 64))
	}
	return delta
}

func (m *Modules) sessionCount(L *lua.LState) int {
	id := m.session(L, "session.count")
	name := sessionName(L, 1, "name")
	window := windowArg(float64(L.CheckNumber(2)), func(msg string) { L.ArgError(2, msg) })
	delta := deltaArg(float64(L.OptNumber(3, 1)), func(msg string) { L.ArgError(3, msg) })
	n, err := m.cfg.Ledger.Count(m.ledgerContext(), id, name, window, delta)
	if err != nil {
		raiseLedgerError(L, "session.count", err)
	}
	L.Push(numberValue(n))
	return 1
}

// sessionCounts is session.counts(list[, n]): each {name, window_ms[,
// delta]} of list counted as session.count counts it, and with n the last
// n calls as session.calls(n) returns them, in one ledger operation (one
// round trip with Redis). It returns the totals, in list's order, and the
// calls (nil without n).
func (m *Modules) sessionCounts(L *lua.LState) int {
	id := m.session(L, "session.counts")
	list := L.CheckTable(1)
	n := list.MaxN()
	if n < 1 || n > ledger.MaxCountOps || list.Len() != n {
		L.ArgError(1, "a list of 1 to "+strconv.Itoa(ledger.MaxCountOps)+" counters, each {name, window_ms[, delta]}, expected")
	}
	ops := make([]ledger.CountOp, n)
	for i := range n {
		item, ok := list.RawGetInt(i + 1).(*lua.LTable)
		bad := func(msg string) { L.ArgError(1, "counter "+strconv.Itoa(i+1)+": "+msg) }
		if !ok {
			bad("{name, window_ms[, delta]} expected, got a " + list.RawGetInt(i+1).Type().String())
		}
		name, ok := item.RawGetInt(1).(lua.LString)
		if !ok {
			bad("its name (first) must be a string")
		}
		if err := ledger.CheckName("name", string(name)); err != nil {
			bad(strings.TrimPrefix(err.Error(), "ledger: "))
		}
		ms, ok := item.RawGetInt(2).(lua.LNumber)
		if !ok {
			bad("its window_ms (second) must be a number")
		}
		delta := lua.LNumber(1)
		if d := item.RawGetInt(3); d != lua.LNil {
			if delta, ok = d.(lua.LNumber); !ok {
				bad("its delta (third) must be a number or nil")
			}
		}
		ops[i] = ledger.CountOp{Name: string(name), Window: windowArg(float64(ms), bad), Delta: deltaArg(float64(delta), bad)}
	}
	calls := L.OptInt(2, 0)
	if calls < 0 {
		L.ArgError(2, "n must be a positive number of calls (or nil: none), got "+strconv.Itoa(calls))
	}
	totals, last, err := m.cfg.Ledger.Counts(m.ledgerContext(), id, ops, calls)
	if err != nil {
		raiseLedgerError(L, "session.counts", err)
	}
	t := L.CreateTable(len(totals), 0)
	for i, v := range totals {
		t.RawSetInt(i+1, numberValue(v))
	}
	L.Push(t)
	if calls == 0 {
		L.Push(lua.LNil)
	} else {
		L.Push(callsTable(L, last))
	}
	return 2
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
	L.Push(callsTable(L, calls))
	return 1
}

// callsTable is calls as session.calls returns them.
func callsTable(L *lua.LState, calls []ledger.Call) *lua.LTable {
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
	return t
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
