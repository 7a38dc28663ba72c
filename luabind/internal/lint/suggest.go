package lint

import "fmt"

// suggest returns " (did you mean 'x'?)" for the known name nearest to
// name, when one is near enough to be a typo of it: at most one edit
// (insertion, deletion, substitution or swap of two neighbours) for names
// of up to 4 bytes, two for longer ones. Otherwise "".
func suggest(name string, known []string) string {
	if len(name) > maxSuggestLen {
		return ""
	}
	limit := 1
	if len(name) > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, k := range known {
		if k == name || abs(len(k)-len(name)) > limit {
			continue
		}
		if d := distance(name, k); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean '%s'?)", best)
}

// maxSuggestLen bounds the names suggest compares (the cost of distance is
// the product of the lengths): a longer name is no typo of a sandbox name.
const maxSuggestLen = 64

// distance is the optimal string alignment distance of a and b (Levenshtein
// with swaps of adjacent bytes). Names are short: the callers bound the
// length difference and suggest the length (maxSuggestLen).
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
