package codec

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// The module must require the gopher-lua version the bytecode analysis and
// the table mirror were written against, with no replace directive (a host
// importing luahook would not see one). Another version may still build and
// pass every other test while the analysis reads instructions wrong (a hook
// that keeps its input would get it refilled with the next payload) or the
// mirror falls back silently to the slow path; this test fails loudly
// instead, naming what to re-read against the new version's sources.
func TestGopherLuaIsTheVersionTheInternalsWereWrittenAgainst(t *testing.T) {
	mod := findGoMod(t)
	data, err := os.ReadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require"))
		if len(f) >= 2 && f[0] == gopherLuaPath {
			got = f[1]
		}
		if strings.HasPrefix(strings.TrimSpace(line), "replace") {
			t.Errorf("%s has a replace directive (%s): a program importing luahook ignores it", mod, strings.TrimSpace(line))
		}
	}
	if !Pinned {
		t.Errorf("Pinned is false: gopher-lua compiles the fingerprint chunk to %#x, not %#x; re-check as below", bytecodeFingerprint(), writtenFingerprint)
	}
	if got == "" {
		t.Fatalf("%s does not require github.com/yuin/gopher-lua", mod)
	}
	if got != WrittenAgainst {
		t.Fatalf(`%s requires github.com/yuin/gopher-lua %s, but luabind/internal/codec was written against %s.
Re-check against the new version's sources, then update WrittenAgainst in luabind/internal/codec/gopherlua_version_test.go:
  - luabind/internal/codec/reuse_analysis.go: op, argA, argB, argC, argBx, argSBx and rkConst
    (the instruction layout, opcodes.go), and every opcode (*flow).step handles: a new or
    changed opcode must be read, or answered "may escape"; TestEscapeDecodesInstructions
    checks the decoding against gopher-lua's own listing;
  - luabind/internal/codec/table.go: rawTable, the mirror of lua.LTable's fields (table.go),
    newObjectTable, fillObject, NewLookupTable and NoOtherKeys, which write and read those
    fields; TestDirectTablesMatchTheGopherLuaLayout checks the layout;
  - luabind/internal/codec/stock.go: (*Stock).Done and (*Codec).ArrayTable, which empty and
    refill tables through the mirror;
  - luabind/internal/codec/table.go: frameLayout and CalledBy, which read lua.LState's
    currentFrame and its call frame's Idx, Fn and Parent (state.go, vm.go's OP_CALL and
    OP_TAILCALL: a Go function gets a frame whose Parent is its caller's, and the outermost
    call of a state is frame 0); TestCalledByFindsGopherLuaCallFrames checks them;
  - luabind/concat.go: luaConcat, a copy of OP_CONCAT (vm.go's stringConcat), and the
    LOADK of the concat marker the analysis recognises.`, mod, got, WrittenAgainst)
	}
}

// findGoMod returns the go.mod of the module the test runs in.
func findGoMod(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "go.mod")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// TestAnotherReleaseTurnsTheInternalsOff: a program whose module list names
// another gopher-lua release, or a replacement of this one, is not Pinned
// (its host module chose them; luahook then reads no internals).
func TestAnotherReleaseTurnsTheInternalsOff(t *testing.T) {
	build := func(version string, replace *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Deps: []*debug.Module{
			{Path: "golang.org/x/sys", Version: "v0.49.0"},
			{Path: gopherLuaPath, Version: version, Replace: replace},
		}}
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want bool
	}{
		{"the release written against", build(WrittenAgainst, nil), true},
		{"a later release", build("v1.1.3", nil), false},
		{"an earlier release", build("v1.1.1", nil), false},
		{"a replacement", build(WrittenAgainst, &debug.Module{Path: "../gopher-lua"}), false},
		{"no module list (a test binary): the fingerprint decides", &debug.BuildInfo{}, true},
	} {
		if got := pinnedBy(c.bi, true); got != c.want {
			t.Errorf("%s: pinned %v, want %v", c.name, got, c.want)
		}
	}
	if pinnedBy(nil, false) != (bytecodeFingerprint() == writtenFingerprint) {
		t.Error("without build information the fingerprint must decide")
	}
}
