package engine

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/luahook/luahook/config"
)

// change is what a burst of file events touched.
type change struct {
	config bool            // the config file
	lua    bool            // a top-level hook file
	libs   map[string]bool // lib modules, as "a/b" for lib/a/b.lua
}

func (c *change) empty() bool { return !c.config && !c.lua && len(c.libs) == 0 }

// Reload re-reads the config file and the hooks folder and applies what
// changed, as the watcher does. It returns the load errors now in force.
func (e *Engine) Reload() error {
	e.apply(context.Background(), change{config: true, lua: true}, true)
	return e.Err()
}

// apply reloads what ch names and logs one line: what changed, how many hooks,
// how long it took. With rescan every hook file is compared with what is
// loaded, whatever ch says.
func (e *Engine) apply(ctx context.Context, ch change, rescan bool) {
	start := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	var what []string
	reloadAll := false
	if ch.config && e.opts.ConfigPath != "" {
		cfg, err := config.Load(e.opts.ConfigPath)
		if err == nil {
			prev := e.cfg
			hooksSame := prev != nil && cfg.HooksEqual(prev)
			if err = e.applyConfig(cfg, false); err == nil {
				delete(e.errs, e.opts.ConfigPath)
				if !hooksSame {
					what = append(what, filepath.Base(e.opts.ConfigPath)+" (hooks)")
				} else {
					what = append(what, filepath.Base(e.opts.ConfigPath)+" (no hook change)")
				}
				reloadAll = prev != nil && !reflect.DeepEqual(prev.Lua, cfg.Lua)
			}
		}
		if err != nil {
			e.errs[e.opts.ConfigPath] = err
			e.logger.Error("config not reloaded; the previous version stays in force", "file", e.opts.ConfigPath, "err", err)
			what = append(what, filepath.Base(e.opts.ConfigPath)+" (failed)")
		}
	}
	var force map[string]bool
	if len(ch.libs) > 0 {
		force = e.dependants(ch.libs)
	}
	if ch.lua || rescan || reloadAll || len(force) > 0 {
		what = append(what, e.syncLua(ctx, force, reloadAll)...)
	}
	if len(what) == 0 {
		return
	}
	e.reloads++
	e.logger.Info("reload", "changed", strings.Join(what, ", "), "hooks", e.reg.Len(),
		"errors", len(e.errs), "took", time.Since(start).Round(time.Microsecond).String())
}

// libModule returns the module name of a file under lib ("a/b" for
// lib/a/b.lua), or "".
func libModule(libDir, path string) string {
	rel, err := filepath.Rel(libDir, path)
	if err != nil || strings.HasPrefix(rel, "..") || !strings.HasSuffix(rel, ".lua") {
		return ""
	}
	return filepath.ToSlash(strings.TrimSuffix(rel, ".lua"))
}

// normModule writes a required module name the way libModule does.
func normModule(name string) string {
	return strings.ReplaceAll(strings.TrimSuffix(name, ".lua"), ".", "/")
}
