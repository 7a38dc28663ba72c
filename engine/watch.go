package engine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watch starts the fsnotify watcher on the hooks folder (the folder, not its
// files: editors save by rename), its lib folder, and the config file's
// folder. Bursts of events are debounced into one reload. The returned
// function stops the watcher and waits for its goroutine.
func (e *Engine) watch() (stop func(), err error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	dir := filepath.Clean(e.dir)
	lib := filepath.Join(dir, "lib")
	cfgPath := ""
	if e.opts.ConfigPath != "" {
		cfgPath = filepath.Clean(e.opts.ConfigPath)
	}
	watchTree := func(root string) {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				w.Add(p)
			}
			return nil
		})
	}
	if err := w.Add(dir); err != nil && !os.IsNotExist(err) {
		w.Close()
		return nil, err
	}
	watchTree(lib)
	if cfgPath != "" {
		if err := w.Add(filepath.Dir(cfgPath)); err != nil {
			w.Close()
			return nil, err
		}
	}
	debounce := e.opts.Debounce
	if debounce <= 0 {
		debounce = 50 * time.Millisecond
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		pending := change{libs: map[string]bool{}}
		for {
			select {
			case <-done:
				timer.Stop()
				return
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				e.logger.Warn("watcher error; rescanning", "err", err)
				pending.lua, pending.config = true, cfgPath != ""
				timer.Reset(debounce)
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				p := filepath.Clean(ev.Name)
				switch {
				case p == cfgPath:
					pending.config = true
				case filepath.Dir(p) == dir && isHookFile(filepath.Base(p)):
					pending.lua = true
				case p == lib || isUnder(lib, p):
					if ev.Has(fsnotify.Create) {
						if st, err := os.Stat(p); err == nil && st.IsDir() {
							watchTree(p)
						}
					}
					if m := libModule(lib, p); m != "" {
						pending.libs[m] = true
					}
				default:
					continue
				}
				timer.Reset(debounce)
			case <-timer.C:
				if !pending.empty() {
					e.apply(context.Background(), pending, false)
				}
				pending = change{libs: map[string]bool{}}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			w.Close()
			wg.Wait()
		})
	}, nil
}

func isUnder(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && !filepath.IsAbs(rel) && rel != ".." && !startsWithDotDot(rel)
}

func startsWithDotDot(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}
