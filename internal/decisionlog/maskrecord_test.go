package decisionlog

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// ghToken is a GitHub token's shape, one of the shipped secret patterns.
const ghToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"

// authValue is the value a configured mask path (authPath) takes out of
// the payload: the record must not show it anywhere else either.
const (
	authPath  = "toolInput.headers.Authorization"
	authValue = "Basic c2VzYW1lLW9wZW4tdXA="
)

// seededJSON is the JSON text every json.RawMessage of a seeded record
// holds: the seed as a key, as values, in a nested array, under the
// configured mask path, and in an object under a key the mask already
// names (so that a masked key must be numbered to stay unique).
func seededJSON(seed string) json.RawMessage {
	q, _ := json.Marshal("x " + seed + " y")
	k, _ := json.Marshal(seed)
	return json.RawMessage(`{"toolInput":{"headers":{"Authorization":"` + authValue + `"},"command":` + string(q) +
		`,` + string(k) + `:` + string(q) + `,"args":["a",{"deep":[` + string(q) + `]}],"obj":{"[masked]":1,` + string(k) + `:2,"also ` + seed + `":3}},` +
		`"native":{"tool_input":{` + string(k) + `:[` + string(q) + `]}},"prompt":` + string(q) + `}`)
}

// seed sets every string v holds, at any depth, to a text that holds
// seed (and every boolean and number to a value that is not zero); a map gets one member whose key holds it, a slice two elements, a
// pointer a value, a json.RawMessage seededJSON. It reads v's type, not a
// list of fields: a field added to Record is seeded as soon as it exists.
func seed(t *testing.T, v reflect.Value, s string, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x " + s + " y")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Slice:
		switch {
		case v.Type() == rawMessageType:
			v.SetBytes(seededJSON(s))
		case v.Type().Elem().Kind() == reflect.Uint8:
			v.SetBytes([]byte("x " + s + " y"))
		default:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				seed(t, v.Index(i), s, depth+1)
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			seed(t, v.Index(i), s, depth+1)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		seed(t, v.Elem(), s, depth+1)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k := reflect.New(v.Type().Key()).Elem()
		seed(t, k, s, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		seed(t, e, s, depth+1)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				seed(t, v.Field(i), s, depth+1)
			}
		}
	case reflect.Interface:
		if reflect.TypeFor[string]().Implements(v.Type()) {
			v.Set(reflect.ValueOf("x " + s + " y"))
		}
	}
}

// holding returns the paths of the strings v holds (keys, JSON texts and
// bytes included) that contain s.
func holding(v reflect.Value, s, at string) []string {
	var found []string
	switch v.Kind() {
	case reflect.String:
		if strings.Contains(v.String(), s) {
			found = append(found, at)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			if bytes.Contains(v.Bytes(), []byte(s)) {
				found = append(found, at)
			}
			break
		}
		for i := range v.Len() {
			found = append(found, holding(v.Index(i), s, at+"[]")...)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			found = append(found, holding(v.Elem(), s, at)...)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			found = append(found, holding(k, s, at+".key")...)
			found = append(found, holding(v.MapIndex(k), s, at+".value")...)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				found = append(found, holding(v.Field(i), s, at+"."+f.Name)...)
			}
		}
	}
	return found
}

// TestEveryStringOfARecordIsMasked seeds a secret, and in a second record
// a value a configured mask path takes out, into every string of a Record
// (found by reflection, so a field added to Record is seeded too), masks
// it and checks that neither the record a Func sink receives nor its line
// holds the seed anywhere.
func TestEveryStringOfARecordIsMasked(t *testing.T) {
	for _, c := range []struct{ name, seed string }{
		{"a secret of the shipped patterns", ghToken},
		{"the value of a configured mask path", authValue},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec Record
			seed(t, reflect.ValueOf(&rec).Elem(), c.seed, 0)
			rec.Time, rec.Masked = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), nil
			// The value the mask path names is in the payload (every JSON
			// text holds it at toolInput.headers.Authorization).
			m := &masker{with: DefaultMaskWith, secrets: true}
			p, err := ParsePath(authPath)
			if err != nil {
				t.Fatal(err)
			}
			m.mask = []path{p}
			m.maskRecord(&rec)
			if found := holding(reflect.ValueOf(rec), c.seed, "Record"); len(found) > 0 {
				t.Errorf("the masked record still holds the seed at %q", found)
			}
			line := AppendLine(nil, &rec)
			if bytes.Contains(line, []byte(c.seed)) {
				t.Errorf("the line holds the seed:\n%s", line)
			}
			marshalled, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(marshalled, []byte(c.seed)) {
				t.Errorf("the record's JSON holds the seed:\n%s", marshalled)
			}
			// The payload still decodes strictly: the masked keys of one
			// object are numbered, not written twice.
			if _, err := luahook.DecodeInput(rec.Input); err != nil {
				t.Errorf("the masked payload %s does not decode: %v", rec.Input, err)
			}
			for _, want := range []string{"sessionId", "toolName", "agent", "instance", "luahookVersion", "inputDigest",
				"toolInput.command", "toolInput.[masked]", "toolInput.obj.[masked]#2", "toolInput.obj.[masked]#3", "toolInput.args[1].deep[0]",
				"native.tool_input.[masked][0]", authPath, "prompt",
				"hooks[1].name", "hooks[0].source", "hooks[0].outcome.reason", "hooks[1].outcome.additionalContext",
				"hooks[0].outcome.input.toolInput.command", "hooks[1].failure.message", "decision.reason", "decision.decidedBy",
				"decision.outcome.input.toolInput.[masked]", "files.[masked]"} {
				if !contains(rec.Masked, want) {
					t.Errorf("masked = %q, want it to list %s", rec.Masked, want)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// TestMaskedKeysOfAnObjectStayUnique checks the numbering of masked keys:
// the first is the mask, the next mask#2, mask#3..., skipping a name the
// object already has as a key of its own.
func TestMaskedKeysOfAnObjectStayUnique(t *testing.T) {
	other := "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	in := `{"event":"PreToolUse","toolInput":{"` + ghToken + `":1,"[masked]#2":2,"` + other + `":3,"k":{"` + ghToken + `":4}},"cwd":"/w"}`
	rec := Record{Input: json.RawMessage(in), Files: map[string]string{ghToken: "a", other: "b", "[masked]": "c"}}
	m := &masker{with: DefaultMaskWith, secrets: true}
	m.maskRecord(&rec)
	if want := `{"event":"PreToolUse","toolInput":{"[masked]":1,"[masked]#2":2,"[masked]#3":3,"k":{"[masked]":4}},"cwd":"/w"}`; string(rec.Input) != want {
		t.Errorf("input = %s, want %s", rec.Input, want)
	}
	if want := map[string]string{"[masked]#2": "b", "[masked]#3": "a", "[masked]": "c"}; !reflect.DeepEqual(rec.Files, want) {
		t.Errorf("files = %v, want %v (the keys masked in the order a line lists them)", rec.Files, want)
	}
	if _, err := luahook.DecodeInput(rec.Input); err != nil {
		t.Errorf("masked input does not decode: %v", err)
	}
}

// TestTheRecordsCopiesOfPayloadFieldsFollowThePaths checks that a drop or
// mask path that names a top-level member of the payload applies to the
// record's copy of it too (sessionId, toolName).
func TestTheRecordsCopiesOfPayloadFieldsFollowThePaths(t *testing.T) {
	rec := Record{SessionID: "s-42", ToolName: "deploy", Agent: "claude",
		Input: json.RawMessage(`{"event":"PreToolUse","toolName":"deploy","cwd":"/w","sessionId":"s-42","agent":"claude"}`)}
	m := &masker{with: "<hidden>"}
	for _, s := range []struct {
		rules *[]path
		p     string
	}{{&m.drop, "sessionId"}, {&m.mask, "toolName"}} {
		p, err := ParsePath(s.p)
		if err != nil {
			t.Fatal(err)
		}
		*s.rules = append(*s.rules, p)
	}
	m.maskRecord(&rec)
	if rec.SessionID != "" || rec.ToolName != "<hidden>" || rec.Agent != "claude" {
		t.Errorf("sessionId %q (want dropped), toolName %q (want <hidden>), agent %q (want claude)", rec.SessionID, rec.ToolName, rec.Agent)
	}
	if want := `{"event":"PreToolUse","toolName":"<hidden>","cwd":"/w","agent":"claude"}`; string(rec.Input) != want {
		t.Errorf("input = %s, want %s", rec.Input, want)
	}
	if want := []string{"sessionId", "toolName"}; !reflect.DeepEqual(rec.Masked, want) {
		t.Errorf("masked = %q, want %q (each path once)", rec.Masked, want)
	}
}

// TestARecordWithNothingToMaskIsNotCopied checks the writer's common case:
// masking a record that holds no secret allocates nothing and leaves the
// record's memory where it was.
func TestARecordWithNothingToMaskIsNotCopied(t *testing.T) {
	payload := json.RawMessage(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"go test ./... -run TestRunner","timeout":120000},"cwd":"/home/dev/project","sessionId":"sess-4f2a"}`)
	out := &luahook.Outcome{Action: luahook.ActionMutate, Input: json.RawMessage(`{"command":"go test ./..."}`)}
	m := &masker{with: DefaultMaskWith, secrets: true}
	rec := Record{}
	fill := func() {
		rec = Record{LuahookVersion: "devel", SessionID: "sess-4f2a", Event: luahook.PreToolUse, ToolName: "bash",
			InputDigest: "sha256:7e4614cf41d9f699c8ffa564797131abc87b98b0f0e4546c51eceaf32aa9083c", Input: payload,
			Hooks:    []Hook{{Name: "guard", Source: "/x/hooks.d/10-guard.lua:1", Kind: luahook.KindLua, Outcome: out, Failure: &luahook.Failure{Kind: luahook.FailError, Message: "boom"}}},
			Decision: Decision{Action: luahook.ActionMutate, DecidedBy: "guard", Outcome: out},
			Files:    map[string]string{"/x/hooks.d/10-guard.lua": "sha256:7e4614cf41d9f699c8ffa564797131abc87b98b0f0e4546c51eceaf32aa9083c"}}
	}
	fill()
	m.maskRecord(&rec) // the buffers grow once
	hooks := rec.Hooks
	if allocs := testing.AllocsPerRun(100, func() { m.maskRecord(&rec) }); allocs != 0 {
		t.Errorf("masking a record with nothing to mask allocates %v times", allocs)
	}
	if rec.Masked != nil || &rec.Hooks[0] != &hooks[0] || &rec.Input[0] != &payload[0] || rec.Hooks[0].Outcome != out {
		t.Errorf("a record with nothing to mask was copied (masked %q)", rec.Masked)
	}
}

// FuzzMaskedJSONIsValidAndKeepsNoSecret checks the JSON walker on any
// valid JSON text: what it writes is valid JSON, holds no secret in a key
// or a value, and has no object with a key twice unless the text had one.
func FuzzMaskedJSONIsValidAndKeepsNoSecret(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `"x"`, `{"a":1}`, `{"` + ghToken + `":"` + ghToken + `"}`,
		`{"[masked]":1,"` + ghToken + `":2,"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB":[3,{"` + ghToken + `":"a"}]}`,
		`{"k\u0065y":"gh\u0070_abcdefghijklmnopqrstuvwxyz0123456789AB"}`, ` [ 1 , "AKIAIOSFODNN7EXAMPLE" , {"x" : null} ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		m := &masker{with: DefaultMaskWith, secrets: true}
		out, _ := m.raw(data, false, nil, false)
		if !json.Valid(out) {
			t.Fatalf("%s masked is %s: not JSON", data, out)
		}
		if secretIn(t, out) {
			t.Fatalf("%s masked is %s: it keeps a secret", data, out)
		}
		if dupIn(t, out) && !dupIn(t, data) {
			t.Fatalf("%s masked is %s: an object has a key twice", data, out)
		}
	})
}

// secretIn reports whether a key or a string of the JSON text holds a
// secret.
func secretIn(t *testing.T, text []byte) bool {
	d := json.NewDecoder(bytes.NewReader(text))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if s, ok := tok.(string); ok && hasSecret(s) {
			return true
		}
	}
}

// dupIn reports whether an object of the JSON text has a key twice.
func dupIn(t *testing.T, text []byte) bool {
	dup, err := dupValue(json.NewDecoder(bytes.NewReader(text)))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return dup
}

func dupValue(d *json.Decoder) (bool, error) {
	tok, err := d.Token()
	if err != nil {
		return false, err
	}
	dup := false
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return false, err
			}
			dup = dup || seen[k.(string)]
			seen[k.(string)] = true
			sub, err := dupValue(d)
			if err != nil {
				return false, err
			}
			dup = dup || sub
		}
	case json.Delim('['):
		for d.More() {
			sub, err := dupValue(d)
			if err != nil {
				return false, err
			}
			dup = dup || sub
		}
	default:
		return false, nil
	}
	_, err = d.Token() // the closing delimiter
	return dup, err
}
