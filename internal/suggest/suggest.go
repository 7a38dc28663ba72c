// Package suggest finds the known name a mistyped one was meant to be: the
// one "did you mean" of the linter, `luahook add` and the other places that
// name a near miss.
package suggest

// MaxLen bounds the names Nearest compares (the cost of Distance is the
// product of the lengths): a longer name is no typo of a known one.
const MaxLen = 64

// Nearest returns the name of known nearest to name, at most limit edits
// away (Distance), the first in known order among equals; "" when none is
// that near, when name is one of known, or when name is longer than MaxLen.
func Nearest(name string, known []string, limit int) string {
	if len(name) > MaxLen {
		return ""
	}
	best, bestD := "", limit+1
	for _, k := range known {
		if k == name {
			return ""
		}
		if abs(len(k)-len(name)) > limit || len(k) > MaxLen {
			continue
		}
		if d := Distance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of adjacent bytes that
// turn a into b.
func Distance(a, b string) int {
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
