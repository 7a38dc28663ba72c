package config

import (
	"maps"
	"slices"
)

// HooksEqual reports whether c and o configure the same hooks: the same
// entries per event in the same order, and the same [command] allow and
// pass_env, which shape how command hooks are built. A reload whose
// configuration is HooksEqual to the previous one need not rebuild the
// configured hooks.
//
// Entries are compared after defaults are applied, so an omitted key equals
// its default written out ({command = "x"} equals {command = "x",
// matcher = "*"}), except timeout_ms: an omitted timeout and the registry's
// default written out count as different, a harmless extra reload. Key order
// inside an entry and in headers never counts, nor does the order of names in
// allowed_env, allow and pass_env; the order of entries does. Source lines do
// not count either (an edit elsewhere in the file moves them), nor does
// anything outside the hooks: hooks_dir, [runner], [lua] and [tools] are the
// engine's to compare. A nil Config stands for Default().
func (c *Config) HooksEqual(o *Config) bool {
	if c == nil {
		c = Default()
	}
	if o == nil {
		o = Default()
	}
	if !sameSet(c.Command.Allow, o.Command.Allow) || !sameSet(c.Command.PassEnv, o.Command.PassEnv) {
		return false
	}
	if c.NumHooks() != o.NumHooks() {
		return false
	}
	for ev, hs := range c.Hooks {
		ohs := o.Hooks[ev]
		if len(hs) != len(ohs) {
			return false
		}
		for i := range hs {
			if !hs[i].equal(&ohs[i]) {
				return false
			}
		}
	}
	return true
}

// equal compares two hooks as HooksEqual does: every field but the source,
// and the spec's Hook, which configuration never sets.
func (h *Hook) equal(o *Hook) bool {
	a, b := h.Spec, o.Spec
	a.Source, b.Source = "", ""
	a.Hook, b.Hook = nil, nil
	return a == b &&
		h.Command == o.Command &&
		h.URL == o.URL &&
		maps.Equal(h.Headers, o.Headers) &&
		sameSet(h.AllowedEnv, o.AllowedEnv) &&
		h.AllowPrivateNetwork == o.AllowPrivateNetwork
}

// sameSet compares two lists of names as sets (they hold no duplicates).
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if slices.Equal(a, b) {
		return true
	}
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
