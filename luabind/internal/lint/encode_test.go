package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/parse"

	"github.com/luahook/luahook/luabind/internal/binenc"
)

// bareEnv is a sandbox with the globals the test source reads and no
// modules.
type bareEnv struct{}

func (bareEnv) Global(name string) (any, bool) {
	return nil, slices.Contains([]string{"hook", "table"}, name)
}
func (bareEnv) GlobalNames() []string          { return []string{"hook", "table"} }
func (bareEnv) Withheld(string) (string, bool) { return "", false }
func (bareEnv) Module(any) (Module, bool)      { return nil, false }

// TestEncodeKeepsEveryRule: facts read back from their encoding (the
// compiled-chunk cache) give the warnings of the facts Scan made, the
// upvalue-assign ones included.
func TestEncodeKeepsEveryRule(t *testing.T) {
	src := `local count = 0
hook.register("PreToolUse", "bash", function()
  count = count + 1 -- an upvalue-assign
  leak = 1
  local x = nosuch
end)
`
	stmts, err := parse.Parse(strings.NewReader(src), "a.lua")
	if err != nil {
		t.Fatal(err)
	}
	f := Scan("a.lua", stmts, []byte(src))
	want := f.Check(bareEnv{}, nil)
	var rules []string
	for _, w := range want {
		rules = append(rules, w.Rule)
	}
	if !slices.Equal(rules, []string{RuleUpvalueAssign, RuleGlobalAssign, RuleUndefinedGlobal}) {
		t.Fatalf("Scan's warnings %v, want upvalue-assign, global-assign, undefined-global", want)
	}
	w := &binenc.Writer{}
	f.Encode(w)
	back, err := Decode(binenc.NewReader(string(w.B)))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Check(bareEnv{}, nil); !slices.Equal(got, want) {
		t.Errorf("decoded facts warn %v, want %v", got, want)
	}
}
