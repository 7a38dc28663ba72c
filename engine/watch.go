package engine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher turns fsnotify events about the hooks folder, its lib folder and
// the config file into debounced reloads.
type watcher struct {
	e        *Engine
	w        *fsnotify.Watcher
	dir      string   // absolute, clean
	lib      string   // dir/lib
	cfg      string   // absolute config path, or ""
	trust    []string // absolute paths of the files Options.Trust reads (TrustWatcher)
	debounce time.Duration
}

// watch starts watching. It watches folders, never single files (editors
// save by writing a temporary file and renaming it over the old one, which
// would end a watch on the file): the hooks folder, every folder under its
// lib folder, the folder above the hooks folder (so that a hooks folder
// created, removed or renamed after Open is seen), and the config file's
// folder, and the folders of the files Options.Trust reads its decisions
// from (TrustWatcher), when they exist. The returned function stops the
// watcher and waits for its goroutine.
func (e *Engine) watch() (stop func(), err error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{e: e, w: fw, dir: abs(e.dir), debounce: e.opts.Debounce}
	w.lib = filepath.Join(w.dir, "lib")
	if w.debounce <= 0 {
		w.debounce = DefaultDebounce
	}
	if e.opts.ConfigPath != "" {
		w.cfg = abs(e.opts.ConfigPath)
	}
	for _, p := range []string{filepath.Dir(w.dir), w.dir} {
		if err := fw.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fw.Close()
			return nil, err
		}
	}
	w.addTree(w.lib)
	if w.cfg != "" {
		if err := fw.Add(filepath.Dir(w.cfg)); err != nil {
			fw.Close()
			return nil, err
		}
	}
	if tw, ok := e.opts.Trust.(TrustWatcher); ok {
		for _, f := range tw.TrustFiles() {
			p := abs(f)
			if err := fw.Add(filepath.Dir(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fw.Close()
				return nil, err
			}
			w.trust = append(w.trust, p)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { w.loop(done) })
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			fw.Close()
			wg.Wait()
		})
	}, nil
}

// loop collects events into one pending change and applies it once no event
// has come for the debounce period, or at the latest ten periods after the
// first event of the burst.
func (w *watcher) loop(done <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var pending change
	var first time.Time
	armed := false
	arm := func() {
		now := time.Now()
		if !armed {
			first, armed = now, true
		}
		d := w.debounce
		if left := first.Add(10 * w.debounce).Sub(now); left < d {
			d = max(left, 0)
		}
		timer.Reset(d)
	}
	var later change // left by apply until written files settle
	for {
		select {
		case <-done:
			return
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			// Typically an overflow of the kernel's queue: events were lost.
			w.e.logger.Warn("file watcher error; rescanning everything", "err", err)
			pending.rescan = true
			arm()
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if w.classify(ev, &pending) {
				arm()
			}
		case <-timer.C:
			armed = false
			ch := pending
			pending = change{}
			ch.merge(later)
			later = change{}
			if ch.empty() {
				continue
			}
			// The only error is ErrClosed, and Close is stopping the loop.
			later, _ = w.e.apply(w.e.ctx, ch, true)
			if !later.empty() {
				timer.Reset(w.e.settleFor)
			}
		}
	}
}

// classify records in c what ev touched and reports whether it matters.
func (w *watcher) classify(ev fsnotify.Event, c *change) bool {
	p := filepath.Clean(ev.Name)
	switch {
	case p == w.cfg:
		c.config = true
	case slices.Contains(w.trust, p):
		// What is trusted changed: what awaits trust may load now.
		c.rescan = true
	case p == w.dir:
		// The hooks folder itself appeared, went away or was renamed.
		if ev.Has(fsnotify.Create) {
			w.addTree(w.dir)
		}
		c.rescan = true
	case filepath.Dir(p) == w.dir:
		base := filepath.Base(p)
		switch {
		case base == "lib":
			if ev.Has(fsnotify.Create) {
				w.addTree(w.lib)
			}
			c.rescan = true
		case IsHookFile(base):
			c.lua = true
		default:
			return false // editors' temp files, other files and folders
		}
	case isUnder(w.lib, p):
		if m := libModule(w.lib, p); m != "" {
			if ev.Op == fsnotify.Chmod {
				c.libRetry = true // the content is the same, but it may be readable now
			} else {
				if c.libs == nil {
					c.libs = map[string]bool{}
				}
				c.libs[m] = true
			}
			return true
		}
		base := filepath.Base(p)
		if strings.HasPrefix(base, ".") || filepath.Ext(base) != "" || strings.HasSuffix(base, "~") {
			return false // editors' temp and swap files
		}
		// A folder of modules appeared, went away or was renamed.
		if ev.Has(fsnotify.Create) {
			w.addTree(p)
		}
		c.rescan = true
	default:
		return false
	}
	return true
}

// addTree watches root and every folder under it; a root that does not
// exist is no error (it is watched when it appears).
func (w *watcher) addTree(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			w.w.Add(p)
		}
		return nil
	})
}

func isUnder(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
