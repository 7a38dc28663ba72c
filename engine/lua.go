package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/luabind"
)

// luaFile is one loaded hooks.d file: the unit that is loaded, reloaded and
// dropped whole. Its base name is the owner of its registry entries, so its
// hooks sort by file name and keep their place across reloads.
type luaFile struct {
	name string
	sum  [32]byte // the content it was loaded from
	file *luabind.File
	// libs holds the checksum of each lib module the file required, as read
	// just after it loaded, so that Reload can tell which files a lib edit
	// made while nobody watched concerns.
	libs map[string][32]byte
}

// hookFiles lists the hook files of the folder root holds, in file-name
// order, at the top level only (entryNames).
func hookFiles(root *os.Root) ([]string, error) {
	d, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	return entryNames(ents, IsHookFile), nil
}

// hostModules checks the host's modules once, for every file's states.
func hostModules(mods []host.Module) (*luabind.HostModules, error) {
	if len(mods) == 0 {
		return nil, nil
	}
	hm, err := luabind.NewHostModules(mods)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return hm, nil
}

func (e *Engine) libDir() string { return filepath.Join(e.dir, "lib") }

func (e *Engine) luaOptions() luabind.Options {
	cfg := e.cfg
	opts := luabind.Options{
		AllowLibs:      cfg.Lua.AllowLibs,
		MaxStringBytes: cfg.Lua.MaxStringBytes,
		MaxInputValues: cfg.Lua.MaxInputValues,
		AllowEnv:       cfg.Lua.AllowEnv,
		PackSettings:   cfg.Packs,
		LookupEnv:      e.opts.LookupEnv,
		Logger:         e.logger,
		Store:          e.store,
		Ledger:         e.ledger,
		LoadTimeout:    time.Duration(cfg.Lua.LoadTimeoutMs) * time.Millisecond,
		Coverage:       e.opts.Coverage,
		DiskCache:      e.opts.ChunkCache,
		Host:           e.host,
	}
	if e.dir != "" { // an engine made by New has no lib folder: require is off
		opts.LibDir, opts.CheckLib, opts.VerifyLib = e.libDir(), e.libCheck(), e.libVerify()
	}
	return opts
}

// syncLua brings the registry in line with the folder: new files and files
// whose content changed are loaded, files named in force (or every file, with
// all) are reloaded whatever their content, and files gone from the folder are
// dropped. It returns what it did, for the reload line. e.mu is held.
func (e *Engine) syncLua(ctx context.Context, force map[string]bool, all bool) []string {
	var did []string
	// Every hook file is opened through this root of the folder: neither a
	// link nor ".." leads outside it, whatever is swapped in after the
	// listing.
	root, err := regfile.OpenRoot(e.dir)
	var names []string
	if err == nil {
		defer root.Close()
		names, err = hookFiles(root)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No folder, no Lua hooks: the folder is the truth, as for a file.
		e.dirErr = nil
	case err != nil:
		// Unreadable for now: keep every file as it is rather than drop them.
		err = fmt.Errorf("hooks folder %s: %w (the hooks loaded from it stay live)", e.dir, err)
		if e.dirErr == nil || e.dirErr.Error() != err.Error() {
			e.logger.Error("hooks folder not readable", "dir", e.dir, "err", err)
			did = append(did, e.dir+" (unreadable)")
		}
		e.dirErr = err
		return did
	default:
		e.dirErr = nil
	}
	trust := e.trust()
	if err == nil {
		for _, dir := range []string{e.dir, e.libDir()} {
			check := trust.checkDir
			if dir == e.dir {
				check = func(string) error { return trust.checkRoot(dir, root) }
			}
			if err := check(dir); err != nil {
				// Nothing from a folder others can write is loaded, and what
				// was loaded before stays live, as for an unreadable folder.
				err = fmt.Errorf("hooks folder: %w (the hooks loaded from it stay live)", err)
				if e.dirErr == nil || e.dirErr.Error() != err.Error() {
					e.logger.Error("hooks folder refused", "dir", dir, "err", err)
					did = append(did, dir+" (refused)")
				}
				e.dirErr = err
				return did
			}
		}
	}
	present := make(map[string]bool, len(names))
	libs := &luabind.ChunkCache{} // each lib module compiled once for this pass
	var jobs []*loadJob
	for _, name := range names {
		path := filepath.Join(e.dir, name)
		if e.beforeOpen != nil {
			e.beforeOpen(path)
		}
		var vet func(string, fs.FileInfo) error
		if e.gate != nil {
			vet = notALink
		}
		src, fresh, err := readHookFile(root, name, path, e.settleWindow(), trust, vet)
		if errors.Is(err, fs.ErrNotExist) { // removed since the listing, or a dangling link
			continue
		}
		present[name] = true
		old := e.files[name]
		if fresh {
			e.postpone(func(c *change) { c.lua = true })
			continue
		}
		if err != nil {
			if prev := e.fileErrs[name]; prev == nil || prev.Error() != err.Error() {
				if refused(err) {
					e.logger.Error("hook file refused; "+keeps(old), "file", path, "err", err)
					did = append(did, name+" (refused)")
				} else {
					e.logger.Error("hook file not readable; "+keeps(old), "file", path, "err", err)
					did = append(did, name+" (unreadable)")
				}
			}
			e.fileErrs[name] = err
			continue
		}
		sum := sha256.Sum256(src)
		if !all && !force[name] {
			if old != nil && old.sum == sum {
				if e.fileErrs[name] != nil { // back to the version that is live
					delete(e.fileErrs, name)
					delete(e.failedSum, name)
					did = append(did, name+" (restored)")
				}
				continue
			}
			if bad, ok := e.failedSum[name]; ok && bad == sum {
				continue // the same broken content again
			}
		}
		// The bytes read are checked, then compiled: the file is not read
		// again. The content in force was checked when it loaded.
		if old == nil || old.sum != sum {
			if err := e.gate.check(path, sum); err != nil {
				if prev := e.fileErrs[name]; prev == nil || prev.Error() != err.Error() {
					e.logger.Error("hook file not trusted; "+keeps(old), "file", path, "err", err)
					did = append(did, name+" (not trusted)")
				}
				e.fileErrs[name] = err
				continue
			}
		}
		jobs = append(jobs, &loadJob{name: name, path: path, src: src, sum: sum, old: old})
	}
	// The files to load are compiled and run on all cores (each in states
	// of its own), then swapped in one by one, in name order, as if loaded
	// one after the other.
	e.prepareAll(ctx, jobs, libs)
	for _, j := range jobs {
		name, path, old := j.name, j.path, j.old
		err := j.err
		if err == nil {
			if e.beforeCommit != nil {
				e.beforeCommit(path)
			}
			err = e.commitLua(j, libs)
		}
		if err != nil {
			e.fileErrs[name] = err
			e.failedSum[name] = j.sum
			line := 0
			var le *luabind.LoadError
			if errors.As(err, &le) {
				line = le.Line
			}
			e.logger.Error("hook file not loaded; "+keeps(old), "file", path, "line", line, "err", err)
			did = append(did, name+" (failed)")
			continue
		}
		delete(e.fileErrs, name)
		delete(e.failedSum, name)
		if old == nil {
			did = append(did, name+" (added)")
		} else {
			did = append(did, name+" (reloaded)")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(e.files)) {
		if !present[name] {
			e.reg.DrainByOwner(name)
			e.retire(e.files[name].file)
			delete(e.files, name)
			did = append(did, name+" (removed)")
		}
	}
	for name := range e.fileErrs {
		if !present[name] {
			delete(e.fileErrs, name)
			delete(e.failedSum, name)
		}
	}
	for name := range e.failedSum {
		if !present[name] {
			delete(e.failedSum, name)
		}
	}
	slices.Sort(did)
	return did
}

func keeps(old *luaFile) string {
	if old != nil {
		return "the previous version stays live"
	}
	return "it has no hooks until it loads"
}

// loadJob is one file of a pass to load: what was read, then what loading
// it gave.
type loadJob struct {
	name, path string
	src        []byte
	sum        [32]byte
	old        *luaFile
	file       *luabind.File
	specs      []luahook.Spec
	err        error
}

// prepareAll loads the jobs' files, at most GOMAXPROCS at a time: the
// work of a load (compiling, running the file's top level in its states)
// touches nothing of the engine's. Coverage counts through one set of
// counters, so with it the files load one after the other.
func (e *Engine) prepareAll(ctx context.Context, jobs []*loadJob, libs *luabind.ChunkCache) {
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	if e.opts.Coverage != nil {
		workers = min(1, workers)
	}
	if workers <= 1 {
		for _, j := range jobs {
			e.prepareLua(ctx, j, libs)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				e.prepareLua(ctx, jobs[i], libs)
			}
		})
	}
	wg.Wait()
}

// prepareLua compiles and loads one file into j.file and j.specs, or sets
// j.err. It changes nothing of the engine's; a panic is the file's error.
func (e *Engine) prepareLua(ctx context.Context, j *loadJob, libs *luabind.ChunkCache) {
	defer func() {
		if r := recover(); r != nil {
			j.file, j.specs, j.err = nil, nil, fmt.Errorf("%s: loading panicked: %v", j.path, r)
		}
	}()
	opts := e.luaOptions()
	chunk, err := opts.Compile(j.path, j.src)
	if err != nil {
		j.err = err
		return
	}
	// The lib modules the file requires, now or during calls, are checked
	// by luabind before they are read (Options.CheckLib); those it requires
	// at load are compiled once for every file of the pass (libs).
	opts.Chunks = libs
	f, err := luabind.Load(ctx, chunk, opts)
	if err != nil {
		j.err = err
		return
	}
	specs := luabind.Specs(f.Registrations())
	for i := range specs {
		specs[i].Version = contentVersion(j.sum)
	}
	j.file, j.specs = f, specs
}

// commitLua swaps a loaded file's hooks in atomically, then retires the
// version it replaces. On an error nothing changes. e.mu is held.
func (e *Engine) commitLua(j *loadJob, libs *luabind.ChunkCache) error {
	name, f := j.name, j.file
	if err := e.reg.ReplaceOwner(name, j.specs); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", j.path, err)
	}
	if old := e.files[name]; old != nil {
		e.retire(old.file)
	}
	lf := &luaFile{name: name, sum: j.sum, file: f, libs: map[string][32]byte{}}
	for _, m := range f.Requires() {
		// The sum of what the file's require read in this pass, if it did
		// (a lib edited since is then found stale), else of the file now.
		sum, ok := libs.LibSum(e.libDir(), m)
		if !ok {
			sum = e.libSum(m)
		}
		lf.libs[m] = sum
	}
	e.files[name] = lf
	e.logWarnings(f)
	return nil
}

// libSum returns the checksum of lib module m's file, or of the error that
// reading it gave (so that a module that appears or becomes readable counts as
// a change). It reads the file as require does: through the lib folder's
// root, a regular file only, at most luabind.DefaultMaxSourceBytes.
func (e *Engine) libSum(m string) [32]byte {
	src, err := readLibFile(e.libDir(), moduleFile(m))
	if err != nil {
		return sha256.Sum256([]byte("error: " + err.Error()))
	}
	return sha256.Sum256(src)
}

func readLibFile(libDir, rel string) ([]byte, error) {
	root, err := regfile.OpenRoot(libDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return regfile.ReadIn(root, rel, filepath.Join(libDir, filepath.FromSlash(rel)), luabind.DefaultMaxSourceBytes)
}

// dependants returns the loaded files that required any of the lib modules,
// at load or since, during calls.
func (e *Engine) dependants(modules map[string]bool) map[string]bool {
	out := map[string]bool{}
	for name, f := range e.files {
		for _, m := range f.file.Requires() {
			if modules[m] {
				out[name] = true
			}
		}
	}
	return out
}

// staleLibUsers returns the loaded files for which a lib module they required
// has changed on disk since they loaded. It is how Reload finds lib edits
// that no watcher reported.
func (e *Engine) staleLibUsers() map[string]bool {
	out := map[string]bool{}
	sums := map[string][32]byte{}
	for name, f := range e.files {
		for _, m := range f.file.Requires() {
			cur, ok := sums[m]
			if !ok {
				cur = e.libSum(m)
				sums[m] = cur
			}
			was, ok := f.libs[m]
			if !ok { // first required during a call: take it as it is now
				f.libs[m] = cur
				continue
			}
			if was != cur {
				out[name] = true
			}
		}
	}
	return out
}

// failedFiles returns the hook files that are in error, so that a lib change
// retries them: the module they missed or choked on may be fixed.
func (e *Engine) failedFiles() []string { return slices.Collect(maps.Keys(e.fileErrs)) }

// LuaOptions returns the options the engine builds its Lua states with: the
// lib folder, the granted libraries, the caps, the environment allowlist, the
// logger and the process-wide store. A REPL or test session built with them
// behaves like a hook file and shares the hooks' store.
func (e *Engine) LuaOptions() luabind.Options {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.luaOptions()
}
