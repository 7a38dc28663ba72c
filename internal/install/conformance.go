package install

import (
	_ "embed"
	"strings"
)

// conformanceTable is what the agent conformance suite
// (internal/conformance) saw each pinned release of each agent do, as the
// suite writes it with -update; the README quotes the same table.
//
//go:embed conformance.md
var conformanceTable string

// Seen is what the conformance suite saw one release of an agent do.
type Seen struct {
	// Release is the release the suite ran, as its column names it
	// ("Claude Code 2.1.332").
	Release string `json:"release"`
	// Exact: the suite ran the very release found; otherwise Release is
	// the nearest one it ran (the newest not newer than the one found,
	// else the oldest; the newest when the release is not known).
	Exact  bool        `json:"exact"`
	Checks []SeenCheck `json:"checks"`
}

// SeenCheck is one row of the suite's table in one release's column.
type SeenCheck struct {
	Check  string `json:"check"`
	Result string `json:"result"`
}

// suiteColumn is one column of the suite's table.
type suiteColumn struct {
	title   string
	version Version
	checks  []SeenCheck
}

// parseSuiteTable reads the suite's Markdown table: a header row of
// "check" and one "TITLE VERSION" per release, a separator, and a row per
// check; a cell of "—" is a check the suite did not make there.
func parseSuiteTable(src string) []suiteColumn {
	var cols []suiteColumn
	row := 0
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
			continue
		}
		cells := strings.Split(line[1:len(line)-1], "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		row++
		switch {
		case row == 1:
			for _, c := range cells[1:] {
				sp := strings.LastIndexByte(c, ' ')
				v, ok := ParseVersion(c[sp+1:])
				if sp < 0 || !ok {
					return nil
				}
				cols = append(cols, suiteColumn{title: c[:sp], version: v})
			}
		case row == 2:
			// The separator.
		case len(cells) == len(cols)+1:
			for i, c := range cells[1:] {
				if c != "—" && c != "" {
					cols[i].checks = append(cols[i].checks, SeenCheck{Check: cells[0], Result: c})
				}
			}
		}
	}
	return cols
}

// seenFor returns what the suite saw of the release of the agent titled
// title (has: whether the release is known), or nil when the suite ran no
// release of that agent.
func seenFor(title string, v Version, has bool) *Seen {
	var mine []suiteColumn
	for _, c := range parseSuiteTable(conformanceTable) {
		if c.title == title {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	newest, oldest := mine[0], mine[0]
	var below *suiteColumn // the newest not newer than v
	for i, c := range mine {
		if newest.version.Less(c.version) {
			newest = c
		}
		if c.version.Less(oldest.version) {
			oldest = c
		}
		if !v.Less(c.version) && (below == nil || below.version.Less(c.version)) {
			below = &mine[i]
		}
	}
	pick := newest
	switch {
	case !has:
	case below != nil:
		pick = *below
	default:
		pick = oldest
	}
	return &Seen{Release: pick.title + " " + pick.version.String(), Exact: has && pick.version == v, Checks: pick.checks}
}
