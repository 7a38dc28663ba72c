package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/regfile"
)

// ErrClosed is returned by Reload after Close.
var ErrClosed = errors.New("engine: closed")

// change is what a burst of file events touched.
type change struct {
	config bool            // the config file
	lua    bool            // the hooks folder or one of its top-level hook files
	libs   map[string]bool // lib modules written, created, removed or renamed ("util.strings")
	// libRetry: something under lib changed that cannot change a loaded
	// module but may let a failed file load now (a chmod, a new folder).
	libRetry bool
	// rescan: check everything against what is loaded (Reload, or the
	// watcher lost events).
	rescan bool
}

func (c *change) empty() bool {
	return !c.config && !c.lua && len(c.libs) == 0 && !c.libRetry && !c.rescan
}

// merge adds what o touched to c.
func (c *change) merge(o change) {
	c.config = c.config || o.config
	c.lua = c.lua || o.lua
	c.libRetry = c.libRetry || o.libRetry
	c.rescan = c.rescan || o.rescan
	for m := range o.libs {
		if c.libs == nil {
			c.libs = map[string]bool{}
		}
		c.libs[m] = true
	}
}

// Reload re-reads the config file, the hooks folder and the lib modules the
// hook files use, and applies what changed, as the watcher does; files whose
// content did not change are left alone, files in error are retried. It
// returns the load errors then in force (see Err), ErrClosed, or ErrNoFolder
// (an engine made by New). ctx (and
// Close) bound the loading.
func (e *Engine) Reload(ctx context.Context) error {
	if e.dir == "" {
		return ErrNoFolder
	}
	if _, err := e.apply(ctx, change{rescan: true}, false); err != nil {
		return err
	}
	return e.Err()
}

// apply reloads what ch names, publishes the result and logs one Info line
// when anything changed: what, how many hooks, how long it took.
//
// With settle, a file that is empty and was written within the settle period
// is left for later and returned in later: it is most likely being rewritten
// in place (truncated, not written yet), and loading it would drop its hooks
// for a moment. The watcher applies later once the period has passed.
func (e *Engine) apply(ctx context.Context, ch change, settle bool) (later change, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(e.ctx, cancel)()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return later, ErrClosed
	}
	start := time.Now()
	e.settle = settle
	defer func() { later, e.later = e.later, change{} }()
	var what []string
	relua := false
	if (ch.config || ch.rescan) && e.opts.ConfigPath != "" {
		var did string
		did, relua = e.reloadConfig()
		if did != "" {
			what = append(what, did)
		}
	}
	for m := range ch.libs {
		if e.libSettling(filepath.Join(e.libDir(), filepath.FromSlash(moduleFile(m)))) {
			delete(ch.libs, m)
			e.postpone(func(c *change) { c.libs[m] = true })
		}
	}
	force := map[string]bool{}
	if len(ch.libs) > 0 {
		maps.Copy(force, e.dependants(ch.libs))
	}
	if ch.rescan {
		maps.Copy(force, e.staleLibUsers())
	}
	if len(ch.libs) > 0 || ch.libRetry || ch.rescan {
		for _, name := range e.failedFiles() {
			force[name] = true
		}
	}
	if ch.lua || ch.rescan || relua || len(force) > 0 {
		did := e.syncLua(ctx, force, relua)
		if len(did) > 0 {
			for _, m := range slices.Sorted(maps.Keys(ch.libs)) {
				what = append(what, "lib/"+moduleFile(m)+" (changed)")
			}
		}
		what = append(what, did...)
	}
	if len(what) > 0 {
		e.reloads++
		e.logger.Info("luahook: reloaded", "changed", strings.Join(what, ", "), "hooks", e.reg.Len(),
			"errors", len(e.fileErrs)+btoi(e.cfgErr != nil)+btoi(e.dirErr != nil),
			"took", time.Since(start).Round(time.Microsecond).String())
	}
	e.publish()
	return later, nil
}

// settleWindow is how long a freshly emptied file is left alone: zero
// unless apply was asked to let files settle. e.mu is held.
func (e *Engine) settleWindow() time.Duration {
	if !e.settle {
		return 0
	}
	return e.settleFor
}

// readSettled reads f, opened from path with status fi (see regfile), to
// its end: at most limit bytes, more is an error naming the limit. With
// settle > 0, fresh reports that the file is empty and was written less
// than settle ago: most likely truncated by a rewrite in place and not
// written yet. The file's time is read on the open file after its content,
// so that a rewrite between two looks cannot slip through.
func readSettled(f *os.File, fi fs.FileInfo, path string, limit int64, settle time.Duration) (data []byte, fresh bool, err error) {
	if data, err = regfile.ReadAll(f, fi, path, limit); err != nil {
		return nil, false, err
	}
	if len(data) == 0 && settle > 0 {
		if st, err := f.Stat(); err == nil {
			age := time.Since(st.ModTime())
			fresh = age < settle && age > -settle // a far-future time does not stall it
		}
	}
	return data, fresh, nil
}

// libSettling reports whether the lib module file at path is empty and was
// written within the settle window. It is a look before the dependants
// reload (luabind reads the module itself), so a rewrite that starts right
// after it can still show for a moment; the rewrite's own event then reloads
// the dependants again. e.mu is held.
func (e *Engine) libSettling(path string) bool {
	settle := e.settleWindow()
	if settle == 0 {
		return false
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() != 0 {
		return false
	}
	age := time.Since(st.ModTime())
	return age < settle && age > -settle
}

// postpone records in e.later what the watcher must apply again once the
// settle period has passed. e.mu is held.
func (e *Engine) postpone(mark func(*change)) {
	if e.later.libs == nil {
		e.later.libs = map[string]bool{}
	}
	mark(&e.later)
}

// reloadConfig reads the config file and puts it in force when it changed.
// It reports what it did for the reload line ("" for nothing) and whether
// the [lua] section changed, which reloads every hook file. A file that does
// not load, or is gone, keeps the last good configuration in force. e.mu is
// held.
func (e *Engine) reloadConfig() (did string, luaChanged bool) {
	path := e.opts.ConfigPath
	name := filepath.Base(path)
	data, sum, fresh, err := readConfigData(path, e.settleWindow(), e.gate != nil)
	if fresh {
		e.postpone(func(c *change) { c.config = true })
		return "", false
	}
	if err == nil && sum == e.cfgSum {
		// The content in force: a chmod, a touch, or a broken edit undone
		// (not the partial config Open started from: its problems stand).
		if e.cfgErr != nil && !e.cfgNoGood {
			e.cfgErr = nil
			return name + " (restored)", false
		}
		return "", false
	}
	// The text read is checked, then parsed: never the file again.
	var cfg *config.Config
	if err == nil {
		err = e.gate.check(path, sum)
	}
	if err == nil {
		cfg, err = config.Parse(path, data)
	}
	if err == nil {
		prev := e.cfg
		if err = e.applyConfig(cfg, sum, false); err == nil {
			e.cfgSum, e.cfgErr, e.cfgNoGood = sum, nil, false
			luaChanged = !reflect.DeepEqual(prev.Lua, cfg.Lua) || !reflect.DeepEqual(prev.Packs, cfg.Packs) // [packs.NAME]: hook.settings
			if r, p := cfg.Runner, prev.Runner; r.MaxContextBytes != p.MaxContextBytes || r.BackgroundWorkers != p.BackgroundWorkers || r.BackgroundQueue != p.BackgroundQueue {
				e.logger.Warn("[runner] max_context_bytes, background_workers and background_queue take effect when the engine is restarted",
					"file", path)
			}
			if !reflect.DeepEqual(cfg.Telemetry, prev.Telemetry) {
				e.logger.Warn("[telemetry] changed; it takes effect when luahook is restarted (the tracing in force is kept)",
					"file", path)
			}
			if e.opts.Dir == "" && filepath.Clean(cfg.HooksDir) != filepath.Clean(prev.HooksDir) {
				e.logger.Warn("hooks_dir changed; the engine keeps loading the folder it opened until it is restarted",
					"file", path, "hooks_dir", cfg.HooksDir, "loading", e.dir)
			}
			switch {
			case !cfg.HooksEqual(prev):
				did = name + " (configured hooks rebuilt)"
			default:
				did = name + " (settings; configured hooks unchanged)"
			}
			if luaChanged {
				did += ", [lua], [packs] or max_input_bytes changed: every hook file reloads"
			}
			return did, luaChanged
		}
	}
	state, msg := "failed", "config not reloaded; the last good configuration stays in force"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		state = "removed"
		err = fmt.Errorf("config file %s was removed; the last good configuration stays in force: %w", path, err)
	case untrusted(err):
		state, msg = "not trusted", "config not trusted; the last trusted configuration stays in force"
	}
	if e.cfgErr != nil && e.cfgErr.Error() == err.Error() {
		return "", false // the same problem, already reported
	}
	e.cfgErr = err
	e.logger.Error(msg, "file", path, "err", err)
	return name + " (" + state + ")", false
}

// libModule returns the module name of a Lua file under lib ("a.b" for
// lib/a/b.lua), or "" for anything else (a folder, an editor's temp file).
func libModule(libDir, path string) string {
	rel, err := filepath.Rel(libDir, path)
	if err != nil || !filepath.IsLocal(rel) || !strings.HasSuffix(rel, ".lua") {
		return ""
	}
	segs := strings.Split(filepath.ToSlash(strings.TrimSuffix(rel, ".lua")), "/")
	for _, s := range segs {
		if s == "" || strings.HasPrefix(s, ".") || strings.Contains(s, ".") {
			return ""
		}
	}
	return strings.Join(segs, ".")
}

// moduleFile returns the file of a module relative to lib ("a/b.lua" for
// "a.b"), as require resolves it.
func moduleFile(m string) string { return strings.ReplaceAll(m, ".", "/") + ".lua" }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
