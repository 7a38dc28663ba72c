package luabind

import (
	"maps"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// hookSettings is hook.settings(name, defaults) -> settings: a pack's
// settings, its defaults table with the configuration's [packs.NAME]
// table (Options.PackSettings[name]) merged over it, in place. A table of
// named entries in both is merged entry by entry, at any depth; any other
// configured value (a string, a number, a boolean, a list) replaces the
// default. With nothing configured for name the defaults are returned as
// they are. The configuration was checked against the shipped pack's
// declaration when it loaded (internal/config), so that a key or a type it
// does not declare never gets here.
func (st *state) hookSettings(L *lua.LState) int {
	name := L.CheckString(1)
	defaults := L.CheckTable(2)
	if set := st.sh.opts.PackSettings[name]; len(set) > 0 {
		mergeSettings(L, defaults, set)
	}
	L.SetTop(2)
	return 1
}

// mergeSettings sets each entry of set in t, key by key in name order (so
// that every state builds the same table), merging a table of named
// entries into the table t holds under its key.
func mergeSettings(L *lua.LState, t *lua.LTable, set map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(set)) {
		v := set[k]
		if m, ok := v.(map[string]any); ok {
			if cur, ok := t.RawGetString(k).(*lua.LTable); ok && cur.Len() == 0 {
				mergeSettings(L, cur, m)
				continue
			}
		}
		t.RawSetString(k, settingValue(L, v))
	}
}

// settingValue converts a configured value (as internal/config decodes
// it: a string, an int64, a float64, a bool, a []any or a map[string]any)
// to Lua.
func settingValue(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(settingValue(L, e))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		mergeSettings(L, t, v)
		return t
	}
	return lua.LNil
}
