package config

import (
	"encoding/json"
	"math"
	"strconv"
)

// A node is one value of a configuration file, TOML or JSON alike, with the
// line it starts on and its place. Both formats are turned into nodes first,
// so that one decoder checks keys, types and values for both and every error
// it reports can name the key and the line.
type node struct {
	place
	kind   kind
	line   int
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

// A place is where a value sits: below its parent, under a key or at an
// index. Its key path is spelled out only when an error names it, so that
// building a tree costs the same at any depth and under keys of any length.
type place struct {
	parent *place // nil at the top
	key    string
	index  int // -1 under a key
}

// at returns the place of the entry key of p.
func (p *place) at(key string) place { return place{parent: p, key: key, index: -1} }

// elem returns the place of entry i of p.
func (p *place) elem(i int) place { return place{parent: p, index: i} }

// path returns the key path as spelled in the file:
// hooks.PreToolUse[1].stage; "" at the top.
func (p *place) path() string {
	path, _ := p.spell(-1)
	return path
}

// briefPath returns the first four parts of the key path, each cut to 32
// bytes, "…" standing for what is left out: for errors about paths too deep
// or too long to print.
func (p *place) briefPath() string {
	path, cut := p.spell(4)
	if cut {
		path += "…"
	}
	return path
}

// spell writes the first n parts of the key path (every part, whole, when
// n < 0) and reports whether it left anything out.
func (p *place) spell(n int) (path string, cut bool) {
	var chain []*place
	for q := p; q != nil && q.parent != nil; q = q.parent {
		chain = append(chain, q)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		q := chain[i]
		if n >= 0 && len(chain)-1-i == n {
			return path, true
		}
		if q.index >= 0 {
			path = joinIndex(path, q.index)
			continue
		}
		if k := q.key; n >= 0 && len(k) > 32 {
			return joinKey(path, k[:32]), true
		}
		path = joinKey(path, q.key)
	}
	return path, false
}

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
