package luabind

import (
	"fmt"
	"math"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
	"github.com/luahook/luahook/registry"
)

const registerUsage = "hook.register(event, matcher, fn[, opts])"

// openHook opens the hook module: register, the outcome helpers and events.
func (st *state) openHook() {
	L := st.L
	mod := L.CreateTable(0, 10)
	mod.RawSetString("register", L.NewFunction(st.hookRegister))
	mod.RawSetString("allow", L.NewFunction(st.hookAllow))
	mod.RawSetString("deny", L.NewFunction(st.hookReasoned(luahook.ActionDeny)))
	mod.RawSetString("mutate", L.NewFunction(st.hookMutate))
	mod.RawSetString("context", L.NewFunction(st.hookContext))
	mod.RawSetString("ask", L.NewFunction(st.hookReasoned(luahook.ActionAsk)))
	mod.RawSetString("approve", L.NewFunction(st.hookApprove))
	mod.RawSetString("continue", L.NewFunction(st.hookReasoned(luahook.ActionContinue)))
	mod.RawSetString("redact", L.NewFunction(st.hookRedact))
	mod.RawSetString("replace_output", L.NewFunction(st.hookReplaceOutput))
	mod.RawSetString("settings", L.NewFunction(st.hookSettings)) // packsettings.go
	events := L.CreateTable(luahook.NumEvents, luahook.NumEvents)
	for i, e := range luahook.Events() {
		events.RawSetInt(i+1, lua.LString(e))
		events.RawSetString(string(e), lua.LString(e))
	}
	mod.RawSetString("events", events)
	L.G.Global.RawSetString("hook", mod)
}

// hookRegister is hook.register(event, matcher, fn[, opts]) -> id. Every
// error it raises carries the line of the call.
func (st *state) hookRegister(L *lua.LState) int {
	if !st.loading {
		L.RaiseError("hook.register can only be called while the file loads (at its top level), not inside a hook call")
	}
	event, err := luahook.ParseEvent(L.CheckString(1))
	if err != nil {
		L.RaiseError("hook.register: %v", err)
	}
	r := Registration{Spec: luahook.Spec{Event: event, Kind: luahook.KindLua}}
	switch m := L.Get(2).(type) {
	case lua.LString:
		r.Matcher = string(m)
	case *lua.LNilType:
	default:
		L.RaiseError("hook.register: the matcher (argument #2) must be a string or nil, got %s; usage: %s",
			m.Type().String(), registerUsage)
	}
	if _, err := registry.ParseMatcher(event, r.Matcher); err != nil {
		L.RaiseError("hook.register: %v", err)
	}
	fn, ok := L.Get(3).(*lua.LFunction)
	if !ok {
		L.RaiseError("hook.register: the hook (argument #3) must be a function, got %s; usage: %s",
			L.Get(3).Type().String(), registerUsage)
	}
	switch o := L.Get(4).(type) {
	case *lua.LNilType:
	case *lua.LTable:
		registerOpts(L, o, &r)
	default:
		L.RaiseError("hook.register: opts (argument #4) must be a table or nil, got %s", o.Type().String())
	}
	if L.GetTop() > 4 {
		L.RaiseError("hook.register: too many arguments (%d); usage: %s", L.GetTop(), registerUsage)
	}
	src, line := callerPosition(L)
	r.Line, r.Source = line, fmt.Sprintf("%s:%d", src, line)
	r.ID = fmt.Sprintf("%s#%d", st.sh.path, len(st.regs)+1)
	st.regs = append(st.regs, r)
	st.fns = append(st.fns, fn)
	st.lean = append(st.lean, leavesInput(fn, nil)) // decideLean decides again once frozen
	st.leanOut = append(st.leanOut, false)
	st.native = append(st.native, codec.MayReadField(fn, "native"))
	L.Push(lua.LString(r.ID))
	return 1
}

// callerPosition returns the source and line of the innermost Lua function
// calling the running Go function.
func callerPosition(L *lua.LState) (string, int) {
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return "?", 0
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.CurrentLine > 0 {
			return dbg.Source, dbg.CurrentLine
		}
	}
}

const registerKeys = "name, stage, timeout_ms, failure_policy, policy, background, run_when_tool_skipped, mode"

func registerOpts(L *lua.LState, o *lua.LTable, r *Registration) {
	for k, v := o.Next(lua.LNil); k != lua.LNil; k, v = o.Next(k) {
		key, ok := k.(lua.LString)
		if !ok {
			L.RaiseError("hook.register: opts keys must be strings, got %s %s (known keys: %s)",
				k.Type().String(), k.String(), registerKeys)
		}
		switch key {
		case "name":
			r.Name = optString(L, key, v)
			if strings.TrimSpace(r.Name) == "" {
				L.RaiseError("hook.register: opts.name must not be empty")
			}
		case "stage":
			r.Stage = luahook.Stage(optString(L, key, v))
			if !r.Stage.Valid() {
				L.RaiseError("hook.register: opts.stage must be \"mutate\" or \"validate\", got %q", string(r.Stage))
			}
		case "timeout_ms":
			n, ok := v.(lua.LNumber)
			if !ok || math.IsNaN(float64(n)) || n <= 0 || math.IsInf(float64(n), 1) {
				L.RaiseError("hook.register: opts.timeout_ms must be a positive number of milliseconds, got %s %s",
					v.Type().String(), v.String())
			}
			r.Timeout = time.Duration(float64(n) * float64(time.Millisecond))
		case "failure_policy":
			r.FailurePolicy = luahook.FailurePolicy(optString(L, key, v))
			if !r.FailurePolicy.Valid() {
				L.RaiseError("hook.register: opts.failure_policy must be \"open\" or \"closed\", got %q", string(r.FailurePolicy))
			}
		case "policy":
			r.Policy = optBool(L, key, v)
		case "background":
			r.Background = optBool(L, key, v)
		case "run_when_tool_skipped":
			r.RunWhenToolSkipped = optBool(L, key, v)
		case "mode":
			r.Mode = luahook.Mode(optString(L, key, v))
			if !r.Mode.Valid() {
				L.RaiseError("hook.register: opts.mode must be \"shadow\" (or left out for a live hook), got %q", string(r.Mode))
			}
		default:
			L.RaiseError("hook.register: unknown opts key %q (known keys: %s)", string(key), registerKeys)
		}
	}
	if (r.Background || r.RunWhenToolSkipped) && r.Event != luahook.PostToolUse {
		L.RaiseError("hook.register: opts.background and opts.run_when_tool_skipped apply to PostToolUse hooks only, not %s", r.Event)
	}
}

func optString(L *lua.LState, key lua.LString, v lua.LValue) string {
	s, ok := v.(lua.LString)
	if !ok {
		L.RaiseError("hook.register: opts.%s must be a string, got %s", string(key), v.Type().String())
	}
	return string(s)
}

func optBool(L *lua.LState, key lua.LString, v lua.LValue) bool {
	b, ok := v.(lua.LBool)
	if !ok {
		L.RaiseError("hook.register: opts.%s must be a boolean, got %s", string(key), v.Type().String())
	}
	return bool(b)
}

// The keys of outcome tables and the allow and mutate actions, boxed once.
var (
	keyAction            lua.LValue = lua.LString("action")
	keyReason            lua.LValue = lua.LString("reason")
	keyInput             lua.LValue = lua.LString("input")
	keyAdditionalContext lua.LValue = lua.LString("additionalContext")
	keyContextAs         lua.LValue = lua.LString("contextAs")
	actionAllow          lua.LValue = lua.LString(luahook.ActionAllow)
	actionMutate         lua.LValue = lua.LString(luahook.ActionMutate)
)

// outcomeTable returns a table holding keys[i] = vals[i] in that order, as
// RawSetString key by key would build it: from the state's stock when the
// hook function being called made the call itself and keeps none of the
// outcome tables it builds (state.leanOut), which then go back to the
// stock with the payload's tables once what it returned is read; built at
// its final size otherwise.
func (st *state) outcomeTable(L *lua.LState, keys, vals []lua.LValue) *lua.LTable {
	if st.stockOut && L == st.L && codec.CalledBy(L, st.fns[st.fn]) {
		return st.FreshTable(keys, vals)
	}
	return codec.NewTable(L, keys, vals)
}

// hookAllow is hook.allow() -> {action = "allow"}.
func (st *state) hookAllow(L *lua.LState) int {
	L.Push(st.outcomeTable(L, []lua.LValue{keyAction}, []lua.LValue{actionAllow}))
	return 1
}

// hookReasoned returns the builder of an outcome that is an action with a
// reason: hook.deny(reason) -> {action = "deny", reason = reason}, and the
// same for hook.ask (hand a PreToolUse call to the user) and hook.continue
// (keep the agent going on Stop, the reason being its next instruction;
// continue is not a Lua keyword, so hook.continue is a plain field).
func (st *state) hookReasoned(action luahook.Action) lua.LGFunction {
	actionV := lua.LValue(lua.LString(action)) // boxed once, not per call
	return func(L *lua.LState) int {
		L.Push(st.outcomeTable(L, []lua.LValue{keyAction, keyReason}, []lua.LValue{actionV, checkString(L, 1)}))
		return 1
	}
}

// checkString is L.CheckString(n) as a Lua value: a string argument itself,
// a number as the string CheckString makes of it.
func checkString(L *lua.LState, n int) lua.LValue {
	L.CheckString(n)
	v := L.Get(n)
	if _, ok := v.(lua.LString); !ok {
		v = lua.LString(lua.LVAsString(v))
	}
	return v
}

// hookMutate is hook.mutate(input[, reason]) -> {action = "mutate", input = input, reason = reason}.
func (st *state) hookMutate(L *lua.LState) int {
	in := L.CheckTable(1)
	L.OptString(2, "")
	keys, vals := []lua.LValue{keyAction, keyInput, keyReason}, []lua.LValue{actionMutate, in, L.Get(2)}
	if s, ok := vals[2].(lua.LString); !ok || s == "" {
		keys, vals = keys[:2], vals[:2] // no reason, or an empty one
	}
	L.Push(st.outcomeTable(L, keys, vals))
	return 1
}

// hookContext is hook.context(text[, "inline"|"separate"]) -> {additionalContext = text, contextAs = ...}.
func (st *state) hookContext(L *lua.LState) int {
	text := checkString(L, 1)
	as := L.OptString(2, "")
	switch luahook.ContextAs(as) {
	case "", luahook.ContextInline, luahook.ContextSeparate:
	default:
		L.ArgError(2, `"inline" or "separate" expected`)
	}
	keys, vals := []lua.LValue{keyAdditionalContext, keyContextAs}, []lua.LValue{text, L.Get(2)}
	if as == "" {
		keys, vals = keys[:1], vals[:1]
	}
	L.Push(st.outcomeTable(L, keys, vals))
	return 1
}
