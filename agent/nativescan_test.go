package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// referenceNative is what parseNative must answer for data, found with
// encoding/json alone: whether data (white space around it aside) is one
// valid JSON object, whether some object in it holds a key twice, and the
// top-level members, values as the text wrote them.
func referenceNative(data []byte) (object, valid, dup bool, members map[string][]byte) {
	data = bytes.Trim(data, " \t\r\n")
	object = len(data) > 0 && data[0] == '{'
	valid = json.Valid(data)
	if !object || !valid {
		return object, valid, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		object bool
		keys   map[string]bool
		key    bool // the next string token is a key
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err) // json.Valid said yes
		}
		top := (*level)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			if top != nil && top.object {
				top.key = true
			}
			stack = append(stack, &level{object: d == '{', keys: map[string]bool{}, key: d == '{'})
			continue
		} else if ok {
			stack = stack[:len(stack)-1]
			continue
		}
		if top.object && top.key {
			k := tok.(string)
			dup = dup || top.keys[k]
			top.keys[k] = true
			top.key = false
		} else if top.object {
			top.key = true
		}
	}
	var raw map[string]json.RawMessage
	if !dup {
		if err := json.Unmarshal(data, &raw); err != nil {
			panic(err)
		}
		members = make(map[string][]byte, len(raw))
		for k, v := range raw {
			members[k] = v
		}
	}
	return object, valid, dup, members
}

// FuzzParseNativeAgreesWithEncodingJSON: parseNative reads a text in one
// pass as encoding/json reads it: it refuses as invalid exactly what
// json.Valid refuses (with encoding/json's own message), refuses a key
// given twice in any object of a valid text, and keeps every top-level
// member with its value as written.
func FuzzParseNativeAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"a":1} `, `{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `{"a":[{"x":1},{"x":1,"x":2}]}`,
		`{"a":1,"a":2,}`, `{"a":"\u00e9","\u0061":2}`, `{"a":-0.5e+3,"b":[true,false,null],"c":""}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":tru}`, `{"a":nul}`, `{"a":"\x"}`,
		`{"a":"\u12"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}", `{"a":1}{}`, `{"a":1} x`, `{"a" 1}`, `{a:1}`,
		`{"a":[1,]}`, `{"a":[,1]}`, `{"a":{}}`, `{"a":[]}`, `{"a":[[],{}]}`, `{"a":1`, `{"a":"x`, `{"a":"\`,
		`{"a":{"b":[1,2,{"c":"d"}]},"e":"f"}`, "{\"a\" :\t1 ,\n\"b\"\r: [ 1 , 2 ] }",
		`{"k1":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1,"k8":1,"k9":1,"k10":1,"k11":1,"k12":1,"k13":1,"k14":1,"k15":1,"k16":1,"k17":1,"k1":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		object, valid, dup, members := referenceNative(data)
		n, err := parseNative(data)
		switch {
		case !object:
			if err == nil {
				t.Fatalf("%q is no JSON object, parseNative accepted it", data)
			}
		case !valid:
			var v any
			want := json.Unmarshal(bytes.Trim(data, " \t\r\n"), &v)
			if err == nil || want != nil && err.Error() != "invalid JSON: "+want.Error() {
				t.Fatalf("%q is invalid: parseNative says %v, want invalid JSON: %v", data, err, want)
			}
		case dup:
			if err == nil || !strings.HasSuffix(err.Error(), ": duplicate key") {
				t.Fatalf("%q holds a key twice: parseNative says %v", data, err)
			}
		case err != nil:
			t.Fatalf("%q: parseNative: %v", data, err)
		default:
			if len(n.members) != len(members) {
				t.Fatalf("%q: %d members, want %d", data, len(n.members), len(members))
			}
			for _, m := range n.members {
				if want, ok := members[string(m.key)]; !ok || !bytes.Equal(m.value, want) {
					t.Fatalf("%q: member %q = %q, want %q", data, m.key, m.value, want)
				}
			}
		}
	})
}

// Nesting as deep as encoding/json reads is read; one level more is
// refused as invalid, with encoding/json's message.
func TestParseNativeNestsAsDeepAsEncodingJSON(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	if _, err := parseNative(deep(maxNesting)); err != nil {
		t.Errorf("depth %d: %v", maxNesting, err)
	}
	_, err := parseNative(deep(maxNesting + 1))
	if err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("depth %d: %v, want encoding/json's max depth error", maxNesting+1, err)
	}
	if json.Valid(deep(maxNesting+1)) || !json.Valid(deep(maxNesting)) {
		t.Error("encoding/json's depth limit is not maxNesting")
	}
}
