package config

import (
	"cmp"
	"errors"
	"slices"

	"github.com/BurntSushi/toml"
)

// parseTOML parses TOML text into a node tree whose nodes carry their lines.
// A syntax error is returned as an *Error with the line the library reports.
func parseTOML(file string, data []byte) (*node, error) {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: file, Line: pe.Position.Line, Msg: "invalid TOML: " + pe.Message, Err: err}
		}
		return nil, &Error{File: file, Msg: "invalid TOML: " + err.Error(), Err: err}
	}
	return tomlNode(m, "", 1, tomlLines(data)), nil
}

// tomlNode converts a value decoded by the TOML library. A path the line
// scanner did not see inherits the line of its parent.
func tomlNode(v any, path string, line int, lines map[string]int) *node {
	if l, ok := lines[path]; ok {
		line = l
	}
	n := &node{line: line, path: path}
	switch v := v.(type) {
	case map[string]any:
		n.kind = kindTable
		n.fields = make(map[string]*node, len(v))
		for k, val := range v {
			n.keys = append(n.keys, k)
			n.fields[k] = tomlNode(val, joinKey(path, k), line, lines)
		}
		slices.SortFunc(n.keys, func(a, b string) int {
			return cmp.Or(cmp.Compare(n.fields[a].line, n.fields[b].line), cmp.Compare(a, b))
		})
	case []map[string]any:
		n.kind = kindArray
		for i, val := range v {
			n.elems = append(n.elems, tomlNode(val, joinIndex(path, i), line, lines))
		}
	case []any:
		n.kind = kindArray
		for i, val := range v {
			n.elems = append(n.elems, tomlNode(val, joinIndex(path, i), line, lines))
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
