package luahook

import (
	"encoding/json"
	"reflect"
	"strings"
)

// FieldKind is the JSON type of a Field's value.
type FieldKind uint8

// The kinds of payload fields.
const (
	FieldString  FieldKind = iota // Field.Text
	FieldBool                     // Field.Bool
	FieldInt                      // Field.Int
	FieldJSON                     // Field.JSON: JSON text, an object (toolInput, native)
	FieldStrings                  // Field.List: an array of strings
	FieldObject                   // a nested object: its fields follow, then a FieldEnd
	FieldEnd                      // the end of the nested object opened last
)

// Field is one member of a payload's JSON form, as Input.Fields lists it.
// It is passed by value on every call of a hook, so it is kept small.
type Field struct {
	// Key is the member's JSON key ("" for FieldEnd), and Index its place
	// among the keys of its object: InputKeys()[Index] at the top level,
	// NestedKeys(parent)[Index] inside the nested object parent.
	Key  string
	Text string          // FieldString
	JSON json.RawMessage // FieldJSON
	List []string        // FieldStrings
	Int  int64           // FieldInt
	// Limit bounds the bytes of a FieldString, or of each entry of a
	// FieldStrings, and MaxEntries the entries of a FieldStrings (CheckLimits);
	// zero means the field is bounded by the payload's size cap only.
	Limit, MaxEntries int32
	Index             int32
	Kind              FieldKind
	Bool              bool // FieldBool
	// Repeats marks a name or id that is likely the same from call to call
	// (the event, a tool name, the cwd, the session), worth keeping one copy
	// of.
	Repeats bool
}

// Size returns the payload's size as the input cap (max_input_bytes)
// counts it: the bytes of its tool input and of every string it carries.
// It is close to the size of the payload's JSON form, costs no encoding,
// and follows the Input as it is now (a rewritten toolInput included).
//
// It reads the fields directly rather than through Fields, on every call of
// every hook; TestSizeIsWhatFieldsCount holds the two to the same sum.
func (in *Input) Size() int {
	n := len(in.Event) + len(in.ToolName) + len(in.ToolInput) + len(in.Prompt) +
		len(in.Cwd) + len(in.SessionID) + len(in.Agent) + len(in.Native) + len(in.Client)
	for _, s := range in.ToolCapabilities {
		n += len(s)
	}
	if r := in.ToolResult; r != nil {
		n += len(r.Content)
	}
	if c := in.Compaction; c != nil {
		n += len(c.Trigger)
	}
	if s := in.Subagent; s != nil {
		n += len(s.Target) + len(s.Task) + len(s.SubagentID) + len(s.DelegationID) +
			len(s.Mode) + len(s.Status) + len(s.Summary)
	}
	if m := in.Notification; m != nil {
		n += len(m.Kind) + len(m.Message) + len(m.ToolName)
	}
	return n
}

// sizeByFields is Size as Fields lists the payload: the definition that
// Size's direct reading is tested against.
func (in *Input) sizeByFields() int {
	n := 0
	in.Fields(func(f Field) bool {
		n += len(f.Text) + len(f.JSON)
		for _, s := range f.List {
			n += len(s)
		}
		return true
	})
	return n
}

// InputKeys returns the top-level keys of a payload's JSON form, in
// order: the json tags of Input's fields.
func InputKeys() []string { return strings.Split(inputKeys.top, ",") }

// NestedKeys returns the keys of the nested object at the top-level key
// parent (toolResult, compaction, subagent, notification), in order, or
// nil when parent is not an object.
func NestedKeys(parent string) []string {
	keys := inputKeys.nested[parent]
	if keys == nil {
		return nil
	}
	return append([]string(nil), keys...)
}

// inputKeys holds the payload's keys, read from Input's json tags once.
var inputKeys = readInputKeys()

type payloadKeyList struct {
	top      string              // comma-separated, for InputKeys
	list     []string            // the top-level keys
	nested   map[string][]string // the keys of each nested object
	nestedAt [][]string          // the keys of the nested object at list[i], or nil
	fields   []int               // the Input field index of each top-level key
}

func readInputKeys() payloadKeyList {
	t := reflect.TypeFor[Input]()
	l := payloadKeyList{nested: map[string][]string{}}
	for f := range t.Fields() {
		key := jsonKey(f)
		if key == "" {
			continue
		}
		l.list = append(l.list, key)
		l.fields = append(l.fields, f.Index[0])
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			var keys []string
			for nf := range ft.Fields() {
				if k := jsonKey(nf); k != "" {
					keys = append(keys, k)
				}
			}
			l.nested[key] = keys
		}
		l.nestedAt = append(l.nestedAt, l.nested[key])
	}
	l.top = strings.Join(l.list, ",")
	return l
}

// jsonKey returns the JSON key of a struct field, or "" for one that
// encoding/json leaves out.
func jsonKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// fieldList calls visit with the fields of one object, numbering them by
// their place among the object's keys, present or not.
type fieldList struct {
	visit func(Field) bool
	next  int32 // the index of the next key
	stop  bool  // visit returned false
}

// emit visits f, numbered as the next key.
func (l *fieldList) emit(f Field) {
	f.Index = l.next
	l.next++
	if !l.stop && !l.visit(f) {
		l.stop = true
	}
}

// skip numbers an absent key.
func (l *fieldList) skip() { l.next++ }

// text lists a string that encoding/json always writes.
func (l *fieldList) text(key, s string) { l.emit(Field{Kind: FieldString, Key: key, Text: s}) }

// optText lists a string tagged omitempty.
func (l *fieldList) optText(key, s string) {
	if s == "" {
		l.skip()
		return
	}
	l.text(key, s)
}

// id lists an identifier of at most limit bytes that encoding/json always
// writes; repeats says whether it is likely the same from call to call.
func (l *fieldList) id(key, s string, limit int32, repeats bool) {
	l.emit(Field{Kind: FieldString, Key: key, Text: s, Limit: limit, Repeats: repeats})
}

// optID lists an identifier tagged omitempty.
func (l *fieldList) optID(key, s string, limit int32, repeats bool) {
	if s == "" {
		l.skip()
		return
	}
	l.id(key, s, limit, repeats)
}

func (l *fieldList) boolean(key string, b bool) { l.emit(Field{Kind: FieldBool, Key: key, Bool: b}) }

// optBool lists a *bool tagged omitempty.
func (l *fieldList) optBool(key string, b *bool) {
	if b == nil {
		l.skip()
		return
	}
	l.boolean(key, *b)
}

// optInt lists a *int or *int64 tagged omitempty.
func optInt[T int | int64](l *fieldList, key string, n *T) {
	if n == nil {
		l.skip()
		return
	}
	l.emit(Field{Kind: FieldInt, Key: key, Int: int64(*n)})
}

// optJSON lists JSON text tagged omitempty.
func (l *fieldList) optJSON(key string, raw json.RawMessage) {
	if len(raw) == 0 {
		l.skip()
		return
	}
	l.emit(Field{Kind: FieldJSON, Key: key, JSON: raw})
}

// ids lists an array of identifiers tagged omitzero (nil is absent, empty
// is []).
func (l *fieldList) ids(key string, list []string, maxEntries, limit int32) {
	if list == nil {
		l.skip()
		return
	}
	l.emit(Field{Kind: FieldStrings, Key: key, List: list, Limit: limit, MaxEntries: maxEntries, Repeats: true})
}

// open lists the start of a present nested object and returns the list of
// its fields; an absent one is skipped.
func (l *fieldList) open(key string) fieldList {
	l.emit(Field{Kind: FieldObject, Key: key})
	return fieldList{visit: l.visit, stop: l.stop}
}

// close lists the end of the nested object whose fields inner listed.
func (l *fieldList) close(inner *fieldList) {
	l.stop = inner.stop
	if !l.stop && !l.visit(Field{Kind: FieldEnd}) {
		l.stop = true
	}
}
