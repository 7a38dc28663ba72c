package hostbridge

import (
	"reflect"
	"sort"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// writable is a host.Writable as Lua sees it: a live map or struct that
// every read and write reaches under the host's lock. The lock is held
// around the Go side of one read or write only, never while Lua runs.
type writable struct {
	mod  *module
	name string        // "host.acme.flags"
	v    reflect.Value // the map, or the struct the pointer points to
	lock sync.Locker
	ti   *typeInfo // a struct's fields
}

type setterKey struct {
	w *writable
	f *field // nil for a map
}

func (st *State) newWritable(m *module, mem *member) *lua.LUserData {
	w := &writable{mod: m, name: "host." + m.name + "." + mem.name, v: reflect.ValueOf(mem.writable.Value), lock: mem.writable.Lock}
	if w.v.Kind() == reflect.Pointer {
		w.v = w.v.Elem()
		w.ti = st.set.types.info(w.v.Type(), false)
	}
	ud := st.L.NewUserData()
	ud.Value = w
	ud.Metatable = st.writableMeta()
	return ud
}

// acquire takes w's lock within the hook's deadline: a lock with TryLock
// (sync.Mutex, sync.RWMutex) is tried until it is free or the call's
// context is done, which raises the context's error, so a host that holds
// its lock does not hold the hook past its deadline; any other Locker is
// locked as it is.
func (w *writable) acquire(L *lua.LState) {
	tl, ok := w.lock.(interface{ TryLock() bool })
	if !ok {
		w.lock.Lock()
		return
	}
	ctx := L.Context()
	for wait := time.Microsecond; !tl.TryLock(); wait = min(2*wait, time.Millisecond) {
		if ctx != nil && ctx.Err() != nil {
			L.RaiseError("%s: waiting for the host's lock: %v", w.name, ctx.Err())
		}
		time.Sleep(wait)
	}
}

func (st *State) writableMeta() *lua.LTable {
	if st.writableMT != nil {
		return st.writableMT
	}
	L := st.L
	mt := L.CreateTable(0, 6)
	mt.RawSetString("__index", L.NewFunction(st.writableIndex))
	mt.RawSetString("__newindex", L.NewFunction(st.writableNewindex))
	mt.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		w := writableArg(L)
		if w.ti != nil {
			L.Push(lua.LNumber(len(w.ti.order)))
			return 1
		}
		w.acquire(L)
		n := w.v.Len()
		w.lock.Unlock()
		L.Push(lua.LNumber(n))
		return 1
	}))
	mt.RawSetString("__call", L.NewFunction(st.writableIter))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		w := writableArg(L)
		L.Push(lua.LString(w.name + ": " + w.v.Type().String() + " (writable)"))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("protected"))
	st.writableMT = mt
	return mt
}

func writableArg(L *lua.LState) *writable {
	w, ok := L.CheckUserData(1).Value.(*writable)
	if !ok {
		L.ArgError(1, "not a writable host value")
	}
	return w
}

// read converts the current value under key, under the lock.
func (st *State) read(w *writable, key string) (lua.LValue, *pathError) {
	c := st.converter(w.mod)
	if w.ti != nil {
		f := w.ti.fields[key]
		if f == nil {
			return lua.LNil, nil
		}
		w.acquire(st.L)
		defer w.lock.Unlock()
		return st.readField(w.mod, w.v, f)
	}
	k := reflect.ValueOf(key).Convert(w.v.Type().Key())
	w.acquire(st.L)
	defer w.lock.Unlock()
	return c.value(w.v.MapIndex(k), 0, false)
}

func (st *State) writableIndex(L *lua.LState) int {
	w := writableArg(L)
	key, ok := L.Get(2).(lua.LString)
	if !ok {
		return 0
	}
	lv, err := st.read(w, string(key))
	if err != nil {
		L.RaiseError("%s.%s: %v", w.name, string(key), err)
	}
	L.Push(lv)
	return 1
}

// writableNewindex checks the value against the map's element type or the
// field's type (argChecker), and has a setter made by gopher-luar convert
// and store it.
func (st *State) writableNewindex(L *lua.LState) int {
	w := writableArg(L)
	key, ok := L.Get(2).(lua.LString)
	if !ok {
		L.RaiseError("%s: keys are strings, not %s", w.name, L.Get(2).Type())
	}
	v := L.Get(3)
	var f *field
	var t reflect.Type
	if w.ti != nil {
		f = w.ti.fields[string(key)]
		if f == nil {
			L.RaiseError("%s: %s has no field %s", w.name, w.v.Type(), string(key))
		}
		if err := checkParam(f.typ, map[reflect.Type]bool{}); err != nil {
			L.RaiseError("%s.%s cannot be written from Lua: %v", w.name, string(key), err)
		}
		t = f.typ
	} else {
		t = w.v.Type().Elem()
		if v == lua.LNil {
			k := reflect.ValueOf(string(key)).Convert(w.v.Type().Key())
			w.acquire(L)
			w.v.SetMapIndex(k, reflect.Value{})
			w.lock.Unlock()
			return 0
		}
	}
	a := argChecker{st: st, max: st.lim.MaxValues}
	nv, err := a.check(v, t, 0)
	if err != nil {
		L.RaiseError("%s.%s: %v", w.name, string(key), err)
	}
	L.Push(st.setter(w, f))
	L.Push(key)
	L.Push(nv)
	if err := L.PCall(2, 0, nil); err != nil {
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			msg = ae.Object.String()
		}
		L.RaiseError("%s.%s: %s", w.name, string(key), msg)
	}
	return 0
}

// setter returns the state's gopher-luar function that stores a value
// converted to the map's element type, or to field f's type.
func (st *State) setter(w *writable, f *field) *lua.LFunction {
	k := setterKey{w, f}
	if fn := st.setters[k]; fn != nil {
		return fn
	}
	var et reflect.Type
	if f != nil {
		et = f.typ
	} else {
		et = w.v.Type().Elem()
	}
	ft := reflect.FuncOf([]reflect.Type{reflect.TypeOf(""), et}, nil, false)
	impl := reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		w.acquire(st.L)
		defer w.lock.Unlock()
		if f != nil {
			if fv, err := w.v.FieldByIndexErr(f.index); err == nil {
				fv.Set(args[1])
			}
		} else {
			k := args[0].Convert(w.v.Type().Key())
			if max := st.lim.MaxValues; max >= 0 && w.v.Len() >= max && !w.v.MapIndex(k).IsValid() {
				st.L.RaiseError("%s holds %d keys, the most Lua may fill it with (the file's max_input_values); cannot add %q", w.name, w.v.Len(), args[0].String())
			}
			w.v.SetMapIndex(k, args[1])
		}
		return nil
	})
	fn := luar.New(st.L, impl.Interface()).(*lua.LFunction)
	if st.setters == nil {
		st.setters = map[setterKey]*lua.LFunction{}
	}
	st.setters[k] = fn
	return fn
}

// writableIter is w(): an iterator over the keys (or fields) there are now,
// each value read under the lock as the loop reaches it; a key deleted
// meanwhile is skipped.
func (st *State) writableIter(L *lua.LState) int {
	w := writableArg(L)
	var keys []string
	if w.ti != nil {
		for _, f := range w.ti.order {
			keys = append(keys, f.name)
		}
	} else {
		w.acquire(L)
		n := w.v.Len()
		if st.lim.MaxValues >= 0 && n > st.lim.MaxValues {
			w.lock.Unlock()
			L.RaiseError("%s: %d keys, over the cap of %d values", w.name, n, st.lim.MaxValues)
		}
		keys = make([]string, 0, n)
		for it := w.v.MapRange(); it.Next(); {
			keys = append(keys, it.Key().String())
		}
		w.lock.Unlock()
		sort.Strings(keys)
	}
	i := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		for i < len(keys) {
			k := keys[i]
			i++
			lv, err := st.read(w, k)
			if err != nil {
				L.RaiseError("%s.%s: %v", w.name, k, err)
			}
			if lv == lua.LNil && w.ti == nil {
				continue
			}
			L.Push(lua.LString(k))
			L.Push(lv)
			return 2
		}
		return 0
	}))
	return 1
}
