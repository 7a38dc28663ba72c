package hostbridge

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

var (
	contextType = reflect.TypeOf((*context.Context)(nil)).Elem()
	errorType   = reflect.TypeOf((*error)(nil)).Elem()
	anyType     = reflect.TypeOf((*any)(nil)).Elem()
	lvalueType  = reflect.TypeOf((*lua.LValue)(nil)).Elem()
)

// hiddenKind reports the kinds Lua never sees: a field of one reads as
// nil, and one in a result, an element or a member is an error.
func hiddenKind(k reflect.Kind) bool {
	switch k {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Uintptr, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

// kindName names a hidden kind in an error.
func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Func:
		return "a func"
	case reflect.Chan:
		return "a chan"
	case reflect.UnsafePointer:
		return "an unsafe.Pointer"
	case reflect.Uintptr:
		return "a uintptr"
	}
	return "a complex number"
}

// lowerFirst is a Go name with a lower-case first letter: the second name
// of a field or a method, as gopher-luar gives it.
func lowerFirst(name string) string {
	r, n := utf8.DecodeRuneInString(name)
	if n == 0 {
		return name
	}
	return string(unicode.ToLower(r)) + name[n:]
}

// field is an exported field of a struct type as Lua reads it.
type field struct {
	name  string // the first Lua name: the tag, or the Go name
	index []int
	typ   reflect.Type
}

// method is an exported method of an exposed struct type.
type method struct {
	name string
	fn   *function
}

// typeInfo is what Lua sees of a struct type: its fields by every Lua name
// (the Go name, the name with a lower-case first letter, the luar tag),
// and, for exposed types only, its methods by both names.
type typeInfo struct {
	t       reflect.Type
	fields  map[string]*field
	order   []*field // each field once, in Lua-name order
	methods map[string]*method
}

// fieldsOf collects t's fields as gopher-luar's collectFields does:
// exported fields by name, then the fields promoted from embedded structs
// (and pointers to structs) that no shallower field hides and no other
// embedded struct at the same depth also provides.
func fieldsOf(t reflect.Type, current []int) map[string]reflect.StructField {
	m := make(map[string]reflect.StructField)
	var subs []map[string]reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.PkgPath == "" {
			f.Index = append(current[:len(current):len(current)], i)
			m[f.Name] = f
		}
		if f.Anonymous {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() != reflect.Struct {
				continue
			}
			subs = append(subs, fieldsOf(et, append(current[:len(current):len(current)], i)))
		}
	}
	promoted := make(map[string]reflect.StructField)
	for _, sub := range subs {
		for name, f := range sub {
			if _, dup := promoted[name]; dup {
				promoted[name] = reflect.StructField{}
			} else {
				promoted[name] = f
			}
		}
	}
	for name, f := range promoted {
		if _, shadowed := m[name]; !shadowed && len(f.Index) > 0 {
			m[name] = f
		}
	}
	return m
}

// newTypeInfo builds t's fields (t is a struct type).
func newTypeInfo(t reflect.Type) *typeInfo {
	ti := &typeInfo{t: t, fields: map[string]*field{}}
	all := fieldsOf(t, nil)
	goNames := make([]string, 0, len(all))
	for name := range all {
		goNames = append(goNames, name)
	}
	sort.Strings(goNames)
	for _, goName := range goNames {
		sf := all[goName]
		tag := sf.Tag.Get("luar")
		if tag == "-" {
			continue
		}
		names := []string{sf.Name, lowerFirst(sf.Name)}
		if tag != "" {
			names = []string{tag}
		}
		f := &field{name: names[0], index: sf.Index, typ: sf.Type}
		ti.order = append(ti.order, f)
		for _, n := range names {
			if _, taken := ti.fields[n]; !taken {
				ti.fields[n] = f
			}
		}
	}
	return ti
}

// typeCache holds the typeInfo of every struct type the bridge has seen.
// The exposed types, whose methods Lua may call, are all known once the
// modules are compiled; other types (reached through fields, elements and
// interfaces) are added as they come, with their fields only.
type typeCache struct {
	exposed map[reflect.Type]*typeInfo // written only while compiling
	data    sync.Map                   // reflect.Type -> *typeInfo
}

// info returns t's typeInfo, with methods only when methods is true and t
// is an exposed type.
func (c *typeCache) info(t reflect.Type, methods bool) *typeInfo {
	if methods {
		if ti, ok := c.exposed[t]; ok {
			return ti
		}
	}
	if ti, ok := c.data.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti, _ := c.data.LoadOrStore(t, newTypeInfo(t))
	return ti.(*typeInfo)
}

// checkParam reports why t cannot be a parameter of a host function (after
// its context): gopher-luar converts Lua values into bool, numbers, string,
// []byte, slices, arrays, maps, structs and pointers to structs of those,
// and any; a Lua function, a channel or anything unsafe never reaches Go.
func checkParam(t reflect.Type, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	if luaType(t) {
		return fmt.Errorf("%s is a gopher-lua type", t)
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Interface:
		if t == anyType {
			return nil
		}
		return fmt.Errorf("%s is an interface other than any", t)
	case reflect.Slice, reflect.Array:
		return checkParam(t.Elem(), seen)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.Interface:
			if t.Key() != anyType {
				return fmt.Errorf("%s has keys of interface type %s", t, t.Key())
			}
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		default:
			return fmt.Errorf("%s has keys of type %s (string, number or bool keys only)", t, t.Key())
		}
		if err := checkParam(t.Key(), seen); err != nil {
			return err
		}
		return checkParam(t.Elem(), seen)
	case reflect.Pointer:
		if t.Elem().Kind() != reflect.Struct {
			return fmt.Errorf("%s is a pointer to a non-struct", t)
		}
		return checkParam(t.Elem(), seen)
	case reflect.Struct:
		seen[t] = true
		for _, f := range newTypeInfo(t).order {
			if err := checkParam(f.typ, seen); err != nil {
				return fmt.Errorf("field %s: %w", f.name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("%s is %s", t, kindName(t.Kind()))
}

// luaType reports whether t (or what it points to) is one of gopher-lua's
// or gopher-luar's own types, which would hand a host function the state.
func luaType(t reflect.Type) bool {
	if t.Implements(lvalueType) {
		return true
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.PkgPath() {
	case "github.com/yuin/gopher-lua", "layeh.com/gopher-luar":
		return true
	}
	return false
}

// checkResult reports why a value of static type t cannot be shown to Lua.
// Struct fields are not checked here: a field of a hidden kind reads as nil.
func checkResult(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Pointer:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		if err := checkResult(t.Elem()); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		return nil
	case reflect.Map:
		if !keyKind(t.Key().Kind()) {
			return fmt.Errorf("%s has keys of type %s (string, number or bool keys only)", t, t.Key())
		}
		if err := checkResult(t.Elem()); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		return nil
	}
	if hiddenKind(t.Kind()) {
		return fmt.Errorf("%s is %s", t, kindName(t.Kind()))
	}
	return nil
}

// keyKind reports whether a map key of kind k converts to a Lua key.
func keyKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
