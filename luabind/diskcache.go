package luabind

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/luahook/luahook/luabind/internal/codec"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/luabind/internal/binenc"
	"github.com/luahook/luahook/luabind/internal/lint"
)

// DiskCache keeps compiled chunks in a folder, so that a process that loads
// the same sources as an earlier one (a `luahook fire` per tool call) skips
// the parser, the compiler and the linter: with the shipped hooks.d, most of
// the time engine.Open takes.
//
// An entry is found by a hash of the chunk's path, the SHA-256 of its
// source and the identity of the running executable (device, inode, size
// and modification time), so that a changed source or a rebuilt luahook
// never meets an old entry. An entry is signed with HMAC-SHA-256 under a
// random key kept in the folder (mode 0600): a damaged, truncated or
// replaced entry does not verify and the source is compiled again. The
// folder must be the caller's own and closed to others (no write by group
// or others), as must the key (no access by them); OpenDiskCache refuses
// anything else. The signature guards against damage and against other
// users; like the luahook executable and the agent's own settings, the
// folder is only as safe as the account that owns it.
//
// Nothing in the cache changes what a chunk does: a hit gives the very
// prototype and lint facts the compiler gave when the entry was written
// (TestDiskCacheGivesTheCompilersChunk), and every failure to read or
// write an entry falls back to compiling.
type DiskCache struct {
	dir   string
	key   [32]byte
	build string // identity of the executable and of the entry format
	max   int    // entries kept; older ones are removed past it
}

const (
	diskCacheMagic   = "LHC1"
	diskCacheKeyFile = "key"
	diskCacheSuffix  = ".chunk"
	// maxDiskEntry caps an entry's size: read, and written. The largest
	// source (DefaultMaxSourceBytes) compiles to far less.
	maxDiskEntry = 64 << 20
	// DefaultDiskCacheEntries is how many entries a DiskCache keeps.
	DefaultDiskCacheEntries = 1024
)

// OpenDiskCache opens (creating it, mode 0700) the compiled-chunk cache in
// dir. It fails when dir is not a folder of the caller's own that only the
// caller can write, when its key is readable by others, or when the
// executable cannot be identified; the caller then compiles without one.
func OpenDiskCache(dir string) (*DiskCache, error) {
	if !codec.Pinned {
		return nil, fmt.Errorf("compiled-chunk cache: written for gopher-lua %s, which this program does not run", codec.WrittenAgainst)
	}
	if !stringConstantsSettable {
		return nil, errors.New("compiled-chunk cache: this gopher-lua's prototypes cannot be rebuilt")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	if err := ownAndClosed(fi, 0o022); err != nil {
		return nil, fmt.Errorf("compiled-chunk cache %s: %w", dir, err)
	}
	c := &DiskCache{dir: dir, max: DefaultDiskCacheEntries}
	if err := c.loadKey(); err != nil {
		return nil, fmt.Errorf("compiled-chunk cache %s: %w", dir, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	xi, err := os.Stat(exe)
	if err != nil {
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	c.build = diskCacheMagic + " " + fileIdentity(xi)
	return c, nil
}

// ownAndClosed checks that fi (from Lstat) is a folder or a regular file
// the caller owns, with none of the bits of closed set.
func ownAndClosed(fi fs.FileInfo, closed fs.FileMode) error {
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return fmt.Errorf("is a %s", regfile.Kind(fi.Mode()))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid())
	}
	if m := fi.Mode().Perm(); m&closed != 0 {
		return fmt.Errorf("mode %04o is open to others (chmod go-rwx)", m)
	}
	return nil
}

// fileIdentity names a file's version without reading it.
func fileIdentity(fi fs.FileInfo) string {
	id := strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += ":" + strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(st.Ino, 10)
	}
	return id
}

// loadKey reads the folder's key, making it first if there is none.
func (c *DiskCache) loadKey() error {
	path := filepath.Join(c.dir, diskCacheKeyFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err == nil {
		_, err = rand.Read(c.key[:])
		if err == nil {
			_, err = f.Write(c.key[:])
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
		return err
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	f, fi, err := regfile.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ownAndClosed(fi, 0o077); err != nil {
		return fmt.Errorf("key: %w", err)
	}
	if _, err := io.ReadFull(f, c.key[:]); err != nil {
		// Another process may be writing it this instant.
		return fmt.Errorf("key: %w", err)
	}
	return nil
}

// entryName is the file of the entry for path with source sum.
func (c *DiskCache) entryName(path string, sum [sha256.Size]byte) string {
	h := sha256.New()
	h.Write([]byte(c.build))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write(sum[:])
	return hex.EncodeToString(h.Sum(nil)[:20]) + diskCacheSuffix
}

// compile returns the chunk of src (whose SHA-256 is sum) from the cache,
// or compiles it with o and stores it. o.DiskCache is c; the caller has
// checked the source's size.
func (c *DiskCache) compile(o *Options, path string, src []byte, sum [sha256.Size]byte) (*Chunk, error) {
	name := c.entryName(path, sum)
	if ch := c.load(name, path, sum); ch != nil {
		return ch, nil
	}
	ch, err := o.compileSource(path, src)
	if err != nil {
		return nil, err
	}
	c.store(name, path, sum, ch)
	return ch, nil
}

// load reads, verifies and decodes an entry; nil when there is none that
// verifies and decodes.
func (c *DiskCache) load(name, path string, sum [sha256.Size]byte) *Chunk {
	file := filepath.Join(c.dir, name)
	f, fi, err := regfile.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	b, err := regfile.ReadAll(f, fi, file, maxDiskEntry)
	f.Close()
	if err != nil || len(b) < len(diskCacheMagic)+sha256.Size || string(b[:len(diskCacheMagic)]) != diskCacheMagic {
		return nil
	}
	mac, body := b[len(diskCacheMagic):len(diskCacheMagic)+sha256.Size], b[len(diskCacheMagic)+sha256.Size:]
	if !hmac.Equal(mac, c.sign(body)) {
		return nil
	}
	ch, err := decodeEntry(string(body), c.build, path, sum)
	if err != nil {
		return nil
	}
	return ch
}

func (c *DiskCache) sign(body []byte) []byte {
	m := hmac.New(sha256.New, c.key[:])
	m.Write(body)
	return m.Sum(nil)
}

// store writes ch's entry, through a temporary file renamed into place, so
// that a reader sees a whole entry or none. A failure leaves no entry.
func (c *DiskCache) store(name, path string, sum [sha256.Size]byte, ch *Chunk) {
	body, err := encodeEntry(c.build, path, sum, ch)
	if err != nil || len(body) > maxDiskEntry-len(diskCacheMagic)-sha256.Size {
		return
	}
	out := make([]byte, 0, len(diskCacheMagic)+sha256.Size+len(body))
	out = append(out, diskCacheMagic...)
	out = append(out, c.sign(body)...)
	out = append(out, body...)
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(out)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(c.dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
		return
	}
	c.trim(name)
}

// trim removes the oldest entries past c.max (to three quarters of it),
// never keep (the entry just written), and temporary files left for an
// hour by a process that died writing them.
func (c *DiskCache) trim(keep string) {
	d, err := os.Open(c.dir)
	if err != nil {
		return
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return
	}
	type entry struct {
		name string
		mod  time.Time
	}
	var entries []entry
	for _, n := range names {
		switch {
		case n == keep:
		case strings.HasSuffix(n, diskCacheSuffix):
			entries = append(entries, entry{name: n})
		case strings.HasPrefix(n, ".tmp-"):
			if fi, err := os.Lstat(filepath.Join(c.dir, n)); err == nil && time.Since(fi.ModTime()) > time.Hour {
				os.Remove(filepath.Join(c.dir, n))
			}
		}
	}
	if len(entries)+1 <= c.max {
		return
	}
	for i := range entries {
		if fi, err := os.Lstat(filepath.Join(c.dir, entries[i].name)); err == nil {
			entries[i].mod = fi.ModTime()
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.mod.Compare(b.mod) })
	for _, e := range entries[:len(entries)+1-c.max*3/4] {
		os.Remove(filepath.Join(c.dir, e.name))
	}
}

// encodeEntry is an entry's body: what it is for (build, path, source
// sum), the prototype and the lint facts.
func encodeEntry(build, path string, sum [sha256.Size]byte, ch *Chunk) ([]byte, error) {
	w := &binenc.Writer{B: make([]byte, 0, 4096)}
	w.String(build)
	w.String(path)
	w.String(string(sum[:]))
	if err := encodeProto(w, ch.proto, 0); err != nil {
		return nil, err
	}
	ch.lint.Encode(w)
	return w.B, nil
}

// decodeEntry decodes an entry's body, which must be for build, path and
// sum. Every malformed body is an error.
func decodeEntry(body, build, path string, sum [sha256.Size]byte) (ch *Chunk, err error) {
	r := binenc.NewReader(body)
	if r.String() != build || r.String() != path || r.String() != string(sum[:]) {
		return nil, errors.New("compiled-chunk cache: entry for another source")
	}
	proto := decodeProto(r, path, 0)
	facts, err := lint.Decode(r)
	if err != nil {
		return nil, err
	}
	if r.Len() != 0 {
		return nil, binenc.ErrCorrupt
	}
	resolveConcat(proto)
	return &Chunk{path: path, proto: proto, lint: facts}, nil
}
