package luabind_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/luahook/luahook/luabind"
)

// TestEditorAnnotationsDescribeEveryFunction: editor/luahook.lua (the
// lua-language-server annotations) parses as Lua and documents every function
// of every module a hook state has, so completion never misses one.
func TestEditorAnnotationsDescribeEveryFunction(t *testing.T) {
	src, err := os.ReadFile("../editor/luahook.lua")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := luabind.Compile("editor/luahook.lua", src); err != nil {
		t.Fatalf("the annotations are not valid Lua: %v", err)
	}
	s, err := luabind.NewSession(luabind.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Eval(context.Background(), "list", `local names = {}
for _, m in ipairs({"hook", "json", "log", "re", "store", "env", "memo", "session", "fs"}) do
  for k, v in pairs(_G[m]) do
    if type(v) == "function" then names[#names + 1] = m .. "." .. k end
  end
end
table.sort(names)
return table.concat(names, " ")`)
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(strings.Trim(strings.Join(out, " "), `"`))
	if len(names) < 20 {
		t.Fatalf("found only %d module functions: %v", len(names), names)
	}
	for _, name := range names {
		if !regexp.MustCompile(`(?m)^function ` + regexp.QuoteMeta(name) + `\(`).Match(src) {
			t.Errorf("editor/luahook.lua does not describe %s", name)
		}
	}
}
