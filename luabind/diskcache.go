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
	"sync"
	"syscall"
	"time"

	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/safefile"
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
// folder is opened as internal/safefile opens the folders luahook writes
// in (not a link, the caller's own, closed to others' writes) and held
// open; the key must be a regular file of the caller's own that others
// can neither write nor read; OpenDiskCache refuses anything else. An entry
// is opened in the folder through no link and without blocking, and must
// be a regular file of the caller's own closed to others' writes: anything
// else (a link, a named pipe, another user's file, a loose mode) is
// reported to the Options' Logger, not used, and replaced (the link itself,
// never its target) by the entry compiled again. The signature guards
// against damage and against other users; like the luahook executable and
// the agent's own settings, the folder is only as safe as the account that
// owns it.
//
// Nothing in the cache changes what a chunk does: a hit gives the very
// prototype and lint facts the compiler gave when the entry was written
// (TestDiskCacheGivesTheCompilersChunk), and every failure to read or
// write an entry falls back to compiling.
type DiskCache struct {
	dir   *safefile.Dir // the folder, held open
	key   [32]byte
	build string // identity of the executable and of the entry format
	max   int    // entries kept; older ones are removed past it

	// mem, when KeepDecoded made it, keeps the chunks this process read
	// or wrote, by entry name (see KeepDecoded).
	memMu sync.Mutex
	mem   map[string]*Chunk
}

// maxMemChunks bounds DiskCache.mem.
const maxMemChunks = 256

// KeepDecoded makes c keep in memory each chunk it reads or writes, so that
// a process opening the same files many times (luahook test opens an engine
// per case) reads, verifies and decodes each entry once; the entries on
// disk are then read once per process, so a process that must see an entry
// damaged or replaced after its first read (every other one) does not call
// it. A Chunk is immutable, so sharing one is sharing code, never state
// (as ChunkCache). At most maxMemChunks are kept; past that the memory
// starts over.
func (c *DiskCache) KeepDecoded() {
	c.memMu.Lock()
	defer c.memMu.Unlock()
	if c.mem == nil {
		c.mem = make(map[string]*Chunk)
	}
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
// dir. It fails, naming the path and what is wrong, when dir is a link or
// not a folder of the caller's own (or root's) that only the caller can
// write, when its key is a link, another user's or open to others, or when
// the executable cannot be identified; the caller then compiles without
// one.
func OpenDiskCache(dir string) (*DiskCache, error) {
	if !codec.Pinned {
		return nil, fmt.Errorf("compiled-chunk cache: written for gopher-lua %s, which this program does not run", codec.WrittenAgainst)
	}
	if !stringConstantsSettable {
		return nil, errors.New("compiled-chunk cache: this gopher-lua's prototypes cannot be rebuilt")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	xi, err := os.Stat(exe)
	if err != nil {
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	d, err := safefile.OpenDir(safefile.Scope{Dir: dir, What: "the cache folder"}, "", 0o700)
	if err != nil {
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	c := &DiskCache{dir: d, max: DefaultDiskCacheEntries, build: diskCacheMagic + " " + fileIdentity(xi)}
	if err := c.loadKey(); err != nil {
		d.Close()
		return nil, fmt.Errorf("compiled-chunk cache: %w", err)
	}
	return c, nil
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
	f, _, err := c.dir.OpenFile(diskCacheKeyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = rand.Read(c.key[:])
		if err == nil {
			_, err = f.Write(c.key[:])
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			c.dir.Remove(diskCacheKeyFile)
		}
		return err
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	f, fi, err := c.dir.OpenFile(diskCacheKeyFile, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		path := filepath.Join(c.dir.Path(), diskCacheKeyFile)
		return fmt.Errorf("%s: mode %04o lets others read the key (chmod go-rwx %s)", path, m, path)
	}
	if _, err := io.ReadFull(f, c.key[:]); err != nil {
		// Another process may be writing it this instant.
		return fmt.Errorf("%s: %w", filepath.Join(c.dir.Path(), diskCacheKeyFile), err)
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
	if ch := c.remembered(name); ch != nil {
		return ch, nil
	}
	ch, err := c.lookup(name, path, sum)
	if ch != nil {
		c.remember(name, ch)
		return ch, nil
	}
	if err != nil {
		// Something else than an entry of ours is at the entry's name: say
		// so, and put the entry compiled now in its place (removing a link
		// itself, never its target). The hook loads either way.
		if o.Logger != nil {
			o.Logger.Warn("compiled-chunk cache: entry not used; the source is compiled", "file", path, "err", err)
		}
		c.dir.Remove(name)
	}
	ch, err = o.compileSource(path, src)
	if err != nil {
		return nil, err
	}
	c.store(name, path, sum, ch)
	c.remember(name, ch)
	return ch, nil
}

// remembered returns the chunk of entry name this process read or wrote
// before (after KeepDecoded), or nil. The name holds the source's path and SHA-256, so a
// changed source is another name.
func (c *DiskCache) remembered(name string) *Chunk {
	c.memMu.Lock()
	defer c.memMu.Unlock()
	return c.mem[name]
}

// remember keeps ch as the chunk of entry name, after KeepDecoded.
func (c *DiskCache) remember(name string, ch *Chunk) {
	c.memMu.Lock()
	defer c.memMu.Unlock()
	if c.mem == nil {
		return
	}
	if len(c.mem) >= maxMemChunks {
		clear(c.mem)
	}
	c.mem[name] = ch
}

// load reads, verifies and decodes an entry; nil when there is none that
// verifies and decodes.
func (c *DiskCache) load(name, path string, sum [sha256.Size]byte) *Chunk {
	ch, _ := c.lookup(name, path, sum)
	return ch
}

// lookup is load, with the refusal of what is at the entry's name when it
// is not a file the cache may use (*safefile.Error): a link, a named pipe,
// a folder, another user's file, a mode open to others' writes. A missing,
// damaged or foreign entry is no error: it is compiled again.
func (c *DiskCache) lookup(name, path string, sum [sha256.Size]byte) (*Chunk, error) {
	f, fi, err := c.dir.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		var refused *safefile.Error
		if errors.As(err, &refused) {
			return nil, err
		}
		return nil, nil
	}
	b, err := regfile.ReadAll(f, fi, filepath.Join(c.dir.Path(), name), maxDiskEntry)
	f.Close()
	if err != nil || len(b) < len(diskCacheMagic)+sha256.Size || string(b[:len(diskCacheMagic)]) != diskCacheMagic {
		return nil, nil
	}
	mac, body := b[len(diskCacheMagic):len(diskCacheMagic)+sha256.Size], b[len(diskCacheMagic)+sha256.Size:]
	if !hmac.Equal(mac, c.sign(body)) {
		return nil, nil
	}
	ch, err := decodeEntry(string(body), c.build, path, sum)
	if err != nil {
		return nil, nil
	}
	return ch, nil
}

func (c *DiskCache) sign(body []byte) []byte {
	m := hmac.New(sha256.New, c.key[:])
	m.Write(body)
	return m.Sum(nil)
}

// store writes ch's entry, through a temporary file renamed into place, so
// that a reader sees a whole entry or none (safefile's WriteFile: what is
// at the name must be an entry of ours). A failure leaves no entry.
func (c *DiskCache) store(name, path string, sum [sha256.Size]byte, ch *Chunk) {
	body, err := encodeEntry(c.build, path, sum, ch)
	if err != nil || len(body) > maxDiskEntry-len(diskCacheMagic)-sha256.Size {
		return
	}
	out := make([]byte, 0, len(diskCacheMagic)+sha256.Size+len(body))
	out = append(out, diskCacheMagic...)
	out = append(out, c.sign(body)...)
	out = append(out, body...)
	if err := c.dir.WriteFile(name, out, 0o600); err != nil {
		return
	}
	c.trim(name)
}

// trim removes the oldest entries past c.max (to three quarters of it),
// never keep (the entry just written), and temporary files left for an
// hour by a process that died writing them.
func (c *DiskCache) trim(keep string) {
	names, err := c.dir.Names()
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
		case strings.HasPrefix(n, ".tmp-") || strings.HasPrefix(n, ".") && strings.Contains(n, diskCacheSuffix+".luahook-"):
			if fi, err := c.dir.Lstat(n); err == nil && time.Since(fi.ModTime()) > time.Hour {
				c.dir.Remove(n)
			}
		}
	}
	if len(entries)+1 <= c.max {
		return
	}
	for i := range entries {
		if fi, err := c.dir.Lstat(entries[i].name); err == nil {
			entries[i].mod = fi.ModTime()
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.mod.Compare(b.mod) })
	for _, e := range entries[:len(entries)+1-c.max*3/4] {
		c.dir.Remove(e.name)
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
