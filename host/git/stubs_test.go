package git

import (
	"os"
	"strings"
	"testing"
)

func TestEditorStubsDescribeEveryMember(t *testing.T) {
	src, err := os.ReadFile("../../editor/host-git.lua")
	if err != nil {
		t.Fatal(err)
	}
	m := Module()
	if !strings.HasPrefix(string(src), "---@meta host."+m.Name+"\n") {
		t.Errorf("editor/host-git.lua does not start with ---@meta host.%s", m.Name)
	}
	for name := range m.Members {
		if !strings.Contains(string(src), "\nfunction git."+name+"() end\n") {
			t.Errorf("editor/host-git.lua does not describe %s", name)
		}
	}
}
