package luabind

import (
	"bytes"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

// outcome converts what a hook function returned. nil means no objection. A
// table with only the contract's own keys, all strings (input a table), is
// read directly and checked with Outcome.Validate; any other table (legacy
// decision/modifiedInput keys, mistyped values) is encoded to JSON and goes
// through luahook.ParseOutcome, so that the normalisation rules live in one
// place. Anything else is FailInvalidOutput.
func (st *state) outcome(v lua.LValue) (*luahook.Outcome, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		if v == lua.LNil {
			return nil, nil
		}
		return nil, luahook.Failf(luahook.FailInvalidOutput,
			"the hook returned a %s; want nil or an outcome table (hook.allow(), hook.deny(reason), hook.mutate(input), hook.context(text))",
			v.Type().String())
	}
	if t.RawGetString("decision") == lua.LNil && t.RawGetString("modifiedInput") == lua.LNil {
		if o, ok, err := st.directOutcome(t); ok {
			return o, err
		}
	}
	raw, err := st.enc.encode(t)
	if err != nil {
		return nil, &luahook.Failure{Kind: luahook.FailInvalidOutput, Message: "the returned outcome: " + err.Error(), Err: err}
	}
	return luahook.ParseOutcome(raw)
}

// directOutcome reads an outcome table with the contract's keys only. ok is
// false when a value has a type the slow path must judge.
func (st *state) directOutcome(t *lua.LTable) (o *luahook.Outcome, ok bool, err error) {
	var out luahook.Outcome
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"action", (*string)(&out.Action)},
		{"reason", &out.Reason},
		{"additionalContext", &out.AdditionalContext},
		{"contextAs", (*string)(&out.ContextAs)},
	} {
		switch v := t.RawGetString(f.key).(type) {
		case lua.LString:
			*f.dst = string(v)
		case *lua.LNilType:
		default:
			return nil, false, nil
		}
	}
	switch in := t.RawGetString("input").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		raw, err := st.enc.encode(in)
		if err != nil {
			return nil, true, &luahook.Failure{Kind: luahook.FailInvalidOutput, Message: "the outcome's input: " + err.Error(), Err: err}
		}
		out.Input = bytes.Clone(raw)
	default:
		return nil, false, nil
	}
	if err := out.Validate(); err != nil {
		return nil, true, err
	}
	if out.Action == "" && out.Reason == "" && out.AdditionalContext == "" && out.ContextAs == "" && out.Input == nil {
		return nil, true, nil
	}
	return &out, true, nil
}
