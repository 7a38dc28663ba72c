package luabind

import (
	"crypto/sha256"
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
}

type chunkKey struct {
	path string
	sum  [sha256.Size]byte
}

// compile returns the chunk of src compiled under path with opts, from c
// when a file compiled the same source under the same path before. A nil c,
// or options that instrument the chunk (Coverage), compile every time.
func (c *ChunkCache) compile(opts *Options, path string, src []byte) (*Chunk, error) {
	if c == nil || opts.Coverage != nil {
		return opts.Compile(path, src)
	}
	key := chunkKey{path: path, sum: sha256.Sum256(src)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.chunks[key]; ok {
		return ch, nil
	}
	ch, err := opts.Compile(path, src)
	if err != nil {
		return nil, err
	}
	if c.chunks == nil {
		c.chunks = make(map[chunkKey]*Chunk)
	}
	c.chunks[key] = ch
	return ch, nil
}
