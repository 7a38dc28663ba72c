package luabind

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

const approveUsage = "hook.approve{reason = text, approvers = {names}, timeout_ms = n}"

// The keys of a web approval's outcome table, boxed once.
var (
	keyRoute     lua.LValue = lua.LString("route")
	keyApprovers lua.LValue = lua.LString("approvers")
	keyTimeoutMs lua.LValue = lua.LString("timeoutMs")
	actionAsk    lua.LValue = lua.LString(luahook.ActionAsk)
	routeWeb     lua.LValue = lua.LString(luahook.RouteWeb)
)

// hookApprove is hook.approve{reason=…, approvers={…}, timeout_ms=…} ->
// {action = "ask", reason = …, route = "web", approvers = {…}, timeoutMs = …}:
// an ask put to a person on luahook serve's approvals rather than the
// agent's prompt. reason is required; approvers (who may decide; none:
// anyone serve authenticates) and timeout_ms (default 5 minutes, at most
// 10) are optional. A misspelt key is an error, not a silent default.
func (st *state) hookApprove(L *lua.LState) int {
	opts := L.CheckTable(1)
	if L.GetTop() > 1 {
		L.RaiseError("hook.approve: too many arguments (%d); usage: %s", L.GetTop(), approveUsage)
	}
	keys := []lua.LValue{keyAction, keyReason, keyRoute}
	vals := []lua.LValue{actionAsk, lua.LNil, routeWeb}
	for k, v := opts.Next(lua.LNil); k != lua.LNil; k, v = opts.Next(k) {
		key, _ := k.(lua.LString)
		switch key {
		case "reason":
			s, ok := v.(lua.LString)
			if !ok || len(s) == 0 {
				L.RaiseError("hook.approve: reason must be a non-empty string, got %s; usage: %s", v.Type().String(), approveUsage)
			}
			vals[1] = s
		case "approvers":
			keys, vals = append(keys, keyApprovers), append(vals, approvers(L, v))
		case "timeout_ms":
			n, ok := v.(lua.LNumber)
			max := float64(luahook.MaxApprovalTimeout.Milliseconds())
			if !ok || math.IsNaN(float64(n)) || n < 1 || float64(n) > max || float64(n) != math.Trunc(float64(n)) {
				L.RaiseError("hook.approve: timeout_ms must be a whole number of milliseconds from 1 to %d (10 minutes), got %s %s",
					int64(max), v.Type().String(), v.String())
			}
			keys, vals = append(keys, keyTimeoutMs), append(vals, n)
		default:
			L.RaiseError("hook.approve: unknown key %s (known keys: reason, approvers, timeout_ms)", k.String())
		}
	}
	if vals[1] == lua.LNil {
		L.RaiseError("hook.approve: reason is required; usage: %s", approveUsage)
	}
	L.Push(st.outcomeTable(L, keys, vals))
	return 1
}

// approvers checks hook.approve's approvers: an array of non-empty names,
// at most luahook.MaxApprovers of them. It returns a fresh array table,
// so that the outcome does not share the caller's.
func approvers(L *lua.LState, v lua.LValue) *lua.LTable {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("hook.approve: approvers must be an array of names, got %s", v.Type().String())
	}
	n := t.Len()
	if n > luahook.MaxApprovers {
		L.RaiseError("hook.approve: approvers lists %d names (at most %d)", n, luahook.MaxApprovers)
	}
	count := 0
	t.ForEach(func(lua.LValue, lua.LValue) { count++ })
	if count != n {
		L.RaiseError("hook.approve: approvers must be an array of names (keys 1 to n), got a table with other keys")
	}
	out := L.CreateTable(n, 0)
	for i := 1; i <= n; i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok || len(s) == 0 || len(s) > luahook.MaxApproverChars {
			L.RaiseError("hook.approve: approvers[%d] must be a non-empty name of at most %d bytes, got %s",
				i, luahook.MaxApproverChars, t.RawGetInt(i).Type().String())
		}
		out.RawSetInt(i, s)
	}
	return out
}
