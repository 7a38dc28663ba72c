//go:build unix

package luabind

import (
	"bytes"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
	"github.com/luahook/luahook/internal/otheruser"
)

// syncBuffer is a bytes.Buffer a logger may write while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestABadCacheEntryIsReportedAndReplacedNeverUsed: at an entry's name, a
// link (to a file elsewhere, left untouched), a named pipe (never waited
// on), another user's file and a file others can write are each reported
// to the Logger, naming the path and the problem; the source is compiled
// (the hook loads as without a cache) and a good entry of the cache's own
// takes the name.
func TestABadCacheEntryIsReportedAndReplacedNeverUsed(t *testing.T) {
	src := []byte(`return "from the source"`)
	sum := sha256.Sum256(src)
	for _, tt := range []struct {
		name string
		put  func(t *testing.T, entry string) (want string, fifos []string)
	}{
		{"link", func(t *testing.T, entry string) (string, []string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, []byte("kept"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if b, _ := os.ReadFile(target); string(b) != "kept" {
					t.Errorf("the link's target now holds %q", b)
				}
			})
			if err := os.Symlink(target, entry); err != nil {
				t.Fatal(err)
			}
			return "is a symbolic link (to " + target + ")", nil
		}},
		{"named pipe", func(t *testing.T, entry string) (string, []string) {
			return "not a regular file: it is a named pipe (FIFO)", []string{fifotest.Make(t, entry)}
		}},
		{"loose", func(t *testing.T, entry string) (string, []string) {
			if err := os.WriteFile(entry, []byte("LHC1"), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chmod(entry, 0o666)
			return "mode 0666 lets others write it", nil
		}},
		{"another user's", func(t *testing.T, entry string) (string, []string) {
			if err := os.WriteFile(entry, []byte("LHC1"), 0o600); err != nil {
				t.Fatal(err)
			}
			if os.Geteuid() != 0 {
				return "", nil // only root can give a file away
			}
			if err := os.Chown(entry, otheruser.UID, otheruser.UID); err != nil {
				t.Fatal(err)
			}
			return "is owned by uid " + strconv.Itoa(otheruser.UID), nil
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, dir := openTestCache(t)
			entry := filepath.Join(dir, c.entryName("x.lua", sum))
			want, fifos := tt.put(t, entry)
			var log syncBuffer
			o := Options{DiskCache: c, Logger: slog.New(slog.NewTextHandler(&log, nil))}
			var ch *Chunk
			var err error
			fifotest.Within(t, 5*time.Second, fifos, func() { ch, err = o.Compile("x.lua", src) })
			if err != nil {
				t.Fatal(err)
			}
			if got := runChunk(t, ch); got != "from the source" {
				t.Errorf("Compile gave %q", got)
			}
			if want != "" && !strings.Contains(log.String(), entry+": "+want) {
				t.Errorf("log %q\nwant a warning naming %q", log.String(), entry+": "+want)
			}
			fi, err := os.Lstat(entry)
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 || c.load(filepath.Base(entry), "x.lua", sum) == nil {
				t.Errorf("entry after Compile: %v, %v; want a good entry of mode 0600", fi, err)
			}
		})
	}
}

// TestTheCacheKeyIsNoLinkNoPipeAndNoOneElses: a key that is a link (its
// target untouched), a named pipe (refused at once), another user's file,
// or a file others can read, and a folder its group or others can write,
// keep the cache from opening, with an error naming the path and the
// problem.
func TestTheCacheKeyIsNoLinkNoPipeAndNoOneElses(t *testing.T) {
	keyIn := func(t *testing.T) (dir, key string) {
		_, dir = openTestCache(t)
		key = filepath.Join(dir, diskCacheKeyFile)
		if err := os.Remove(key); err != nil {
			t.Fatal(err)
		}
		return dir, key
	}
	refusedOpen := func(t *testing.T, dir, path, want string) {
		t.Helper()
		c, err := OpenDiskCache(dir)
		if err == nil || !strings.Contains(err.Error(), path+": "+want) {
			t.Errorf("OpenDiskCache: %v, %v; want %q", c, err, path+": "+want)
		}
	}
	t.Run("link", func(t *testing.T) {
		dir, key := keyIn(t)
		target := filepath.Join(t.TempDir(), "mine")
		if err := os.WriteFile(target, bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, key); err != nil {
			t.Fatal(err)
		}
		refusedOpen(t, dir, key, "is a symbolic link (to "+target+")")
		if b, _ := os.ReadFile(target); !bytes.Equal(b, bytes.Repeat([]byte{7}, 32)) {
			t.Errorf("the link's target was changed")
		}
	})
	t.Run("named pipe", func(t *testing.T) {
		dir, key := keyIn(t)
		fifotest.Make(t, key)
		fifotest.Within(t, 5*time.Second, []string{key}, func() {
			refusedOpen(t, dir, key, "not a regular file: it is a named pipe (FIFO)")
		})
	})
	t.Run("readable by others", func(t *testing.T) {
		dir, key := keyIn(t)
		if err := os.WriteFile(key, make([]byte, 32), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(key, 0o604)
		refusedOpen(t, dir, key, "mode 0604 lets others read the key")
	})
	t.Run("another user's", func(t *testing.T) {
		dir, key := keyIn(t)
		if err := os.WriteFile(key, make([]byte, 32), 0o600); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() != 0 {
			if _, err := OpenDiskCache(dir); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.Chown(key, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
		refusedOpen(t, dir, key, "is owned by uid "+strconv.Itoa(otheruser.UID))
	})
	t.Run("group-writable folder", func(t *testing.T) {
		_, dir := openTestCache(t)
		if err := os.Chmod(dir, 0o770); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() != 0 {
			os.Chmod(dir, 0o777) // the user's group may be private: others then
		}
		c, err := OpenDiskCache(dir)
		if err == nil || !strings.Contains(err.Error(), dir+": mode 07") || !strings.Contains(err.Error(), "write it (chmod go-w") {
			t.Errorf("OpenDiskCache: %v, %v; want the folder's mode refused", c, err)
		}
	})
}
