package packs

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	hooksd "github.com/luahook/luahook/hooks.d"
)

// The tests that run the packs (through policytest or the engine) are in
// package packs_test: the engine reads the config, which checks
// [packs.NAME] against this package (Declared).

// TestEveryPackFollowsTheLayout checks what luahook add and add --list rely
// on: a "-- name: description" first line, a test file, a header comment
// that documents SETTINGS when the pack has them, and lib modules that
// ship in hooks.d.
func TestEveryPackFollowsTheLayout(t *testing.T) {
	all, err := List()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		src, err := FS.ReadFile(p.Name + ".lua")
		if err != nil {
			t.Fatal(err)
		}
		if p.Description == "" || len(p.Description) > 120 {
			t.Errorf("%s: description %q: want one line of at most 120 bytes", p.Name, p.Description)
		}
		lines := strings.Split(string(src), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[1], "--") {
			t.Errorf("%s.lua: the first line must be followed by a header comment", p.Name)
		}
		if bytes.Contains(src, []byte("local SETTINGS")) && !bytes.Contains(src, []byte("-- Settings")) {
			t.Errorf("%s.lua: has SETTINGS but its header has no \"-- Settings\" section", p.Name)
		}
		if !bytes.Contains(src, []byte("cannot know")) {
			t.Errorf("%s.lua: the header must say what the pack cannot know", p.Name)
		}
		for _, m := range p.Modules {
			if _, err := hooksd.FS.Open(modulePath(m)); err != nil {
				t.Errorf("%s: module %s: %v", p.Name, m, err)
			}
		}
	}
}

// TestListReadsTheFirstLineAndTheRequires pins the library's reading of a
// pack on a pack made up for the test: its description, its modules (those
// required by the pack, by its test and, in turn, by the modules).
func TestListReadsTheFirstLineAndTheRequires(t *testing.T) {
	packs := fstest.MapFS{
		"demo.lua":      {Data: []byte("-- demo: says hello\n-- more\nlocal a = require(\"a\")\n")},
		"demo_test.lua": {Data: []byte("local c = require 'c'\n")},
	}
	lib := fstest.MapFS{
		"lib/a.lua":   {Data: []byte("return require(\"b.x\")")},
		"lib/b/x.lua": {Data: []byte("return 1")},
		"lib/c.lua":   {Data: []byte("return 2")},
	}
	got, err := list(packs, lib)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "demo" || got[0].Description != "says hello" ||
		strings.Join(got[0].Modules, ",") != "a,b.x,c" {
		t.Fatalf("got %+v", got)
	}
	files, err := got[0].files(packs, lib)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Path+":"+strconv.FormatBool(f.Lib))
	}
	if want := "demo.lua:false demo_test.lua:false lib/a.lua:true lib/b/x.lua:true lib/c.lua:true"; strings.Join(names, " ") != want {
		t.Fatalf("files %v, want %s", names, want)
	}
}

// TestABrokenPackIsNamed checks that a pack breaking the layout is an
// error naming its file.
func TestABrokenPackIsNamed(t *testing.T) {
	lib := fstest.MapFS{}
	for name, fs := range map[string]fstest.MapFS{
		"packs/bad.lua:1": {"bad.lua": {Data: []byte("-- no description\n")}, "bad_test.lua": {}},
		"no test file":    {"bad.lua": {Data: []byte("-- bad: x\n")}},
		"not a shipped":   {"bad.lua": {Data: []byte("-- bad: x\nrequire('nope')\n")}, "bad_test.lua": {}},
	} {
		_, err := list(fs, lib)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "bad") {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestSuggestFindsANearName(t *testing.T) {
	for in, want := range map[string]string{"shel": "shell", "gti": "git", "sh": "shell", "zzzzzz": ""} {
		if got := Suggest(in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
