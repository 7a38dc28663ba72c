package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/luahook/luahook/host"
)

var update = flag.Bool("update", false, "rewrite host.lua from the host module")

// TestEditorStubsMatchTheHostModule: host.lua, the LuaLS annotations a
// policy author's editor reads for require("host.embed"), is what
// host.WriteStubs writes for the module the host gives (go test
// ./examples/embed -run Stubs -update rewrites it).
func TestEditorStubsMatchTheHostModule(t *testing.T) {
	var b strings.Builder
	if err := host.WriteStubs(&b, hostModule(user{}, newBudgets(nil))); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("host.lua", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("host.lua")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Errorf("host.lua is stale (go test ./examples/embed -run Stubs -update); want:\n%s", b.String())
	}
}
