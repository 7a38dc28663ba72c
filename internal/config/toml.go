package config

import (
	"cmp"
	"errors"
	"slices"

	"github.com/BurntSushi/toml"
)

// parseTOML parses TOML text into a node tree whose nodes carry their lines.
// A syntax error is returned as an *Error with the line the library reports;
// text past MaxNesting or MaxKeyBytes is refused before the library sees it.
func parseTOML(file string, data []byte) (*node, error) {
	pos, err := scanTOML(file, data)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: file, Line: pe.Position.Line, Msg: "invalid TOML: " + pe.Message, Err: err}
		}
		return nil, &Error{File: file, Msg: "invalid TOML: " + err.Error(), Err: err}
	}
	return tomlNode(m, place{}, pos, 1), nil
}

// tomlNode converts a value decoded by the TOML library, at place at, whose
// line the scanner found at pos. A value the scanner did not see (pos nil)
// inherits the line of its parent.
func tomlNode(v any, at place, pos *tomlPos, line int) *node {
	if pos != nil && pos.line > 0 {
		line = pos.line
	}
	n := &node{place: at, line: line}
	switch v := v.(type) {
	case map[string]any:
		n.kind = kindTable
		n.fields = make(map[string]*node, len(v))
		for k, val := range v {
			n.keys = append(n.keys, k)
			n.fields[k] = tomlNode(val, n.at(k), pos.field(k), line)
		}
		slices.SortFunc(n.keys, func(a, b string) int {
			return cmp.Or(cmp.Compare(n.fields[a].line, n.fields[b].line), cmp.Compare(a, b))
		})
	case []map[string]any:
		n.kind = kindArray
		for i, val := range v {
			n.elems = append(n.elems, tomlNode(val, n.place.elem(i), pos.elem(i), line))
		}
	case []any:
		n.kind = kindArray
		for i, val := range v {
			n.elems = append(n.elems, tomlNode(val, n.place.elem(i), pos.elem(i), line))
		}
	case string:
		n.kind, n.str = kindString, v
	case int64:
		n.kind, n.num = kindInt, v
	case float64:
		n.kind, n.flt = kindFloat, v
	case bool:
		n.kind, n.b = kindBool, v
	default: // time.Time and the toml.Local* types
		n.kind = kindDatetime
	}
	return n
}
