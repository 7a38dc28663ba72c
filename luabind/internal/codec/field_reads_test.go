package codec

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// MayReadField answers no only where the hook provably never reads
// input.native; every way of reaching it, direct or not, is a yes.
func TestMayReadFieldSeesEveryWayToTheField(t *testing.T) {
	cases := []struct {
		body string
		may  bool
	}{
		{`return hook.deny(input.toolInput.command)`, false},
		{`local c = input.toolInput.command; if c:find("rm", 1, true) then return hook.deny("no " .. input.cwd) end`, false},
		{`local i = input; return hook.deny(i.toolName)`, false},
		{`for k, v in pairs(input.toolInput) do print(k, v) end`, false},
		{`return shell.parse(input.toolInput.command)`, false},
		{`local t = {} t[1] = input.toolInput return t`, false},
		{`return input.native`, true},
		{`return input["native"].tool_name`, true},
		{`local i = input; return i.native`, true},
		{`local k = "nat" .. "ive"; return input[k]`, true},
		{`for k, v in pairs(input) do print(k) end`, true},
		{`return json.encode(input)`, true},
		{`return input`, true},
		{`saved = input`, true},
		{`local t = {input}; return t`, true},
		{`local t = {} t.x = input return t`, true},
		{`return function() return input.toolName end`, true},
		{`return input:upper()`, true},
		{`if input == rt then return nil end`, true},
		{`input = {native = 1}; return input.native`, false},
		{`input.seen = true; return input.toolName`, true},
		{`local i; local f = function() return i.native end; i = input; return f()`, true},
		{`local x = rt or input; return x.native`, true},
		{`local x = input.toolInput or input; return x.native`, true},
		{`local t = input; if rt then t = rt end; return t.native`, true},
		{`local t = input; t = rt; return t.native`, false},
		{`return select(2, input)`, true},
		{`local f = helper; return f(input)`, true},
	}
	L := lua.NewState()
	defer L.Close()
	for _, c := range cases {
		chunk, err := L.LoadString("f = function(input, rt) " + c.body + " end")
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		fn := &lua.LFunction{Proto: chunk.Proto.FunctionPrototypes[0]}
		if got := MayReadField(fn, "native"); got != c.may {
			t.Errorf("%s: MayReadField = %v, want %v\n%s", c.body, got, c.may, fn.Proto.String())
		}
	}
	vararg, _ := L.LoadString("f = function(...) local input = ... return input.native end")
	if !MayReadField(&lua.LFunction{Proto: vararg.Proto.FunctionPrototypes[0]}, "native") {
		t.Error("a function that takes its input through ... must count as reading it")
	}
	if !MayReadField(L.NewFunction(func(*lua.LState) int { return 0 }), "native") {
		t.Error("a Go function must count as reading it")
	}
}
