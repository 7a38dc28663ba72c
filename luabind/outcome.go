package luabind

import (
	"bytes"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
)

// wantOutcome ends the message of a return value that is not an outcome.
const wantOutcome = "; want nil or an outcome table (hook.allow(), hook.deny(reason), hook.ask(reason), hook.approve{reason=…}, hook.mutate(input), hook.context(text), hook.continue(reason), hook.redact(list), hook.replace_output(value))"

// outcome converts what a hook function returned. nil means no objection. An
// outcome table is a JSON object, as on every transport: a table with array
// items or any key that is not a string, a table marked json.array, and one
// with a metatable of its own (whose fields a raw read would miss) are
// FailInvalidOutput, as [1,2] from a command hook is. A table with only the
// contract's own keys, all strings (input a table), is read directly and
// checked with Outcome.Validate; any other table (legacy
// decision/modifiedInput keys, mistyped values) is encoded to JSON and goes
// through luahook.ParseOutcome, so that the normalisation rules live in one
// place. Anything else is FailInvalidOutput. A mutate's input is encoded
// alongside the payload's toolInput, so that what the hook left as it was
// comes back as the text it came as.
func (st *state) outcome(v lua.LValue) (*luahook.Outcome, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		if v == lua.LNil {
			return nil, nil
		}
		return nil, luahook.Failf(luahook.FailInvalidOutput, "the hook returned a %s"+wantOutcome, v.Type().String())
	}
	if what := st.notAnObject(t); what != "" {
		return nil, luahook.Failf(luahook.FailInvalidOutput, "the hook returned %s"+wantOutcome, what)
	}
	if t.RawGetString("decision") == lua.LNil && t.RawGetString("modifiedInput") == lua.LNil &&
		t.RawGet(keyRedact) == lua.LNil && t.RawGet(keyOutput) == lua.LNil &&
		t.RawGet(keyRoute) == lua.LNil && t.RawGet(keyApprovers) == lua.LNil && t.RawGet(keyTimeoutMs) == lua.LNil {
		if o, ok, err := st.directOutcome(t); ok {
			return o, err
		}
	}
	raw, err := st.Enc.EncodeOutcome(t, st.toolInput())
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
		if hasOwnMetatable(in, st) {
			return nil, true, luahook.Failf(luahook.FailInvalidOutput,
				"the outcome's input is a table with a metatable of its own (its fields are read raw); return a plain table")
		}
		raw, err := st.Enc.EncodeInput(in, st.toolInput())
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
	o = st.into
	if o == nil {
		o = new(luahook.Outcome)
	}
	*o = out
	return o, true, nil
}

// toolInput returns the JSON text of the call's toolInput, which a mutate's
// input is encoded alongside (codec.Encoder.EncodeInput), or nil.
func (st *state) toolInput() []byte {
	if st.in == nil {
		return nil
	}
	return st.in.ToolInput
}

// notAnObject says what t is when it is not an outcome object (a table with
// string keys only, plain or marked json.object), and "" when it is one.
func (st *state) notAnObject(t *lua.LTable) string {
	switch {
	case t.Metatable == st.ArrayMT:
		return "a table marked json.array"
	case hasOwnMetatable(t, st):
		return "a table with a metatable of its own (its fields are read raw); return a plain table"
	case t.MaxN() > 0:
		return "a table with array items (an array, where an outcome is an object)"
	}
	if codec.NoOtherKeys(t) {
		return "" // every key is a string
	}
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if _, ok := k.(lua.LString); !ok {
			return "a table with a key of type " + k.Type().String() + " (" + k.String() + "); outcome keys are strings"
		}
	}
	return ""
}

// hasOwnMetatable reports whether t has a metatable other than the JSON marks.
func hasOwnMetatable(t *lua.LTable, st *state) bool {
	mt := t.Metatable
	return mt != nil && mt != lua.LNil && mt != st.ObjectMT && mt != st.ArrayMT
}
