package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/luahook/luahook"
)

// decoder turns a node tree into a Config, collecting every problem.
type decoder struct {
	file   string
	format format
	errs   []*Error
}

// decode returns the configuration of root and its problems. The
// configuration holds every value that decoded (the defaults elsewhere, a
// hook entry with any problem left out): Parse drops it when there is a
// problem, ParsePartial keeps it.
func decode(file string, f format, root *node) (*Config, error) {
	d := &decoder{file: file, format: f}
	c := Default()
	c.Path = file
	if root != nil {
		d.top(root, c)
	}
	c.HooksDir = c.resolve(c.HooksDir)
	if p := c.DecisionLog.Path; p != "stdout" && p != "stderr" {
		c.DecisionLog.Path = c.resolve(p)
	}
	if k := c.DecisionLog.SigningKey; k != "" {
		c.DecisionLog.SigningKey = c.resolve(k)
	}
	if len(d.errs) == 0 {
		return c, nil
	}
	slices.SortStableFunc(d.errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	errs := make([]error, len(d.errs))
	for i, e := range d.errs {
		errs[i] = e
	}
	return c, errors.Join(errs...)
}

// spell returns a canonical (snake_case) key as the file spells it.
func (d *decoder) spell(key string) string {
	if d.format != formatJSON {
		return key
	}
	parts := strings.Split(key, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

func (d *decoder) errorf(line int, path, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Key: path, Msg: fmt.Sprintf(format, args...)})
}

// typeName names the type of a node the way the file's format does.
func (d *decoder) typeName(n *node) string {
	json := d.format == formatJSON
	switch n.kind {
	case kindNull:
		return "null"
	case kindString:
		return "a string"
	case kindInt:
		if json {
			return "a number"
		}
		return "an integer"
	case kindFloat:
		if json {
			return "a number"
		}
		return "a float"
	case kindBool:
		return "a boolean"
	case kindDatetime:
		return "a datetime"
	case kindArray:
		return "an array"
	}
	if json {
		return "an object"
	}
	return "a table"
}

func (d *decoder) tableName() string {
	if d.format == formatJSON {
		return "an object"
	}
	return "a table"
}

func (d *decoder) arrayOfTablesName() string {
	if d.format == formatJSON {
		return "an array of objects"
	}
	return "an array of tables"
}

func (d *decoder) wrongType(n *node, want string) {
	d.errorf(n.line, n.path(), "must be %s, not %s", want, d.typeName(n))
}

// table checks that n is a table whose keys are all among known (canonical
// names), and calls fn for each key in file order. It reports false when n
// is not a table.
func (d *decoder) table(n *node, known []string, fn func(key string, v *node)) bool {
	if n.kind != kindTable {
		d.wrongType(n, d.tableName())
		return false
	}
	for _, k := range n.keys {
		v := n.fields[k]
		canon := ""
		for _, c := range known {
			if d.spell(c) == k {
				canon = c
				break
			}
		}
		if canon == "" {
			d.unknownKey(v, k, known)
			continue
		}
		fn(canon, v)
	}
	return true
}

func (d *decoder) unknownKey(v *node, key string, known []string) {
	fold := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s)) }
	spelled := make([]string, len(known))
	for i, c := range known {
		spelled[i] = d.spell(c)
		if fold(c) == fold(key) {
			d.errorf(v.line, v.path(), "unknown key; did you mean %s?", spelled[i])
			return
		}
	}
	d.errorf(v.line, v.path(), "unknown key (known: %s)", strings.Join(spelled, ", "))
}

func (d *decoder) str(n *node) (string, bool) {
	if n.kind != kindString {
		d.wrongType(n, "a string")
		return "", false
	}
	return n.str, true
}

func (d *decoder) boolean(n *node) (bool, bool) {
	if n.kind != kindBool {
		d.wrongType(n, "a boolean")
		return false, false
	}
	return n.b, true
}

// integer reads an integer in [lo, hi].
func (d *decoder) integer(n *node, lo, hi int64) (int, bool) {
	switch {
	case n.kind == kindFloat && d.format == formatJSON:
		d.errorf(n.line, n.path(), "must be an integer, not %s", n.str)
		return 0, false
	case n.kind != kindInt:
		d.wrongType(n, "an integer")
		return 0, false
	case n.num < lo || n.num > hi:
		if hi == math.MaxInt {
			d.errorf(n.line, n.path(), "must be at least %d, not %d", lo, n.num)
		} else {
			d.errorf(n.line, n.path(), "must be between %d and %d, not %d", lo, hi, n.num)
		}
		return 0, false
	}
	return int(n.num), true
}

// strList reads an array of strings; check (if not nil) judges each entry
// and duplicates are reported.
func (d *decoder) strList(n *node, check func(string) string) ([]string, bool) {
	if n.kind != kindArray {
		d.wrongType(n, "an array of strings")
		return nil, false
	}
	out := make([]string, 0, len(n.elems))
	ok := true
	for _, e := range n.elems {
		s, good := d.str(e)
		ok = ok && good
		out = append(out, s)
	}
	if !ok {
		return nil, false
	}
	if check != nil {
		for _, lp := range checkList(out, check) {
			e := n.elems[lp.index]
			d.errorf(e.line, e.path(), "%s", lp.msg)
			ok = false
		}
	}
	return out, ok
}

func (d *decoder) top(root *node, c *Config) {
	d.table(root, []string{"hooks_dir", "runner", "lua", "store", "command", "hooks", "tools", "decision_log", "telemetry", "packs"}, func(key string, v *node) {
		switch key {
		case "hooks_dir":
			if s, ok := d.str(v); ok {
				if strings.TrimSpace(s) == "" {
					d.errorf(v.line, v.path(), "must not be empty")
				}
				c.HooksDir = s
			}
		case "runner":
			d.runner(v, &c.Runner)
		case "lua":
			d.lua(v, &c.Lua)
		case "store":
			d.store(v, c)
		case "command":
			d.table(v, []string{"allow", "pass_env"}, func(key string, v *node) {
				if key == "allow" {
					c.Command.Allow, _ = d.strList(v, checkCommandName)
				} else {
					c.Command.PassEnv, _ = d.strList(v, checkEnvName)
				}
			})
		case "hooks":
			d.hooks(v, c)
		case "tools":
			d.tools(v, c)
		case "decision_log":
			d.decisionLog(v, &c.DecisionLog)
		case "telemetry":
			d.telemetry(v, &c.Telemetry)
		case "packs":
			d.packs(v, c) // packs.go
		}
	})
}

func (d *decoder) runner(n *node, r *Runner) {
	ints := map[string]struct {
		dst      *int
		min, max int64
	}{
		"max_input_bytes":    {&r.MaxInputBytes, 1, math.MaxInt},
		"max_context_bytes":  {&r.MaxContextBytes, 1024, math.MaxInt},
		"background_workers": {&r.BackgroundWorkers, 1, 256},
		"background_queue":   {&r.BackgroundQueue, 1, 100_000},
	}
	d.table(n, []string{"allow_non_policy", "max_input_bytes", "max_context_bytes", "background_workers", "background_queue", "on_load_error", "self_protect"}, func(key string, v *node) {
		if key == "allow_non_policy" {
			if b, ok := d.boolean(v); ok {
				r.AllowNonPolicy = b
			}
		} else if key == "self_protect" {
			if b, ok := d.boolean(v); ok {
				r.SelfProtect = b
			}
		} else if key == "on_load_error" {
			if s, ok := d.str(v); ok {
				if !slices.Contains(OnLoadErrorChoices(), s) {
					d.errorf(v.line, v.path(), "%q is not a choice (want %s)", s, strings.Join(OnLoadErrorChoices(), ", "))
				} else {
					r.OnLoadError = s
				}
			}
		} else if f := ints[key]; f.dst != nil {
			if i, ok := d.integer(v, f.min, f.max); ok {
				*f.dst = i
			}
		}
	})
}

func (d *decoder) lua(n *node, l *Lua) {
	d.table(n, []string{"allow_libs", "max_string_bytes", "allow_env", "load_timeout_ms", "allow_loose_permissions", "max_input_values"}, func(key string, v *node) {
		switch key {
		case "allow_libs":
			l.AllowLibs, _ = d.strList(v, checkLib)
		case "max_string_bytes":
			if i, ok := d.integer(v, 1, math.MaxInt); ok {
				l.MaxStringBytes = i
			}
		case "allow_env":
			l.AllowEnv, _ = d.strList(v, checkEnvName)
		case "load_timeout_ms":
			if i, ok := d.integer(v, 1, MaxTimeoutMs); ok {
				l.LoadTimeoutMs = i
			}
		case "allow_loose_permissions":
			l.AllowLoosePermissions, _ = d.boolean(v)
		case "max_input_values":
			if i, ok := d.integer(v, 1, math.MaxInt); ok {
				l.MaxInputValues = i
			}
		}
	})
}

func (d *decoder) hooks(n *node, c *Config) {
	if n.kind != kindTable {
		d.wrongType(n, d.tableName())
		return
	}
	for _, name := range n.keys {
		v := n.fields[name]
		ev, err := luahook.ParseEvent(name)
		if err != nil {
			d.errorf(v.line, v.path(), "%s", err.Error())
			continue
		}
		if v.kind != kindArray {
			d.wrongType(v, d.arrayOfTablesName())
			continue
		}
		for _, e := range v.elems {
			if h, ok := d.hook(ev, e); ok {
				if c.Hooks == nil {
					c.Hooks = map[luahook.Event][]Hook{}
				}
				c.Hooks[ev] = append(c.Hooks[ev], h)
			}
		}
	}
}

var hookKeys = []string{
	"name", "matcher", "stage", "type", "command", "url", "headers", "allowed_env",
	"allow_private_network", "timeout_ms", "failure_policy", "policy", "background",
	"run_when_tool_skipped", "mode",
}

// hook decodes one entry. Keys with a wrong type are left out of the rule
// checks, so that one mistake gives one error.
func (d *decoder) hook(ev luahook.Event, n *node) (Hook, bool) {
	h := Hook{Spec: luahook.Spec{Event: ev, Source: d.file + ":" + strconv.Itoa(n.line)}}
	before := len(d.errs)
	bad := map[string]bool{}
	str := func(key string, v *node, dst *string) {
		if s, ok := d.str(v); ok {
			*dst = s
		} else {
			bad[key] = true
		}
	}
	boolean := func(key string, v *node, dst *bool) {
		if b, ok := d.boolean(v); ok {
			*dst = b
		} else {
			bad[key] = true
		}
	}
	ok := d.table(n, hookKeys, func(key string, v *node) {
		switch key {
		case "name":
			str(key, v, &h.Name)
		case "matcher":
			str(key, v, &h.Matcher)
		case "stage":
			str(key, v, (*string)(&h.Stage))
		case "type":
			str(key, v, (*string)(&h.Kind))
		case "command":
			str(key, v, &h.Command)
		case "url":
			str(key, v, &h.URL)
		case "failure_policy":
			str(key, v, (*string)(&h.FailurePolicy))
		case "mode":
			str(key, v, (*string)(&h.Mode))
		case "headers":
			h.Headers = d.headers(v)
			bad[key] = h.Headers == nil
			if bad[key] {
				h.Headers = map[string]string{} // present, for the "http only" rule
			}
		case "allowed_env":
			if list, ok := d.strList(v, nil); ok {
				h.AllowedEnv = list
			} else {
				h.AllowedEnv, bad[key] = []string{}, true
			}
		case "allow_private_network":
			boolean(key, v, &h.AllowPrivateNetwork)
		case "timeout_ms":
			if i, ok := d.integer(v, 1, MaxTimeoutMs); ok {
				h.Timeout = time.Duration(i) * time.Millisecond
			} else {
				bad[key] = true
			}
		case "policy":
			boolean(key, v, &h.Policy)
		case "background":
			boolean(key, v, &h.Background)
		case "run_when_tool_skipped":
			boolean(key, v, &h.RunWhenToolSkipped)
		}
	})
	if !ok {
		return h, false
	}
	if bad["type"] {
		return h, false // every other rule depends on the type
	}
	if bad["allowed_env"] {
		bad["headers"] = true // their ${NAME}s are judged against allowed_env
	}
	for _, p := range h.problems(d.spell) {
		if bad[p.field] {
			continue
		}
		at := n
		path := joinKey(n.path(), d.spell(p.field))
		if v := n.fields[d.spell(p.field)]; v != nil {
			at = v
			switch {
			case p.index >= 0 && p.index < len(v.elems):
				at = v.elems[p.index]
				path = at.path()
			case p.key != "" && v.fields[p.key] != nil:
				at = v.fields[p.key]
				path = at.path()
			}
		}
		d.errorf(at.line, path, "%s", p.msg)
	}
	if len(d.errs) > before {
		return h, false
	}
	h.normalize()
	return h, true
}

// headers reads a table of string values; nil when it is not one.
func (d *decoder) headers(n *node) map[string]string {
	if n.kind != kindTable {
		d.wrongType(n, d.tableName()+" of strings")
		return nil
	}
	out := make(map[string]string, len(n.keys))
	ok := true
	for _, k := range n.keys {
		if s, good := d.str(n.fields[k]); good {
			out[k] = s
		} else {
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return out
}
