package engine

import (
	"path/filepath"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/selfguard"
)

// Protected is a path the engine's self-protection keeps the agent from
// changing (Options.Protect).
type Protected struct {
	// Path is absolute: that file or folder and everything below it. A
	// relative path (".claude/settings.json") is protected below every
	// folder: any path whose components hold it.
	Path string
	// What names it in the denial: "luahook's trust records", "claude's
	// settings", ... Empty: "a path luahook protects".
	What string
}

// The names the denials give the engine's own files.
const (
	protectedDir    = "luahook's policy folder"
	protectedConfig = "luahook's config file"
)

// newSelfGuard returns the guard of an engine opened on a hooks folder:
// the folder (its lib folder included), the config file and
// Options.Protect; nil with Options.NoSelfProtect. An engine made by New
// has no folder and no guard.
//
// The guard runs in the runner (runner.Options.Guard), before any hook:
// Decide, DecidePayload, Answer and a host's own Runner().Fire, FireInto,
// PreToolUse and Explain all get its denial, which no hook's allow
// overrides, and a mutate hook's rewrite is judged again.
func (e *Engine) newSelfGuard() *selfguard.Guard {
	if e.opts.NoSelfProtect {
		return nil
	}
	var paths []selfguard.Path
	if e.dir != "" {
		if abs, err := filepath.Abs(e.dir); err == nil {
			paths = append(paths, selfguard.Path{Path: abs, What: protectedDir})
		}
	}
	if e.opts.ConfigPath != "" {
		if abs, err := filepath.Abs(e.opts.ConfigPath); err == nil {
			paths = append(paths, selfguard.Path{Path: abs, What: protectedConfig})
		}
	}
	for _, p := range e.opts.Protect {
		paths = append(paths, selfguard.Path{Path: p.Path, What: p.What})
	}
	return selfguard.New(selfguard.Options{Paths: paths})
}

// selfCheck is the runner's guard (runner.Options.Guard): the engine's
// self-protection, unless the config in force turns it off ([runner]
// self_protect = false).
func (e *Engine) selfCheck(in *luahook.Input) (bool, string) {
	if e.guard == nil {
		return false, ""
	}
	if v := e.view.Load(); v != nil && v.cfg != nil && !v.cfg.Runner.SelfProtect {
		return false, ""
	}
	return e.guard.Check(in)
}
