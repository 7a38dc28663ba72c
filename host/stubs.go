package host

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteStubs writes lua-language-server (LuaLS) annotations for modules to
// w: one `---@meta host.NAME` section per module, a class for the module
// and one for each struct type its members show, so that an editor
// completes `require("host.NAME")`'s members, their parameters and results.
// A host ships the output beside its policies and points LuaLS at it, the
// way hooks.d/.luarc.json points at luahook's own editor/ folder.
//
// Types follow what Lua sees: numbers, strings ([]byte too), booleans,
// arrays (T[]) and maps (table<K, V>) as copies, structs as classes named
// host.NAME.Type with their visible fields (both name forms) and, for the
// values a member holds or a function returns, their methods. A function's
// context parameter and its last error result do not show (the error
// raises). Go has no parameter names at run time: a member whose Docs
// entry has lines starting with "@" (LuaLS annotations such as
// "@param path string") uses those instead of the generated ones.
func WriteStubs(w io.Writer, modules ...Module) error {
	bw := bufio.NewWriter(w)
	for i, m := range modules {
		if i > 0 {
			bw.WriteString("\n")
		}
		s := &stubWriter{w: bw, module: "host." + m.Name, classes: map[reflect.Type]string{}}
		s.module1(m)
	}
	return bw.Flush()
}

type stubWriter struct {
	w       *bufio.Writer
	module  string
	classes map[reflect.Type]string // struct types named so far
	pending []stubClass             // struct types named, not yet written
}

type stubClass struct {
	t       reflect.Type
	name    string
	methods bool
}

var (
	ctxType   = reflect.TypeFor[context.Context]()
	errorType = reflect.TypeFor[error]()
	bytesType = reflect.TypeFor[[]byte]()
)

func (s *stubWriter) module1(m Module) {
	fmt.Fprintf(s.w, "---@meta %s\n", s.module)
	comment(s.w, m.Doc)
	fmt.Fprintf(s.w, "---@class %s\n", s.module)
	names := make([]string, 0, len(m.Members))
	for name := range m.Members {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		v := m.Members[name]
		if fn := reflect.ValueOf(v); fn.Kind() == reflect.Func {
			fmt.Fprintf(s.w, "---@field %s %s%s\n", name, s.funcType(fn.Type(), "", m.Docs[name]), docSuffix(m.Docs[name]))
			continue
		}
		fmt.Fprintf(s.w, "---@field %s %s%s\n", name, s.valueType(v), docSuffix(m.Docs[name]))
	}
	s.w.WriteString("local M = {}\n")
	for len(s.pending) > 0 {
		c := s.pending[0]
		s.pending = s.pending[1:]
		s.class(c)
	}
	s.w.WriteString("return M\n")
}

// valueType is the LuaLS type of a member value.
func (s *stubWriter) valueType(v any) string {
	if w, ok := v.(*WritableValue); ok {
		return s.typeOf(reflect.TypeOf(w.Value), true)
	}
	if v == nil {
		return "nil"
	}
	return s.typeOf(reflect.TypeOf(v), true)
}

// typeOf is the LuaLS type of t; methods says whether a struct shows its
// methods (members and results do, values inside them do not).
func (s *stubWriter) typeOf(t reflect.Type, methods bool) string {
	if t == bytesType {
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return s.typeOf(t.Elem(), false) + "[]"
	case reflect.Map:
		return "table<" + s.typeOf(t.Key(), false) + ", " + s.typeOf(t.Elem(), false) + ">"
	case reflect.Pointer:
		return s.typeOf(t.Elem(), methods)
	case reflect.Struct:
		return s.className(t, methods)
	case reflect.Interface:
		return "any"
	}
	return "nil" // not visible to Lua
}

// className names the struct type t, queueing its class to be written.
func (s *stubWriter) className(t reflect.Type, methods bool) string {
	if name, ok := s.classes[t]; ok {
		return name
	}
	base := t.Name()
	if base == "" {
		base = "Struct"
	}
	name := s.module + "." + base
	for taken := true; taken; {
		taken = false
		for _, other := range s.classes {
			if other == name {
				taken = true
				name += "_"
			}
		}
	}
	s.classes[t] = name
	s.pending = append(s.pending, stubClass{t: t, name: name, methods: methods})
	return name
}

// funcType is the LuaLS type of a function (or, with a self class, of a
// method called with ':').
func (s *stubWriter) funcType(t reflect.Type, self, doc string) string {
	var params, results []string
	if self != "" {
		params = append(params, "self: "+self)
	}
	first := 0
	if t.NumIn() > 0 && t.In(0) == ctxType {
		first = 1
	}
	for i := first; i < t.NumIn(); i++ {
		pt := t.In(i)
		if t.IsVariadic() && i == t.NumIn()-1 {
			params = append(params, "...: "+s.typeOf(pt.Elem(), false))
			continue
		}
		params = append(params, fmt.Sprintf("arg%d: %s", i-first+1, s.typeOf(pt, false)))
	}
	n := t.NumOut()
	if n > 0 && t.Out(n-1) == errorType {
		n--
	}
	for i := range n {
		results = append(results, s.typeOf(t.Out(i), true))
	}
	if p, r, ok := annotated(doc); ok {
		if self != "" {
			p = append([]string{"self: " + self}, p...)
		}
		params = p
		if len(r) > 0 {
			results = r
		}
	}
	out := "fun(" + strings.Join(params, ", ") + ")"
	if len(results) > 0 {
		out += ": " + strings.Join(results, ", ")
	}
	return out
}

// class writes the class of one struct type: its visible fields and, when
// it shows them, its methods.
func (s *stubWriter) class(c stubClass) {
	fmt.Fprintf(s.w, "\n---@class %s\n", c.name)
	for _, f := range visibleFields(c.t) {
		typ := s.typeOf(f.typ, false)
		if typ == "nil" {
			continue
		}
		for _, name := range f.names {
			fmt.Fprintf(s.w, "---@field %s %s\n", name, typ)
		}
	}
	if !c.methods {
		return
	}
	pt := reflect.PointerTo(c.t)
	for i := range pt.NumMethod() {
		m := pt.Method(i)
		mt := m.Type
		// drop the receiver: a method value's type
		in := make([]reflect.Type, 0, mt.NumIn()-1)
		for j := 1; j < mt.NumIn(); j++ {
			in = append(in, mt.In(j))
		}
		out := make([]reflect.Type, mt.NumOut())
		for j := range out {
			out[j] = mt.Out(j)
		}
		ft := reflect.FuncOf(in, out, mt.IsVariadic())
		fmt.Fprintf(s.w, "---@field %s %s\n", m.Name, s.funcType(ft, c.name, ""))
		if lower := lowerFirst(m.Name); lower != m.Name {
			fmt.Fprintf(s.w, "---@field %s %s\n", lower, s.funcType(ft, c.name, ""))
		}
	}
}

type stubField struct {
	names []string
	typ   reflect.Type
}

// visibleFields are t's exported fields (promoted ones included) by the
// names Lua reads them by: the Go name and its lower-case-first form, or
// the `luar` tag; `luar:"-"` hides a field.
func visibleFields(t reflect.Type) []stubField {
	var out []stubField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		tag := f.Tag.Get("luar")
		switch {
		case tag == "-":
		case tag != "":
			out = append(out, stubField{names: []string{tag}, typ: f.Type})
		default:
			names := []string{f.Name}
			if lower := lowerFirst(f.Name); lower != f.Name {
				names = append(names, lower)
			}
			out = append(out, stubField{names: names, typ: f.Type})
		}
	}
	return out
}

func lowerFirst(name string) string {
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToLower(r)) + name[n:]
}

// annotated reads the "@param name type" and "@return type" lines of a
// member's doc.
func annotated(doc string) (params, results []string, ok bool) {
	for line := range strings.Lines(doc) {
		line = strings.TrimSpace(line)
		if rest, found := strings.CutPrefix(line, "@param "); found {
			if name, typ, found := strings.Cut(strings.TrimSpace(rest), " "); found {
				params = append(params, name+": "+strings.Fields(typ)[0])
				ok = true
			}
		} else if rest, found := strings.CutPrefix(line, "@return "); found {
			if f := strings.Fields(rest); len(f) > 0 {
				results = append(results, f[0])
				ok = true
			}
		}
	}
	return params, results, ok
}

// docSuffix is the first line of a member's doc that is not an annotation,
// as a field's description.
func docSuffix(doc string) string {
	for line := range strings.Lines(doc) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "@") {
			return " " + line
		}
	}
	return ""
}

// comment writes doc as "---" lines.
func comment(w *bufio.Writer, doc string) {
	for line := range strings.Lines(doc) {
		fmt.Fprintf(w, "--- %s\n", strings.TrimRight(line, "\n"))
	}
}
