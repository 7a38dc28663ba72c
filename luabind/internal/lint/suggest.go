package lint

import (
	"fmt"
	"slices"

	near "github.com/luahook/luahook/internal/suggest"
)

// suggest returns " (did you mean 'x'?)" for the known name nearest to
// name, when one is near enough to be a typo of it: at most one edit
// (insertion, deletion, substitution or swap of two neighbours) for names
// of up to 4 bytes, two for longer ones; the first in sorted order among
// equals. Otherwise "".
func suggest(name string, known []string) string {
	limit := 1
	if len(name) > 4 {
		limit = 2
	}
	best := near.Nearest(name, slices.Sorted(slices.Values(known)), limit)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean '%s'?)", best)
}

// maxSuggestLen bounds the names suggest compares: a longer name is no
// typo of a sandbox name.
const maxSuggestLen = near.MaxLen
