package registry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// Listing is the one listing in run order that luahook list and the REPL's
// :list print: events in luahook.Events order, configured hooks before Lua
// files before Go hooks, and on PreToolUse every mutator before every
// validator, numbered from 1 per event, each with its matcher as parsed.
func TestListingIsInRunOrder(t *testing.T) {
	r := New()
	mustRegister(t, r, luahook.Spec{Event: luahook.Stop, Name: "bye"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "go-validator", Stage: luahook.StageValidate})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "go-mutator", Matcher: "bash|sh"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "audit", Kind: luahook.KindCommand, Owner: "config"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "lua-validator", Kind: luahook.KindLua, Owner: "10-a.lua",
		Stage: luahook.StageValidate, Matcher: "Bash(git push:*)"})
	mustRegister(t, r, luahook.Spec{Event: luahook.PreToolUse, Name: "lua-mutator", Kind: luahook.KindLua, Owner: "20-b.lua"})

	var got []string
	for _, l := range r.Listing() {
		got = append(got, fmt.Sprintf("%s %d %s %s %s", l.Event, l.Order, l.Name, l.Stage, l.MatcherForm))
	}
	want := []string{
		"PreToolUse 1 lua-mutator mutate *",
		"PreToolUse 2 go-mutator mutate names bash|sh",
		"PreToolUse 3 audit validate *",
		`PreToolUse 4 lua-validator validate Bash command prefix "git push"`,
		"PreToolUse 5 go-validator validate *",
		"Stop 1 bye  *",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Listing()\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(New().Listing()) != 0 {
		t.Error("an empty registry lists hooks")
	}
}
