package luabind

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestKeepDecodedReadsEachEntryOnce: after KeepDecoded, a second compile of
// the same source is the chunk the first one gave, without reading the
// entry again (an entry emptied in between goes unnoticed, and is not
// rewritten); a cache without KeepDecoded reads it, finds it damaged and
// writes it again.
func TestKeepDecodedReadsEachEntryOnce(t *testing.T) {
	src := []byte(`return "kept"`)
	name := func(c *DiskCache, dir string) string {
		return filepath.Join(dir, c.entryName("k.lua", sha256.Sum256(src)))
	}
	kept, dir := openTestCache(t)
	kept.KeepDecoded()
	first := mustCompile(t, Options{DiskCache: kept}, "k.lua", src)
	if err := os.WriteFile(name(kept, dir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if again := mustCompile(t, Options{DiskCache: kept}, "k.lua", src); again != first {
		t.Error("KeepDecoded: the second compile is another chunk; want the one kept in memory")
	}
	if b, _ := os.ReadFile(name(kept, dir)); len(b) != 0 {
		t.Error("KeepDecoded: the entry was read and written again; want it read once")
	}
	if got := runChunk(t, first); got != "kept" {
		t.Errorf("the kept chunk returns %q, want kept", got)
	}

	plain, dir := openTestCache(t)
	mustCompile(t, Options{DiskCache: plain}, "k.lua", src)
	if err := os.WriteFile(name(plain, dir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	mustCompile(t, Options{DiskCache: plain}, "k.lua", src)
	if b, _ := os.ReadFile(name(plain, dir)); len(b) == 0 {
		t.Error("without KeepDecoded the damaged entry was not read and replaced")
	}
}

// TestKeepDecodedKeepsAtMostItsBound: the chunks kept in memory never pass
// maxMemChunks, however many sources are compiled.
func TestKeepDecodedKeepsAtMostItsBound(t *testing.T) {
	c, _ := openTestCache(t)
	c.KeepDecoded()
	for i := range maxMemChunks + 10 {
		mustCompile(t, Options{DiskCache: c}, "f.lua", []byte("return "+strconv.Itoa(i)))
		c.memMu.Lock()
		n := len(c.mem)
		c.memMu.Unlock()
		if n > maxMemChunks {
			t.Fatalf("after %d sources, %d chunks kept; want at most %d", i+1, n, maxMemChunks)
		}
	}
}
