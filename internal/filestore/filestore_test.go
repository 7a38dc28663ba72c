package filestore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/filestore"
	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/luabind"
)

var ctx = context.Background()

func newStore(t *testing.T, o filestore.Options) *filestore.Store {
	t.Helper()
	if o.Path == "" {
		o.Path = filepath.Join(t.TempDir(), "state", "luahook", "store.db")
	}
	s := filestore.New(o)
	t.Cleanup(s.Close)
	return s
}

// clock is a time a test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestValuesKeepTheirTypeAcrossHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	w := newStore(t, filestore.Options{Path: path})
	values := map[string]any{
		"str": "1", "empty": "", "bin": "a\x00b\xff", "num": float64(1), "pi": 3.141592653589793,
		"tiny": 1e-300, "neg": -0.5, "yes": true, "no": false, "tbl": json.RawMessage(`{"a":[1,2]}`),
	}
	for k, v := range values {
		if err := w.Set(ctx, k, v, 0); err != nil {
			t.Fatalf("Set(%q): %v", k, err)
		}
	}
	// Another handle (another process would be the same: nothing is kept
	// in memory between calls) reads what the first wrote.
	r := newStore(t, filestore.Options{Path: path})
	for k, want := range values {
		got, ok, err := r.Get(ctx, k)
		if err != nil || !ok {
			t.Fatalf("Get(%q) = %v, %v, %v", k, got, ok, err)
		}
		if fmt.Sprintf("%T %#v", got, got) != fmt.Sprintf("%T %#v", want, want) {
			t.Errorf("Get(%q) = %T %#v, want %T %#v", k, got, got, want, want)
		}
	}
	if _, ok, err := r.Get(ctx, "absent"); ok || err != nil {
		t.Errorf("an absent key: %v, %v", ok, err)
	}
	if err := r.Delete(ctx, "str"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := w.Get(ctx, "str"); ok {
		t.Error("a deleted key is still there")
	}
}

// Many handles on one file (each with its own turn, as processes have)
// increment one counter at once: every increment counts, once.
func TestIncrIsExactAcrossHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	const handles, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, handles)
	for range handles {
		wg.Go(func() {
			s := filestore.New(filestore.Options{Path: path, LockTimeout: time.Minute})
			for range each {
				if _, err := s.Incr(ctx, "n", 1, 0); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, _, err := newStore(t, filestore.Options{Path: path}).Get(ctx, "n")
	if err != nil || got != float64(handles*each) {
		t.Fatalf("counter = %v (%v), want %d", got, err, handles*each)
	}
}

func TestIncrKeepsTheWindowItWasCreatedWith(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := newStore(t, filestore.Options{Now: c.now})
	if n, _ := s.Incr(ctx, "w", 1, time.Minute); n != 1 {
		t.Fatalf("first incr = %v", n)
	}
	c.add(30 * time.Second)
	if n, _ := s.Incr(ctx, "w", 1, time.Hour); n != 2 {
		t.Fatalf("second incr = %v", n)
	}
	c.add(30 * time.Second)
	if _, ok, _ := s.Get(ctx, "w"); ok {
		t.Fatal("the counter outlived the window it was created with")
	}
	if n, _ := s.Incr(ctx, "w", 1, time.Minute); n != 1 {
		t.Fatalf("an expired counter counts from %v, want 1", n)
	}
	if err := s.Set(ctx, "w", "text", 0); err != nil {
		t.Fatal(err)
	}
	c.add(time.Hour)
	if v, ok, _ := s.Get(ctx, "w"); !ok || v != "text" {
		t.Fatalf("a set without TTL expired: %v %v", v, ok)
	}
	if _, err := s.Incr(ctx, "w", 1, 0); err == nil || err.Error() != `store: the value of "w" is a string, not a number` {
		t.Errorf("incr of a string: %v", err)
	}
}

// Each write drops at most a few expired entries: its work is bounded
// whatever expired meanwhile, and the store still empties of them.
func TestWritesSweepExpiredEntriesABatchAtATime(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := newStore(t, filestore.Options{Now: c.now})
	for i := range 100 {
		if err := s.Set(ctx, fmt.Sprint("e", i), "v", time.Second); err != nil {
			t.Fatal(err)
		}
	}
	c.add(2 * time.Second)
	if err := s.Set(ctx, "x", "v", 0); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys != 100+1-16 || st.Expiring != 100-16 {
		t.Fatalf("after one write: %+v, want 16 expired entries dropped", st)
	}
	for range 10 {
		if _, err := s.Incr(ctx, "x2", 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ = s.Stats(ctx); st.Keys != 2 || st.Expiring != 0 || st.Bytes != len("x")+1+len("x2")+8 {
		t.Fatalf("after ten more writes: %+v", st)
	}
}

// The limits refuse what the in-process store refuses, with the same
// errors.
func TestLimitsAsTheInProcessStore(t *testing.T) {
	lim := store.Limits{MaxKeys: 4, MaxBytes: 48, MaxKeyBytes: 8, MaxValueBytes: 20}
	fs := newStore(t, filestore.Options{Limits: lim})
	mem := luabind.NewStore()
	mem.SetLimits(lim)
	t.Cleanup(mem.Close)
	type step struct {
		op    string
		key   string
		value any
	}
	steps := []step{
		{"set", "a", "0123456789"},
		{"set", "b", "0123456789"},
		{"incr", "n", 1.0}, // a number counts 8 bytes
		{"set", "c", "0123456"},
		{"incr", "d", 1.0},                    // MaxKeys
		{"set", "a", "0123456789012345678"},   // exactly MaxBytes
		{"set", "a", "01234567890123456789"},  // MaxBytes
		{"set", "a", "01"},                    // shrinking is always allowed
		{"set", "toolongkey", "v"},            // MaxKeyBytes
		{"set", "e", "012345678901234567890"}, // MaxValueBytes
		{"delete", "b", nil},
		{"set", "d", "0123456789"}, // room made by the delete
		{"incr", "c", 1.0},         // not a number
		{"set", "f", json.RawMessage(`[1]`)},
		{"set", "d", "0123456789012345"}, // MaxBytes, on an existing key
	}
	for i, st := range steps {
		run := func(s store.Backend) string {
			var err error
			switch st.op {
			case "set":
				err = s.Set(ctx, st.key, st.value, 0)
			case "incr":
				_, err = s.Incr(ctx, st.key, st.value.(float64), 0)
			case "delete":
				err = s.Delete(ctx, st.key)
			}
			if err == nil {
				return "ok"
			}
			var le *store.LimitError
			if errors.As(err, &le) {
				return fmt.Sprintf("%s (%+v)", err, *le)
			}
			return err.Error()
		}
		got, want := run(fs), run(mem)
		if got != want {
			t.Errorf("step %d %s %q: file store: %s\nin-process store: %s", i, st.op, st.key, got, want)
		}
	}
	st, err := fs.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ms := mem.Stats(); st.Keys != ms.Keys || st.Bytes != ms.Bytes {
		t.Errorf("file store holds %+v, in-process store %+v", st, ms)
	}
}

// A full store drops its expired entries to make room before it refuses a
// write, all of them when the few each write drops are not enough; live
// entries are never dropped.
func TestExpiredEntriesMakeRoomBeforeAWriteIsRefused(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	s := newStore(t, filestore.Options{Limits: store.Limits{MaxBytes: 1000}, Now: c.now})
	for i := range 40 { // 40 entries of 23 bytes: 920 bytes, all but two expiring
		ttl := time.Duration(0)
		if i >= 2 {
			ttl = time.Second
		}
		if err := s.Set(ctx, fmt.Sprintf("k%02d", i), strings.Repeat("v", 20), ttl); err != nil {
			t.Fatal(err)
		}
	}
	big := strings.Repeat("b", 600)
	err := s.Set(ctx, "big", big, 0)
	var le *store.LimitError
	if !errors.As(err, &le) || le.Limit != "MaxBytes" {
		t.Fatalf("a write past MaxBytes: %v", err)
	}
	c.add(2 * time.Second)
	// The 16 expired entries a write drops (368 bytes) are not room
	// enough for 603 bytes: the write drops every expired one.
	if err := s.Set(ctx, "big", big, 0); err != nil {
		t.Fatalf("after the expiry: %v", err)
	}
	if st, _ := s.Stats(ctx); st.Keys != 3 || st.Bytes != 2*23+603 {
		t.Errorf("holds %+v, want the two live entries and the new one", st)
	}
	if err := s.Set(ctx, "more", big, 0); !errors.As(err, &le) || le.Limit != "MaxBytes" {
		t.Fatalf("live entries were dropped to make room: %v", err)
	}
}

func TestFileAndFolderArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "luahook")
	s := newStore(t, filestore.Options{Path: filepath.Join(dir, "store.db")})
	if err := s.Set(ctx, "k", "v", 0); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Dir(dir): 0o700, filepath.Join(dir, "store.db"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

// A lock held past the wait fails the call, naming the file, within about
// the wait: the hook fails closed rather than hang.
func TestLockHeldPastTheWaitFailsNamingTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := newStore(t, filestore.Options{Path: path, LockTimeout: 100 * time.Millisecond})
	if err := s.Set(ctx, "k", "v", 0); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Incr(ctx, "n", 1, 0)
	want := "store: " + path + ": locked by another luahook for over 100ms (lock_timeout_ms)"
	if err == nil || err.Error() != want {
		t.Fatalf("Incr under a held lock: %v\nwant %s", err, want)
	}
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Errorf("gave up after %v, before the wait", waited)
	}
	// The hook's deadline bounds the wait too.
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	s2 := newStore(t, filestore.Options{Path: path, LockTimeout: time.Hour})
	if _, _, err := s2.Get(short, "k"); err == nil || !strings.HasPrefix(err.Error(), "store: "+path+": ") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get past the hook's deadline: %v", err)
	}
	// Freed, the lock is taken again.
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if n, err := s.Incr(ctx, "n", 1, 0); err != nil || n != 1 {
		t.Fatalf("after the lock was freed: %v, %v", n, err)
	}
}

func TestAFileThatIsNotAStoreIsAnErrorNamingIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newStore(t, filestore.Options{Path: path})
	for name, call := range map[string]func() error{
		"get":  func() error { _, _, err := s.Get(ctx, "k"); return err },
		"incr": func() error { _, err := s.Incr(ctx, "k", 1, 0); return err },
		"ping": func() error { return s.Ping(ctx) },
	} {
		err := call()
		if err == nil || !strings.HasPrefix(err.Error(), "store: "+path+" is not a luahook store") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if data, _ := os.ReadFile(path); !strings.HasPrefix(string(data), "not a database") {
		t.Error("the file was changed")
	}
	// A link where the file should be is refused, not followed.
	link := filepath.Join(dir, "link.db")
	os.Symlink(path, link)
	if _, err := newStore(t, filestore.Options{Path: link}).Incr(ctx, "k", 1, 0); err == nil || !strings.Contains(err.Error(), link) {
		t.Errorf("a link: %v", err)
	}
}

// A store file damaged anywhere is an error, or still reads, but never a
// crash of the process (bbolt panics on pages it cannot read: recovered).
func TestADamagedFileNeverCrashes(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store.db")
	s := newStore(t, filestore.Options{Path: src})
	for i := range 200 {
		if err := s.Set(ctx, fmt.Sprint("key", i), strings.Repeat("v", i), time.Duration(i)*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	good, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	// The two meta pages, then 40 places spread over the rest.
	offsets := []int{0, 16, 64, 4096 + 16, 4096 + 64}
	for i := range 40 {
		offsets = append(offsets, 8192+i*(len(good)-8192)/40)
	}
	for _, off := range offsets {
		path := filepath.Join(t.TempDir(), "store.db")
		bad := append([]byte(nil), good...)
		for i := off; i < min(off+64, len(bad)); i++ {
			bad[i] ^= 0x5a
		}
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		d := filestore.New(filestore.Options{Path: path})
		for i := 0; i < 200; i += 25 {
			key := fmt.Sprint("key", i)
			if _, _, err := d.Get(ctx, key); err != nil {
				failed++
				if !strings.HasPrefix(err.Error(), "store: "+path) {
					t.Fatalf("damage at %d: %v does not name the file", off, err)
				}
			}
			if err := d.Set(ctx, key, "new", 0); err != nil && !strings.HasPrefix(err.Error(), "store: "+path) {
				t.Fatalf("damage at %d: %v does not name the file", off, err)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no damage was noticed: the test damages nothing")
	}
}

func TestDefaultPathFollowsXDGStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if p, err := filestore.DefaultPath(); err != nil || p != "/x/state/luahook/store.db" {
		t.Errorf("with XDG_STATE_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if p, err := filestore.DefaultPath(); err != nil || p != "/home/u/.local/state/luahook/store.db" {
		t.Errorf("without an absolute XDG_STATE_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	s := filestore.New(filestore.Options{})
	if _, err := s.Incr(ctx, "k", 1, 0); err == nil || !strings.Contains(err.Error(), "set [store] path") {
		t.Errorf("with neither: %v", err)
	}
}

// endsAfter is a context whose Err reports it cancelled from its n-th call
// on: a test counts the looks a long operation takes at its context rather
// than racing a deadline.
type endsAfter struct {
	context.Context
	mu    sync.Mutex
	n     int
	calls int
}

func (c *endsAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls++; c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// A write that must sweep a full store of expired entries looks at its
// call's context as it goes: once the call has ended, it keeps what it
// dropped and stops, refusing the write if that is not room enough (the
// next write sweeps on), rather than drop every expired entry past the
// hook's deadline.
func TestALongSweepStopsWhenTheCallEnds(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	const n = 2000 // entries of 6 bytes ("k0000" and "v")
	s := newStore(t, filestore.Options{Limits: store.Limits{MaxBytes: 6 * n}, Now: c.now})
	for i := range n {
		if err := s.Set(ctx, fmt.Sprintf("k%04d", i), "v", time.Second); err != nil {
			t.Fatal(err)
		}
	}
	c.add(2 * time.Second)
	big := strings.Repeat("b", 3*n) // room for it takes half the entries
	// do looks at the context once before it starts; the sweep's first
	// look ends it.
	var le *store.LimitError
	if err := s.Set(&endsAfter{Context: context.Background(), n: 2}, "big", big, 0); !errors.As(err, &le) || le.Limit != "MaxBytes" {
		t.Fatalf("a write whose room a sweep cut short could not make: %v", err)
	}
	// the 16 every write drops first, then 255 before the sweep's first look
	if st, _ := s.Stats(ctx); st.Keys != n-16-255 {
		t.Errorf("the store holds %d keys after a sweep cut short, want %d", st.Keys, n-16-255)
	}
	// The same write, its call not ended, sweeps on to the end.
	if err := s.Set(ctx, "big", big, 0); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Stats(ctx); st.Keys != 1 {
		t.Errorf("a full sweep left %d keys, want the one live", st.Keys)
	}
}
