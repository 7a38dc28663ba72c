package trust

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/engine"
)

func content(t *testing.T, folder string) *Record {
	t.Helper()
	c, err := Content(folder)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecord(folder, c)
	return &r
}

// Retrust trusts exactly what changed between two readings: a file changed
// or added with its new content, a file removed dropped; a file the same in
// both keeps its lack of trust, and the folder is trusted as a whole only
// once every file is.
func TestRetrustTrustsWhatChangedBetweenReadingsOnly(t *testing.T) {
	folder := t.TempDir()
	hooks := filepath.Join(folder, "hooks.d")
	writeFile(t, filepath.Join(hooks, "10-a.lua"), "-- a\n")
	writeFile(t, filepath.Join(hooks, "20-u.lua"), "-- u\n")
	writeFile(t, filepath.Join(hooks, "30-c.lua"), "-- c\n")
	rec := *content(t, folder)
	writeFile(t, filepath.Join(hooks, "20-u.lua"), "-- u, changed before the watch\n")
	before, _ := Content(folder)
	if got := rec.Untrusted(before); !reflect.DeepEqual(got, []string{"hooks.d/20-u.lua"}) {
		t.Fatalf("Untrusted at start = %q", got)
	}

	writeFile(t, filepath.Join(hooks, "10-a.lua"), "-- a2\n")
	writeFile(t, filepath.Join(hooks, "lib", "m.lua"), "-- m\n")
	os.Remove(filepath.Join(hooks, "30-c.lua"))
	after, _ := Content(folder)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	next, changes := Retrust(rec, before, after, now)
	want := []Change{
		{Name: "hooks.d/10-a.lua", Op: ChangeChanged, Sum: hex.EncodeToString(sumOf("-- a2\n"))},
		{Name: "hooks.d/30-c.lua", Op: ChangeRemoved},
		{Name: "hooks.d/lib/m.lua", Op: ChangeAdded, Sum: hex.EncodeToString(sumOf("-- m\n"))},
	}
	if !reflect.DeepEqual(changes, want) {
		t.Fatalf("changes = %+v\nwant %+v", changes, want)
	}
	if got := next.Untrusted(after); !reflect.DeepEqual(got, []string{"hooks.d/20-u.lua"}) {
		t.Errorf("Untrusted after = %q: the file changed before the watch must stay untrusted", got)
	}
	if _, ok := next.FileSums["hooks.d/30-c.lua"]; ok {
		t.Error("the removed file is still trusted")
	}
	if next.Matches(after) {
		t.Error("the folder is trusted whole while a file of it is not")
	}
	if !next.Trusted.Equal(now) {
		t.Errorf("Trusted = %v, want %v", next.Trusted, now)
	}
	if rec.FileSums["hooks.d/10-a.lua"] == next.FileSums["hooks.d/10-a.lua"] {
		t.Error("Retrust changed the record it was given")
	}

	// Saved again, the last file is trusted, and so is the folder whole.
	writeFile(t, filepath.Join(hooks, "20-u.lua"), "-- u, saved\n")
	last, _ := Content(folder)
	final, changes := Retrust(next, after, last, now)
	if len(changes) != 1 || changes[0].Name != "hooks.d/20-u.lua" || changes[0].Op != ChangeChanged {
		t.Fatalf("changes = %+v", changes)
	}
	if len(final.Untrusted(last)) != 0 || !final.Matches(last) {
		t.Errorf("every file saved: untrusted %q, whole %v", final.Untrusted(last), final.Matches(last))
	}
	// Nothing changed: the record is returned as it was.
	if same, changes := Retrust(final, last, last, now.Add(time.Hour)); changes != nil || !same.Trusted.Equal(final.Trusted) {
		t.Errorf("no change: %+v, %v", changes, same.Trusted)
	}
}

func sumOf(s string) []byte { b := sum(s); return b[:] }

// watchRun runs Watch on folder in the background and returns what it
// reports.
type watchRun struct {
	started chan []string
	trusted chan Change
	done    chan error
	cancel  context.CancelFunc
}

func startWatch(t *testing.T, s *Store, folder string) *watchRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchRun{started: make(chan []string, 1), trusted: make(chan Change, 100), done: make(chan error, 1), cancel: cancel}
	go func() {
		w.done <- s.Watch(ctx, folder, WatchOptions{
			Started: func(_ *engine.Content, untrusted []string) { w.started <- untrusted },
			Trusted: func(_ time.Time, cs []Change) {
				for _, c := range cs {
					w.trusted <- c
				}
			},
			Problem: func(err error) { t.Errorf("Problem: %v", err) },
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-w.done:
		case <-time.After(20 * time.Second):
			t.Error("Watch did not end with its context")
		}
	})
	return w
}

// wait returns the changes reported until want names have been, failing
// t after a wide deadline.
func (w *watchRun) wait(t *testing.T, want ...string) map[string]Change {
	t.Helper()
	got := map[string]Change{}
	deadline := time.After(20 * time.Second)
	for {
		all := true
		for _, n := range want {
			if _, ok := got[n]; !ok {
				all = false
			}
		}
		if all {
			return got
		}
		select {
		case c := <-w.trusted:
			got[c.Name] = c
		case err := <-w.done:
			t.Fatalf("Watch ended: %v", err)
		case <-deadline:
			t.Fatalf("reported %+v, want %q", got, want)
		}
	}
}

// Watch trusts each change saved while it runs, an editor's rename over a
// file as well as a plain write, a new lib folder's module and a removal,
// and leaves untrusted what changed before it started.
func TestWatchTrustsEachSavedChangeAndNothingElse(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	hooks := filepath.Join(folder, "hooks.d")
	writeFile(t, filepath.Join(hooks, "10-a.lua"), "-- a\n")
	writeFile(t, filepath.Join(hooks, "20-b.lua"), "-- b\n")
	writeFile(t, filepath.Join(hooks, "30-u.lua"), "-- u\n")
	writeFile(t, filepath.Join(hooks, "40-gone.lua"), "-- gone\n")
	trustNow(t, s, folder)
	writeFile(t, filepath.Join(hooks, "30-u.lua"), "-- u, changed before the watch\n")

	w := startWatch(t, s, folder)
	select {
	case untrusted := <-w.started:
		if !reflect.DeepEqual(untrusted, []string{"hooks.d/30-u.lua"}) {
			t.Fatalf("untrusted at start = %q", untrusted)
		}
	case err := <-w.done:
		t.Fatalf("Watch: %v", err)
	}

	// An editor's save: a temporary file renamed over the old one.
	tmp := filepath.Join(hooks, ".10-a.lua.swp")
	writeFile(t, tmp, "-- a, saved by rename\n")
	if err := os.Rename(tmp, filepath.Join(hooks, "10-a.lua")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(hooks, "20-b.lua"), "-- b, written in place\n")
	writeFile(t, filepath.Join(hooks, "lib", "util", "m.lua"), "-- m\n")
	os.Remove(filepath.Join(hooks, "40-gone.lua"))
	got := w.wait(t, "hooks.d/10-a.lua", "hooks.d/20-b.lua", "hooks.d/lib/util/m.lua", "hooks.d/40-gone.lua")
	if got["hooks.d/10-a.lua"].Op != ChangeChanged || got["hooks.d/lib/util/m.lua"].Op != ChangeAdded ||
		got["hooks.d/40-gone.lua"].Op != ChangeRemoved {
		t.Errorf("changes = %+v", got)
	}

	files := s.Files(folder)
	for name, content := range map[string]string{"hooks.d/10-a.lua": "-- a, saved by rename\n",
		"hooks.d/20-b.lua": "-- b, written in place\n", "hooks.d/lib/util/m.lua": "-- m\n"} {
		if err := files.Check(name, sum(content)); err != nil {
			t.Errorf("%s as saved: %v", name, err)
		}
	}
	var ue *UntrustedError
	if err := files.Check("hooks.d/30-u.lua", sum("-- u, changed before the watch\n")); !errors.As(err, &ue) {
		t.Errorf("the file changed before the watch: %v, want it untrusted", err)
	}
	if err := files.Check("hooks.d/40-gone.lua", sum("-- gone\n")); !errors.As(err, &ue) || !ue.New {
		t.Errorf("the removed file: %v, want its trust dropped", err)
	}
	if err := files.Check("hooks.d/10-a.lua", sum("-- a\n")); err == nil {
		t.Error("the content before the save is still trusted")
	}

	// Saved while it runs, the file changed before is trusted too.
	writeFile(t, filepath.Join(hooks, "30-u.lua"), "-- u, reviewed and saved\n")
	w.wait(t, "hooks.d/30-u.lua")
	if err := files.Check("hooks.d/30-u.lua", sum("-- u, reviewed and saved\n")); err != nil {
		t.Errorf("saved during the watch: %v", err)
	}
	if r, _ := s.Get(folder); !r.Matches(mustContent(t, folder)) {
		t.Error("every file trusted, yet the folder is not trusted whole")
	}
}

func mustContent(t *testing.T, folder string) *engine.Content {
	t.Helper()
	c, err := Content(folder)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Watch keeps a trusted folder trusted; a folder never trusted, or changed
// since a record without per-file sums, is refused before anything is
// watched or written.
func TestWatchRefusesAFolderNotTrustedAlready(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "hooks.d", "10-a.lua"), "-- a\n")
	err := s.Watch(context.Background(), folder, WatchOptions{Started: func(*engine.Content, []string) {
		t.Error("Started on a folder never trusted")
	}})
	if err == nil || !strings.Contains(err.Error(), folder+" is not trusted") || !strings.Contains(err.Error(), "run luahook trust") {
		t.Fatalf("Watch of a folder never trusted = %v", err)
	}
	if r, _ := s.Get(folder); r != nil {
		t.Fatal("Watch wrote a record")
	}

	legacy := *content(t, folder)
	legacy.FileSums = nil
	if err := s.Put(legacy); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(folder, "hooks.d", "10-a.lua"), "-- a, changed\n")
	err = s.Watch(context.Background(), folder, WatchOptions{})
	if err == nil || !strings.Contains(err.Error(), folder+" changed since you trusted it") {
		t.Fatalf("Watch of a changed legacy record = %v", err)
	}
}

// luahook untrust while Watch runs ends it: nothing is trusted after.
func TestWatchEndsWhenTheRecordIsRemoved(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "hooks.d", "10-a.lua"), "-- a\n")
	trustNow(t, s, folder)
	w := startWatch(t, s, folder)
	<-w.started
	if _, err := s.Delete(folder); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(folder, "hooks.d", "10-a.lua"), "-- a, after untrust\n")
	select {
	case err := <-w.done:
		if err == nil || !strings.Contains(err.Error(), "trust record was removed") {
			t.Fatalf("Watch = %v", err)
		}
		w.done <- err // for the cleanup
	case <-time.After(20 * time.Second):
		t.Fatal("Watch goes on after the record was removed")
	}
	if r, _ := s.Get(folder); r != nil {
		t.Fatal("Watch wrote a record after untrust")
	}
}
