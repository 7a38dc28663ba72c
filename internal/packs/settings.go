package packs

import (
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A pack declares its settings in one place, its Lua file, as the defaults
// table it passes to hook.settings:
//
//	local SETTINGS = hook.settings("git", {
//	  protected_branches = { "main", "master" },
//	  discard = "deny",
//	})
//
// hook.settings returns that table with the config's [packs.git] table
// merged over it. The defaults are a literal (strings, numbers, booleans,
// nil and tables of them), so that Go reads the declaration from the
// source (Declared) without running it, and the config is checked against
// it when it loads. A default's value is also its type:
//
//   - a string, a number, a boolean: a setting of that type;
//   - a list ({ "a", "b" }, or {}): a list of values of its first entry's
//     type (strings when empty), which a setting replaces whole;
//   - a table of named entries written name = value: a record, whose
//     names are its only keys, each merged on its own;
//   - a table of named entries written ["key"] = value: a map, whose keys
//     are the operator's, values of its first entry's type, merged entry
//     by entry;
//   - nil: a setting of any type (off by default), which the pack checks
//     itself when it loads.

// Kind is the kind of a settings value.
type Kind uint8

// The kinds of a settings value.
const (
	KindNil Kind = iota
	KindBool
	KindNumber
	KindString
	KindTable
)

// Value is a Lua literal of a settings table: a string, a number, a
// boolean, nil, or a table of them, with the line it starts on.
type Value struct {
	Kind Kind
	Bool bool
	// Num is a number's value; Int says the literal had no fraction or
	// exponent (500, not 0.8), so that it is written back as an integer.
	Num float64
	Int bool
	Str string
	// List holds a table's positional entries, Keys its named ones in
	// source order, Fields their values.
	List   []Value
	Keys   []string
	Fields map[string]Value
	// Bracketed says the table's named keys were written ["key"] = value:
	// a map of the operator's keys rather than a record.
	Bracketed bool
	// Line is the 1-based line the value starts on.
	Line int
}

// IsList reports whether v is a table with no named entries (an empty
// table counts as a list).
func (v Value) IsList() bool { return v.Kind == KindTable && len(v.Keys) == 0 }

// IsMap reports whether v is a table of named entries written ["key"].
func (v Value) IsMap() bool { return v.Kind == KindTable && len(v.Keys) > 0 && v.Bracketed }

// IsRecord reports whether v is a table of named entries written name =.
func (v Value) IsRecord() bool { return v.Kind == KindTable && len(v.Keys) > 0 && !v.Bracketed }

// Elem returns the default that an entry of a list or map default is
// checked against: its first entry, an empty string when it has none.
func (v Value) Elem() Value {
	switch {
	case len(v.List) > 0:
		return v.List[0]
	case len(v.Keys) > 0:
		return v.Fields[v.Keys[0]]
	}
	return Value{Kind: KindString}
}

// Want describes what a setting whose default is v must be: "a string",
// "an array of strings", "a table", "a table of strings" (a map), ...; ""
// for nil (anything).
func (v Value) Want() string {
	switch v.Kind {
	case KindBool:
		return "a boolean"
	case KindNumber:
		return "a number"
	case KindString:
		return "a string"
	case KindTable:
		switch e := v.Elem(); {
		case v.IsList():
			return "an array of " + strings.TrimPrefix(strings.TrimPrefix(e.Want(), "a "), "an ") + "s"
		case v.IsMap():
			return "a table of " + strings.TrimPrefix(strings.TrimPrefix(e.Want(), "a "), "an ") + "s"
		}
		return "a table"
	}
	return ""
}

// Equal reports whether v and o are the same literal value (lines aside;
// 1 and 1.0 are equal, as in Lua).
func (v Value) Equal(o Value) bool {
	if v.Kind != o.Kind {
		return false
	}
	switch v.Kind {
	case KindBool:
		return v.Bool == o.Bool
	case KindNumber:
		return v.Num == o.Num
	case KindString:
		return v.Str == o.Str
	case KindTable:
		if len(v.List) != len(o.List) || len(v.Keys) != len(o.Keys) {
			return false
		}
		for i := range v.List {
			if !v.List[i].Equal(o.List[i]) {
				return false
			}
		}
		for _, k := range v.Keys {
			ov, ok := o.Fields[k]
			if !ok || !v.Fields[k].Equal(ov) {
				return false
			}
		}
	}
	return true
}

// Declaration is a settings table found in a pack's source.
type Declaration struct {
	// Pack is the name given to hook.settings; "" for a file of an older
	// luahook, whose settings are a plain table (local SETTINGS = { ... }).
	Pack string
	// Table is the defaults table.
	Table Value
}

// maxSettingsDepth bounds how deeply a settings table nests.
const maxSettingsDepth = 16

// maxSettingsValues bounds the values of one settings table.
const maxSettingsValues = 100_000

// declStart finds a settings declaration: hook.settings("name", { in this
// luahook's packs, local SETTINGS = { in an older luahook's.
var declStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^local SETTINGS = (?:hook\.settings\(\s*"([a-z][a-z0-9-]*)"\s*,\s*)?\{`)
}) // compiled on first use, not at start-up

// ParseSettings reads the settings declaration of a pack's source: the
// first line starting "local SETTINGS = hook.settings("name", {" (or, in a
// file an older luahook wrote, "local SETTINGS = {") and the literal table
// that follows. Its error names the line of what is not a literal.
func ParseSettings(src []byte) (Declaration, error) {
	loc := declStart().FindSubmatchIndex(src)
	if loc == nil {
		return Declaration{}, fmt.Errorf("no settings table (a line starting %q)", `local SETTINGS = hook.settings("NAME", {`)
	}
	p := &litParser{src: src, pos: loc[1] - 1, line: 1 + strings.Count(string(src[:loc[1]-1]), "\n")}
	var d Declaration
	if loc[2] >= 0 {
		d.Pack = string(src[loc[2]:loc[3]])
	}
	t, err := p.value(0)
	if err != nil {
		return Declaration{}, err
	}
	if d.Pack != "" {
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return Declaration{}, fmt.Errorf("line %d: hook.settings takes the pack's name and one literal table: want \")\"", p.line)
		}
	}
	d.Table = t
	return d, nil
}

// declared caches each shipped pack's settings, read on first use: a
// config with [packs.git] reads git.lua's declaration only.
var declared struct {
	sync.Mutex
	m map[string]declaredPack
}

type declaredPack struct {
	v   Value
	ok  bool
	err error
}

// Declared returns the settings table the shipped pack name declares (its
// defaults, a record), and whether there is such a pack.
func Declared(name string) (Value, bool, error) {
	declared.Lock()
	defer declared.Unlock()
	if d, ok := declared.m[name]; ok {
		return d.v, d.ok, d.err
	}
	v, ok, err := declare(name)
	if declared.m == nil {
		declared.m = map[string]declaredPack{}
	}
	if len(declared.m) < 1024 { // names that are no pack are cached too, boundedly
		declared.m[name] = declaredPack{v, ok, err}
	}
	return v, ok, err
}

func declare(name string) (Value, bool, error) {
	if !slices.Contains(Names(), name) {
		return Value{}, false, nil
	}
	src, err := fs.ReadFile(FS, name+".lua")
	if err != nil {
		return Value{}, false, err
	}
	d, err := ParseSettings(src)
	switch {
	case err != nil:
		return Value{}, false, fmt.Errorf("packs/%s.lua: %w", name, err)
	case d.Pack != name:
		return Value{}, false, fmt.Errorf("packs/%s.lua:%d: the settings must be declared with hook.settings(%q, { ... })", name, d.Table.Line, name)
	case !d.Table.IsRecord():
		return Value{}, false, fmt.Errorf("packs/%s.lua:%d: the settings table must hold named settings", name, d.Table.Line)
	}
	return d.Table, true, nil
}

// Names returns the names of the shipped packs, in order.
func Names() []string {
	names, _ := fs.Glob(FS, "*.lua")
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !strings.HasSuffix(n, "_test.lua") {
			out = append(out, strings.TrimSuffix(n, ".lua"))
		}
	}
	return out
}

// litParser reads a Lua table literal.
type litParser struct {
	src    []byte
	pos    int
	line   int
	values int
}

func (p *litParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{p.line}, args...)...)
}

// space skips white space and comments.
func (p *litParser) space() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			p.pos++
		case c == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '-':
			p.pos += 2
			if lvl, ok := p.longOpen(); ok {
				p.longBody(lvl) // an unclosed comment runs to the end
				continue
			}
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// longOpen reads "[[" or "[==[" at pos and returns its level.
func (p *litParser) longOpen() (int, bool) {
	if p.pos >= len(p.src) || p.src[p.pos] != '[' {
		return 0, false
	}
	i := p.pos + 1
	for i < len(p.src) && p.src[i] == '=' {
		i++
	}
	if i >= len(p.src) || p.src[i] != '[' {
		return 0, false
	}
	lvl := i - p.pos - 1
	p.pos = i + 1
	return lvl, true
}

// longBody reads up to the "]]" of level lvl and returns what it encloses.
func (p *litParser) longBody(lvl int) (string, bool) {
	closing := "]" + strings.Repeat("=", lvl) + "]"
	rest := string(p.src[p.pos:])
	i := strings.Index(rest, closing)
	if i < 0 {
		p.line += strings.Count(rest, "\n")
		p.pos = len(p.src)
		return "", false
	}
	body := rest[:i]
	p.line += strings.Count(body, "\n")
	p.pos += i + len(closing)
	body = strings.TrimPrefix(strings.TrimPrefix(body, "\r"), "\n") // as Lua skips the first newline
	return body, true
}

func (p *litParser) value(depth int) (Value, error) {
	p.space()
	if p.pos >= len(p.src) {
		return Value{}, p.errorf("the settings table ends too soon")
	}
	if p.values++; p.values > maxSettingsValues {
		return Value{}, p.errorf("more than %d values", maxSettingsValues)
	}
	line := p.line
	c := p.src[p.pos]
	switch {
	case c == '{':
		if depth >= maxSettingsDepth {
			return Value{}, p.errorf("tables nest more than %d deep", maxSettingsDepth)
		}
		return p.table(depth + 1)
	case c == '"' || c == '\'':
		s, err := p.shortString()
		return Value{Kind: KindString, Str: s, Line: line}, err
	case c == '[':
		lvl, ok := p.longOpen()
		if !ok {
			return Value{}, p.errorf("not a literal value")
		}
		s, ok := p.longBody(lvl)
		if !ok {
			return Value{}, p.errorf("unfinished long string")
		}
		return Value{Kind: KindString, Str: s, Line: line}, nil
	case c == '-' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	case isNameStart(c):
		name := p.name()
		switch name {
		case "true", "false":
			return Value{Kind: KindBool, Bool: name == "true", Line: line}, nil
		case "nil":
			return Value{Kind: KindNil, Line: line}, nil
		}
		return Value{}, fmt.Errorf("line %d: %s is not a literal: a settings table holds only strings, numbers, booleans, nil and tables", line, name)
	}
	return Value{}, p.errorf("%q is not a literal: a settings table holds only strings, numbers, booleans, nil and tables", string(c))
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (p *litParser) name() string {
	start := p.pos
	for p.pos < len(p.src) && (isNameStart(p.src[p.pos]) || p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
		p.pos++
	}
	return string(p.src[start:p.pos])
}

// table reads { entries } at pos.
func (p *litParser) table(depth int) (Value, error) {
	t := Value{Kind: KindTable, Line: p.line}
	p.pos++ // {
	named := func(key string, bracketed bool) error {
		if t.Fields == nil {
			t.Fields = map[string]Value{}
		} else if _, dup := t.Fields[key]; dup {
			return p.errorf("%s is set twice", key)
		}
		if len(t.Keys) > 0 && t.Bracketed != bracketed {
			return p.errorf("write every key of a table the same way: name = or [\"name\"] =")
		}
		t.Bracketed = bracketed
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '=' {
			return p.errorf("want = after the key %s", key)
		}
		p.pos++
		v, err := p.value(depth)
		if err != nil {
			return err
		}
		t.Keys = append(t.Keys, key)
		t.Fields[key] = v
		return nil
	}
	for {
		p.space()
		if p.pos >= len(p.src) {
			return Value{}, p.errorf("the table of line %d is not closed", t.Line)
		}
		c := p.src[p.pos]
		var err error
		switch {
		case c == '}':
			p.pos++
			if len(t.List) > 0 && len(t.Keys) > 0 {
				return Value{}, fmt.Errorf("line %d: a table holds either a list or named entries, not both", t.Line)
			}
			return t, nil
		case c == '[' && p.pos+1 < len(p.src) && p.src[p.pos+1] != '[' && p.src[p.pos+1] != '=':
			p.pos++
			p.space()
			var k Value
			if k, err = p.value(depth); err != nil {
				return Value{}, err
			}
			if k.Kind != KindString {
				return Value{}, p.errorf("a key in brackets must be a string")
			}
			p.space()
			if p.pos >= len(p.src) || p.src[p.pos] != ']' {
				return Value{}, p.errorf("want ] after the key %q", k.Str)
			}
			p.pos++
			err = named(k.Str, true)
		case isNameStart(c):
			save, saveLine := p.pos, p.line
			key := p.name()
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == '=' && (p.pos+1 >= len(p.src) || p.src[p.pos+1] != '=') {
				p.pos, p.line = save, saveLine
				p.name()
				err = named(key, false)
				break
			}
			p.pos, p.line = save, saveLine
			fallthrough
		default:
			var v Value
			if v, err = p.value(depth); err == nil {
				t.List = append(t.List, v)
			}
		}
		if err != nil {
			return Value{}, err
		}
		p.space()
		if p.pos < len(p.src) && (p.src[p.pos] == ',' || p.src[p.pos] == ';') {
			p.pos++
		} else if p.pos < len(p.src) && p.src[p.pos] != '}' {
			return Value{}, p.errorf("want , or } in the table of line %d", t.Line)
		}
	}
}

// shortString reads a quoted string with Lua's escapes.
func (p *litParser) shortString() (string, error) {
	q := p.src[p.pos]
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\n':
			return "", p.errorf("unfinished string")
		case c == '\\':
			p.pos++
			if p.pos >= len(p.src) {
				return "", p.errorf("unfinished string")
			}
			e := p.src[p.pos]
			p.pos++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case '\\', '"', '\'':
				b.WriteByte(e)
			case '\n':
				p.line++
				b.WriteByte('\n')
			default:
				if e < '0' || e > '9' {
					return "", p.errorf("unknown escape \\%c", e)
				}
				n := int(e - '0')
				for i := 0; i < 2 && p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9'; i++ {
					n = n*10 + int(p.src[p.pos]-'0')
					p.pos++
				}
				if n > 255 {
					return "", p.errorf("escape \\%d is above 255", n)
				}
				b.WriteByte(byte(n))
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", p.errorf("unfinished string")
}

// number reads a number literal, with an optional minus sign.
func (p *litParser) number() (Value, error) {
	line := p.line
	neg := false
	if p.src[p.pos] == '-' {
		neg = true
		p.pos++
		p.space()
	}
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' ||
			(c == '+' || c == '-') && (p.src[p.pos-1] == 'e' || p.src[p.pos-1] == 'E') && !strings.HasPrefix(strings.ToLower(string(p.src[start:p.pos])), "0x") {
			p.pos++
			continue
		}
		break
	}
	text := string(p.src[start:p.pos])
	v := Value{Kind: KindNumber, Line: line}
	if lower := strings.ToLower(text); strings.HasPrefix(lower, "0x") {
		n, err := strconv.ParseUint(lower[2:], 16, 64)
		if err != nil {
			return Value{}, fmt.Errorf("line %d: %q is not a number", line, text)
		}
		v.Num, v.Int = float64(n), true
	} else {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || strings.Trim(text, "0123456789.eE+-") != "" {
			return Value{}, fmt.Errorf("line %d: %q is not a number", line, text)
		}
		v.Num, v.Int = f, !strings.ContainsAny(text, ".eE") && math.Abs(f) < 1<<53
	}
	if neg {
		v.Num = -v.Num
	}
	return v, nil
}
