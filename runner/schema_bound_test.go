package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsonschema"
)

// envInput is {"command":"ls","env":{"k0":1,"k1":1,...}}: 3 + n JSON
// values, each member of env a schema violation under bashSchema.
func envInput(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"command":"ls","env":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":1`, i)
	}
	b.WriteString("}}")
	return json.RawMessage(b.String())
}

// TestRewrittenInputsAreComparedAndValidatedWithinABound: a rewrite of many
// values would cost an error object per value to validate (about 1 KiB
// each); beyond maxRewriteValues values the runner validates nothing and
// denies, naming the limit, and never decodes the rewrite to compare it.
func TestRewrittenInputsAreComparedAndValidatedWithinABound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values int
		want   string
	}{
		{"at the limit", MaxRewriteValues, "Validation errors:"},
		{"one past", MaxRewriteValues + 1, "over the limit of 10000"},
		{"far past", 200000, "over the limit of 10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t, Options{Schemas: map[string]*jsonschema.Schema{"bash": compileSchema(t, bashSchema)}})
			rewrite := envInput(tc.values - 3)
			g.add(luahook.Spec{Event: luahook.PreToolUse, Hook: fixed(luahook.Mutate(rewrite))})
			var res Result
			n := allocated(func() { res = g.r.PreToolUse(t.Context(), bashInput("ls")) })
			if !res.Denied() || !strings.Contains(res.Reason, tc.want) {
				t.Errorf("denied %v, reason %q; want %q", res.Denied(), tail(res.Reason), tc.want)
			}
			if tc.values > MaxRewriteValues && n > 1<<20 {
				t.Errorf("refusing a rewrite of %d values allocated %d KiB, want under 1 MiB", tc.values, n>>10)
			}
			t.Logf("%d values (%d bytes): %d KiB allocated", tc.values, len(rewrite), n>>10)
		})
	}
}

func TestJSONValuesCountsValuesNotKeys(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{`{}`, 1},
		{`{"a":1}`, 2},
		{`{"a" : "b", "c":[true,false,null,-1.5e3]}`, 7},
		{`{"k\"ey":"v\\","x":{"y":[]}}`, 4},
		{`["a:", "]", "}"]`, 4},
	} {
		if got := jsonValues([]byte(tc.text)); got != tc.want {
			t.Errorf("jsonValues(%s) = %d, want %d", tc.text, got, tc.want)
		}
	}
	if got := jsonValues(envInput(2 * MaxRewriteValues)); got != MaxRewriteValues+1 {
		t.Errorf("jsonValues stops at %d, want %d", got, MaxRewriteValues+1)
	}
}
