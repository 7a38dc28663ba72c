package modules

import (
	"container/list"
	"math"
	"strconv"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// The memo module: memo.call(fn, ...) returns what fn(...) returns, computed
// once for the same code and arguments and copied out of a cache after
// that. It is for lib modules whose pure functions many hook files call on
// the same payload: the shell parser reads a command line once for every
// pack that judges it, not once per pack.
//
// The cache is the process's, shared by every state of every file: an entry
// is keyed by fn's compiled code (the *lua.FunctionProto, which the files of
// one load share when they require the same module source: ChunkCache) and
// the arguments, so that two versions of a lib never share results, and a
// file's own function is its file's alone. The results are copied into a
// graph of the cache's own when stored (which no Lua code ever sees, so that
// it never changes), and copied again into each caller's state when read:
// a caller may change what it gets without touching anyone else's copy.
// Only plain data is kept (nil, booleans, numbers, strings, and tables of
// those without metatables, shared sub-tables kept shared); a result holding
// anything else (a function, a table with a metatable, a table as a key) is
// returned as computed and not kept. Bounds: memoMaxEntries entries and
// memoMaxBytes for all of them, each result at most memoMaxNodes tables
// and strings and memoMaxResultBytes; least recently used first out.
//
// fn must compute its results from its arguments alone (and constants of
// its module): a function that reads mutable state would hand one call's
// answer to another. Arguments are strings, numbers, booleans or nil, at
// most memoMaxArgs of them.

const (
	memoMaxEntries     = 512
	memoMaxBytes       = 32 << 20
	memoMaxNodes       = 1 << 15
	memoMaxResultBytes = 2 << 20
	memoMaxArgs        = 16
	memoMaxResults     = 8
	// memoNodeBytes is what a table or a value counts for against the bytes
	// bounds, beside the length of its strings.
	memoNodeBytes = 48
)

// memoKey names one entry: fn's code and its arguments, encoded.
type memoKey struct {
	proto *lua.FunctionProto
	args  string
}

// mnode is a table of a kept result: its array part and its other keys.
type mnode struct {
	arr        []mval
	keys, vals []mval
}

// mval is a kept value: a Lua value that is not a table (lv), or a table
// (t, the index of its node in the entry).
type mval struct {
	lv lua.LValue
	t  int32 // node index + 1; 0: not a table
}

// memoEntry is one kept result: its values and the nodes they refer to.
type memoEntry struct {
	key    memoKey
	rets   []mval
	nodes  []*mnode
	bytes  int
	elem   *list.Element
	shared bool // some node is reachable twice (kept shared when copied out)
}

type memoCache struct {
	mu      sync.Mutex
	entries map[memoKey]*memoEntry
	lru     list.List // front: most recently used
	bytes   int
	// hits and misses count lookups, for tests and benchmarks.
	hits, misses int
}

var memo = &memoCache{entries: map[memoKey]*memoEntry{}}

func (c *memoCache) get(k memoKey) *memoEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[k]
	if e == nil {
		c.misses++
		return nil
	}
	c.hits++
	c.lru.MoveToFront(e.elem)
	return e
}

func (c *memoCache) put(e *memoEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.entries[e.key]; old != nil {
		return // computed twice at once: the first one stays
	}
	for len(c.entries) >= memoMaxEntries || (c.bytes+e.bytes > memoMaxBytes && c.lru.Len() > 0) {
		last := c.lru.Back().Value.(*memoEntry)
		c.lru.Remove(last.elem)
		delete(c.entries, last.key)
		c.bytes -= last.bytes
	}
	e.elem = c.lru.PushFront(e)
	c.entries[e.key] = e
	c.bytes += e.bytes
}

// MemoStats returns how many lookups of the memo module found their entry
// and how many did not, since the process started.
func MemoStats() (hits, misses int) {
	memo.mu.Lock()
	defer memo.mu.Unlock()
	return memo.hits, memo.misses
}

// OpenMemo opens the memo module.
func (m *Modules) OpenMemo() {
	L := m.L
	mod := L.CreateTable(0, 1)
	mod.RawSetString("call", L.NewFunction(m.memoCall))
	L.G.Global.RawSetString("memo", mod)
}

// memoCall is memo.call(fn, ...).
func (m *Modules) memoCall(L *lua.LState) int {
	fn := L.CheckFunction(1)
	n := L.GetTop() - 1
	if n > memoMaxArgs {
		L.RaiseError("memo.call: %d arguments, more than the %d it keys on", n, memoMaxArgs)
	}
	keyable := !fn.IsG && fn.Proto != nil
	// Arguments that could not be kept anyway (their key alone past a
	// result's bound) are not copied into a key: fn is called uncached.
	argBytes := 0
	for i := 2; i <= n+1; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			argBytes += len(v)
		case lua.LNumber, lua.LBool:
		default:
			if v != lua.LNil {
				L.ArgError(i, "memo.call keys on strings, numbers, booleans and nil, not "+v.Type().String())
			}
		}
	}
	if argBytes > memoMaxResultBytes {
		keyable = false
	}
	var b strings.Builder
	for i := 2; keyable && i <= n+1; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			b.WriteByte('s')
			b.WriteString(strconv.Itoa(len(v)))
			b.WriteByte(':')
			b.WriteString(string(v))
		case lua.LNumber:
			b.WriteByte('n')
			b.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 64))
			b.WriteByte(';')
		case lua.LBool:
			if v {
				b.WriteByte('T')
			} else {
				b.WriteByte('F')
			}
		default:
			b.WriteByte('N')
		}
	}
	key := memoKey{proto: fn.Proto, args: b.String()}
	if keyable {
		if e := memo.get(key); e != nil {
			return m.memoPush(L, e)
		}
	}
	base := L.GetTop() - n - 1 // below fn
	L.Call(n, lua.MultRet)
	got := L.GetTop() - base
	if keyable && got <= memoMaxResults {
		rets := make([]lua.LValue, got)
		for i := range got {
			rets[i] = L.Get(base + 1 + i)
		}
		if e := memoStore(key, rets); e != nil {
			memo.put(e)
		}
	}
	return got
}

// memoStore copies rets into a new entry, or returns nil when they hold
// what the memo does not keep or pass its bounds.
func memoStore(key memoKey, rets []lua.LValue) *memoEntry {
	e := &memoEntry{key: key, bytes: len(key.args) + memoNodeBytes}
	seen := map[*lua.LTable]int32{}
	var conv func(v lua.LValue) (mval, bool)
	conv = func(v lua.LValue) (mval, bool) {
		switch x := v.(type) {
		case lua.LString:
			e.bytes += len(x) + memoNodeBytes
			return mval{lv: x}, true
		case lua.LNumber, lua.LBool:
			e.bytes += memoNodeBytes
			return mval{lv: x}, true
		case *lua.LTable:
			if id, ok := seen[x]; ok {
				e.shared = true
				return mval{t: id}, true
			}
			if x.Metatable != lua.LNil && x.Metatable != nil {
				return mval{}, false
			}
			if len(e.nodes) >= memoMaxNodes {
				return mval{}, false
			}
			nd := &mnode{}
			e.nodes = append(e.nodes, nd)
			id := int32(len(e.nodes))
			seen[x] = id
			e.bytes += memoNodeBytes
			n := x.Len()
			for i := 1; i <= n; i++ {
				cv, ok := conv(x.RawGetInt(i))
				if !ok {
					return mval{}, false
				}
				nd.arr = append(nd.arr, cv)
			}
			// Next, not ForEach: the copy is filled in the order pairs sees
			// the original's keys in.
			for k, v := x.Next(lua.LNil); k != lua.LNil; k, v = x.Next(k) {
				if num, isNum := k.(lua.LNumber); isNum && num >= 1 && float64(num) <= float64(n) && float64(num) == math.Floor(float64(num)) {
					continue // in the array part
				}
				if _, isTable := k.(*lua.LTable); isTable {
					return mval{}, false
				}
				ck, ok1 := conv(k)
				cv, ok2 := conv(v)
				if !ok1 || !ok2 {
					return mval{}, false
				}
				nd.keys = append(nd.keys, ck)
				nd.vals = append(nd.vals, cv)
			}
			if e.bytes > memoMaxResultBytes {
				return mval{}, false
			}
			return mval{t: id}, true
		default:
			if v == lua.LNil {
				return mval{lv: lua.LNil}, true
			}
			return mval{}, false
		}
	}
	for _, r := range rets {
		cv, ok := conv(r)
		if !ok || e.bytes > memoMaxResultBytes {
			return nil
		}
		e.rets = append(e.rets, cv)
	}
	return e
}

// memoPush pushes a copy of e's results onto L and returns how many.
func (m *Modules) memoPush(L *lua.LState, e *memoEntry) int {
	var made []*lua.LTable
	if e.shared {
		made = make([]*lua.LTable, len(e.nodes))
	}
	var out func(v mval) lua.LValue
	out = func(v mval) lua.LValue {
		if v.t == 0 {
			return v.lv
		}
		if made != nil && made[v.t-1] != nil {
			return made[v.t-1]
		}
		nd := e.nodes[v.t-1]
		t := L.CreateTable(len(nd.arr), len(nd.keys))
		if made != nil {
			made[v.t-1] = t
		}
		for i, a := range nd.arr {
			t.RawSetInt(i+1, out(a))
		}
		for i, k := range nd.keys {
			t.RawSet(out(k), out(nd.vals[i]))
		}
		return t
	}
	for _, r := range e.rets {
		L.Push(out(r))
	}
	return len(e.rets)
}
