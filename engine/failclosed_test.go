package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailClosedNamesWhatHasNoVersionInForce: a hook file that never loaded
// is a fail-closed problem at start and after a reload; once it loads, it
// is not; when it breaks again, its last good version stays live and it is
// an error (Errors) but not a fail-closed problem.
func TestFailClosedNamesWhatHasNoVersionInForce(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-good.lua":   denyFile("good"),
		"20-broken.lua": "hook.register(\n",
	})
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	closed := e.FailClosed()
	if len(closed) != 1 || !strings.Contains(closed[0].Error(), "20-broken.lua") {
		t.Fatalf("at start: FailClosed %v, want the broken file", closed)
	}
	// Fixed: nothing is fail-closed.
	writeFile(t, filepath.Join(dir, "20-broken.lua"), denyFile("fixed"))
	_ = e.Reload(context.Background()) // reports the load errors, which Errors lists
	if closed := e.FailClosed(); len(closed) != 0 {
		t.Fatalf("after the fix: FailClosed %v, want none", closed)
	}
	// Broken again: the fixed version stays live; an error, not fail-closed.
	writeFile(t, filepath.Join(dir, "20-broken.lua"), "hook.register(\n")
	_ = e.Reload(context.Background()) // reports the load errors, which Errors lists
	if closed, errs := e.FailClosed(), e.Errors(); len(closed) != 0 || len(errs) != 1 {
		t.Fatalf("broken after a good version: FailClosed %v, Errors %v; want no fail-closed problem and one error", closed, errs)
	}
	// A new file that never loads is fail-closed on a reload too.
	writeFile(t, filepath.Join(dir, "30-new.lua"), "error('no')")
	_ = e.Reload(context.Background()) // reports the load errors, which Errors lists
	if closed := e.FailClosed(); len(closed) != 1 || !strings.Contains(closed[0].Error(), "30-new.lua") {
		t.Fatalf("a new broken file: FailClosed %v, want it", closed)
	}
}

// TestFailClosedKeepsAPartialConfigUntilAGoodOneLoads: a config opened
// partially (PartialConfig) is fail-closed until a good version of the file
// loads; rewriting the same broken content does not clear it.
func TestFailClosedKeepsAPartialConfigUntilAGoodOneLoads(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, "[runner]\nno_such_key = 1\n")
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), ConfigPath: cfg, PartialConfig: true, NoWatch: true})
	if closed := e.FailClosed(); len(closed) != 1 {
		t.Fatalf("partial config: FailClosed %v, want its problem", closed)
	}
	writeFile(t, cfg, "[runner]\nno_such_key = 1\n") // the same content again
	_ = e.Reload(context.Background())               // reports the load errors, which Errors lists
	if closed := e.FailClosed(); len(closed) != 1 {
		t.Fatalf("the same broken config again: FailClosed %v, want its problem still", closed)
	}
	writeFile(t, cfg, "[runner]\nallow_non_policy = true\n")
	_ = e.Reload(context.Background()) // reports the load errors, which Errors lists
	if closed := e.FailClosed(); len(closed) != 0 {
		t.Fatalf("a good config: FailClosed %v, want none", closed)
	}
}
