package luabind

import (
	"encoding/json"
	"reflect"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
)

// leavesInput reports whether fn provably keeps no reference to its input
// (codec.LeavesInput), reading the calls of concatFn as concatenations and
// trusting what trust says (nil: no name).
func leavesInput(fn *lua.LFunction, trust *codec.Trust) bool {
	return codec.LeavesInput(fn, concatFn, trust)
}

// decideLean decides, once the file has loaded and its globals are frozen,
// which registered functions leave their input: only then is what a global
// name or a module field holds fixed for good, so that a call of type,
// string.find or pairs can be trusted with the input. Until then (and in a
// Session, whose globals stay writable) st.lean holds the answers of the
// analysis without trust.
func (st *state) decideLean() {
	if !st.frozen {
		return
	}
	trust := st.trust()
	for i, fn := range st.fns {
		st.lean[i] = leavesInput(fn, trust)
		st.leanOut[i] = st.lean[i] && codec.LeavesOutcomes(fn, concatFn, trust)
	}
}

// trust is what the reuse analysis may take as fixed in st, a frozen state:
// its globals, the module tables' fields, the Go functions of the sandbox
// that only read their arguments, and the payload's shape.
func (st *state) trust() *codec.Trust {
	g := st.backing
	builtins := map[*lua.LFunction]codec.Builtin{}
	add := func(t *lua.LTable, k codec.Builtin, names ...string) {
		for _, name := range names {
			if fn, ok := t.RawGetString(name).(*lua.LFunction); ok && fn.IsG {
				builtins[fn] = k
			}
		}
	}
	// The sandbox's own values, as it opened them: a name the file rebound
	// before its globals froze holds another value, which is not trusted.
	base := st.pristine
	add(base, codec.Reads, "type", "tostring", "tonumber", "rawequal", "error")
	add(base, codec.Passes, "next", "rawget", "select", "assert", "unpack")
	add(base, codec.Iterates, "pairs", "ipairs")
	module := func(name string) *lua.LTable {
		t, _ := base.RawGetString(name).(*lua.LTable)
		if t == nil {
			return &lua.LTable{}
		}
		return st.mods.Contents(t)
	}
	str := module("string")
	for k, v := str.Next(lua.LNil); k != lua.LNil; k, v = str.Next(k) {
		if name, ok := k.(lua.LString); ok && name != "gmatch" {
			if fn, ok := v.(*lua.LFunction); ok && fn.IsG {
				builtins[fn] = codec.Reads
			}
		}
	}
	add(str, codec.Builds, "gmatch")
	math := module("math")
	for k, v := math.Next(lua.LNil); k != lua.LNil; k, v = math.Next(k) {
		if fn, ok := v.(*lua.LFunction); ok && fn.IsG {
			builtins[fn] = codec.Reads
		}
	}
	add(module("table"), codec.Reads, "concat", "getn", "maxn")
	add(module("re"), codec.Reads, "gsub", "quote", "match_any")
	add(module("re"), codec.Builds, "match", "find", "find_all", "split")
	add(module("json"), codec.Reads, "encode", "type")
	add(module("json"), codec.Builds, "decode")
	add(module("hook"), codec.Fresh, "allow", "deny", "ask", "mutate", "context", "continue")
	typeFn, _ := base.RawGetString("type").(*lua.LFunction)
	var upvalue func(*lua.LFunction, int) (lua.LValue, bool)
	if st.sh.chunk != nil {
		// An upvalue of the file's own functions (most often a top-level
		// local) is fixed once the file has run, unless one of its
		// functions assigns it: local type, find = type, string.find is as
		// trusted as the globals it copies.
		upvalue = st.sh.chunk.fixedUpvalues().fixed
	}
	return &codec.Trust{
		Upvalue: upvalue,
		Global: func(env lua.LValue, name string) (lua.LValue, bool) {
			if env != st.globals {
				return nil, false
			}
			return g.RawGetString(name), true
		},
		Field: func(t *lua.LTable, key string) (lua.LValue, bool) {
			if _, ro := st.mods.ReadOnly(t); !ro {
				return nil, false
			}
			c := st.mods.Contents(t)
			if c == t {
				return nil, false // rt: its fields are computed
			}
			return c.RawGetString(key), true
		},
		Builtins: builtins,
		Type:     typeFn,
		Root:     rootShapes,
	}
}

// rootShapes is the shape of each top-level field of the payload as a hook
// sees it, read from luahook.Input's fields: strings, booleans and numbers
// are plain; a list of strings and an object of such fields are flat; raw
// JSON (toolInput, native) is anything.
var rootShapes = func() map[string]codec.Shape {
	shapes := map[string]codec.Shape{}
	t := reflect.TypeFor[luahook.Input]()
	for f := range t.Fields() {
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "" || key == "-" || !f.IsExported() {
			continue
		}
		shapes[key] = shapeOf(f.Type)
	}
	return shapes
}()

func shapeOf(t reflect.Type) codec.Shape {
	if t == reflect.TypeFor[json.RawMessage]() {
		return codec.ShapeAny
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return codec.ShapePlain
	case reflect.Slice:
		if shapeOf(t.Elem()) == codec.ShapePlain {
			return codec.ShapeFlat
		}
	case reflect.Struct:
		for f := range t.Fields() {
			if shapeOf(f.Type) != codec.ShapePlain {
				return codec.ShapeAny
			}
		}
		return codec.ShapeFlat
	}
	return codec.ShapeAny
}
