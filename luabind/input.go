package luabind

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

// inputTable converts the payload into a fresh Lua table shaped exactly like
// its JSON form: the same keys, in the same order, omitted when encoding/json
// omits them. The fixed fields come straight from the struct; toolInput is
// decoded from its raw JSON. Short strings that repeat from call to call
// (the event, the tool name, the cwd, the session id) are boxed once per
// state, and every table is built at its final size (codec.Codec.ObjectTable).
// Decoding toolInput watches ctx and the state's cap on values.
func (st *state) inputTable(ctx context.Context, in *luahook.Input) (*lua.LTable, error) {
	var f fields
	f.set(kEvent, st.Dec.BoxString(string(in.Event)))
	if in.ToolName != "" {
		f.set(kToolName, st.Dec.BoxString(in.ToolName))
	}
	if len(in.ToolInput) > 0 {
		v, err := st.Dec.DecodeIn(ctx, in.ToolInput)
		if err != nil {
			return nil, err
		}
		f.set(kToolInput, v)
	}
	if in.ToolCapabilities != nil {
		var vals [16]lua.LValue
		items := vals[:0]
		for _, c := range in.ToolCapabilities {
			items = append(items, st.Dec.BoxString(c))
		}
		f.set(kToolCapabilities, st.ArrayTable(items))
	}
	if in.ToolMutating != nil {
		f.set(kToolMutating, lua.LBool(*in.ToolMutating))
	}
	if r := in.ToolResult; r != nil {
		var rt fields
		rt.set(kContent, lua.LString(r.Content))
		rt.set(kIsError, lua.LBool(r.IsError))
		f.set(kToolResult, rt.table(st))
	}
	if in.Prompt != "" {
		f.set(kPrompt, lua.LString(in.Prompt))
	}
	if c := in.Compaction; c != nil {
		var ct fields
		ct.set(kTrigger, lua.LString(c.Trigger))
		ct.set(kAggressive, lua.LBool(c.Aggressive))
		ct.setInt(kTokensBefore, c.TokensBefore)
		ct.setInt(kTokensAfter, c.TokensAfter)
		f.set(kCompaction, ct.table(st))
	}
	if s := in.Subagent; s != nil {
		var sa fields
		sa.set(kTarget, lua.LString(s.Target))
		sa.set(kTask, lua.LString(s.Task))
		sa.setString(kSubagentID, s.SubagentID)
		sa.setString(kDelegationID, s.DelegationID)
		sa.setString(kMode, s.Mode)
		if s.OK != nil {
			sa.set(kOK, lua.LBool(*s.OK))
		}
		sa.setString(kStatus, s.Status)
		sa.setString(kSummary, s.Summary)
		if s.DurationMs != nil {
			sa.set(kDurationMs, lua.LNumber(*s.DurationMs))
		}
		f.set(kSubagent, sa.table(st))
	}
	if n := in.Notification; n != nil {
		var nt fields
		nt.set(kKind, lua.LString(n.Kind))
		nt.set(kMessage, lua.LString(n.Message))
		nt.setString(kToolName, n.ToolName)
		f.set(kNotification, nt.table(st))
	}
	f.set(kCwd, st.Dec.BoxString(in.Cwd))
	if in.SessionID != "" {
		f.set(kSessionID, st.Dec.BoxString(in.SessionID))
	}
	return f.table(st), nil
}
