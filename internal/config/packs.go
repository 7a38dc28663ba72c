package config

import (
	"math"
	"strings"

	"github.com/luahook/luahook/internal/packs"
	"github.com/luahook/luahook/internal/suggest"
)

// packs decodes the [packs.NAME] tables: the settings of the guard packs
// of luahook's library (internal/packs), kept apart from the packs' code
// so that luahook add --upgrade replaces the code and keeps them. Each
// table is checked against what the shipped pack declares (its
// hook.settings defaults, packs.Declared): an unknown pack or key is an
// error with the nearest name, a value of the wrong type one naming what
// the key wants. Keys are the packs' own (snake_case in TOML and JSON
// alike).
func (d *decoder) packs(n *node, c *Config) {
	if n.kind != kindTable {
		d.wrongType(n, d.tableName())
		return
	}
	for _, name := range n.keys {
		v := n.fields[name]
		decl, ok, err := packs.Declared(name)
		switch {
		case err != nil:
			d.errorf(v.line, v.path(), "the pack library is broken: %v", err)
			continue
		case !ok:
			if sug := packs.Suggest(name); sug != "" {
				d.errorf(v.line, v.path(), "unknown pack %q; did you mean %s? (see: luahook add --list)", name, sug)
			} else {
				d.errorf(v.line, v.path(), "unknown pack %q (known: %s)", name, strings.Join(packs.Names(), ", "))
			}
			continue
		}
		if set, ok := d.packTable(v, decl); ok && len(set) > 0 {
			if c.Packs == nil {
				c.Packs = map[string]map[string]any{}
			}
			c.Packs[name] = set
		}
	}
}

// packTable decodes a table of settings against the record decl: each key
// must be one decl names. It returns what decoded and whether n is a table.
func (d *decoder) packTable(n *node, decl packs.Value) (map[string]any, bool) {
	if n.kind != kindTable {
		d.wrongType(n, d.tableName())
		return nil, false
	}
	out := make(map[string]any, len(n.keys))
	for _, k := range n.keys {
		v := n.fields[k]
		def, ok := decl.Fields[k]
		if !ok {
			if sug := suggest.Nearest(k, decl.Keys, 3); sug != "" {
				d.errorf(v.line, v.path(), "unknown key; did you mean %s?", sug)
			} else {
				d.errorf(v.line, v.path(), "unknown key (known: %s)", strings.Join(decl.Keys, ", "))
			}
			continue
		}
		if val, ok := d.packValue(v, def); ok {
			out[k] = val
		}
	}
	return out, true
}

// packValue decodes one setting against its default def, whose type is
// the setting's (packs.Value.Want).
func (d *decoder) packValue(n *node, def packs.Value) (any, bool) {
	want := def.Want()
	switch def.Kind {
	case packs.KindNil:
		return d.anyValue(n)
	case packs.KindBool:
		if n.kind == kindBool {
			return n.b, true
		}
	case packs.KindString:
		if n.kind == kindString {
			return n.str, true
		}
	case packs.KindNumber:
		switch n.kind {
		case kindInt:
			return n.num, true
		case kindFloat:
			if math.IsNaN(n.flt) || math.IsInf(n.flt, 0) {
				d.errorf(n.line, n.path(), "must be a finite number, not %v", n.flt)
				return nil, false
			}
			return n.flt, true
		}
	case packs.KindTable:
		switch {
		case def.IsRecord():
			if n.kind == kindTable {
				m, ok := d.packTable(n, def)
				return m, ok
			}
		case def.IsMap():
			if n.kind == kindTable {
				out := make(map[string]any, len(n.keys))
				ok := true
				for _, k := range n.keys {
					v, good := d.packValue(n.fields[k], def.Elem())
					ok = ok && good
					out[k] = v
				}
				return out, ok
			}
		default:
			if n.kind == kindArray {
				out := make([]any, 0, len(n.elems))
				ok := true
				for _, e := range n.elems {
					v, good := d.packValue(e, def.Elem())
					ok = ok && good
					out = append(out, v)
				}
				return out, ok
			}
		}
	}
	if want == "a table" || strings.HasPrefix(want, "a table of") {
		want = strings.Replace(want, "a table", d.tableName(), 1)
	}
	d.wrongType(n, want)
	return nil, false
}

// anyValue decodes a setting of any type (its default is nil): a string, a
// number, a boolean, or an array or table of them.
func (d *decoder) anyValue(n *node) (any, bool) {
	switch n.kind {
	case kindString:
		return n.str, true
	case kindInt:
		return n.num, true
	case kindFloat:
		return n.flt, true
	case kindBool:
		return n.b, true
	case kindArray:
		out := make([]any, 0, len(n.elems))
		ok := true
		for _, e := range n.elems {
			v, good := d.anyValue(e)
			ok = ok && good
			out = append(out, v)
		}
		return out, ok
	case kindTable:
		out := make(map[string]any, len(n.keys))
		ok := true
		for _, k := range n.keys {
			v, good := d.anyValue(n.fields[k])
			ok = ok && good
			out[k] = v
		}
		return out, ok
	}
	d.errorf(n.line, n.path(), "must be a string, a number, a boolean, an array or %s, not %s", d.tableName(), d.typeName(n))
	return nil, false
}
