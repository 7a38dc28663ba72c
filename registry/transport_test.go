package registry_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook/engine"
)

// TestMatcherTableOnEveryTransport runs the matcher table through real hooks
// loaded by engine.Open: a Lua file, a configured command hook and a
// configured HTTP hook (a loopback server) with the same matcher. A valid
// matcher runs all three exactly for the payloads it selects; an invalid one
// is a load error naming the Lua file and line, and a config error naming
// luahook.toml and the line of the hook.
func TestMatcherTableOnEveryTransport(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	for i, c := range matcherCases {
		t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
			dir := t.TempDir()
			cwd := filepath.Join(dir, "proj")
			write(t, filepath.Join(cwd, "src", "keep"), "")
			lua := fmt.Sprintf("-- matcher case %d\nhook.register(%q, [==[%s]==], function() end, { name = \"lua\" })\n", i, c.ev(), c.matcher)
			write(t, filepath.Join(dir, "hooks.d", "10-case.lua"), lua)
			cfg := fmt.Sprintf("# matcher case %d\n\n[[hooks.%s]]\nname = \"cmd\"\nmatcher = '%s'\ncommand = \"sh -c 'exit 0'\"\n\n"+
				"[[hooks.%s]]\nname = \"http\"\ntype = \"http\"\nmatcher = '%s'\nurl = %q\n", i, c.ev(), c.matcher, c.ev(), c.matcher, srv.URL)
			cfgPath := filepath.Join(dir, "luahook.toml")
			write(t, cfgPath, cfg)

			if c.err != "" {
				_, err := engine.Open(context.Background(), engine.Options{ConfigPath: cfgPath, Dir: filepath.Join(dir, "hooks.d"), NoWatch: true})
				if err == nil || !strings.Contains(err.Error(), cfgPath+":5: hooks."+string(c.ev())+"[0].matcher: ") || !strings.Contains(err.Error(), c.err) ||
					!strings.Contains(err.Error(), cfgPath+":11: hooks."+string(c.ev())+"[1].matcher: ") {
					t.Errorf("%.40q: config error %.300v, want one at %s:5 and :11 with %q", c.matcher, err, cfgPath, c.err)
				}
				eng, err := engine.Open(context.Background(), engine.Options{Dir: filepath.Join(dir, "hooks.d"), NoWatch: true})
				if err != nil {
					t.Fatal(err)
				}
				defer eng.Close()
				errs := eng.Errors()
				pos := filepath.Join(dir, "hooks.d", "10-case.lua") + ":2: hook.register: "
				if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), pos) || !strings.Contains(errs[0].Error(), c.err) {
					t.Errorf("%.40q: Lua load errors %.300v, want one starting %q with %q", c.matcher, errs, pos, c.err)
				}
				if n := eng.Registry().Len(); n != 0 {
					t.Errorf("%q: %d hooks registered", c.matcher, n)
				}
				return
			}

			eng, err := engine.Open(context.Background(), engine.Options{ConfigPath: cfgPath, Dir: filepath.Join(dir, "hooks.d"), NoWatch: true})
			if err != nil {
				t.Fatalf("%q: %v", c.matcher, err)
			}
			defer eng.Close()
			if errs := eng.Errors(); len(errs) > 0 {
				t.Fatalf("%q: %v", c.matcher, errs)
			}
			for _, p := range c.probes {
				before := hits.Load()
				res := eng.Runner().Fire(context.Background(), c.payload(p, cwd))
				ran := map[string]bool{}
				for _, tr := range res.Trace {
					if tr.Failure != nil || tr.Skipped != "" {
						t.Errorf("%q: hook %s did not run cleanly: %+v", c.matcher, tr.Name, tr)
					}
					ran[tr.Name] = true
				}
				for _, name := range []string{"lua", "cmd", "http"} {
					if ran[name] != p.want {
						t.Errorf("%s %q on %s %s caps %v: %s hook ran = %v, want %v", c.ev(), c.matcher, p.key, p.input, p.caps, name, ran[name], p.want)
					}
				}
				if got := hits.Load() - before; (got == 1) != p.want {
					t.Errorf("%q on %s %s: the HTTP endpoint got %d calls", c.matcher, p.key, p.input, got)
				}
			}
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
