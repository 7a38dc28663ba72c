package security

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/luahook/luahook/engine"
)

// TestRewriteLeavesUntouchedNumbersAsTheyCame: a Lua hook that rewrites one
// field of a tool input, through the engine and the runner, hands on every
// other value as the text it came as: integers past 2^53 and past int64,
// long fractions and exponents are not rounded to float64 on the way.
func TestRewriteLeavesUntouchedNumbersAsTheyCame(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-rewrite.lua": `
hook.register("PreToolUse", "*", function(input)
  local t = input.toolInput
  t.command = t.command .. " --dry-run"
  return hook.mutate(t)
end)`})
	e := open(t, engine.Options{Dir: dir})
	in := `{"command": "deploy", "id": 9007199254740993, "amount": 12345678901234567890123,
  "rate": 0.1000000000000000055, "scale": 1E+2, "ids": [18446744073709551615, -0, 1.0], "note": "caf\u00e9"}`
	res := pre(e, "bash", in)
	if f := failures(res); f != "" {
		t.Fatalf("failures: %s", f)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(strings.Replace(in, `"deploy"`, `"deploy --dry-run"`, 1))); err != nil {
		t.Fatal(err)
	}
	if string(res.Input) != want.String() {
		t.Errorf("the rewritten input is\n  %s\nwant\n  %s", res.Input, want.String())
	}
}
