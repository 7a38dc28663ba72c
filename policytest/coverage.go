package policytest

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/luabind"
)

// CoverageReport is the line coverage of a test run (Options.Coverage):
// each hook file and lib module the tests ran, and the total. Its JSON form
// is what `luahook test --coverage --json` prints; its fields and their
// order are stable.
type CoverageReport struct {
	Files []FileCoverage `json:"files"`
	Total CoverageTotal  `json:"total"`
}

// FileCoverage is the coverage of one file: how many of its executable
// lines ran, and which did and did not, ascending.
type FileCoverage struct {
	Path           string  `json:"path"`
	Executable     int     `json:"executable"`
	Covered        int     `json:"covered"`
	Percent        float64 `json:"percent"`
	CoveredLines   []int   `json:"coveredLines"`
	UncoveredLines []int   `json:"uncoveredLines"`
}

// CoverageTotal sums the files of a report.
type CoverageTotal struct {
	Executable int     `json:"executable"`
	Covered    int     `json:"covered"`
	Percent    float64 `json:"percent"`
}

// NewCoverageReport reads what cov counted, ordered by path. A file with no
// executable line is 100% covered.
func NewCoverageReport(cov *luabind.Coverage) CoverageReport {
	r := CoverageReport{Files: []FileCoverage{}}
	for _, f := range cov.Files() {
		fc := FileCoverage{
			Path:           f.Path,
			Executable:     len(f.Covered) + len(f.Uncovered),
			Covered:        len(f.Covered),
			CoveredLines:   f.Covered,
			UncoveredLines: f.Uncovered,
		}
		fc.Percent = percent(fc.Covered, fc.Executable)
		r.Files = append(r.Files, fc)
		r.Total.Executable += fc.Executable
		r.Total.Covered += fc.Covered
	}
	r.Total.Percent = percent(r.Total.Covered, r.Total.Executable)
	return r
}

// percent is covered/executable in percent, to one decimal.
func percent(covered, executable int) float64 {
	if executable == 0 {
		return 100
	}
	return math.Round(1000*float64(covered)/float64(executable)) / 10
}

// Below reports whether the total coverage is under minPercent, before
// rounding: 79.96% is under 80.
func (r CoverageReport) Below(minPercent float64) bool {
	return float64(r.Total.Covered)*100 < minPercent*float64(r.Total.Executable)
}

// WriteText prints the report as a table: per file its covered and
// executable lines ("12/14"), the percentage and the uncovered lines as ranges
// ("12-14, 20"), then the total.
func (r CoverageReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tLINES\tCOVERAGE\tUNCOVERED")
	for _, f := range r.Files {
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\n", termtext.Line(f.Path), f.Covered, f.Executable, formatPercent(f.Percent), Ranges(f.UncoveredLines))
	}
	fmt.Fprintf(tw, "total\t%d/%d\t%s\n", r.Total.Covered, r.Total.Executable, formatPercent(r.Total.Percent))
	return tw.Flush()
}

func formatPercent(p float64) string { return strconv.FormatFloat(p, 'f', 1, 64) + "%" }

// Ranges writes ascending line numbers as ranges: [12 13 14 20] is
// "12-14, 20"; none is "-".
func Ranges(lines []int) string {
	if len(lines) == 0 {
		return "-"
	}
	var b strings.Builder
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(lines[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(lines[j]))
		}
		i = j + 1
	}
	return b.String()
}
