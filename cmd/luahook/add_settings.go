package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/packs"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/safefile"
)

// A pack copied by an older luahook holds its settings in its own file
// (local SETTINGS = { ... }), where the operator edited them; this luahook's
// packs read them from the config's [packs.NAME] (hook.settings). Before
// add --upgrade replaces such a file, keepSettings moves what was changed
// in it into the config, and add --force tells what it discards.
//
// What counts as changed: each value of the old copy's table that differs
// from this version's default (the defaults of the version that wrote the
// copy are not known), compared entry by entry inside tables of named
// entries, whole for lists. A default that changed between the versions
// is thus kept as the old one; every value kept is named, for review.

// settingsDiff returns the entries of old (a settings table) that differ
// from the defaults decl, as a record of the same shape, and the problems
// that keep some from being carried over: a key the pack no longer has, a
// value set to nil that the config cannot say.
func settingsDiff(old, decl packs.Value, prefix string) (packs.Value, []string) {
	edits := packs.Value{Kind: packs.KindTable, Fields: map[string]packs.Value{}, Bracketed: decl.Bracketed}
	var problems []string
	for _, k := range old.Keys {
		ov := old.Fields[k]
		dv, ok := decl.Fields[k]
		switch {
		case !ok && decl.IsMap():
			edits.Keys = append(edits.Keys, k) // a new entry of a map
			edits.Fields[k] = ov
		case !ok:
			if ov.Kind != packs.KindNil {
				problems = append(problems, fmt.Sprintf("%s%s (line %d) is no longer a setting of the pack", prefix, k, ov.Line))
			}
		case ov.Equal(dv):
		case ov.Kind == packs.KindNil:
			problems = append(problems, fmt.Sprintf("%s%s (line %d) is set to nil, which the config cannot say", prefix, k, ov.Line))
		case ov.Kind == packs.KindTable && dv.Kind == packs.KindTable && !ov.IsList() && !dv.IsList():
			sub, more := settingsDiff(ov, dv, prefix+k+".")
			problems = append(problems, more...)
			if len(sub.Keys) > 0 {
				edits.Keys = append(edits.Keys, k)
				edits.Fields[k] = sub
			}
		default:
			edits.Keys = append(edits.Keys, k)
			edits.Fields[k] = ov
		}
	}
	return edits, problems
}

// changedSettings reads the settings table of an installed copy of pack
// name and returns what differs from the shipped defaults.
func changedSettings(name string, cur []byte) (packs.Value, []string, error) {
	old, err := packs.ParseSettings(cur)
	if err != nil {
		return packs.Value{}, nil, fmt.Errorf("cannot read its settings table: %w", err)
	}
	decl, ok, err := packs.Declared(name)
	if err != nil || !ok {
		return packs.Value{}, nil, fmt.Errorf("the library declares no settings for %s: %v", name, err)
	}
	edits, problems := settingsDiff(old.Table, decl, "")
	return edits, problems, nil
}

// warnDiscarded tells, before add --force replaces the copy own of pack
// name, which settings changed in it are lost.
func warnDiscarded(s *streams, name string, own *plannedFile) {
	edits, problems, err := changedSettings(name, own.cur)
	switch {
	case err != nil:
		fmt.Fprintf(s.err, "warning: %s: %v; any setting changed in it is discarded\n", own.target, err)
	case len(edits.Keys) > 0 || len(problems) > 0:
		fmt.Fprintf(s.err, "warning: %s: replacing it discards the settings changed in it (--upgrade keeps them in the config's [packs.%s]):\n", own.target, name)
		for _, line := range tomlLines(edits) {
			fmt.Fprintf(s.err, "  %s\n", line)
		}
		for _, p := range problems {
			fmt.Fprintf(s.err, "  %s\n", p)
		}
	}
}

// keepSettings moves the settings changed in the copy own of pack name
// into the config file cfgPath's [packs.NAME], before add --upgrade
// replaces the copy. It writes nothing and returns an error, with the lines
// to add by hand, when that cannot be done safely.
func keepSettings(s *streams, name string, own *plannedFile, cfgPath string) error {
	edits, problems, err := changedSettings(name, own.cur)
	if err != nil {
		return fmt.Errorf("%s: %v; move the settings you changed into the config's [packs.%s] by hand, then pass --force", own.target, err, name)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s; change the copy, or pass --force to replace it as shipped", own.target, strings.Join(problems, "; "))
	}
	if len(edits.Keys) == 0 {
		return nil // settings as shipped: nothing to keep
	}
	snippet := "[packs." + name + "]\n" + strings.Join(tomlLines(edits), "\n")
	byHand := func(why string, args ...any) error {
		return fmt.Errorf("%s: settings changed in it are not kept: %s; add to the config:\n%s\nand run add --upgrade again",
			own.target, fmt.Sprintf(why, args...), snippet)
	}
	if cfgPath == "" {
		return byHand("no config file loads this hooks folder (name it with --config)")
	}
	data, err := regfile.Read(cfgPath, config.MaxFileBytes)
	if err != nil {
		return byHand("reading the config: %v", err)
	}
	cfg, err := config.Parse(cfgPath, data)
	if err != nil {
		return byHand("the config has problems to fix first:\n%v", err)
	}
	// What the config already says the same way is kept already; what it
	// says otherwise is the operator's to settle.
	var conflicts []string
	edits = dropConfigured(edits, cfg.Packs[name], "", &conflicts)
	if len(conflicts) > 0 {
		return fmt.Errorf("%s: the copy and the config's [packs.%s] disagree: %s; settle which you want, in the config, then pass --force",
			own.target, name, strings.Join(conflicts, "; "))
	}
	if len(edits.Keys) == 0 {
		fmt.Fprintf(s.out, "%-9s the settings of %s (already in [packs.%s] of %s)\n", "kept", own.target, name, cfgPath)
		return nil
	}
	lines := tomlLines(edits)
	snippet = "[packs." + name + "]\n" + strings.Join(lines, "\n")
	if isJSONConfig(cfgPath, data) {
		js, _ := json.MarshalIndent(map[string]any{"packs": map[string]any{name: jsonValue(edits)}}, "", "  ")
		snippet = string(js)
		return byHand("%s is JSON, which add does not edit", cfgPath)
	}
	text, err := insertPackSettings(data, name, lines)
	if err != nil {
		return byHand("%v", err)
	}
	after, err := config.Parse(cfgPath, text)
	if err != nil {
		return byHand("the config would not load with them:\n%v", err)
	}
	var still []string
	if rest := dropConfigured(edits, after.Packs[name], "", &still); len(rest.Keys) > 0 || len(still) > 0 {
		return byHand("the config would not hold them as written")
	}
	fi, err := os.Stat(cfgPath)
	if err != nil {
		return byHand("%v", err)
	}
	dir, err := safefile.OpenDir(safefile.Scope{Dir: filepath.Dir(cfgPath), Follow: true, What: "the config's folder"}, ".", 0)
	if err != nil {
		return byHand("%v", err)
	}
	defer dir.Close()
	if err := dir.WriteFile(filepath.Base(cfgPath), text, fi.Mode().Perm()); err != nil {
		return byHand("%v", err)
	}
	fmt.Fprintf(s.out, "%-9s the settings changed in %s, in [packs.%s] of %s:\n", "kept", own.target, name, cfgPath)
	for _, l := range lines {
		fmt.Fprintf(s.out, "            %s\n", l)
	}
	return nil
}

// dropConfigured returns edits without the entries cfg (a [packs.NAME]
// table as config decodes it) already sets to the same value; each entry
// it sets otherwise is added to conflicts.
func dropConfigured(edits packs.Value, cfg map[string]any, prefix string, conflicts *[]string) packs.Value {
	out := packs.Value{Kind: packs.KindTable, Fields: map[string]packs.Value{}, Bracketed: edits.Bracketed}
	for _, k := range edits.Keys {
		v := edits.Fields[k]
		c, set := cfg[k]
		switch {
		case !set:
			out.Keys = append(out.Keys, k)
			out.Fields[k] = v
		case v.Kind == packs.KindTable && !v.IsList():
			m, _ := c.(map[string]any)
			if sub := dropConfigured(v, m, prefix+k+".", conflicts); len(sub.Keys) > 0 {
				out.Keys = append(out.Keys, k)
				out.Fields[k] = sub
			}
		case !reflect.DeepEqual(numbersAsFloats(jsonValue(v)), numbersAsFloats(c)):
			js, _ := json.Marshal(c)
			*conflicts = append(*conflicts, fmt.Sprintf("%s%s is %s in the copy, %s in the config", prefix, k, tomlValue(v), js))
		}
	}
	return out
}

// numbersAsFloats returns v with every number a float64, for comparing
// a config's values (int64 or float64) with a literal's.
func numbersAsFloats(v any) any {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = numbersAsFloats(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = numbersAsFloats(e)
		}
		return out
	}
	return v
}

// jsonValue returns v as config decodes a value (strings, float64s or
// int64s, bools, []any, map[string]any).
func jsonValue(v packs.Value) any {
	switch v.Kind {
	case packs.KindBool:
		return v.Bool
	case packs.KindNumber:
		if v.Int {
			return int64(v.Num)
		}
		return v.Num
	case packs.KindString:
		return v.Str
	case packs.KindTable:
		if v.IsList() {
			out := make([]any, len(v.List))
			for i, e := range v.List {
				out[i] = jsonValue(e)
			}
			return out
		}
		out := make(map[string]any, len(v.Keys))
		for _, k := range v.Keys {
			out[k] = jsonValue(v.Fields[k])
		}
		return out
	}
	return nil
}

func isJSONConfig(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return true
	case ".toml":
		return false
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// tomlLines returns "key = value" for each entry of the record v.
func tomlLines(v packs.Value) []string {
	out := make([]string, 0, len(v.Keys))
	for _, k := range v.Keys {
		out = append(out, tomlKey(k)+" = "+tomlValue(v.Fields[k]))
	}
	return out
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// tomlValue writes v as a TOML value: tables inline, on one line.
func tomlValue(v packs.Value) string {
	switch v.Kind {
	case packs.KindBool:
		return strconv.FormatBool(v.Bool)
	case packs.KindNumber:
		if v.Int {
			return strconv.FormatInt(int64(v.Num), 10)
		}
		s := strconv.FormatFloat(v.Num, 'g', -1, 64)
		if math.IsInf(v.Num, 0) || math.IsNaN(v.Num) {
			return s // refused by the config's check that follows
		}
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case packs.KindString:
		return tomlString(v.Str)
	case packs.KindTable:
		if v.IsList() {
			parts := make([]string, len(v.List))
			for i, e := range v.List {
				parts[i] = tomlValue(e)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
		return "{ " + strings.Join(tomlLines(v), ", ") + " }"
	}
	return "nil" // not TOML: refused by the config's check that follows
}

// tomlString writes s as a TOML basic string. Bytes that are not UTF-8
// cannot be written; they become U+FFFD, which the check of the config
// written then finds different.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError:
			b.WriteString("\uFFFD")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// insertPackSettings returns the config text data with lines added to its
// [packs.NAME] table: after the table's header when the file has one, else
// in a new table at the end. A file that sets packs.NAME any other way
// ([packs] with a NAME key, dotted keys, an inline table) is left to the
// operator.
func insertPackSettings(data []byte, name string, lines []string) ([]byte, error) {
	q := regexp.QuoteMeta(name)
	header := regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*packs[ \t]*\.[ \t]*(?:` + q + `|"` + q + `")[ \t]*\][ \t]*(?:#.*)?\r?\n?`)
	found := header.FindAllIndex(data, -1)
	block := strings.Join(lines, "\n") + "\n"
	switch {
	case len(found) == 1:
		at := found[0][1]
		var out []byte
		out = append(out, data[:at]...)
		if at > 0 && data[at-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, block...)
		return append(out, data[at:]...), nil
	case len(found) > 1:
		return nil, fmt.Errorf("the config has [packs.%s] more than once", name)
	}
	other := regexp.MustCompile(`(?m)^[ \t]*(?:\[[ \t]*packs[ \t]*\]|packs[ \t]*[.=]|\[\[[ \t]*packs)`)
	if other.Match(data) {
		return nil, errors.New("the config sets [packs] in a way add does not edit")
	}
	out := bytes.Clone(data)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, "[packs."+name+"]\n"+block...)
	return out, nil
}
