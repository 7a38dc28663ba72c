package luabind

import (
	lua "github.com/yuin/gopher-lua"
)

// fields collects an object's keys and values for the codec's ObjectTable,
// on the stack; the payload's largest object has 12 keys.
type fields struct {
	n    int
	keys [12]lua.LValue
	vals [12]lua.LValue
}

func (f *fields) set(key, v lua.LValue) {
	f.keys[f.n], f.vals[f.n] = key, v
	f.n++
}

func (f *fields) setString(key lua.LValue, s string) {
	if s != "" {
		f.set(key, lua.LString(s))
	}
}

func (f *fields) setInt(key lua.LValue, n *int) {
	if n != nil {
		f.set(key, lua.LNumber(*n))
	}
}

func (f *fields) table(st *state) *lua.LTable {
	return st.ObjectTable(f.keys[:f.n], f.vals[:f.n])
}

// The payload's keys, boxed once for every state (an LString is immutable).
var (
	kEvent            lua.LValue = lua.LString("event")
	kToolName         lua.LValue = lua.LString("toolName")
	kToolInput        lua.LValue = lua.LString("toolInput")
	kToolCapabilities lua.LValue = lua.LString("toolCapabilities")
	kToolMutating     lua.LValue = lua.LString("toolMutating")
	kToolResult       lua.LValue = lua.LString("toolResult")
	kPrompt           lua.LValue = lua.LString("prompt")
	kCompaction       lua.LValue = lua.LString("compaction")
	kSubagent         lua.LValue = lua.LString("subagent")
	kNotification     lua.LValue = lua.LString("notification")
	kCwd              lua.LValue = lua.LString("cwd")
	kSessionID        lua.LValue = lua.LString("sessionId")
	kContent          lua.LValue = lua.LString("content")
	kIsError          lua.LValue = lua.LString("isError")
	kTrigger          lua.LValue = lua.LString("trigger")
	kAggressive       lua.LValue = lua.LString("aggressive")
	kTokensBefore     lua.LValue = lua.LString("tokensBefore")
	kTokensAfter      lua.LValue = lua.LString("tokensAfter")
	kTarget           lua.LValue = lua.LString("target")
	kTask             lua.LValue = lua.LString("task")
	kSubagentID       lua.LValue = lua.LString("subagentId")
	kDelegationID     lua.LValue = lua.LString("delegationId")
	kMode             lua.LValue = lua.LString("mode")
	kOK               lua.LValue = lua.LString("ok")
	kStatus           lua.LValue = lua.LString("status")
	kSummary          lua.LValue = lua.LString("summary")
	kDurationMs       lua.LValue = lua.LString("durationMs")
	kKind             lua.LValue = lua.LString("kind")
	kMessage          lua.LValue = lua.LString("message")
)
