package luabind

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

// inputTable converts the payload into a fresh Lua table shaped exactly like
// its JSON form: the fields luahook.Input.Fields lists, in that order, so
// omitted when encoding/json omits them. toolInput is decoded from its raw
// JSON. Strings that repeat from call to call (Field.Repeats: the event, the
// tool name, the capabilities, the cwd, the session id) are boxed once per
// state, keys once per process (payloadKeys), and every table is built at
// its final size (codec.Codec.ObjectTable). Decoding toolInput and native
// watches ctx and the state's cap on values, which the two share.
func (st *state) inputTable(ctx context.Context, in *luahook.Input) (*lua.LTable, error) {
	// The members of the top-level object, then those of the nested object
	// being listed, which become one member once it ends.
	var keyBuf, valBuf [24]lua.LValue
	keys, vals := keyBuf[:0], valBuf[:0]
	var err error
	first := ""            // the first JSON document decoded (toolInput, native)
	object, start := -1, 0 // the nested object being listed (its key's index), and where its members start
	in.Fields(func(f luahook.Field) bool {
		var v lua.LValue
		switch f.Kind {
		case luahook.FieldObject:
			object, start = int(f.Index), len(keys)
			return true
		case luahook.FieldEnd:
			t := st.ObjectTable(keys[start:], vals[start:])
			keys, vals = append(keys[:start], payloadKeys.top[object]), append(vals[:start], t)
			object = -1
			return true
		case luahook.FieldString:
			if f.Repeats {
				v = st.Dec.BoxString(f.Text)
			} else {
				v = lua.LString(f.Text)
			}
		case luahook.FieldBool:
			v = lua.LBool(f.Bool)
		case luahook.FieldInt:
			v = lua.LNumber(f.Int)
		case luahook.FieldJSON:
			if f.Key == "native" && !st.native[st.fn] {
				return true // the hook provably never reads it
			}
			// The payload's documents (toolInput, native) share the cap on values.
			if first == "" {
				v, err = st.Dec.DecodeIn(ctx, f.JSON)
			} else {
				v, err = st.Dec.DecodeMore(ctx, f.JSON)
			}
			if err != nil {
				what := f.Key
				if first != "" {
					what = first + " and " + f.Key
				}
				err = &documentError{what: what, key: f.Key, err: err}
				return false
			}
			if first == "" {
				first = f.Key
			}
		case luahook.FieldStrings:
			var itemBuf [16]lua.LValue
			items := itemBuf[:0]
			for _, s := range f.List {
				items = append(items, st.Dec.BoxString(s))
			}
			v = st.ArrayTable(items)
		default:
			return true
		}
		if object < 0 {
			keys = append(keys, payloadKeys.top[f.Index])
		} else {
			keys = append(keys, payloadKeys.nested[object][f.Index])
		}
		vals = append(vals, v)
		return true
	})
	if err != nil {
		return nil, err
	}
	return st.ObjectTable(keys, vals), nil
}

// documentError is a JSON document of the payload (toolInput, native) that
// did not convert.
type documentError struct {
	what string // the documents whose values counted: "toolInput", "toolInput and native"
	key  string // the document at fault
	err  error
}

func (e *documentError) Error() string { return e.key + ": " + e.err.Error() }

func (e *documentError) Unwrap() error { return e.err }

// payloadKeys are the payload's keys (luahook.InputKeys and NestedKeys),
// boxed once for every state (an LString is immutable): top[i] is the i-th
// top-level key, nested[i] the keys of the object at top[i].
var payloadKeys = boxPayloadKeys()

type boxedKeys struct {
	top    []lua.LValue
	nested [][]lua.LValue
}

func boxPayloadKeys() boxedKeys {
	top := luahook.InputKeys()
	b := boxedKeys{top: make([]lua.LValue, len(top)), nested: make([][]lua.LValue, len(top))}
	for i, k := range top {
		b.top[i] = lua.LString(k)
		for _, nk := range luahook.NestedKeys(k) {
			b.nested[i] = append(b.nested[i], lua.LString(nk))
		}
	}
	return b
}
