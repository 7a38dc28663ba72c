package modules

import (
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestMemoStoreRefusesResultsPastItsBounds: a result of more tables and
// strings than memoMaxNodes, or of more bytes than memoMaxResultBytes, is
// not kept; one just inside is.
func TestMemoStoreRefusesResultsPastItsBounds(t *testing.T) {
	wide := func(n int) *lua.LTable {
		t := &lua.LTable{}
		for i := 1; i <= n; i++ {
			t.RawSetInt(i, &lua.LTable{})
		}
		return t
	}
	if memoStore(memoKey{}, []lua.LValue{wide(memoMaxNodes - 1)}) == nil {
		t.Errorf("a result of %d tables was refused", memoMaxNodes)
	}
	if memoStore(memoKey{}, []lua.LValue{wide(memoMaxNodes)}) != nil {
		t.Errorf("a result of %d tables was kept, past the bound of %d", memoMaxNodes+1, memoMaxNodes)
	}
	big := &lua.LTable{}
	big.RawSetString("s", lua.LString(strings.Repeat("x", memoMaxResultBytes)))
	if memoStore(memoKey{}, []lua.LValue{big}) != nil {
		t.Errorf("a result of more than %d bytes was kept", memoMaxResultBytes)
	}
	if memoStore(memoKey{}, []lua.LValue{lua.LString(strings.Repeat("x", memoMaxResultBytes))}) != nil {
		t.Errorf("a string result of more than %d bytes was kept", memoMaxResultBytes)
	}
}

// TestMemoCacheStaysWithinItsEntriesAndBytes: putting more entries than
// memoMaxEntries, or more bytes than memoMaxBytes, drops the least recently
// used; a lookup makes an entry recent.
func TestMemoCacheStaysWithinItsEntriesAndBytes(t *testing.T) {
	c := &memoCache{entries: map[memoKey]*memoEntry{}}
	key := func(i int) memoKey { return memoKey{args: strconv.Itoa(i)} }
	for i := range memoMaxEntries + 100 {
		c.put(&memoEntry{key: key(i), bytes: 100})
		if i == memoMaxEntries-1 {
			c.get(key(0)) // 0 is recent now; 1 is the oldest
		}
	}
	if len(c.entries) != memoMaxEntries || c.lru.Len() != memoMaxEntries {
		t.Errorf("%d entries (%d in the list), want %d", len(c.entries), c.lru.Len(), memoMaxEntries)
	}
	if c.get(key(1)) != nil || c.get(key(0)) == nil {
		t.Error("the least recently used entry was not the one dropped")
	}
	c = &memoCache{entries: map[memoKey]*memoEntry{}}
	for i := range 10 {
		c.put(&memoEntry{key: key(i), bytes: memoMaxBytes / 4})
	}
	if c.bytes > memoMaxBytes || len(c.entries) != 4 {
		t.Errorf("%d bytes in %d entries, want at most %d bytes in 4", c.bytes, len(c.entries), memoMaxBytes)
	}
}
