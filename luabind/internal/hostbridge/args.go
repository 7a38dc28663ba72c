package hostbridge

import (
	"math"
	"reflect"

	lua "github.com/yuin/gopher-lua"
)

// argChecker checks a Lua argument against a host function's parameter
// type before gopher-luar converts it, since gopher-luar trusts what it is
// given: it recurses into tables without a limit (a deep table would
// overflow the Go stack), truncates numbers into any integer type, turns a
// Lua function into a Go one that calls back into the state from another
// goroutine, and hands a userdata's Go value to the host as it is. What
// check lets through converts cleanly; what it returns is what gopher-luar
// gets: read-only proxies become plain copies of their contents, and
// views become userdata holding a fresh copy of their value.
type argChecker struct {
	st   *State
	max  int // values, < 0: no cap
	n    int
	path []*lua.LTable // the tables being walked, for cycles
}

func (a *argChecker) check(v lua.LValue, t reflect.Type, depth int) (lua.LValue, *pathError) {
	if depth > MaxDepth {
		return nil, failf("nested more than %d deep", MaxDepth)
	}
	a.n++
	if a.max >= 0 && a.n > a.max {
		return nil, failf("more than %d values (the file's max_input_values)", a.max)
	}
	switch v := v.(type) {
	case *lua.LFunction:
		return nil, failf("a Lua function cannot be passed to a host function")
	case *lua.LUserData:
		return a.userdata(v, t)
	case *lua.LState, lua.LChannel:
		return nil, failf("a %s cannot be passed to a host function", v.Type())
	case *lua.LNilType:
		switch t.Kind() {
		case reflect.Interface, reflect.Slice, reflect.Map, reflect.Pointer:
			return v, nil
		}
		return nil, failf("want %s, got nil", want(t))
	}
	switch t.Kind() {
	case reflect.Interface:
		switch v := v.(type) {
		case lua.LBool, lua.LNumber, lua.LString:
			return v, nil
		case *lua.LTable:
			return a.table(v, t, depth)
		}
	case reflect.Bool:
		if _, ok := v.(lua.LBool); ok {
			return v, nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := v.(lua.LNumber); ok {
			bits := t.Bits()
			return v, integer(float64(n), -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1), t)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(lua.LNumber); ok {
			return v, integer(float64(n), 0, math.Ldexp(1, t.Bits()), t)
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(lua.LNumber); ok {
			return v, nil
		}
	case reflect.String:
		if _, ok := v.(lua.LString); ok {
			return v, nil
		}
	case reflect.Slice:
		if _, ok := v.(lua.LString); ok && t.Elem().Kind() == reflect.Uint8 {
			return v, nil
		}
		if tb, ok := v.(*lua.LTable); ok {
			return a.table(tb, t, depth)
		}
	case reflect.Array, reflect.Map, reflect.Struct, reflect.Pointer:
		if tb, ok := v.(*lua.LTable); ok {
			return a.table(tb, t, depth)
		}
	}
	return nil, failf("want %s, got %s", want(t), v.Type())
}

// integer checks that f is an integer in [lo, hi).
func integer(f, lo, hi float64, t reflect.Type) *pathError {
	if f != math.Trunc(f) {
		return failf("want an integer (%s), got %v", t, f)
	}
	if f < lo || f >= hi {
		return failf("%v is out of the range of %s", f, t)
	}
	return nil
}

// want names what Lua value a parameter of type t takes.
func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer (" + t.String() + ")"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Interface:
		return "a boolean, a number, a string or a table"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string"
		}
	}
	return "a table (" + t.String() + ")"
}

// userdata lets through only a view of the parameter's struct type (or of
// any struct, for any), as a userdata holding a fresh copy of its value.
func (a *argChecker) userdata(ud *lua.LUserData, t reflect.Type) (lua.LValue, *pathError) {
	vw, ok := ud.Value.(*view)
	if !ok {
		return nil, failf("want %s, got a userdata that is not a host value", want(t))
	}
	vt := vw.v.Type()
	switch {
	case t == anyType || t == vt:
		nu := a.st.L.NewUserData()
		nu.Value = vw.v.Interface()
		return nu, nil
	case t.Kind() == reflect.Pointer && t.Elem() == vt:
		cp := reflect.New(vt)
		cp.Elem().Set(vw.v)
		nu := a.st.L.NewUserData()
		nu.Value = cp.Interface()
		return nu, nil
	}
	return nil, failf("want %s, got a host value of type %s", want(t), vt)
}

// table checks a table's contents against t (a slice, an array, a map, a
// struct, a pointer to a struct, or any, which gopher-luar makes a
// map[any]any). It returns a plain table gopher-luar may read raw: t
// itself when nothing in it had to change, or a copy.
func (a *argChecker) table(t *lua.LTable, typ reflect.Type, depth int) (lua.LValue, *pathError) {
	for _, p := range a.path {
		if p == t {
			return nil, failf("a table that contains itself")
		}
	}
	a.path = append(a.path, t)
	defer func() { a.path = a.path[:len(a.path)-1] }()
	c := a.st.env.Contents(t)
	var cp *lua.LTable
	if c != t {
		cp = a.copy(c)
	}
	set := func(k, v, nv lua.LValue) {
		if nv != v && cp == nil {
			cp = a.copy(c)
		}
		if cp != nil {
			cp.RawSet(k, nv)
		}
	}
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Slice, reflect.Array:
		n := c.Len()
		if typ.Kind() == reflect.Array && n != typ.Len() {
			return nil, failf("want a table of %d elements (%s), got %d", typ.Len(), typ, n)
		}
		if a.max >= 0 && a.n+n > a.max {
			return nil, failf("more than %d values (the file's max_input_values)", a.max)
		}
		for i := 1; i <= n; i++ {
			v := c.RawGetInt(i)
			nv, err := a.check(v, typ.Elem(), depth+1)
			if err != nil {
				return nil, err.under("[" + lua.LNumber(i).String() + "]")
			}
			set(lua.LNumber(i), v, nv)
		}
	case reflect.Map, reflect.Interface:
		kt, et := anyType, anyType
		if typ.Kind() == reflect.Map {
			kt, et = typ.Key(), typ.Elem()
		}
		for k, v := c.Next(lua.LNil); k != lua.LNil; k, v = c.Next(k) {
			switch k.(type) {
			case lua.LBool, lua.LNumber, lua.LString:
			default:
				return nil, failf("a table key of type %s (string, number or boolean keys only)", k.Type())
			}
			if _, err := a.check(k, kt, depth+1); err != nil {
				return nil, err.under("[" + k.String() + "]")
			}
			nv, err := a.check(v, et, depth+1)
			if err != nil {
				return nil, err.under("[" + k.String() + "]")
			}
			set(k, v, nv)
		}
	case reflect.Struct:
		ti := a.st.set.types.info(typ, false)
		for k, v := c.Next(lua.LNil); k != lua.LNil; k, v = c.Next(k) {
			name, ok := k.(lua.LString)
			if !ok {
				continue // gopher-luar skips keys that are not strings
			}
			f := ti.fields[string(name)]
			if f == nil {
				return nil, failf("%s has no field %s", typ, string(name))
			}
			nv, err := a.check(v, f.typ, depth+1)
			if err != nil {
				return nil, err.under("." + string(name))
			}
			set(k, v, nv)
		}
	default:
		return nil, failf("want %s, got table", want(typ))
	}
	if cp != nil {
		return cp, nil
	}
	return t, nil
}

// copy returns a plain table with c's contents.
func (a *argChecker) copy(c *lua.LTable) *lua.LTable {
	cp := a.st.L.CreateTable(c.Len(), 0)
	for k, v := c.Next(lua.LNil); k != lua.LNil; k, v = c.Next(k) {
		cp.RawSet(k, v)
	}
	return cp
}
