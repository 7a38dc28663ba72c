package decisionlog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/luahook/luahook"
)

// A record is masked by reading it through reflection: every string it
// holds, at any depth, the keys of its maps and the JSON texts it carries
// (json.RawMessage, keys included) go through the one test, masker.hides.
// No list of fields says what is masked, so a field added to Record, or to
// a type it holds, is masked as soon as it exists.

// maskRecord masks r, the builder's record, and sets its Masked. The memory
// r points to is not changed: a value with something to mask is copied
// first (the payload, the trace and the outcomes are shared with the
// pending record and the runner). It allocates only when something is
// masked.
func (m *masker) maskRecord(r *Record) {
	if cap(m.arena) > maxKeptBuffer || cap(m.masked) > maxKeptPaths || cap(m.values) > maxKeptPaths {
		m.arena, m.masked, m.values = nil, nil, nil // one huge record does not pin its buffers
	}
	m.arena, m.values, m.masked = m.arena[:0], m.values[:0], m.masked[:0]
	r.Masked = nil
	if !m.secrets && len(m.drop) == 0 && len(m.mask) == 0 {
		return
	}
	m.setup()
	v := reflect.ValueOf(r).Elem()
	m.steps = m.steps[:0]
	w := recordWalker{m: m}
	if len(m.mask) > 0 {
		// The values at mask paths are gathered first, so that the fields
		// read before the payload (the top-level sessionId) find them.
		w.collect = true
		w.visit(v, recordShape(), nil)
		w.collect = false
	}
	if c, changed := w.visit(v, recordShape(), nil); changed {
		v.Set(c)
	}
	if len(m.masked) > 0 {
		r.Masked = m.masked
	}
}

// maxKeptPaths bounds the lists of masked paths and of values a masker
// keeps for the next record.
const maxKeptPaths = 1024

// step is one step of the path from a record's top to a value it holds.
// The record walker keeps the path to the value it reads on a stack
// (masker.steps); it is spelt out (Record.Masked) only when something there
// is masked.
type step struct {
	name  string // a member's JSON name or a map's key (as written: masked)
	index int    // an element's index, when elem
	elem  bool
	// payload marks Record.Input: the paths below it are the payload's
	// own, written without "input." (as the configured paths are).
	payload bool
}

// appendPath appends the path the steps spell to b; inside is set for a
// value below the last step.
func appendPath(b []byte, steps []step, inside bool) []byte {
	start := 0
	for i, s := range steps {
		if s.payload && (inside || i < len(steps)-1) {
			start = i + 1
		}
	}
	for _, s := range steps[start:] {
		if s.elem {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, s.name...)
	}
	return b
}

// here returns the path of the value the record walker reads.
func (m *masker) here() []byte { return appendPath(nil, m.steps, false) }

// push adds a step to the path of the value the record walker reads.
func (m *masker) push(s step) { m.steps = append(m.steps, s) }

// pop removes the last step.
func (m *masker) pop() { m.steps = m.steps[:len(m.steps)-1] }

// shape is what the record walker knows of a type: where the texts of its
// values are. It is built once per type, from the type alone.
type shape struct {
	kind reflect.Kind
	text bool // a value may hold a string: else it is not read
	raw  bool // json.RawMessage: JSON text
	// stringMap is map[string]string, read without reflection.
	stringMap bool
	fields    []field // a struct's exported fields that may hold a string
	elem      *shape  // a pointer's, slice's, array's or map's element
}

// field is a struct's field, as the record walker reads it.
type field struct {
	index int
	name  string // its JSON name; "" for an embedded struct, whose fields are its parent's
	shape *shape
	// payload marks Record.Input (see step.payload).
	payload bool
	// rules is set when the configured paths apply to the field, root its
	// path from the payload's top: the payload (Record.Input), a member the
	// record copies from it (Record.SessionID is the payload's sessionId)
	// or a rewritten tool input (luahook.Outcome.Input).
	rules bool
	root  []string
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	stringMapType  = reflect.TypeFor[map[string]string]()
	recordType     = reflect.TypeFor[Record]()
	outcomeType    = reflect.TypeFor[luahook.Outcome]()
)

// recordShape is Record's shape, built on first use.
var recordShape = sync.OnceValue(func() *shape { return shapeOf(recordType, map[reflect.Type]*shape{}) })

// shapeOf returns t's shape; seen holds the shapes being built, for a type
// that holds itself.
func shapeOf(t reflect.Type, seen map[reflect.Type]*shape) *shape {
	if s, ok := seen[t]; ok {
		return s
	}
	// A type that holds itself is taken to hold a string until it is built.
	s := &shape{kind: t.Kind(), text: true}
	seen[t] = s
	switch t.Kind() {
	case reflect.String, reflect.Interface:
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s.raw = t == rawMessageType
			break
		}
		s.elem = shapeOf(t.Elem(), seen)
		s.text = s.elem.text
	case reflect.Array, reflect.Pointer:
		s.elem = shapeOf(t.Elem(), seen)
		s.text = s.elem.text
	case reflect.Map:
		s.elem = shapeOf(t.Elem(), seen)
		s.stringMap = t == stringMapType
		s.text = t.Key().Kind() == reflect.String || s.elem.text
	case reflect.Struct:
		s.fields = fieldsOf(t, seen)
		s.text = len(s.fields) > 0
	default:
		s.text = false
	}
	return s
}

// fieldsOf returns the fields of the struct type t that may hold a string,
// with what the record walker needs of each.
func fieldsOf(t reflect.Type, seen map[reflect.Type]*shape) []field {
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || t == recordType && sf.Name == "Masked" { // Masked is masking's own report
			continue
		}
		f := field{index: i, shape: shapeOf(sf.Type, seen)}
		if !f.shape.text {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		embedded := sf.Type
		if embedded.Kind() == reflect.Pointer {
			embedded = embedded.Elem()
		}
		switch {
		case name == "" && sf.Anonymous && embedded.Kind() == reflect.Struct:
		case name == "" || name == "-":
			f.name = sf.Name
		default:
			f.name = name
		}
		switch {
		case t == recordType && f.name == "input":
			f.payload, f.rules, f.root = true, true, []string{}
		case t == recordType && f.shape.kind == reflect.String && slices.Contains(luahook.InputKeys(), f.name):
			f.rules, f.root = true, []string{f.name}
		case t == outcomeType && f.name == "input":
			f.rules, f.root = true, []string{"toolInput"}
		}
		fields = append(fields, f)
	}
	return fields
}

// maxRecordDepth bounds how deep the record walker reads Go values: a
// value deeper than a record goes (a type that holds itself) is written as
// its zero value, never unread.
const maxRecordDepth = 32

// recordWalker masks the values of a record. The collect pass only gathers
// the values at mask paths (masker.values).
type recordWalker struct {
	m       *masker
	collect bool
	depth   int
}

// visit returns v masked and true, or v and false when nothing in it is
// masked. v is never changed: what changes is a copy. f is the field v is
// the value of, nil for an element.
func (w *recordWalker) visit(v reflect.Value, s *shape, f *field) (reflect.Value, bool) {
	if w.depth >= maxRecordDepth {
		if w.collect || v.IsZero() {
			return v, false
		}
		w.m.note(w.m.here())
		return reflect.Zero(v.Type()), true
	}
	w.depth++
	c, changed := w.value(v, s, f)
	w.depth--
	return c, changed
}

// value is visit's work, kind by kind.
func (w *recordWalker) value(v reflect.Value, s *shape, f *field) (reflect.Value, bool) {
	switch s.kind {
	case reflect.String:
		return w.text(v, f)
	case reflect.Slice:
		switch {
		case s.raw:
			if v.Len() == 0 || w.collect && (f == nil || !f.rules) {
				return v, false
			}
			rules := f != nil && f.rules
			var root []string
			if rules {
				root = f.root
			}
			out, changed := w.m.raw(v.Bytes(), rules, root, w.collect)
			if !changed {
				return v, false
			}
			c := reflect.New(v.Type()).Elem()
			c.SetBytes(out)
			return c, true
		case s.elem == nil: // bytes, which encoding/json writes in base64
			if w.collect || !w.m.hidesBytes(v.Bytes()) {
				return v, false
			}
			w.m.note(w.m.here())
			c := reflect.New(v.Type()).Elem()
			c.SetBytes([]byte(w.m.with))
			return c, true
		}
		return w.elements(v, s, false)
	case reflect.Array:
		return w.elements(v, s, true)
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, changed := w.visit(v.Elem(), s.elem, nil)
		if !changed {
			return v, false
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(e)
		return c, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e := v.Elem()
		es := w.m.shapeOf(e.Type())
		if !es.text {
			return v, false
		}
		e, changed := w.visit(e, es, nil)
		if !changed {
			return v, false
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(e)
		return c, true
	case reflect.Map:
		if v.Len() == 0 || w.collect {
			return v, false
		}
		if s.stringMap {
			return w.stringMap(v)
		}
		return w.mapOf(v, s)
	case reflect.Struct:
		var c reflect.Value
		for i := range s.fields {
			f := &s.fields[i]
			fv := v.Field(f.index)
			if f.shape.kind == reflect.String && !f.rules && !w.collect && !w.m.hides(fv.String()) {
				continue // the common case, read without a step or a call
			}
			if f.name != "" {
				w.m.push(step{name: f.name, payload: f.payload})
			}
			fv, changed := w.visit(fv, f.shape, f)
			if f.name != "" {
				w.m.pop()
			}
			if !changed {
				continue
			}
			if !c.IsValid() {
				c = reflect.New(v.Type()).Elem()
				c.Set(v)
			}
			c.Field(f.index).Set(fv)
		}
		if c.IsValid() {
			return c, true
		}
	}
	return v, false
}

// text masks a string: the configured paths that name its field, then
// hides.
func (w *recordWalker) text(v reflect.Value, f *field) (reflect.Value, bool) {
	s := v.String()
	if s == "" {
		return v, false
	}
	if f != nil && f.rules {
		switch {
		case ruledAt(w.m.drop, f.root, nil):
			if w.collect {
				return v, false
			}
			w.m.note(w.m.here())
			return reflect.Zero(v.Type()), true
		case ruledAt(w.m.mask, f.root, nil):
			if w.collect {
				w.m.gather(s)
				return v, false
			}
			w.m.note(w.m.here())
			return w.m.maskOf(v.Type()), true
		}
	}
	if w.collect || !w.m.hides(s) {
		return v, false
	}
	w.m.note(w.m.here())
	return w.m.maskOf(v.Type()), true
}

// maskOf returns the mask as a value of the string type t.
func (m *masker) maskOf(t reflect.Type) reflect.Value {
	return reflect.ValueOf(m.with).Convert(t)
}

// elements masks the elements of a slice, or of an array (array set).
func (w *recordWalker) elements(v reflect.Value, s *shape, array bool) (reflect.Value, bool) {
	var c reflect.Value
	for i := range v.Len() {
		w.m.push(step{elem: true, index: i})
		e, changed := w.visit(v.Index(i), s.elem, nil)
		w.m.pop()
		if !changed {
			continue
		}
		if !c.IsValid() {
			if array {
				c = reflect.New(v.Type()).Elem()
				c.Set(v)
			} else {
				c = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(c, v)
			}
		}
		c.Index(i).Set(e)
	}
	return c, c.IsValid()
}

// stringMap masks a map[string]string (Record.Files), keys and values.
func (w *recordWalker) stringMap(v reflect.Value) (reflect.Value, bool) {
	m := v.Interface().(map[string]string)
	hidden := false
	for k, s := range m {
		if w.m.hides(k) || w.m.hides(s) {
			hidden = true
			break
		}
	}
	if !hidden {
		return v, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the redacted keys are numbered in the order a line lists them
	c := make(map[string]string, len(m))
	redacted := 0
	for _, k := range keys {
		s, name := m[k], k
		if w.m.hides(k) {
			name = w.m.keyMask(&redacted, func(n string) bool { _, ok := m[n]; return ok })
			w.m.push(step{name: name})
			w.m.note(w.m.here())
			w.m.pop()
		}
		if w.m.hides(s) {
			w.m.push(step{name: name})
			w.m.note(w.m.here())
			w.m.pop()
			s = w.m.with
		}
		c[name] = s
	}
	return reflect.ValueOf(c), true
}

// mapOf masks a map of any other type: the keys when they are strings,
// and the values.
func (w *recordWalker) mapOf(v reflect.Value, s *shape) (reflect.Value, bool) {
	keys := v.MapKeys()
	textKeys := v.Type().Key().Kind() == reflect.String
	if textKeys {
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	}
	var c reflect.Value
	redacted := 0
	for _, k := range keys {
		key, renamed := k, false
		var name string
		if textKeys {
			name = k.String()
			if w.m.hides(name) {
				name = w.m.keyMask(&redacted, func(n string) bool {
					return v.MapIndex(reflect.ValueOf(n).Convert(k.Type())).IsValid()
				})
				key, renamed = reflect.ValueOf(name).Convert(k.Type()), true
			}
		} else {
			name = fmt.Sprint(k.Interface())
		}
		w.m.push(step{name: name})
		e, changed := w.visit(v.MapIndex(k), s.elem, nil)
		if renamed {
			w.m.note(w.m.here())
		}
		w.m.pop()
		if !changed && !renamed {
			continue
		}
		if !c.IsValid() {
			c = reflect.MakeMapWithSize(v.Type(), v.Len())
			for _, k := range keys {
				c.SetMapIndex(k, v.MapIndex(k))
			}
		}
		c.SetMapIndex(k, reflect.Value{})
		c.SetMapIndex(key, e)
	}
	return c, c.IsValid()
}

// shapeOf returns the shape of a type found behind an interface.
func (m *masker) shapeOf(t reflect.Type) *shape {
	if s, ok := m.shapes[t]; ok {
		return s
	}
	if m.shapes == nil {
		m.shapes = map[reflect.Type]*shape{}
	}
	s := shapeOf(t, map[reflect.Type]*shape{})
	m.shapes[t] = s
	return s
}
