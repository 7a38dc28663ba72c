package hostbridge

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// maxExact is the largest integer a Lua number (a float64) holds exactly.
const maxExact = 1 << 53

// converter turns Go values into Lua values by one set of rules: scalars
// as themselves, []byte as a string, slices, arrays and maps as fresh
// tables (copies), structs and pointers to structs as read-only views of a
// private copy, a pointer to anything else as what it points to. Every
// size is checked before the allocation it causes. With a nil L it only
// checks, as the modules are compiled.
type converter struct {
	L     *lua.LState
	st    *State // the state's views and seals; nil with a nil L
	mod   *module
	types *typeCache
	// seal makes every table read-only (a member: it lives in the state
	// across calls); otherwise tables are plain copies.
	seal bool
	path string // the sealed tables' name in errors: "host.acme.limits"

	maxString, maxValues int // maxValues < 0: no cap
	n                    int // values converted so far
}

// pathError is a conversion error with where in the value it happened.
type pathError struct {
	at  string
	msg string
}

func (e *pathError) Error() string {
	if e.at == "" {
		return e.msg
	}
	return "at " + e.at + ": " + e.msg
}

func (e *pathError) under(seg string) *pathError {
	e.at = seg + e.at
	return e
}

func failf(format string, args ...any) *pathError {
	return &pathError{msg: fmt.Sprintf(format, args...)}
}

// count adds k values to the budget, before the allocation they cause.
func (c *converter) count(k int) *pathError {
	c.n += k
	if c.maxValues >= 0 && c.n > c.maxValues {
		return failf("more than %d values (the file's max_input_values)", c.maxValues)
	}
	return nil
}

// value converts v. exposed: a struct becomes a view with its methods (a
// module member, a direct result of a host function).
func (c *converter) value(v reflect.Value, depth int, exposed bool) (lua.LValue, *pathError) {
	if depth > MaxDepth {
		return nil, failf("nested more than %d deep (a cycle?)", MaxDepth)
	}
	switch v.Kind() {
	case reflect.Invalid:
		return lua.LNil, nil
	case reflect.Bool:
		return lua.LBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i := v.Int()
		if i > maxExact || i < -maxExact {
			return nil, failf("the integer %d is beyond ±2^53, which a Lua number cannot hold exactly", i)
		}
		return lua.LNumber(i), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := v.Uint()
		if u > maxExact {
			return nil, failf("the integer %d is beyond 2^53, which a Lua number cannot hold exactly", u)
		}
		return lua.LNumber(u), nil
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(v.Float()), nil
	case reflect.String:
		if v.Len() > c.maxString {
			return nil, failf("a string of %d bytes is over the cap of %d", v.Len(), c.maxString)
		}
		return lua.LString(v.String()), nil
	case reflect.Interface:
		if v.IsNil() {
			return lua.LNil, nil
		}
		return c.value(v.Elem(), depth+1, exposed)
	case reflect.Pointer:
		if v.IsNil() {
			return lua.LNil, nil
		}
		return c.value(v.Elem(), depth+1, exposed)
	case reflect.Struct:
		if err := c.count(1); err != nil {
			return nil, err
		}
		if c.L == nil {
			return lua.LNil, nil
		}
		return c.st.newView(c.mod, v, exposed), nil
	case reflect.Slice:
		if v.IsNil() {
			return lua.LNil, nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Len() > c.maxString {
				return nil, failf("a []byte of %d bytes is over the cap of %d", v.Len(), c.maxString)
			}
			return lua.LString(v.Bytes()), nil
		}
		return c.list(v, depth)
	case reflect.Array:
		return c.list(v, depth)
	case reflect.Map:
		if v.IsNil() {
			return lua.LNil, nil
		}
		return c.dict(v, depth)
	}
	return nil, failf("%s cannot be shown to Lua", kindName(v.Kind()))
}

func (c *converter) list(v reflect.Value, depth int) (lua.LValue, *pathError) {
	n := v.Len()
	if err := c.count(1 + n); err != nil {
		return nil, err
	}
	var t *lua.LTable
	if c.L != nil {
		t = c.L.CreateTable(n, 0)
	}
	for i := range n {
		e, err := c.value(v.Index(i), depth+1, false)
		if err != nil {
			return nil, err.under("[" + strconv.Itoa(i+1) + "]")
		}
		if t != nil {
			t.RawSetInt(i+1, e)
		}
	}
	return c.done(t), nil
}

func (c *converter) dict(v reflect.Value, depth int) (lua.LValue, *pathError) {
	n := v.Len()
	if err := c.count(1 + n); err != nil {
		return nil, err
	}
	var t *lua.LTable
	if c.L != nil {
		t = c.L.CreateTable(0, n)
	}
	it := v.MapRange()
	for it.Next() {
		k := it.Key()
		if k.Kind() == reflect.Interface {
			k = k.Elem()
		}
		var lk lua.LValue
		switch k.Kind() {
		case reflect.Float32, reflect.Float64:
			if math.IsNaN(k.Float()) {
				return nil, failf("a NaN map key")
			}
			lk = lua.LNumber(k.Float())
		case reflect.Bool, reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			var err *pathError
			if lk, err = c.value(k, depth+1, false); err != nil {
				return nil, err
			}
		case reflect.Invalid:
			return nil, failf("a nil map key (string, number or bool keys only)")
		default:
			return nil, failf("a map key of type %s (string, number or bool keys only)", k.Type())
		}
		e, err := c.value(it.Value(), depth+1, false)
		if err != nil {
			return nil, err.under("[" + lk.String() + "]")
		}
		if t != nil {
			t.RawSet(lk, e)
		}
	}
	return c.done(t), nil
}

// done seals a finished table when the converter seals.
func (c *converter) done(t *lua.LTable) lua.LValue {
	if t == nil {
		return lua.LNil
	}
	if c.seal {
		c.st.env.Seal(t, c.path, "the "+c.path+" table")
	}
	return t
}
