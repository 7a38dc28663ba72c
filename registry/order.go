package registry

import (
	"cmp"
	"slices"

	"github.com/luahook/luahook"
)

// RunOrder returns a copy of entries (one event's, as List returns them) in
// the order the runner calls them: on PreToolUse every mutate-stage hook
// before every validate-stage one, each stage in registration order; on
// other events registration order. luahook list and the REPL's :list show
// this order.
func RunOrder(entries []Entry) []Entry {
	out := slices.Clone(entries)
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Compare(stageRank(a.Stage), stageRank(b.Stage))
	})
	return out
}

func stageRank(s luahook.Stage) int {
	if s == luahook.StageValidate {
		return 1
	}
	return 0
}
