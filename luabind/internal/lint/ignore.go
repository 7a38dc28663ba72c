package lint

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// ignoreMark starts an ignore comment, after "--" and spaces.
const ignoreMark = "luahook: ignore"

// ignores maps a line to the rules silenced on it ("" for every rule).
type ignores map[int][]string

// silences reports whether a warning of rule on line is silenced.
func (ig ignores) silences(line int, rule string) bool {
	rules, ok := ig[line]
	return ok && (slices.Contains(rules, "") || slices.Contains(rules, rule))
}

// scanIgnores finds the ignore comments of src: `-- luahook: ignore` and
// the rules after it, separated by commas or spaces, up to the end of the
// line. A comment after code covers its own line; a comment alone on its
// line covers the next one.
// The scan reads lines, not tokens: the mark inside a string literal would
// count too, which costs at worst a silenced warning.
func scanIgnores(path string, src []byte) (ignores, []Warning) {
	ig := ignores{}
	var bad []Warning
	if !bytes.Contains(src, []byte(ignoreMark)) {
		return ig, nil
	}
	for n, line := range bytes.Split(src, []byte("\n")) {
		i := bytes.Index(line, []byte("--"))
		if i < 0 {
			continue
		}
		rest := strings.TrimLeft(string(line[i+2:]), " \t")
		if !strings.HasPrefix(rest, ignoreMark) {
			continue
		}
		rest = rest[len(ignoreMark):]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\r' {
			continue // "luahook: ignored", not the mark
		}
		rules := strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' })
		if len(rules) == 0 {
			rules = []string{""}
		}
		for _, r := range rules {
			if r != "" && !slices.Contains(Rules, r) {
				bad = append(bad, Warning{Path: path, Line: n + 1, Rule: RuleBadIgnore,
					Message: fmt.Sprintf("ignore comment names an unknown rule %q%s (rules: %s)", r, suggest(r, Rules), strings.Join(Rules, ", "))})
			}
		}
		// After code, the comment is about its own line; alone on its
		// line, about the next one.
		at := n + 1
		if len(bytes.TrimSpace(line[:i])) == 0 {
			at = n + 2
		}
		ig[at] = append(ig[at], rules...)
	}
	return ig, bad
}
