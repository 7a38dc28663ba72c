//go:build unix

package security

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/fifotest"
	"github.com/luahook/luahook/luabind"
)

// TestANamedPipeWhereAFileIsExpectedIsRefusedAtOnce: a named pipe (or a
// device, or a folder) where luahook reads a file (a hook file, a lib
// module required at load or during a call, the config file, a schema file)
// is refused within a second with an error naming the file and what it is,
// when the engine opens and when it reloads: nothing blocks in open(2)
// (where no load timeout applies and a host that proceeds on a hook's
// timeout would let the call through), and a guard that needed the file
// denies (item 1 of the second security review).
func TestANamedPipeWhereAFileIsExpectedIsRefusedAtOnce(t *testing.T) {
	type rig struct {
		dir, config string
		fifo        string // the special file luahook must refuse
		named       string // the path the error names; "": fifo
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, r *rig) // before the engine opens
		swap  func(t *testing.T, r *rig) // after it opened, before a Reload; nil: none
		want  string                     // in the error, after the file's path
		call  bool                       // the error shows when a call requires the module
	}{
		{name: "hook file", setup: func(t *testing.T, r *rig) {
			r.fifo = fifotest.Make(t, filepath.Join(r.dir, "guard.lua"))
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "hook file linked to a pipe in the folder", setup: func(t *testing.T, r *rig) {
			r.fifo = fifotest.Make(t, filepath.Join(r.dir, "pipe"))
			r.named = filepath.Join(r.dir, "guard.lua")
			symlink(t, "pipe", r.named)
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "hook file replaced by a pipe", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.dir, "guard.lua"), denyAll)
		}, swap: func(t *testing.T, r *rig) {
			r.fifo = replaceWithFIFO(t, filepath.Join(r.dir, "guard.lua"))
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "hook file a folder", setup: func(t *testing.T, r *rig) {
			r.fifo = filepath.Join(r.dir, "guard.lua")
			if err := os.Mkdir(r.fifo, 0o755); err != nil {
				t.Fatal(err)
			}
		}, want: "not a regular file: it is a folder"},
		{name: "lib module required at load", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.dir, "guard.lua"), guard("helper", true))
			mkdir(t, filepath.Join(r.dir, "lib"))
			r.fifo = fifotest.Make(t, filepath.Join(r.dir, "lib", "helper.lua"))
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "lib module in a sub-folder required at load", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.dir, "guard.lua"), guard("util.check", true))
			mkdir(t, filepath.Join(r.dir, "lib", "util"))
			r.fifo = fifotest.Make(t, filepath.Join(r.dir, "lib", "util", "check.lua"))
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "lib sub-folder a pipe", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.dir, "guard.lua"), guard("util.check", true))
			mkdir(t, filepath.Join(r.dir, "lib"))
			r.fifo = fifotest.Make(t, filepath.Join(r.dir, "lib", "util"))
		}, want: "not a folder: it is a named pipe (FIFO)"},
		{name: "lib folder a pipe", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.dir, "guard.lua"), guard("helper", true))
			r.fifo = fifotest.Make(t, filepath.Join(r.dir, "lib"))
		}, want: "not a folder: it is a named pipe (FIFO)"},
		{name: "hooks folder a pipe", setup: func(t *testing.T, r *rig) {
			if err := os.Remove(r.dir); err != nil {
				t.Fatal(err)
			}
			r.fifo = fifotest.Make(t, r.dir)
		}, want: "not a folder: it is a named pipe (FIFO)"},
		{name: "lib module required during a call", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.dir, "guard.lua"), guard("helper", false))
			mkdir(t, filepath.Join(r.dir, "lib"))
			r.fifo = fifotest.Make(t, filepath.Join(r.dir, "lib", "helper.lua"))
		}, want: "not a regular file: it is a named pipe (FIFO)", call: true},
		{name: "lib module replaced by a pipe", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(r.dir, "guard.lua"), guard("helper", true))
			writeFile(t, filepath.Join(r.dir, "lib", "helper.lua"), `return { allows = function() return false end }`)
		}, swap: func(t *testing.T, r *rig) {
			r.fifo = replaceWithFIFO(t, filepath.Join(r.dir, "lib", "helper.lua"))
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "config file", setup: func(t *testing.T, r *rig) {
			r.config = fifotest.Make(t, filepath.Join(filepath.Dir(r.dir), "luahook.toml"))
			r.fifo = r.config
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "config file replaced by a pipe", setup: func(t *testing.T, r *rig) {
			r.config = writeConfig(t, r.dir, "")
			writeFile(t, filepath.Join(r.dir, "guard.lua"), denyAll)
		}, swap: func(t *testing.T, r *rig) {
			r.fifo = replaceWithFIFO(t, r.config)
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "schema file", setup: func(t *testing.T, r *rig) {
			r.config = writeConfig(t, r.dir, "[tools.bash]\nschema_file = \"bash.json\"\n")
			r.fifo = fifotest.Make(t, filepath.Join(filepath.Dir(r.dir), "bash.json"))
		}, want: "not a regular file: it is a named pipe (FIFO)"},
		{name: "schema file replaced by a pipe", setup: func(t *testing.T, r *rig) {
			writeFile(t, filepath.Join(filepath.Dir(r.dir), "bash.json"), `{"type": "object"}`)
			writeFile(t, filepath.Join(r.dir, "guard.lua"), denyAll)
			r.config = writeConfig(t, r.dir, "[tools.bash]\nschema_file = \"bash.json\"\n")
		}, swap: func(t *testing.T, r *rig) {
			r.fifo = replaceWithFIFO(t, filepath.Join(filepath.Dir(r.dir), "bash.json"))
			// A new config text, so that the schemas are compiled again.
			writeFile(t, r.config, "[tools.bash]\nschema_file = \"bash.json\"\n# edited\n")
		}, want: "not a regular file: it is a named pipe (FIFO)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &rig{dir: hooksDir(t, nil)}
			tt.setup(t, r)
			opts := engine.Options{Dir: r.dir, ConfigPath: r.config, NoWatch: true}
			var e *engine.Engine
			var err error
			fifos := func() []string { return []string{r.fifo} }
			fifotest.Within(t, time.Second, fifos(), func() { e, err = engine.Open(context.Background(), opts) })
			if e != nil {
				defer e.Close()
			}
			if tt.swap != nil {
				if err != nil {
					t.Fatalf("engine.Open before the swap: %v", err)
				}
				if res := pre(e, "bash", `{}`); !res.Denied() {
					t.Fatalf("before the swap the guard allowed")
				}
				tt.swap(t, r)
				fifotest.Within(t, time.Second, fifos(), func() { err = e.Reload(context.Background()) })
			} else if err == nil && !tt.call {
				err = e.Err()
			}
			if tt.call {
				if err != nil {
					t.Fatalf("engine.Open: %v", err)
				}
				fifotest.Within(t, time.Second, fifos(), func() {
					res := pre(e, "bash", `{}`)
					if !res.Denied() {
						t.Errorf("the fail-closed guard allowed")
					}
					err = errors.New(failures(res))
				})
			}
			if r.named == "" {
				r.named = r.fifo
			}
			want := r.named + ": " + tt.want
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v\nwant one naming %q", err, want)
			}
			if e != nil && tt.swap != nil && !strings.HasPrefix(tt.name, "config") && !strings.HasPrefix(tt.name, "schema") {
				if res := pre(e, "bash", `{}`); !res.Denied() {
					t.Errorf("after the swap the guard no longer denies (its previous version must stay live)")
				}
			}
		})
	}
}

// TestADeviceWhereAFileIsExpectedIsNotRead: /dev/zero, which never ends,
// reached through a link where a hook file, a lib module, the config or a
// schema is expected, is refused, never read (item 1 of the second
// security review).
func TestADeviceWhereAFileIsExpectedIsNotRead(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	tests := []struct {
		name, link string // link: relative to the hooks folder's parent
		guard      string
		config     string
		want       string
	}{
		{name: "hook file", link: "hooks.d/zero.lua", want: "outside the hooks folder"},
		{name: "lib module", link: "hooks.d/lib/helper.lua", guard: guard("helper", true), want: "lib/helper.lua: path escapes from parent"},
		{name: "config", link: "luahook.toml", config: "luahook.toml", want: "not a regular file: it is a character device"},
		{name: "schema file", link: "bash.json", config: "luahook.toml", want: "not a regular file: it is a character device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hooksDir(t, nil)
			base := filepath.Dir(dir)
			if tt.guard != "" {
				writeFile(t, filepath.Join(dir, "guard.lua"), tt.guard)
			}
			config := ""
			if tt.config != "" && tt.link != "luahook.toml" {
				config = writeConfig(t, dir, "[tools.bash]\nschema_file = \"bash.json\"\n")
			} else if tt.config != "" {
				config = filepath.Join(base, tt.config)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(base, tt.link)), 0o755); err != nil {
				t.Fatal(err)
			}
			symlink(t, "/dev/zero", filepath.Join(base, tt.link))
			var e *engine.Engine
			var err error
			fifotest.Within(t, time.Second, nil, func() {
				e, err = engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: config, NoWatch: true})
			})
			if e != nil {
				defer e.Close()
				err = e.Err()
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v\nwant one saying %q", err, tt.want)
			}
		})
	}
}

// mkdir makes the folder path and its parents, mode 0755.
func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestALibModuleSwappedForADeviceDoesNotStallAReload: a lib module a
// loaded file required, replaced by a link to /dev/zero (or a named pipe),
// is not read forever (nor waited on) when a reload looks for lib edits:
// the reload returns at once, names the module, and the guard's previous
// version stays live (item 1 of the second security review).
func TestALibModuleSwappedForADeviceDoesNotStallAReload(t *testing.T) {
	for _, target := range []string{"/dev/zero", "pipe"} {
		t.Run(target, func(t *testing.T) {
			dir := hooksDir(t, map[string]string{
				"guard.lua":      guard("helper", true),
				"lib/helper.lua": `return { allows = function() return false end }`,
			})
			e := open(t, engine.Options{Dir: dir})
			if res := pre(e, "bash", `{}`); !res.Denied() {
				t.Fatalf("before the swap the guard allowed")
			}
			mod := filepath.Join(dir, "lib", "helper.lua")
			fifo := filepath.Join(dir, "lib", "pipe")
			if target == "pipe" {
				fifotest.Make(t, fifo)
			}
			if err := os.Remove(mod); err != nil {
				t.Fatal(err)
			}
			symlink(t, target, mod)
			var err error
			fifotest.Within(t, time.Second, []string{fifo}, func() { err = e.Reload(context.Background()) })
			if err == nil || !strings.Contains(err.Error(), mod) {
				t.Errorf("Reload: %v\nwant an error naming %s", err, mod)
			}
			if res := pre(e, "bash", `{}`); !res.Denied() {
				t.Errorf("after the swap the guard allowed")
			}
		})
	}
}

// TestLuaSourcesAreHeldToMaxSourceBytes: a hook file or a lib module of
// exactly luabind.DefaultMaxSourceBytes loads; one byte more is refused, naming
// the file and the limit, without being read past it.
func TestLuaSourcesAreHeldToMaxSourceBytes(t *testing.T) {
	pad := func(src string, size int) string {
		src += "\n--"
		return src + strings.Repeat("x", size-len(src))
	}
	lib := `return { allows = function() return false end }`
	for _, size := range []int{luabind.DefaultMaxSourceBytes, luabind.DefaultMaxSourceBytes + 1} {
		for _, which := range []string{"guard.lua", "lib/helper.lua"} {
			files := map[string]string{"guard.lua": guard("helper", true), "lib/helper.lua": lib}
			files[which] = pad(files[which], size)
			dir := hooksDir(t, files)
			e := open(t, engine.Options{Dir: dir})
			err := e.Err()
			path := filepath.Join(dir, filepath.FromSlash(which))
			if size == luabind.DefaultMaxSourceBytes {
				if err != nil {
					t.Errorf("%s of %d bytes: %v", which, size, err)
				}
				continue
			}
			if want := path + ": file is larger than 1 MiB"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s of %d bytes: %v\nwant %q", which, size, err, want)
			}
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// replaceWithFIFO puts a named pipe in path's place and returns path.
func replaceWithFIFO(t *testing.T, path string) string {
	t.Helper()
	tmp := fifotest.Make(t, path+".fifo~")
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}
