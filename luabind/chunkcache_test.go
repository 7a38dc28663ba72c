package luabind

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

// loadRequiring loads a file that requires lib module "m" from lib, with
// cache, and returns the compiled module the file got.
func loadRequiring(t *testing.T, lib, name string, cache *ChunkCache) (*File, *Chunk) {
	t.Helper()
	c, err := Compile(name, []byte(`local m = require("m") hook.register("Stop", nil, function() end)`))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(context.Background(), c, Options{LibDir: lib, Chunks: cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f, f.sh.libs.chunkList()[0]
}

// TestChunkCacheCompilesALibOnceForTheFilesOfALoad: two files loaded with
// one cache share the compiled module; without a cache each compiles its
// own; and a file keeps no hold on the cache once it has loaded.
func TestChunkCacheCompilesALibOnceForTheFilesOfALoad(t *testing.T) {
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "m.lua"), []byte(`return {n = 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &ChunkCache{}
	f1, a := loadRequiring(t, lib, "a.lua", cache)
	_, b := loadRequiring(t, lib, "b.lua", cache)
	if a != b {
		t.Error("two files of one load compiled the same lib module twice")
	}
	_, c := loadRequiring(t, lib, "c.lua", nil)
	if c == a {
		t.Error("a file loaded without a cache got another file's chunk")
	}
	if f1.sh.opts.Chunks != nil {
		t.Error("a loaded file still holds the load's chunk cache")
	}
}

// TestChunkCacheReadsALibOnceForTheFilesOfALoad: the files of one load
// share the module as the first of them read it, even if it changed on disk
// since (the load reports the sum of what it read, so the engine finds it
// stale: LibSum); the next load (a new cache) reads the change.
func TestChunkCacheReadsALibOnceForTheFilesOfALoad(t *testing.T) {
	lib := t.TempDir()
	path := filepath.Join(lib, "m.lua")
	if err := os.WriteFile(path, []byte(`return {n = 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &ChunkCache{}
	_, a := loadRequiring(t, lib, "a.lua", cache)
	if err := os.WriteFile(path, []byte(`return {n = 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, b := loadRequiring(t, lib, "b.lua", cache)
	if a != b {
		t.Fatal("a second file of the load read the module again")
	}
	if sum, ok := cache.LibSum(lib, "m"); !ok || sum != sha256.Sum256([]byte(`return {n = 1}`)) {
		t.Errorf("LibSum gives %x, %v; want the sum of the source read", sum, ok)
	}
	next := &ChunkCache{}
	_, c := loadRequiring(t, lib, "a.lua", next)
	if c == a {
		t.Fatal("the next load did not read the changed module")
	}
	if sum, _ := next.LibSum(lib, "m"); sum != sha256.Sum256([]byte(`return {n = 2}`)) {
		t.Error("the next load's LibSum is not the changed module's")
	}
	if _, ok := next.LibSum(lib, "other"); ok {
		t.Error("LibSum of a module no file required")
	}
}

// TestChunkCacheKeepsCoverageOwnCompile: options that instrument the chunk
// (Coverage) never take or leave a shared chunk.
func TestChunkCacheKeepsCoverageOwnCompile(t *testing.T) {
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "m.lua"), []byte(`return {n = 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &ChunkCache{}
	opts := &Options{LibDir: lib, Coverage: NewCoverage()}
	if _, err := cache.compile(opts, filepath.Join(lib, "m.lua"), []byte(`return {n = 1}`)); err != nil {
		t.Fatal(err)
	}
	if len(cache.chunks) != 0 {
		t.Error("an instrumented chunk went into the shared cache")
	}
}
