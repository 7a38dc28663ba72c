package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// obj is a JSON object whose keys keep the order they are written in: the
// entries luahook adds read like the agents' own documentation.
type obj []field

type field struct {
	key string
	val any // string, bool, int, obj or []any
}

// style is how a file lays out its values: the indentation of one level
// and its line ending. New text follows it.
type style struct {
	unit, nl string
}

var defaultStyle = style{unit: "  ", nl: "\n"}

// render writes v over several lines, as a value that starts on a line
// indented with indent.
func (st style) render(v any, indent string) string {
	var b strings.Builder
	st.write(&b, v, indent)
	return b.String()
}

func (st style) write(b *strings.Builder, v any, indent string) {
	inner := indent + st.unit
	switch v := v.(type) {
	case obj:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, f := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(st.nl + inner + quote(f.key) + ": ")
			st.write(b, f.val, inner)
		}
		b.WriteString(st.nl + indent + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(st.nl + inner)
			st.write(b, e, inner)
		}
		b.WriteString(st.nl + indent + "]")
	default:
		b.WriteString(scalar(v))
	}
}

// compact writes v on one line, for a file that writes its values inline.
func compact(v any) string {
	switch v := v.(type) {
	case obj:
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = quote(f.key) + ": " + compact(f.val)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = compact(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return scalar(v)
}

func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int:
		return fmt.Sprint(v)
	}
	panic(fmt.Sprintf("install: cannot render %T", v))
}

// quote writes s as a JSON string, without HTML escaping ("&&" in a
// command stays "&&").
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// decoded returns v as encoding/json decodes it into an any, to compare
// with a parsed node's value.
func decoded(v any) any {
	var out any
	if err := json.Unmarshal([]byte(compact(v)), &out); err != nil {
		panic(err) // compact writes valid JSON
	}
	return out
}
