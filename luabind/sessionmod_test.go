package luabind_test

import (
	"context"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind"
)

// The session module is sealed like every module, acts on the ledger the
// options give (which a Go host reads too), and outside a hook call says
// that there is no session.
func TestSessionModuleIsSealedAndUsesTheGivenLedger(t *testing.T) {
	store := luabind.NewStore()
	defer store.Close()
	lg := ledger.New(store, ledger.Limits{})
	src := `
local ok, err = pcall(function() session.mark = nil end)
assert(not ok and tostring(err):find("session", 1, true), "session is not sealed: " .. tostring(err))
local ok2, err2 = pcall(session.marks)
assert(not ok2 and tostring(err2):find("only available inside a hook call", 1, true), tostring(err2))
hook.register("PreToolUse", nil, function(input)
  session.mark("seen", input.toolName)
end)`
	c, err := luabind.Compile("session.lua", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f, err := luabind.Load(context.Background(), c, luabind.Options{Store: store, Ledger: lg})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	specs := luabind.Specs(f.Registrations())
	if len(specs) != 1 {
		t.Fatalf("%d hooks", len(specs))
	}
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: []byte(`{}`), SessionID: "s"}
	if _, err := specs[0].Hook.Call(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	m, ok, err := lg.Has(context.Background(), "s", "seen")
	if err != nil || !ok || m.Detail != "bash" {
		t.Errorf("the Go side reads %+v, %v, %v", m, ok, err)
	}
	if marks, _ := lg.Marks(context.Background(), "other"); len(marks) != 0 {
		t.Errorf("another session holds %v", marks)
	}
}
