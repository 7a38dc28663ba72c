package codec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writtenAgainst is the gopher-lua version whose internals this package
// reads: the bytecode layout and opcodes (reuse_analysis.go) and the fields
// of lua.LTable (table.go, stock.go).
const writtenAgainst = "v1.1.2"

// The module must require the gopher-lua version the bytecode analysis and
// the table mirror were written against. Another version may still build and
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
		if len(f) >= 2 && f[0] == "github.com/yuin/gopher-lua" {
			got = f[1]
		}
		if len(f) >= 1 && strings.HasPrefix(strings.TrimSpace(line), "replace") && strings.Contains(line, "github.com/yuin/gopher-lua") {
			// The one replacement allowed: the in-tree copy of the version
			// below, whose changes (its README) leave the instruction
			// layout, the opcodes, lua.LTable and the call frames as they
			// are; another must be re-checked as the message below says.
			if !strings.HasSuffix(strings.TrimSpace(line), "=> ./third_party/gopher-lua") {
				t.Errorf("%s replaces github.com/yuin/gopher-lua (%s): re-check what the version test below lists against the replacement's sources", mod, strings.TrimSpace(line))
				continue
			}
			readme, err := os.ReadFile(filepath.Join(filepath.Dir(mod), "third_party", "gopher-lua", "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			if want := "A copy of github.com/yuin/gopher-lua " + writtenAgainst; !strings.Contains(string(readme), want) {
				t.Errorf("third_party/gopher-lua/README.md does not say %q: the copy must be of the version below", want)
			}
		}
	}
	if got == "" {
		t.Fatalf("%s does not require github.com/yuin/gopher-lua", mod)
	}
	if got != writtenAgainst {
		t.Fatalf(`%s requires github.com/yuin/gopher-lua %s, but luabind/internal/codec was written against %s.
Re-check against the new version's sources, then update writtenAgainst in luabind/internal/codec/gopherlua_version_test.go:
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
    LOADK of the concat marker the analysis recognises.`, mod, got, writtenAgainst)
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
