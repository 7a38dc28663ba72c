package trust

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/luahook/luahook/engine"
)

// DefaultWatchDebounce is how long Watch waits after the last change it
// saw before it reads the folder: an editor's save (a temporary file
// written, then renamed over the old one) is one change, read once
// written.
const DefaultWatchDebounce = 200 * time.Millisecond

// The ways Retrust changes the trust of a file (Change.Op).
const (
	ChangeAdded   = "added"   // a new file, trusted with its content
	ChangeChanged = "changed" // a file whose content is now the content trusted
	ChangeRemoved = "removed" // a file gone (or no longer a regular file): its trust is dropped
)

// Change is one file whose trust Retrust changed.
type Change struct {
	Name string // as engine.Trust names it: relative to the folder ("hooks.d/10-x.lua")
	Op   string // ChangeAdded, ChangeChanged or ChangeRemoved
	Sum  string // the SHA-256 (hex) of the content trusted now; "" for ChangeRemoved
}

// Retrust returns r updated for what changed on disk between before and
// after, two readings of r's folder (Content): each file whose content in
// after differs from before, or that before did not hold, is trusted with
// its content in after; each file before held that after does not (gone,
// or no longer a regular file) is dropped. A file the same in both keeps
// the trust it had, or its lack of one: content that was there before is
// never trusted by Retrust. When the record then trusts every file of
// after, it trusts after's content as a whole too (Record.Matches). The
// changes are in name order; with none, r is returned as it is.
func Retrust(r Record, before, after *engine.Content, now time.Time) (Record, []Change) {
	var changes []Change
	sums := maps.Clone(r.FileSums)
	if sums == nil {
		sums = map[string]string{}
	}
	for _, name := range slices.Sorted(maps.Keys(after.Sums)) {
		sum := after.Sums[name]
		old, had := before.Sums[name]
		if had && old == sum {
			continue
		}
		op := ChangeChanged
		if !had {
			op = ChangeAdded
		}
		h := hex.EncodeToString(sum[:])
		sums[name] = h
		changes = append(changes, Change{Name: name, Op: op, Sum: h})
	}
	for _, name := range slices.Sorted(maps.Keys(before.Sums)) {
		if _, ok := after.Sums[name]; !ok {
			delete(sums, name)
			changes = append(changes, Change{Name: name, Op: ChangeRemoved})
		}
	}
	if len(changes) == 0 {
		return r, nil
	}
	slices.SortStableFunc(changes, func(a, b Change) int { return strings.Compare(a.Name, b.Name) })
	r.FileSums = sums
	r.Trusted = now.UTC().Truncate(time.Second)
	if whole := NewRecord(r.Path, after); maps.Equal(whole.FileSums, sums) {
		r.Sum, r.Config, r.Dir, r.Files = whole.Sum, whole.Config, whole.Dir, whole.Files
	}
	return r, changes
}

// Untrusted returns the names of the regular files of c whose content r
// does not trust (engine.Trust's names), in name order.
func (r *Record) Untrusted(c *engine.Content) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.Sums)) {
		sum := c.Sums[name]
		if r == nil || r.FileSums[name] != hex.EncodeToString(sum[:]) {
			out = append(out, name)
		}
	}
	return out
}

// WatchOptions are the callbacks and timing of Watch.
type WatchOptions struct {
	// Debounce is how long no change must be seen before the folder is
	// read; 0 means DefaultWatchDebounce. Changes that never pause are
	// read ten periods after the first.
	Debounce time.Duration
	// Started is called once the folder is watched, with its content then
	// and the files of it the record does not trust (which stay
	// untrusted until saved again, or trusted with luahook trust).
	Started func(c *engine.Content, untrusted []string)
	// Trusted is called after each record written, with its changes.
	Trusted func(at time.Time, changes []Change)
	// Problem is called when the folder could not be read or the record
	// written; Watch goes on, and reads the folder again at its next
	// change.
	Problem func(err error)
}

// Watch keeps the trust record of folder (absolute, links resolved) in
// step with every change saved in it until ctx ends (then it returns nil):
// it watches the folder's config and hooks folder (its lib folder and the
// folders below, the hooks_dir the config names) and, once changes settle
// (WatchOptions.Debounce), reads the folder and trusts exactly what
// changed since its last reading (Retrust), as it is on disk then. What
// the folder held when Watch started is its first reading: a file the
// record did not trust then stays untrusted until it changes.
//
// The folder must be trusted already (luahook trust): Watch refuses a
// folder with no record, or with a record from before per-file sums whose
// folder changed since. Watch reads the record again before each change
// it writes (a luahook trust run meanwhile is kept) and ends with an
// error when the record was removed (luahook untrust).
func (s *Store) Watch(ctx context.Context, folder string, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultWatchDebounce
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching %s: %w", folder, err)
	}
	defer fw.Close()
	w := &folderWatch{fw: fw, folder: folder}
	// Watch before the first reading: a change made after it is seen.
	first, err := Content(folder)
	if err != nil {
		return fmt.Errorf("%s: %w", folder, err)
	}
	if err := w.add(first); err != nil {
		return err
	}
	prev, err := Content(folder)
	if err != nil {
		return fmt.Errorf("%s: %w", folder, err)
	}
	if err := w.add(prev); err != nil {
		return err
	}
	rec, err := s.Get(folder)
	if err != nil {
		return err
	}
	switch {
	case rec == nil:
		return fmt.Errorf("%s is not trusted: --watch keeps a trusted folder trusted as you edit it; "+
			"review its hooks and config, run luahook trust %s, then luahook trust --watch", folder, shellQuote(folder))
	case rec.FileSums == nil && !rec.Matches(prev):
		return fmt.Errorf("%s changed since you trusted it on %s: review it, run luahook trust %s, then luahook trust --watch",
			folder, rec.Trusted.Format("2006-01-02 15:04 MST"), shellQuote(folder))
	case rec.FileSums == nil:
		// A record from before per-file sums, of this very content.
		upgraded := NewRecord(folder, prev)
		upgraded.Trusted = rec.Trusted
		if err := s.Put(upgraded); err != nil {
			return err
		}
		rec = &upgraded
	}
	if opts.Started != nil {
		opts.Started(prev, rec.Untrusted(prev))
	}
	return w.loop(ctx, opts, func() {
		cur, err := Content(folder)
		if err == nil {
			err = w.add(cur)
		}
		if err != nil {
			report(opts.Problem, fmt.Errorf("%s: not read (read again at its next change): %w", folder, err))
			return
		}
		rec, err := s.Get(folder)
		switch {
		case err != nil:
			report(opts.Problem, err)
			return
		case rec == nil:
			w.gone = true
			return
		}
		now := time.Now()
		next, changes := Retrust(*rec, prev, cur, now)
		if len(changes) == 0 {
			prev = cur
			return
		}
		if err := s.Put(next); err != nil {
			report(opts.Problem, fmt.Errorf("nothing trusted: %w", err))
			return // prev stays: the next change tries again
		}
		prev = cur
		if opts.Trusted != nil {
			opts.Trusted(now, changes)
		}
	})
}

func report(f func(error), err error) {
	if f != nil {
		f(err)
	}
}

// folderWatch holds the watches of one folder.
type folderWatch struct {
	fw     *fsnotify.Watcher
	folder string
	gone   bool // the record was removed
}

// add watches what c was read from: the folder (its config, a hooks
// folder created or renamed), the hooks folder, the folder above it, and
// every folder below it (lib and its module folders). Watching folders,
// never files, sees an editor's rename over a file. A folder already
// watched is watched once; one that does not exist is watched when it
// appears (its parent's event reads the folder again, which adds it).
func (w *folderWatch) add(c *engine.Content) error {
	for _, p := range []string{w.folder, filepath.Dir(c.Dir)} {
		if err := w.fw.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watching %s: %w", p, err)
		}
	}
	var werr error
	filepath.WalkDir(c.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if err := w.fw.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) && werr == nil {
			werr = fmt.Errorf("watching %s: %w", p, err)
		}
		return nil
	})
	// Folders of modules reached through links (ReadContent follows them).
	for _, f := range c.Files {
		dir := filepath.Dir(filepath.Join(c.Dir, f))
		if err := w.fw.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) && werr == nil {
			werr = fmt.Errorf("watching %s: %w", dir, err)
		}
	}
	return werr
}

// loop calls round once changes settle: no event for opts.Debounce, or ten
// periods after the first event of a burst; until ctx ends, or the record
// is gone.
func (w *folderWatch) loop(ctx context.Context, opts WatchOptions, round func()) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var first time.Time
	armed := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.fw.Errors:
			if !ok {
				return nil
			}
			// Typically an overflow of the kernel's queue: events were lost,
			// and the folder is read again whole anyway.
			report(opts.Problem, fmt.Errorf("watching %s: %w (reading it again)", w.folder, err))
		case _, ok := <-w.fw.Events:
			if !ok {
				return nil
			}
		case <-timer.C:
			armed = false
			round()
			if w.gone {
				return fmt.Errorf("%s: its trust record was removed (luahook untrust): stopped watching", w.folder)
			}
			continue
		}
		now := time.Now()
		if !armed {
			first, armed = now, true
		}
		timer.Reset(max(min(opts.Debounce, first.Add(10*opts.Debounce).Sub(now)), 0))
	}
}
