package modules

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/codec"
)

// Regexps holds the compiled re patterns of one file, shared by its states
// (a *regexp.Regexp is safe for concurrent use). The zero value is an empty
// cache.
type Regexps struct {
	mu       sync.Mutex
	m        map[string]*compiledRe
	compiles int // patterns compiled so far
}

// reCacheSize bounds the cache; past it, patterns are compiled per use.
const reCacheSize = 512

// Compiles returns how many patterns the cache has compiled so far.
func (c *Regexps) Compiles() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compiles
}

func (c *Regexps) get(pattern string) (*compiledRe, error) {
	c.mu.Lock()
	re, ok := c.m[pattern]
	c.mu.Unlock()
	if ok {
		return re, nil
	}
	re, err := compileRe(pattern)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.compiles++
	if c.m == nil {
		c.m = make(map[string]*compiledRe)
	}
	if len(c.m) < reCacheSize {
		c.m[pattern] = re
	}
	c.mu.Unlock()
	return re, nil
}

// OpenRe opens the re module, Go's RE2 syntax (linear time, no backtracking):
//
//	re.match(pattern, s) -> boolean
//	re.match_any(pattern, value[, skip]) -> boolean   any string in value (a table walked), but under skip's keys
//	re.find(pattern, s) -> match, captures... | nil
//	re.find_all(pattern, s[, n]) -> {match, ...}
//	re.gsub(s, pattern, repl[, n]) -> string, count   repl: "$1"/"${name}" template, or function(match, captures...)
//	re.split(pattern, s[, n]) -> {part, ...}
//	re.quote(s) -> pattern matching s literally
//
// A bad pattern is an error naming it; an argument of the wrong type is an
// error naming the function's signature (reSignatures).
func (m *Modules) OpenRe() {
	L := m.L
	mod := L.CreateTable(0, 7)
	mod.RawSetString("match", L.NewFunction(m.reMatch))
	mod.RawSetString("match_any", L.NewFunction(m.reMatchAny))
	mod.RawSetString("find", L.NewFunction(m.reFind))
	mod.RawSetString("find_all", L.NewFunction(m.reFindAll))
	mod.RawSetString("gsub", L.NewFunction(m.reGsub))
	mod.RawSetString("split", L.NewFunction(m.reSplit))
	mod.RawSetString("quote", L.NewFunction(m.reQuote))
	L.G.Global.RawSetString("re", mod)
}

// reSignature is how an re function is called: its arguments' names and
// types, in order; the last ones may be optional.
type reSignature struct {
	name  string
	usage string
	args  []reArg
}

type reArg struct {
	name     string
	types    []lua.LValueType // a number is also a string, as for L.CheckString
	optional bool
}

// reSignatures are the re functions' signatures. re.gsub takes the subject
// first, as string.gsub does; every other function takes the pattern first.
var reSignatures = []reSignature{
	{"match", "re.match(pattern, s)", []reArg{{"pattern", reString, false}, {"s", reString, false}}},
	{"find", "re.find(pattern, s)", []reArg{{"pattern", reString, false}, {"s", reString, false}}},
	{"find_all", "re.find_all(pattern, s[, n])", []reArg{{"pattern", reString, false}, {"s", reString, false}, {"n", reNumber, true}}},
	{"gsub", "re.gsub(s, pattern, repl[, n])", []reArg{{"s", reString, false}, {"pattern", reString, false},
		{"repl", []lua.LValueType{lua.LTString, lua.LTFunction}, false}, {"n", reNumber, true}}},
	{"split", "re.split(pattern, s[, n])", []reArg{{"pattern", reString, false}, {"s", reString, false}, {"n", reNumber, true}}},
	{"quote", "re.quote(s)", []reArg{{"s", reString, false}}},
	{"match_any", "re.match_any(pattern, value[, skip])", []reArg{{"pattern", reString, false},
		{"value", []lua.LValueType{lua.LTTable, lua.LTString, lua.LTNumber, lua.LTBool, lua.LTNil}, false},
		{"skip", []lua.LValueType{lua.LTTable}, true}}},
}

var (
	reString = []lua.LValueType{lua.LTString, lua.LTNumber}
	reNumber = []lua.LValueType{lua.LTNumber}
)

// check raises an error naming sig's signature when an argument has the
// wrong type: the order of re.gsub's arguments differs from the others', and
// the error says which is which. Each re function calls it first; it is a
// method of a package-level signature, so a state pays nothing for it.
func (sig *reSignature) check(L *lua.LState) {
	for i, a := range sig.args {
		v := L.Get(i + 1)
		if (a.optional && v == lua.LNil) || slices.Contains(a.types, v.Type()) {
			continue
		}
		want := a.types[0].String()
		if a.types[len(a.types)-1] == lua.LTFunction {
			want = "string or function"
		}
		L.RaiseError("re.%s: bad argument #%d (%s): %s expected, got %s; usage: %s",
			sig.name, i+1, a.name, want, v.Type().String(), sig.usage)
	}
}

// maxMatches bounds the matches one re call collects (each costs a slice).
const maxMatches = 1 << 16

// search compiles the pattern in argument n (checking its size) and returns
// a searcher of s for the re function fn.
func (m *Modules) search(L *lua.LState, fn string, n int, s string) *searcher {
	re := m.compiled(L, fn, n)
	if !m.searching {
		// The state's own searcher, when no re call of the state holds it
		// (a re.gsub replacement function may call re again): a searcher
		// per call was one allocation of every re call.
		m.searching = true
		m.searcher = searcher{}
		initSearcher(&m.searcher, L, fn, re, s)
		return &m.searcher
	}
	return newSearcher(L, fn, re, s)
}

// compiled returns the compiled pattern argument n of re function fn.
func (m *Modules) compiled(L *lua.LState, fn string, n int) *compiledRe {
	pattern := L.CheckString(n)
	if len(pattern) > MaxRegexpBytes {
		L.RaiseError("re.%s: pattern of %d bytes exceeds the %d-byte limit", fn, len(pattern), MaxRegexpBytes)
	}
	if m.recent == nil {
		m.recent = new([reMemoSize]reMemo)
	}
	memo := &m.recent[memoSlot(pattern)]
	if memo.re != nil && memo.pattern == pattern {
		return memo.re
	}
	re, err := m.cfg.Regexps.get(pattern)
	if err != nil {
		L.RaiseError("re.%s: bad pattern %q: %v", fn, pattern, err)
	}
	*memo = reMemo{pattern: pattern, re: re}
	return re
}

// reMemoSize is the number of patterns a state remembers by address.
const reMemoSize = 8

// reMemo is a pattern a state looked up, in a slot chosen by the address
// of its text: a policy's pattern is a constant of its chunk, the same Go
// string at every call, which lands in the same slot and compares equal at
// once (same address and length; another text of the same length is
// compared byte by byte). The cache's lookup hashes the whole text (a
// kilobyte for shell.quick's) and takes a lock.
type reMemo struct {
	pattern string
	re      *compiledRe
}

func memoSlot(s string) int {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return int((p>>3 ^ p>>9 ^ uintptr(len(s))) % reMemoSize)
}

// done gives the state's searcher back when sr is it; every caller of
// search defers it. A searcher not given back only makes later calls
// allocate their own.
func (m *Modules) done(sr *searcher) {
	if sr == &m.searcher {
		m.searcher = searcher{} // keeps no subject alive
		m.searching = false
	}
}

func (m *Modules) reMatch(L *lua.LState) int {
	reSignatures[0].check(L)
	s := L.CheckString(2)
	re := m.compiled(L, "match", 1)
	L.Push(lua.LBool(m.matchOne(L, "match", re, s)))
	return 1
}

// matchOne reports whether re matches s for the re function fn: at once
// when the pattern's needs or its automaton decide, in one uninterruptible
// search when the work is small (allocating nothing), else in a searcher
// that watches the call's context.
func (m *Modules) matchOne(L *lua.LState, fn string, re *compiledRe, s string) bool {
	if !re.mayHoldNeeds(s) {
		return false
	}
	if matched, ok := re.decided(s); ok {
		return matched
	}
	if re.work(s) <= fastRegexpWork {
		return re.rx().MatchString(s)
	}
	sr := m.search(L, fn, 1, s)
	defer m.done(sr)
	return sr.matches()
}

// MatchAnyDepth is how deep re.match_any walks nested tables; a table
// deeper than that counts as a match (the walk cannot say there is none),
// as does a cycle, which reaches it.
const MatchAnyDepth = 64

// matchAnyCheck is how many values re.match_any visits between two looks
// at the call's context.
const matchAnyCheck = 1024

// reMatchAny is re.match_any(pattern, value[, skip]): whether pattern
// matches a string in value, value itself when it is a string, else every
// string in the table and in the tables in it, keys not included, except a
// string whose key, or for an element of a list the key of the nearest
// table above it with a string key, is a key of skip with a true value.
// Numbers and booleans are not strings here. One Go call for what a pairs
// loop of type checks and re.match calls would do, which is its reason to
// be: "does any argument of this tool name X", on every call.
func (m *Modules) reMatchAny(L *lua.LState) int {
	reSignatures[6].check(L)
	re := m.compiled(L, "match_any", 1)
	var skip *lua.LTable
	if t, ok := L.Get(3).(*lua.LTable); ok {
		skip = t
	}
	visited := 0
	L.Push(lua.LBool(m.matchAnyIn(L, re, L.Get(2), "", false, skip, 0, &visited)))
	return 1
}

// boxedIndexes are the list indexes re.match_any most often resumes a
// walk after, as interface values made once: nil for 0 (the walk's start).
var boxedIndexes = func() (b [64]lua.LValue) {
	b[0] = lua.LNil
	for i := 1; i < len(b); i++ {
		b[i] = lua.LNumber(i)
	}
	return b
}()

// boxedIndex is the key Next resumes from after a list part of n values.
func boxedIndex(n int) lua.LValue {
	if n < len(boxedIndexes) {
		return boxedIndexes[n]
	}
	return lua.LNumber(n)
}

// matchAnyIn is re.match_any's walk of v, found under key when keyed.
func (m *Modules) matchAnyIn(L *lua.LState, re *compiledRe, v lua.LValue, key string, keyed bool, skip *lua.LTable, depth int, visited *int) bool {
	switch v := v.(type) {
	case lua.LString:
		if skip != nil && keyed && lua.LVAsBool(skip.RawGetString(key)) {
			return false
		}
		return m.matchOne(L, "match_any", re, string(v))
	case *lua.LTable:
		if depth >= MatchAnyDepth {
			return true
		}
		// The list part first, by index: Next would hand out each index
		// as a new interface value (an allocation); then the rest, from
		// the key after the list part's last.
		n := v.Len()
		for i := 1; i <= n; i++ {
			if *visited++; *visited%matchAnyCheck == 0 {
				raiseIfDone(L, "re.match_any")
			}
			if m.matchAnyIn(L, re, v.RawGetInt(i), key, keyed, skip, depth+1, visited) {
				return true
			}
		}
		for k, x := v.Next(boxedIndex(n)); k != lua.LNil; k, x = v.Next(k) {
			if *visited++; *visited%matchAnyCheck == 0 {
				raiseIfDone(L, "re.match_any")
			}
			under, keyedHere := key, keyed
			if ks, ok := k.(lua.LString); ok {
				under, keyedHere = string(ks), true
			}
			if m.matchAnyIn(L, re, x, under, keyedHere, skip, depth+1, visited) {
				return true
			}
		}
	}
	return false
}

func (m *Modules) reFind(L *lua.LState) int {
	reSignatures[1].check(L)
	s := L.CheckString(2)
	sr := m.search(L, "find", 1, s)
	defer m.done(sr)
	if !sr.re.mayMatch(s) {
		L.Push(lua.LNil)
		return 1
	}
	loc := sr.first()
	if loc == nil {
		L.Push(lua.LNil)
		return 1
	}
	for i := 0; i < len(loc); i += 2 {
		if loc[i] < 0 {
			L.Push(lua.LNil) // a group that did not take part in the match
		} else {
			L.Push(lua.LString(s[loc[i]:loc[i+1]]))
		}
	}
	return len(loc) / 2
}

func (m *Modules) reFindAll(L *lua.LState) int {
	reSignatures[2].check(L)
	s := L.CheckString(2)
	sr := m.search(L, "find_all", 1, s)
	defer m.done(sr)
	n := L.OptInt(3, -1)
	t := L.NewTable()
	t.Metatable = m.codec.ArrayMT
	for i, loc := range sr.all(n) {
		t.RawSetInt(i+1, lua.LString(s[loc[0]:loc[1]]))
	}
	L.Push(t)
	return 1
}

func (m *Modules) reSplit(L *lua.LState) int {
	reSignatures[4].check(L)
	s := L.CheckString(2)
	sr := m.search(L, "split", 1, s)
	defer m.done(sr)
	n := L.OptInt(3, -1)
	t := L.NewTable()
	t.Metatable = m.codec.ArrayMT
	if n == 0 {
		L.Push(t)
		return 1
	}
	if len(sr.re.pattern) > 0 && len(s) == 0 {
		t.RawSetInt(1, lua.LString(""))
		L.Push(t)
		return 1
	}
	// As regexp.Split, with the number of matches bounded.
	parts, beg, end := 0, 0, 0
	for _, loc := range sr.all(n) {
		if n > 0 && parts == n-1 {
			break
		}
		end = loc[0]
		if loc[1] != 0 {
			parts++
			t.RawSetInt(parts, lua.LString(s[beg:end]))
		}
		beg = loc[1]
	}
	if end != len(s) {
		t.RawSetInt(parts+1, lua.LString(s[beg:]))
	}
	L.Push(t)
	return 1
}

func (m *Modules) reGsub(L *lua.LState) int {
	reSignatures[3].check(L)
	s := L.CheckString(1)
	L.CheckTypes(3, lua.LTString, lua.LTFunction)
	repl := L.Get(3)
	n := L.OptInt(4, -1)
	capBytes := m.cfg.MaxStringBytes
	var locs [][]int
	var sr *searcher
	if re := m.compiled(L, "gsub", 2); re.mayMatch(s) {
		sr = m.search(L, "gsub", 2, s)
		defer m.done(sr)
		locs = sr.all(n)
	}
	if len(locs) == 0 {
		// Nothing replaced: the subject itself, and nothing built (a
		// number subject is returned as its string, as before).
		if v := L.Get(1); v.Type() == lua.LTString {
			L.Push(v)
		} else {
			L.Push(lua.LString(s))
		}
		L.Push(codec.Number(0))
		return 2
	}
	var tmpl *template
	if r, ok := repl.(lua.LString); ok {
		tmpl = goTemplate(string(r), sr.re.rx().SubexpNames(), func() { raiseIfDone(L, "re.gsub") })
	}
	var b strings.Builder
	// grow checks that the result can take n more bytes.
	grow := func(n int) {
		if b.Len()+n > capBytes {
			m.tooBig(L, "re.gsub", b.Len()+n)
		}
	}
	last, count := 0, 0
	for _, loc := range locs {
		grow(loc[0] - last)
		b.WriteString(s[last:loc[0]])
		if tmpl != nil {
			tmpl.resolveGo(s, loc)
			grow(tmpl.size())
			sr.spend(tmpl.write(&b))
		} else {
			L.Push(repl)
			for i := 0; i < len(loc); i += 2 {
				if loc[i] < 0 {
					L.Push(lua.LNil)
				} else {
					L.Push(lua.LString(s[loc[i]:loc[i+1]]))
				}
			}
			L.Call(len(loc)/2, 1)
			text := s[loc[0]:loc[1]] // nil or false: keep the match
			switch v := L.Get(-1).(type) {
			case lua.LString, lua.LNumber:
				text = lua.LVAsString(v)
			case *lua.LNilType:
			case lua.LBool:
				if v {
					L.RaiseError("re.gsub: invalid replacement value (a boolean)")
				}
			default:
				L.RaiseError("re.gsub: invalid replacement value (a %s)", v.Type().String())
			}
			L.Pop(1)
			grow(len(text))
			b.WriteString(text)
		}
		last = loc[1]
		count++
	}
	grow(len(s) - last)
	b.WriteString(s[last:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(count))
	return 2
}

// MaxRegexpBytes bounds the source of one re pattern.
const MaxRegexpBytes = 16 << 10

// reQuote is re.quote: regexp.QuoteMeta, which doubles each special
// character, with its result capped.
func (m *Modules) reQuote(L *lua.LState) int {
	reSignatures[5].check(L)
	s := L.CheckString(1)
	size := len(s)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\.+*?()|[]{}^$`, s[i]) >= 0 {
			size++
		}
	}
	if size > m.cfg.MaxStringBytes {
		m.tooBig(L, "re.quote", size)
	}
	L.Push(lua.LString(regexp.QuoteMeta(s)))
	return 1
}
