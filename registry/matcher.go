package registry

import "strings"

// A matcher selects the payloads a hook runs for, by the payload's match key
// (the tool name for tool events). It is parsed once, at registration, so that
// testing a hook that does not match costs a few string comparisons.
type matcher struct {
	all   bool
	ascii bool     // every name is ASCII
	names []string // trimmed, non-empty; compared with strings.EqualFold
}

func compileMatcher(s string) matcher {
	if s == "" || s == "*" {
		return matcher{all: true}
	}
	var names []string
	for part := range strings.SplitSeq(s, "|") {
		part = strings.TrimSpace(part)
		if part != "" {
			names = append(names, part)
		}
	}
	return matcher{names: names, ascii: isASCII(s)}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// match reports whether the hook runs for key. An empty key (an event without
// a match key) matches every hook.
func (m matcher) match(key string) bool {
	if m.all || key == "" {
		return true
	}
	// ASCII strings of different lengths never fold to each other; only
	// non-ASCII keys (the Kelvin sign folds to k) need the full comparison.
	quick := m.ascii && isASCII(key)
	for _, n := range m.names {
		if quick && len(n) != len(key) {
			continue
		}
		if strings.EqualFold(n, key) {
			return true
		}
	}
	return false
}

// Match reports whether matcher selects key: an empty matcher or "*" selects
// everything; otherwise matcher is a "|"-separated, trimmed, case-insensitive
// list of exact names ("*" inside a list is a literal name, not a wildcard).
// An empty key is selected by every matcher.
func Match(matcher, key string) bool { return compileMatcher(matcher).match(key) }
