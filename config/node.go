package config

import (
	"encoding/json"
	"math"
	"strconv"
)

// A node is one value of a configuration file, TOML or JSON alike, with the
// line it starts on and its key path. Both formats are turned into nodes
// first, so that one decoder checks keys, types and values for both and every
// error it reports can name the key and the line.
type node struct {
	kind   kind
	line   int
	path   string   // key path as spelled in the file: hooks.PreToolUse[1].stage
	str    string   // kindString; for JSON numbers, the number's text
	num    int64    // kindInt
	flt    float64  // kindFloat
	b      bool     // kindBool
	keys   []string // kindTable: keys in file order
	fields map[string]*node
	elems  []*node // kindArray
}

type kind uint8

const (
	kindNull kind = iota // JSON null
	kindString
	kindInt
	kindFloat
	kindBool
	kindDatetime // TOML dates and times
	kindArray
	kindTable
)

// joinKey appends a key to a key path, quoting it unless it is a bare key.
func joinKey(path, key string) string {
	if !isBareKey(key) {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// joinIndex appends an array index to a key path.
func joinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// toJSONValue converts a node to the generic value encoding/json writes back
// out (numbers as json.Number, so that nothing is lost). It returns the first
// node that has no JSON equivalent (a TOML datetime, a non-finite float).
func (n *node) toJSONValue() (any, *node) {
	switch n.kind {
	case kindNull:
		return nil, nil
	case kindString:
		return n.str, nil
	case kindInt:
		return json.Number(strconv.FormatInt(n.num, 10)), nil
	case kindFloat:
		if n.str != "" {
			return json.Number(n.str), nil
		}
		if math.IsInf(n.flt, 0) || math.IsNaN(n.flt) {
			return nil, n
		}
		return json.Number(strconv.FormatFloat(n.flt, 'g', -1, 64)), nil
	case kindBool:
		return n.b, nil
	case kindArray:
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			v, bad := e.toJSONValue()
			if bad != nil {
				return nil, bad
			}
			out[i] = v
		}
		return out, nil
	case kindTable:
		out := make(map[string]any, len(n.keys))
		for _, k := range n.keys {
			v, bad := n.fields[k].toJSONValue()
			if bad != nil {
				return nil, bad
			}
			out[k] = v
		}
		return out, nil
	}
	return nil, n
}
