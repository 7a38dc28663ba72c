package modules

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/codec"
)

// readOnly is a table that Lua code cannot write: a module's proxy (whose
// contents are in backing), the frozen globals, rt.
type readOnly struct {
	what    string      // "the string module", for errors; "" for "this table"
	path    string      // a module's name as Lua code spells it ("hook.events")
	backing *lua.LTable // the contents the table shows; nil for rt
}

func (r readOnly) describe() string {
	if r.what == "" {
		return "this table"
	}
	return r.what
}

// moduleNames are the sandbox's module tables, read-only to Lua code (io
// only where it is granted).
var moduleNames = []string{"string", "table", "math", "os", "io", "json", "hook", "log", "re", "store", "env", "memo", "session", "fs"}

// Seal makes every module table read-only, from the file's own top
// level on: a hook call that replaced re.match or string.find would change
// every later call on the pooled state, a fail-closed guard's included, and
// a file has no business changing the sandbox's modules. Each module table
// becomes, in place (so that every reference to it, such as the string
// metatable's __index, sees the change), an empty proxy whose metatable
// reads from the contents, refuses writes naming the module, and is
// protected from getmetatable and setmetatable. Tables nested in a module
// (hook.events) are sealed too. The base and table functions that read or
// write a table's contents raw see through a proxy or refuse it, so that
// pairs, ipairs, #, unpack and table.concat keep working on modules, and
// rawset and table.insert cannot get round the proxy. Reading a module
// field goes through __index tables only: no Lua code runs, as the codec's
// reuse analysis counts on for string methods.
func (m *Modules) Seal() {
	L := m.L
	g := L.G.Global
	base := func(name string) *lua.LFunction { return g.RawGetString(name).(*lua.LFunction) }
	// pairs' and ipairs' own iterators, for every table but a proxy.
	pairsAux := base("pairs").Upvalues[0].Value()
	// ipairs' iterator is gopher-lua's, but for the index it pushes: a
	// small one boxed once (codec.Number) rather than on every step.
	ipairsAux := L.NewFunction(plainIpairsAux)
	seeNext, seeIpairsAux := L.NewFunction(m.baseNext), L.NewFunction(m.ipairsAux)
	g.RawSetString("next", seeNext)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		if m.Contents(t) != t {
			L.Push(seeNext)
		} else {
			L.Push(pairsAux)
		}
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	}))
	g.RawSetString("ipairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		if m.Contents(t) != t {
			L.Push(seeIpairsAux)
		} else {
			L.Push(ipairsAux)
		}
		L.Push(t)
		L.Push(lua.LNumber(0))
		return 3
	}))
	g.RawSetString("unpack", L.NewFunction(m.seeThrough(base("unpack").GFunction)))
	tab := g.RawGetString("table").(*lua.LTable)
	for _, name := range []string{"concat", "getn", "maxn"} {
		tab.RawSetString(name, L.NewFunction(m.seeThrough(tab.RawGetString(name).(*lua.LFunction).GFunction)))
	}
	for _, name := range []string{"insert", "remove", "sort"} {
		tab.RawSetString(name, L.NewFunction(m.refuseReadOnly("table."+name, tab.RawGetString(name).(*lua.LFunction).GFunction)))
	}
	for _, name := range moduleNames {
		if t, ok := g.RawGetString(name).(*lua.LTable); ok {
			m.seal(t, name, "the "+name+" module")
		}
	}
}

// seal turns t, in place, into a read-only proxy of its contents. The
// write refusal and the length are one function each for every proxy of the
// state (they find the table's record in m.readonly); only __index, the
// contents, is the proxy's own.
func (m *Modules) seal(t *lua.LTable, path, what string) {
	L := m.L
	backing := &lua.LTable{}
	*backing = *t
	*t = lua.LTable{}
	for k, v := backing.Next(lua.LNil); k != lua.LNil; k, v = backing.Next(k) {
		name, isName := k.(lua.LString)
		if sub, ok := v.(*lua.LTable); ok && isName && (sub.Metatable == nil || sub.Metatable == lua.LNil) {
			m.seal(sub, path+"."+string(name), "the "+path+"."+string(name)+" table")
		}
	}
	if m.proxyNewindex == nil {
		m.proxyNewindex = L.NewFunction(func(L *lua.LState) int {
			r, _ := m.readOnlyOf(L.CheckTable(1))
			L.RaiseError("%s is read-only (assignment to %s.%s)", r.describe(), r.path, L.Get(2).String())
			return 0
		})
		m.proxyLen = L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(m.Contents(L.CheckTable(1)).Len()))
			return 1
		})
	}
	t.Metatable = codec.NewLookupTable(L, map[string]lua.LValue{
		"__index": backing, "__newindex": m.proxyNewindex, "__len": m.proxyLen, "__metatable": lua.LString("protected"),
	})
	m.protect(t, readOnly{what: what, path: path, backing: backing})
}

// SealTable makes t, in place, a read-only proxy of its contents, as the
// modules are (what names it in errors, path in assignments): a host
// module and the tables of its members.
func (m *Modules) SealTable(t *lua.LTable, path, what string) { m.seal(t, path, what) }

// Protect records t, which the state made read-only itself, as read-only for
// rawset, table.insert and the other functions that write raw: the frozen
// globals, whose contents are in backing, or a table whose __newindex
// refuses writes (backing nil).
func (m *Modules) Protect(t, backing *lua.LTable) { m.protect(t, readOnly{backing: backing}) }

// ReadOnly reports whether t is read-only, and what to call it in an error
// ("the string module", "this table").
func (m *Modules) ReadOnly(t *lua.LTable) (what string, ok bool) {
	r, ok := m.readOnlyOf(t)
	return r.describe(), ok
}

// protect records t as read-only.
func (m *Modules) protect(t *lua.LTable, r readOnly) {
	if m.readonly == nil {
		m.readonly = make(map[*lua.LTable]readOnly)
	}
	m.readonly[t] = r
}

// readOnlyOf reports whether t is read-only, and how. Tables without a
// metatable, the common case, cost one comparison.
func (m *Modules) readOnlyOf(t *lua.LTable) (readOnly, bool) {
	if t.Metatable == lua.LNil || t.Metatable == nil || t.Metatable == m.codec.ObjectMT || t.Metatable == m.codec.ArrayMT {
		return readOnly{}, false
	}
	r, ok := m.readonly[t]
	return r, ok
}

// Contents returns the table whose contents t shows: a module proxy's
// backing, or t itself.
func (m *Modules) Contents(t *lua.LTable) *lua.LTable {
	if r, ok := m.readOnlyOf(t); ok && r.backing != nil {
		return r.backing
	}
	return t
}

// Module returns the contents of a sealed module, for Go code that installs
// a function in it.
func (m *Modules) Module(name string) *lua.LTable {
	return m.Contents(m.L.G.Global.RawGetString(name).(*lua.LTable))
}

// baseNext is next, reading a module proxy's contents.
func (m *Modules) baseNext(L *lua.LState) int {
	t := m.Contents(L.CheckTable(1))
	k, v := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

// ipairsAux is ipairs' iterator for a module proxy.
func (m *Modules) ipairsAux(L *lua.LState) int {
	return ipairsStep(L, m.Contents(L.CheckTable(1)))
}

// plainIpairsAux is ipairs' iterator over a table that is not a proxy.
func plainIpairsAux(L *lua.LState) int { return ipairsStep(L, L.CheckTable(1)) }

// ipairsStep pushes t's next index and value after the index in argument 2,
// or nothing at the end, as gopher-lua's ipairs iterator does.
func ipairsStep(L *lua.LState, t *lua.LTable) int {
	i := L.CheckInt(2) + 1
	v := t.RawGetInt(i)
	if v == lua.LNil {
		return 0
	}
	L.Push(codec.Number(i))
	L.Push(v)
	return 2
}

// seeThrough wraps a function that reads its first argument's contents raw
// so that it reads a module proxy's contents.
func (m *Modules) seeThrough(fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if c := m.Contents(t); c != t {
				L.Replace(1, c)
			}
		}
		return fn(L)
	}
}

// refuseReadOnly wraps a function that writes its first argument raw so that
// it refuses a read-only table.
func (m *Modules) refuseReadOnly(name string, fn lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if r, ok := m.readOnlyOf(t); ok {
				L.RaiseError("%s: %s is read-only", name, r.describe())
			}
		}
		return fn(L)
	}
}
