package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
)

// luaFile is one loaded hooks.d file: the unit that is loaded, reloaded and
// dropped whole. Its base name is the owner of its registry entries, so its
// hooks sort by file name and keep their place across reloads.
type luaFile struct {
	name     string
	hash     [32]byte
	file     *luabind.File
	requires []string
}

// isHookFile reports whether a folder entry is a hook file: a top-level
// *.lua that is not a *_test.lua.
func isHookFile(name string) bool {
	return strings.HasSuffix(name, ".lua") && !strings.HasSuffix(name, "_test.lua") && !strings.HasPrefix(name, ".")
}

// hookFiles lists the hook files of dir in file-name order.
func hookFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range ents {
		if d.Type().IsRegular() && isHookFile(d.Name()) {
			names = append(names, d.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func (e *Engine) luaOptions() luabind.Options {
	cfg := e.cfg
	return luabind.Options{
		LibDir:         filepath.Join(e.dir, "lib"),
		AllowLibs:      cfg.Lua.AllowLibs,
		MaxStringBytes: cfg.Lua.MaxStringBytes,
		AllowEnv:       cfg.Lua.AllowEnv,
		LookupEnv:      e.opts.LookupEnv,
		Logger:         e.logger,
		Store:          e.store,
		LoadTimeout:    time.Duration(cfg.Lua.LoadTimeoutMs) * time.Millisecond,
	}
}

// loadAllLua loads every hook file, as at Open.
func (e *Engine) loadAllLua(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.syncLua(ctx, nil, true)
}

// syncLua brings the registry in line with the folder: new and changed files
// (by content) are loaded, files named in force are reloaded whatever their
// content, and vanished files are dropped. It returns what it did, for the
// reload log line. e.mu is held.
func (e *Engine) syncLua(ctx context.Context, force map[string]bool, all bool) []string {
	var did []string
	names, err := hookFiles(e.dir)
	if err != nil {
		if !os.IsNotExist(err) {
			e.errs[e.dir] = fmt.Errorf("hooks folder %s: %w", e.dir, err)
		}
		names = nil
	} else {
		delete(e.errs, e.dir)
	}
	present := map[string]bool{}
	for _, name := range names {
		present[name] = true
		path := filepath.Join(e.dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			if os.IsNotExist(err) { // removed between the listing and the read
				delete(present, name)
				continue
			}
			e.errs[name] = fmt.Errorf("%s: %w", path, err)
			continue
		}
		hash := sha256.Sum256(src)
		old := e.files[name]
		if !all && !force[name] {
			if old != nil && old.hash == hash {
				continue
			}
			if fh, ok := e.failedHash[name]; ok && fh == hash {
				continue // the same broken content again
			}
		}
		if err := e.loadLua(ctx, name, path, src, hash); err != nil {
			e.errs[name] = err
			e.failedHash[name] = hash
			e.logger.Error("hook file not loaded; the previous version stays live", "file", path, "err", err)
			did = append(did, name+" (failed)")
			continue
		}
		delete(e.errs, name)
		delete(e.failedHash, name)
		did = append(did, name)
	}
	for name, f := range e.files {
		if !present[name] {
			e.reg.DrainByOwner(name)
			f.file.Close()
			delete(e.files, name)
			did = append(did, name+" (removed)")
		}
	}
	for name := range e.errs {
		if strings.HasSuffix(name, ".lua") && !present[name] {
			delete(e.errs, name)
			delete(e.failedHash, name)
		}
	}
	sort.Strings(did)
	return did
}

// loadLua compiles and loads one file and swaps its hooks in atomically. On
// any error nothing changes. e.mu is held.
func (e *Engine) loadLua(ctx context.Context, name, path string, src []byte, hash [32]byte) error {
	chunk, err := luabind.Compile(path, src)
	if err != nil {
		return err
	}
	f, err := luabind.Load(ctx, chunk, e.luaOptions())
	if err != nil {
		return err
	}
	regs := f.Registrations()
	specs := make([]registry.Spec, len(regs))
	for i, r := range regs {
		specs[i] = registry.Spec{
			Event:              r.Event,
			Matcher:            r.Matcher,
			Name:               r.Name,
			Kind:               luahook.KindLua,
			Stage:              r.Stage,
			Timeout:            r.Timeout,
			FailurePolicy:      r.FailurePolicy,
			Policy:             r.Policy,
			Source:             r.Source,
			Background:         r.Background,
			RunWhenToolSkipped: r.RunWhenToolSkipped,
			Hook:               r.Hook,
		}
	}
	if err := e.reg.ReplaceOwner(name, specs); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if old := e.files[name]; old != nil {
		// Calls in flight finish on the old version; its states close as they return.
		old.file.Close()
	}
	requires := slices.Clone(f.Requires())
	for i, m := range requires {
		requires[i] = normModule(m)
	}
	e.files[name] = &luaFile{name: name, hash: hash, file: f, requires: requires}
	return nil
}

// dependants returns the loaded files that required any of the lib modules.
func (e *Engine) dependants(modules map[string]bool) map[string]bool {
	out := map[string]bool{}
	for name, f := range e.files {
		for _, m := range f.requires {
			if modules[m] {
				out[name] = true
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
