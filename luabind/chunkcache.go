package luabind

import (
	"crypto/sha256"
	"path/filepath"
	"sync"
)

// ChunkCache shares compiled lib modules among the files of one load: the
// files of a hooks folder that require the same module compile it once. An
// entry is keyed by the module's path and the SHA-256 of the source read, so
// a module that changed between two files is compiled again, and a Chunk is
// immutable, so sharing it is sharing code, never state. Each file still
// runs the module in its own states and keeps its own copy of what it
// required (File.Requires). Load uses the cache only while it runs the
// file's top level; a cache lives as long as its creator keeps it (the
// engine: one load of the folder). The zero value is ready to use.
type ChunkCache struct {
	mu     sync.Mutex
	chunks map[chunkKey]*Chunk
	// sources holds the lib files read during the load, so that the files
	// that require the same module read and check it once.
	sources map[sourceKey]libSource
}

type chunkKey struct {
	path string
	sum  [sha256.Size]byte
}

type sourceKey struct {
	libDir, rel string
	limit       int
}

type libSource struct {
	src []byte
	sum [sha256.Size]byte
}

// compile returns the chunk of src compiled under path with opts, from c
// when a file compiled the same source under the same path before. A nil c,
// or options that instrument the chunk (Coverage), compile every time.
func (c *ChunkCache) compile(opts *Options, path string, src []byte) (*Chunk, error) {
	if c == nil || opts.Coverage != nil {
		return opts.Compile(path, src)
	}
	return c.compileSum(opts, path, src, sha256.Sum256(src))
}

func (c *ChunkCache) compileSum(opts *Options, path string, src []byte, sum [sha256.Size]byte) (*Chunk, error) {
	key := chunkKey{path: path, sum: sum}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.chunks[key]; ok {
		return ch, nil
	}
	ch, err := opts.compileSum(path, src, &sum)
	if err != nil {
		return nil, err
	}
	if c.chunks == nil {
		c.chunks = make(map[chunkKey]*Chunk)
	}
	c.chunks[key] = ch
	return ch, nil
}

// readLib reads lib module file rel as readLib does, once for the whole
// load: a later file of the load gets the bytes (and the checks) of the
// first read. A nil c reads every time; a failed read is not kept.
func (c *ChunkCache) readLib(opts *Options, rel string) ([]byte, [sha256.Size]byte, error) {
	if c == nil {
		src, err := readLib(opts.LibDir, rel, opts.CheckLib, opts.MaxSourceBytes)
		if err != nil {
			return nil, [sha256.Size]byte{}, err
		}
		sum := sha256.Sum256(src)
		if err := opts.verifyLib(rel, sum); err != nil {
			return nil, [sha256.Size]byte{}, err
		}
		return src, sum, nil
	}
	key := sourceKey{libDir: opts.LibDir, rel: rel, limit: opts.MaxSourceBytes}
	c.mu.Lock()
	s, ok := c.sources[key]
	c.mu.Unlock()
	if ok {
		return s.src, s.sum, nil
	}
	src, err := readLib(opts.LibDir, rel, opts.CheckLib, opts.MaxSourceBytes)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	s = libSource{src: src, sum: sha256.Sum256(src)}
	if err := opts.verifyLib(rel, s.sum); err != nil {
		return nil, [sha256.Size]byte{}, err // not kept: each file meets the refusal
	}
	c.mu.Lock()
	if c.sources == nil {
		c.sources = make(map[sourceKey]libSource)
	}
	c.sources[key] = s
	c.mu.Unlock()
	return s.src, s.sum, nil
}

// verifyLib applies o.VerifyLib to what require read of module file rel.
func (o *Options) verifyLib(rel string, sum [sha256.Size]byte) error {
	if o.VerifyLib == nil {
		return nil
	}
	return o.VerifyLib(filepath.Join(o.LibDir, filepath.FromSlash(rel)), sum)
}

// LibSum returns the SHA-256 of lib module m's file (a dot-separated name)
// as a file of this load read it from libDir, and whether one did.
func (c *ChunkCache) LibSum(libDir, m string) ([sha256.Size]byte, bool) {
	if c == nil {
		return [sha256.Size]byte{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, s := range c.sources {
		if k.libDir == libDir && k.rel == moduleRel(m) {
			return s.sum, true
		}
	}
	return [sha256.Size]byte{}, false
}
