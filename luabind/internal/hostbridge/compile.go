// Package hostbridge makes a host's modules (package host) Lua modules:
// it checks them once (Compile), converts their members when a Lua state
// first requires one, and calls their functions through gopher-luar behind
// a guard that checks every Lua argument first, runs the host function on
// its own goroutine under the hook's context, and converts what it returns
// into copies or read-only views. A policy sees only what the host listed
// and cannot use it to reach, change or crash anything else.
package hostbridge

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/luahook/luahook/host"
)

const (
	// MaxDepth bounds the nesting of a value converted either way; a cycle
	// through pointers ends on it.
	MaxDepth = 64
	// MaxStrays bounds the calls of one module that may still be running
	// after their hook's deadline: a further call fails at once, so that a
	// host function that ignores its context cannot pile up goroutines.
	MaxStrays = 64
)

// Set is a host's modules, checked and ready for any number of states.
// It is immutable and safe for concurrent use.
type Set struct {
	mods  map[string]*module
	names []string
	types typeCache
}

type module struct {
	name    string
	members []*member // by name
	// strays counts the calls still running past their deadline.
	strays atomic.Int64
}

type member struct {
	name     string
	value    reflect.Value // a value member
	fn       *function     // a function member
	writable *host.WritableValue
}

// function is a host function or a method of an exposed type, checked.
type function struct {
	name     string // "host.acme.f", "host.acme.Repo:Branch": errors start with it
	short    string // "f", "Branch"
	mod      *module
	fn       reflect.Value
	recv     reflect.Type // a method's receiver type (*T); nil for a member
	ctx      bool         // takes a context.Context first
	in       []reflect.Type
	variadic bool
	nout     int  // results Lua sees
	lastErr  bool // the last result is an error
	tramp    reflect.Type
}

// Compile checks the host's modules: their names, every member's kind, the
// signatures of functions and of the methods of the struct types Lua may
// call methods on, and the values themselves (sizes, integers beyond 2^53,
// hidden kinds inside them). The error names the module and the member.
func Compile(mods []host.Module) (*Set, error) {
	s := &Set{mods: map[string]*module{}, types: typeCache{exposed: map[reflect.Type]*typeInfo{}}}
	for _, hm := range mods {
		if !validName(hm.Name) {
			return nil, fmt.Errorf("host module %q: a name is dot-separated words of letters, digits and '_', like \"git\" or \"acme.quota\"", hm.Name)
		}
		if _, dup := s.mods[hm.Name]; dup {
			return nil, fmt.Errorf("host module %q: given twice", hm.Name)
		}
		m := &module{name: hm.Name}
		names := make([]string, 0, len(hm.Members))
		for name := range hm.Members {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			mem, err := s.compileMember(m, name, hm.Members[name])
			if err != nil {
				return nil, fmt.Errorf("host module %q: member %q: %w", hm.Name, name, err)
			}
			m.members = append(m.members, mem)
		}
		s.mods[hm.Name] = m
		s.names = append(s.names, hm.Name)
	}
	sort.Strings(s.names)
	return s, nil
}

// Names returns the modules' names, sorted.
func (s *Set) Names() []string { return s.names }

func (s *Set) compileMember(m *module, name string, v any) (*member, error) {
	if !validIdent(name) {
		return nil, fmt.Errorf("a member name is a Lua identifier (letters, digits and '_', not starting with a digit)")
	}
	mem := &member{name: name}
	switch v := v.(type) {
	case nil:
		return nil, fmt.Errorf("the value is nil")
	case *host.WritableValue:
		if err := checkWritable(v); err != nil {
			return nil, err
		}
		mem.writable = v
		return mem, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Func {
		if rv.IsNil() {
			return nil, fmt.Errorf("the function is nil")
		}
		fn, err := s.compileFunc("host."+m.name+"."+name, m, rv, nil)
		if err != nil {
			return nil, err
		}
		fn.short = name
		mem.fn = fn
		return mem, nil
	}
	if err := checkResult(rv.Type()); err != nil {
		return nil, err
	}
	c := converter{types: &s.types, maxString: math.MaxInt, maxValues: -1}
	if _, err := c.value(rv, 0, false); err != nil {
		return nil, err
	}
	if err := s.expose(m, rv.Type()); err != nil {
		return nil, err
	}
	mem.value = rv
	return mem, nil
}

// expose records t, when it is a struct or a pointer to one, as a type
// whose methods Lua may call, and checks them (and the types they return).
func (s *Set) expose(m *module, t reflect.Type) error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	if _, done := s.types.exposed[t]; done {
		return nil
	}
	ti := newTypeInfo(t)
	ti.methods = map[string]*method{}
	s.types.exposed[t] = ti
	pt := reflect.PointerTo(t)
	for i := range pt.NumMethod() {
		mt := pt.Method(i)
		if mt.PkgPath != "" {
			continue
		}
		fn, err := s.compileFunc(fmt.Sprintf("host.%s.%s:%s", m.name, t.Name(), mt.Name), m, mt.Func, pt)
		if err != nil {
			return fmt.Errorf("method %s.%s: %w", t, mt.Name, err)
		}
		fn.short = mt.Name
		me := &method{name: mt.Name, fn: fn}
		ti.methods[mt.Name] = me
		if _, taken := ti.methods[lowerFirst(mt.Name)]; !taken {
			ti.methods[lowerFirst(mt.Name)] = me
		}
	}
	return nil
}

// compileFunc checks fn's signature (after recv, for a method).
func (s *Set) compileFunc(name string, m *module, fv reflect.Value, recv reflect.Type) (*function, error) {
	t := fv.Type()
	f := &function{name: name, mod: m, fn: fv, recv: recv, variadic: t.IsVariadic()}
	first := 0
	if recv != nil {
		first = 1
	}
	if t.NumIn() > first && t.In(first) == contextType {
		f.ctx = true
		first++
	}
	seen := map[reflect.Type]bool{}
	for i := first; i < t.NumIn(); i++ {
		p := t.In(i)
		if p == contextType {
			return nil, fmt.Errorf("parameter %d: a context.Context must be the first parameter", i+1-boolInt(recv != nil))
		}
		if err := checkParam(p, seen); err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1-boolInt(recv != nil), err)
		}
		f.in = append(f.in, p)
	}
	for i := range t.NumOut() {
		r := t.Out(i)
		if r == errorType && i == t.NumOut()-1 {
			f.lastErr = true
			continue
		}
		if err := checkResult(r); err != nil {
			return nil, fmt.Errorf("result %d: %w", i+1, err)
		}
		if err := s.expose(m, r); err != nil {
			return nil, err
		}
		f.nout++
	}
	outs := make([]reflect.Type, f.nout)
	for i := range outs {
		outs[i] = lvalueType
	}
	f.tramp = reflect.FuncOf(f.in, outs, f.variadic)
	return f, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkWritable checks a Writable: a non-nil map with string keys, or a
// non-nil pointer to a struct, and a lock.
func checkWritable(w *host.WritableValue) error {
	if w.Lock == nil {
		return fmt.Errorf("Writable needs a lock")
	}
	rv := reflect.ValueOf(w.Value)
	switch {
	case rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String:
		if rv.IsNil() {
			return fmt.Errorf("Writable of a nil map")
		}
		if err := checkParam(rv.Type().Elem(), map[reflect.Type]bool{}); err != nil {
			return fmt.Errorf("Writable map values: %w", err)
		}
		if err := checkResult(rv.Type().Elem()); err != nil {
			return fmt.Errorf("Writable map values: %w", err)
		}
		return nil
	case rv.Kind() == reflect.Pointer && rv.Type().Elem().Kind() == reflect.Struct:
		if rv.IsNil() {
			return fmt.Errorf("Writable of a nil pointer")
		}
		return nil
	}
	return fmt.Errorf("Writable takes a map with string keys or a pointer to a struct, not %T", w.Value)
}

// validName checks a module name: dot-separated words of letters, digits
// and '_'.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, w := range strings.Split(name, ".") {
		if w == "" {
			return false
		}
		for _, c := range w {
			if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
				return false
			}
		}
	}
	return true
}

// validIdent checks a Lua identifier (keywords aside: m["end"] still reads
// such a member).
func validIdent(name string) bool {
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	return validName(name) && !strings.Contains(name, ".")
}
