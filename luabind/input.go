package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

// inputTable converts the payload into a fresh Lua table shaped exactly like
// its JSON form: the same keys, in the same order, omitted when encoding/json
// omits them. The fixed fields come straight from the struct; toolInput is
// decoded from its raw JSON. Short strings that repeat from call to call
// (the event, the tool name, the cwd, the session id) are boxed once per
// state.
func (st *state) inputTable(in *luahook.Input) (*lua.LTable, error) {
	L := st.L
	t := L.CreateTable(0, 6)
	t.Metatable = st.objectMT
	t.RawSetString("event", st.dec.boxString(string(in.Event)))
	if in.ToolName != "" {
		t.RawSetString("toolName", st.dec.boxString(in.ToolName))
	}
	if len(in.ToolInput) > 0 {
		v, err := st.dec.decode(in.ToolInput)
		if err != nil {
			return nil, err
		}
		t.RawSetString("toolInput", v)
	}
	if in.ToolCapabilities != nil {
		caps := L.CreateTable(len(in.ToolCapabilities), 0)
		caps.Metatable = st.arrayMT
		for i, c := range in.ToolCapabilities {
			caps.RawSetInt(i+1, st.dec.boxString(c))
		}
		t.RawSetString("toolCapabilities", caps)
	}
	if in.ToolMutating != nil {
		t.RawSetString("toolMutating", lua.LBool(*in.ToolMutating))
	}
	if r := in.ToolResult; r != nil {
		rt := st.object(2)
		rt.RawSetString("content", lua.LString(r.Content))
		rt.RawSetString("isError", lua.LBool(r.IsError))
		t.RawSetString("toolResult", rt)
	}
	if in.Prompt != "" {
		t.RawSetString("prompt", lua.LString(in.Prompt))
	}
	if c := in.Compaction; c != nil {
		ct := st.object(4)
		ct.RawSetString("trigger", lua.LString(c.Trigger))
		ct.RawSetString("aggressive", lua.LBool(c.Aggressive))
		setInt(ct, "tokensBefore", c.TokensBefore)
		setInt(ct, "tokensAfter", c.TokensAfter)
		t.RawSetString("compaction", ct)
	}
	if s := in.Subagent; s != nil {
		sa := st.object(9)
		sa.RawSetString("target", lua.LString(s.Target))
		sa.RawSetString("task", lua.LString(s.Task))
		setString(sa, "subagentId", s.SubagentID)
		setString(sa, "delegationId", s.DelegationID)
		setString(sa, "mode", s.Mode)
		if s.OK != nil {
			sa.RawSetString("ok", lua.LBool(*s.OK))
		}
		setString(sa, "status", s.Status)
		setString(sa, "summary", s.Summary)
		if s.DurationMs != nil {
			sa.RawSetString("durationMs", lua.LNumber(*s.DurationMs))
		}
		t.RawSetString("subagent", sa)
	}
	if n := in.Notification; n != nil {
		nt := st.object(3)
		nt.RawSetString("kind", lua.LString(n.Kind))
		nt.RawSetString("message", lua.LString(n.Message))
		setString(nt, "toolName", n.ToolName)
		t.RawSetString("notification", nt)
	}
	t.RawSetString("cwd", st.dec.boxString(in.Cwd))
	if in.SessionID != "" {
		t.RawSetString("sessionId", st.dec.boxString(in.SessionID))
	}
	return t, nil
}

// object returns a new table marked as a JSON object.
func (st *state) object(n int) *lua.LTable {
	t := st.L.CreateTable(0, n)
	t.Metatable = st.objectMT
	return t
}

func setString(t *lua.LTable, key, s string) {
	if s != "" {
		t.RawSetString(key, lua.LString(s))
	}
}

func setInt(t *lua.LTable, key string, n *int) {
	if n != nil {
		t.RawSetString(key, lua.LNumber(*n))
	}
}
