package registry

import (
	"cmp"
	"slices"

	"github.com/luahook/luahook"
)

// RunOrder returns a copy of entries (one event's, as List returns them) in
// the order the runner calls them: on PreToolUse every mutate-stage hook
// before every validate-stage one, each stage in registration order; on
// PostToolUse the mutate stage's hooks (the output's chain) before the
// others; on other events registration order. On the sequential events (PreToolUse,
// UserPromptSubmit) the shadow hooks (luahook.ModeShadow) come after the
// live ones, in the same order among themselves. luahook list and the
// REPL's :list show this order.
func RunOrder(entries []Entry) []Entry {
	out := slices.Clone(entries)
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Compare(runRank(&a), runRank(&b))
	})
	return out
}

// runRank is an entry's rank in the run order of its event.
func runRank(e *Entry) int {
	rank := stageRank(e.Stage)
	if e.Event == luahook.PostToolUse && e.Stage != luahook.StageMutate {
		rank = 1 // after the chain of the mutate stage
	}
	if e.Mode == luahook.ModeShadow && (e.Event == luahook.PreToolUse || e.Event == luahook.UserPromptSubmit) {
		rank += 2
	}
	return rank
}

func stageRank(s luahook.Stage) int {
	if s == luahook.StageValidate {
		return 1
	}
	return 0
}
