package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
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

// TestDecideUnderOnLoadErrorFailFiresNothing: with on_load_error = "fail"
// and a file that never loaded, Decide returns ErrNotDecided without
// calling any hook; under the default it calls them and denies, naming the
// file.
func TestDecideUnderOnLoadErrorFailFiresNothing(t *testing.T) {
	for _, mode := range []string{"fail", "deny"} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "luahook.toml"), "[runner]\non_load_error = \""+mode+"\"\n")
			writeFile(t, filepath.Join(root, "hooks.d", "20-broken.lua"), "hook.register(\n")
			e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), ConfigPath: filepath.Join(root, "luahook.toml"), NoWatch: true})
			var calls atomic.Int32
			if _, err := e.Registry().Register(luahook.Spec{Event: luahook.PreToolUse, Name: "counter",
				Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) {
					calls.Add(1)
					return nil, nil
				})}); err != nil {
				t.Fatal(err)
			}
			res, err := e.Decide(context.Background(), bashInput(root))
			switch mode {
			case "fail":
				if !errors.Is(err, ErrNotDecided) || calls.Load() != 0 {
					t.Errorf("err %v, %d hook calls; want ErrNotDecided and none", err, calls.Load())
				}
			default:
				if err != nil || !res.Denied() || !strings.Contains(res.Reason, "20-broken.lua") || calls.Load() != 1 {
					t.Errorf("err %v, result %+v, %d hook calls; want a denial naming the file after one call", err, res, calls.Load())
				}
			}
		})
	}
}
