package install

import (
	"reflect"
)

// merge returns src with luahook's entries for t's events added or
// replaced, and every other entry removed by luahook: each event gets
// exactly one luahook entry, and nothing else changes. Everything that is
// not luahook's stays byte for byte; a file already up to date comes back
// unchanged. src nil is a file that does not exist yet. warnings say what
// keeps the hooks from running (a switch that turns them all off).
func merge(t *target, o *Options, path string, src []byte) (out []byte, warnings []string, err error) {
	entries := t.entries(o)
	if src == nil {
		doc := obj{}
		if t.version {
			doc = append(doc, field{"version", 1})
		}
		doc = append(doc, field{"hooks", lists(entries)})
		return []byte(defaultStyle.render(doc, "") + "\n"), nil, nil
	}
	root, err := parse(path, src, t.comments)
	if err != nil {
		return nil, nil, err
	}
	if root.kind != kindObject {
		return nil, nil, errorAt(path, src, root.start, "the top level is %s: want an object", root.kind)
	}
	st := fileStyle(src, root)
	if t.disabled != nil {
		if why := t.disabled(root); why != "" {
			warnings = append(warnings, path+": "+why+": "+string(t.agent)+" runs none of its hooks, luahook's included")
		}
	}
	hooks, err := root.get(path, src, "hooks")
	if err != nil {
		return nil, nil, err
	}
	var edits []edit
	var missing obj
	if t.version {
		v, err := root.get(path, src, "version")
		switch {
		case err != nil:
			return nil, nil, err
		case v == nil:
			missing = append(missing, field{"version", 1})
		case v.kind != kindNumber || v.num != 1:
			return nil, nil, errorAt(path, src, v.start, `"version" is %s: luahook writes hooks for version 1`, string(src[v.start:v.end]))
		}
	}
	if hooks == nil {
		missing = append(missing, field{"hooks", lists(entries)})
		edits = insertMembers(src, st, root, missing)
		out, err = splice(src, edits)
		return out, warnings, err
	}
	if len(missing) > 0 {
		edits = insertMembers(src, st, root, missing)
	}
	if hooks.kind != kindObject {
		return nil, nil, errorAt(path, src, hooks.start, `"hooks" is %s: want an object`, hooks.kind)
	}
	want := make(map[string]any, len(entries))
	for _, e := range entries {
		want[e.key] = e.val
	}
	seen := make(map[string]bool, len(hooks.members))
	for _, m := range hooks.members {
		if seen[m.key] {
			return nil, nil, errorAt(path, src, m.keyStart, "key %q appears twice in \"hooks\"", m.key)
		}
		seen[m.key] = true
		w, managed := want[m.key]
		if m.value.kind != kindArray {
			if managed {
				return nil, nil, errorAt(path, src, m.value.start, "hooks.%s is %s: want an array", m.key, m.value.kind)
			}
			continue // not luahook's to judge
		}
		e, err := t.eventEdits(path, src, st, m.value, w)
		if err != nil {
			return nil, nil, err
		}
		edits = append(edits, e...)
	}
	var add []field
	for _, e := range entries {
		if !seen[e.key] {
			add = append(add, e)
		}
	}
	if len(add) > 0 {
		edits = append(edits, insertMembers(src, st, hooks, lists(add))...)
	}
	out, err = splice(src, edits)
	return out, warnings, err
}

// eventEdits brings one event's list to exactly one luahook entry, want
// (none when want is nil): luahook's entries are removed, and want is
// appended, unless the list already holds want and no other luahook entry.
func (t *target) eventEdits(path string, src []byte, st style, list *node, want any) ([]edit, error) {
	var wantValue any
	if want != nil {
		wantValue = decoded(want)
	}
	remove := map[int]bool{}
	var inner []edit
	count, match := 0, false
	for i, el := range list.elems {
		if !t.groups {
			if t.ours(el) {
				count++
				remove[i] = true
				match = match || wantValue != nil && reflect.DeepEqual(el.value(), wantValue)
			}
			continue
		}
		if el.kind != kindObject {
			continue
		}
		hs, err := el.get(path, src, "hooks")
		if err != nil {
			return nil, err
		}
		if hs == nil || hs.kind != kindArray {
			continue
		}
		mine := map[int]bool{}
		for k, h := range hs.elems {
			if t.ours(h) {
				mine[k] = true
			}
		}
		if len(mine) == 0 {
			continue
		}
		count += len(mine)
		if len(mine) < len(hs.elems) {
			// The group also holds other hooks: take luahook's out of it.
			inner = append(inner, arrayEdits(src, st, hs, mine, nil)...)
			continue
		}
		remove[i] = true
		match = match || wantValue != nil && reflect.DeepEqual(el.value(), wantValue)
	}
	if count == 0 && want == nil {
		return nil, nil
	}
	if count == 1 && match {
		return nil, nil // up to date
	}
	return append(inner, arrayEdits(src, st, list, remove, want)...), nil
}

// lists returns each event's entry as the event's list of one entry.
func lists(entries []field) obj {
	out := make(obj, len(entries))
	for i, e := range entries {
		out[i] = field{e.key, []any{e.val}}
	}
	return out
}
