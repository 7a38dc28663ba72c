package luabind

import (
	"regexp"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// reCache holds the compiled patterns of one file, shared by its states
// (a *regexp.Regexp is safe for concurrent use).
type reCache struct {
	mu       sync.Mutex
	m        map[string]*regexp.Regexp
	compiles int // patterns compiled so far
}

// reCacheSize bounds the cache; past it, patterns are compiled per use.
const reCacheSize = 512

func (c *reCache) get(pattern string) (*regexp.Regexp, error) {
	c.mu.Lock()
	re, ok := c.m[pattern]
	c.mu.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.compiles++
	if c.m == nil {
		c.m = make(map[string]*regexp.Regexp)
	}
	if len(c.m) < reCacheSize {
		c.m[pattern] = re
	}
	c.mu.Unlock()
	return re, nil
}

// openRe opens the re module, Go's RE2 syntax (linear time, no backtracking):
//
//	re.match(pattern, s) -> boolean
//	re.find(pattern, s) -> match, captures... | nil
//	re.find_all(pattern, s[, n]) -> {match, ...}
//	re.gsub(s, pattern, repl[, n]) -> string, count   repl: "$1"/"${name}" template, or function(match, captures...)
//	re.split(pattern, s[, n]) -> {part, ...}
//	re.quote(s) -> pattern matching s literally
//
// A bad pattern is an error naming it.
func (st *state) openRe() {
	L := st.L
	mod := L.CreateTable(0, 6)
	mod.RawSetString("match", L.NewFunction(st.reMatch))
	mod.RawSetString("find", L.NewFunction(st.reFind))
	mod.RawSetString("find_all", L.NewFunction(st.reFindAll))
	mod.RawSetString("gsub", L.NewFunction(st.reGsub))
	mod.RawSetString("split", L.NewFunction(st.reSplit))
	mod.RawSetString("quote", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(regexp.QuoteMeta(L.CheckString(1))))
		return 1
	}))
	L.G.Global.RawSetString("re", mod)
}

// maxMatches bounds the matches one re call collects (each costs a slice).
const maxMatches = 1 << 16

// allMatches returns up to n matches (n < 0: all) with their submatch
// indexes; more than maxMatches is an error.
func allMatches(L *lua.LState, fn string, re *regexp.Regexp, s string, n int) [][]int {
	if n < 0 || n > maxMatches {
		n = maxMatches + 1
	}
	locs := re.FindAllStringSubmatchIndex(s, n)
	if len(locs) > maxMatches {
		L.RaiseError("re.%s: more than %d matches", fn, maxMatches)
	}
	return locs
}

func (st *state) regexp(L *lua.LState, fn string, n int) *regexp.Regexp {
	pattern := L.CheckString(n)
	re, err := st.sh.re.get(pattern)
	if err != nil {
		L.RaiseError("re.%s: bad pattern %q: %v", fn, pattern, err)
	}
	return re
}

func (st *state) reMatch(L *lua.LState) int {
	re := st.regexp(L, "match", 1)
	L.Push(lua.LBool(re.MatchString(L.CheckString(2))))
	return 1
}

func (st *state) reFind(L *lua.LState) int {
	re := st.regexp(L, "find", 1)
	s := L.CheckString(2)
	loc := re.FindStringSubmatchIndex(s)
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

func (st *state) reFindAll(L *lua.LState) int {
	re := st.regexp(L, "find_all", 1)
	s := L.CheckString(2)
	n := L.OptInt(3, -1)
	t := L.NewTable()
	t.Metatable = st.arrayMT
	for i, loc := range allMatches(L, "find_all", re, s, n) {
		t.RawSetInt(i+1, lua.LString(s[loc[0]:loc[1]]))
	}
	L.Push(t)
	return 1
}

func (st *state) reSplit(L *lua.LState) int {
	re := st.regexp(L, "split", 1)
	s := L.CheckString(2)
	n := L.OptInt(3, -1)
	t := L.NewTable()
	t.Metatable = st.arrayMT
	if n == 0 {
		L.Push(t)
		return 1
	}
	if len(re.String()) > 0 && len(s) == 0 {
		t.RawSetInt(1, lua.LString(""))
		L.Push(t)
		return 1
	}
	// As regexp.Split, with the number of matches bounded.
	parts, beg, end := 0, 0, 0
	for _, loc := range allMatches(L, "split", re, s, n) {
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

func (st *state) reGsub(L *lua.LState) int {
	s := L.CheckString(1)
	re := st.regexp(L, "gsub", 2)
	L.CheckTypes(3, lua.LTString, lua.LTFunction)
	repl := L.Get(3)
	n := L.OptInt(4, -1)
	capBytes := st.sh.opts.MaxStringBytes
	var b strings.Builder
	last, count := 0, 0
	for _, loc := range allMatches(L, "gsub", re, s, n) {
		b.WriteString(s[last:loc[0]])
		switch r := repl.(type) {
		case lua.LString:
			b.Write(re.ExpandString(nil, string(r), s, loc))
		case *lua.LFunction:
			L.Push(r)
			for i := 0; i < len(loc); i += 2 {
				if loc[i] < 0 {
					L.Push(lua.LNil)
				} else {
					L.Push(lua.LString(s[loc[i]:loc[i+1]]))
				}
			}
			L.Call(len(loc)/2, 1)
			switch v := L.Get(-1).(type) {
			case lua.LString, lua.LNumber:
				b.WriteString(lua.LVAsString(v))
			case *lua.LNilType:
				b.WriteString(s[loc[0]:loc[1]])
			case lua.LBool:
				if v {
					L.RaiseError("re.gsub: invalid replacement value (a boolean)")
				}
				b.WriteString(s[loc[0]:loc[1]])
			default:
				L.RaiseError("re.gsub: invalid replacement value (a %s)", v.Type().String())
			}
			L.Pop(1)
		}
		last = loc[1]
		count++
		if b.Len() > capBytes {
			st.tooBig(L, "re.gsub", b.Len())
		}
	}
	b.WriteString(s[last:])
	if b.Len() > capBytes {
		st.tooBig(L, "re.gsub", b.Len())
	}
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(count))
	return 2
}
