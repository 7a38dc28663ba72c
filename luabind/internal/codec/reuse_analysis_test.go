package codec

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The instruction decoding matches gopher-lua's own listing of a function.
func TestEscapeDecodesInstructions(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	chunk, err := L.LoadString("f = function(input, rt) local t = {} t.x = input.cwd return hook.deny(t.x) end")
	if err != nil {
		t.Fatal(err)
	}
	fn := &lua.LFunction{Proto: chunk.Proto.FunctionPrototypes[0]}
	names := map[int]string{lua.OP_NEWTABLE: "NEWTABLE", lua.OP_GETTABLEKS: "GETTABLEKS", lua.OP_SETTABLEKS: "SETTABLEKS",
		lua.OP_GETGLOBAL: "GETGLOBAL", lua.OP_TAILCALL: "TAILCALL", lua.OP_RETURN: "RETURN"}
	listing := fn.Proto.String()
	seen := 0
	for pc, inst := range fn.Proto.Code {
		name, ok := names[op(inst)]
		if !ok {
			continue
		}
		seen++
		want := fmt.Sprintf("[%03d] %s      |  %d, %d, %d;", pc+1, name, argA(inst), argB(inst), argC(inst))
		if op(inst) == lua.OP_GETGLOBAL {
			want = fmt.Sprintf("[%03d] %s      |  %d, %d;", pc+1, name, argA(inst), argBx(inst))
		}
		if !strings.Contains(listing, want) {
			t.Errorf("decoded %q, not in the listing:\n%s", want, listing)
		}
	}
	if seen < 8 {
		t.Errorf("decoded %d known instructions, want 8; listing:\n%s", seen, listing)
	}
}
