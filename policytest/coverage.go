package policytest

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/luabind"
)

// CoverageReport is the line coverage of a test run (Options.Coverage),
// in two parts: the files under test, and apart the lib modules they
// required. Files under test are the hook files of the tested folders and
// the lib modules a test file requires itself (`local shell =
// require("shell")` in a lib's own tests); Total and Below are theirs. Lib
// holds every other module loaded from a folder's lib (what the hooks, or
// the modules a test file required, require in turn), with LibTotal. Its
// JSON form is what `luahook test --coverage --json` prints; its fields and
// their order are stable.
type CoverageReport struct {
	Files    []FileCoverage `json:"files"`
	Total    CoverageTotal  `json:"total"`
	Lib      []FileCoverage `json:"lib"`
	LibTotal CoverageTotal  `json:"libTotal"`
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

// CoverageTotal sums the files of one part of a report.
type CoverageTotal struct {
	Executable int     `json:"executable"`
	Covered    int     `json:"covered"`
	Percent    float64 `json:"percent"`
}

// newCoverageReport reads what cov counted, each part ordered by path; lib
// says which paths are lib modules. A file with no executable line is 100%
// covered.
func newCoverageReport(cov *luabind.Coverage, lib func(path string) bool) CoverageReport {
	r := CoverageReport{Files: []FileCoverage{}, Lib: []FileCoverage{}}
	for _, f := range cov.Files() {
		fc := FileCoverage{
			Path:           f.Path,
			Executable:     len(f.Covered) + len(f.Uncovered),
			Covered:        len(f.Covered),
			CoveredLines:   f.Covered,
			UncoveredLines: f.Uncovered,
		}
		fc.Percent = percent(fc.Covered, fc.Executable)
		files, total := &r.Files, &r.Total
		if lib(f.Path) {
			files, total = &r.Lib, &r.LibTotal
		}
		*files = append(*files, fc)
		total.Executable += fc.Executable
		total.Covered += fc.Covered
	}
	r.Total.Percent = percent(r.Total.Covered, r.Total.Executable)
	r.LibTotal.Percent = percent(r.LibTotal.Covered, r.LibTotal.Executable)
	return r
}

// percent is covered/executable in percent, to one decimal.
func percent(covered, executable int) float64 {
	if executable == 0 {
		return 100
	}
	return math.Round(1000*float64(covered)/float64(executable)) / 10
}

// Below reports whether the total coverage of the files under test is
// under minPercent, before rounding: 79.96% is under 80. The lib modules
// do not count.
func (r CoverageReport) Below(minPercent float64) bool {
	return below(r.Total.Covered, r.Total.Executable, minPercent)
}

// Under returns the files under test whose own coverage is under
// minPercent, before rounding, in the report's order.
func (r CoverageReport) Under(minPercent float64) []FileCoverage {
	var out []FileCoverage
	for _, f := range r.Files {
		if below(f.Covered, f.Executable, minPercent) {
			out = append(out, f)
		}
	}
	return out
}

func below(covered, executable int, minPercent float64) bool {
	return float64(covered)*100 < minPercent*float64(executable)
}

// WriteText prints the report as tables, their columns aligned together:
// per file under test its covered and executable lines ("12/14"), the
// percentage and the uncovered lines as ranges ("12-14, 20"), then their
// total; then, when the tests loaded any, the lib modules the same way,
// after a blank line, then theirs ("lib total").
func (r CoverageReport) WriteText(w io.Writer) error {
	rows := [][]string{{"FILE", "LINES", "COVERAGE", "UNCOVERED"}}
	rows = appendRows(rows, r.Files, "total", r.Total)
	if len(r.Lib) > 0 {
		rows = append(rows, nil, []string{"LIB MODULE", "LINES", "COVERAGE", "UNCOVERED"})
		rows = appendRows(rows, r.Lib, "lib total", r.LibTotal)
	}
	var width [3]int
	for _, row := range rows {
		for i := 0; i < len(row)-1 && i < len(width); i++ {
			width[i] = max(width[i], utf8.RuneCountInString(row[i]))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// appendRows appends a row per file, then the total's.
func appendRows(rows [][]string, files []FileCoverage, totalName string, total CoverageTotal) [][]string {
	for _, f := range files {
		rows = append(rows, []string{termtext.Line(f.Path), fmt.Sprintf("%d/%d", f.Covered, f.Executable), formatPercent(f.Percent), Ranges(f.UncoveredLines)})
	}
	return append(rows, []string{totalName, fmt.Sprintf("%d/%d", total.Covered, total.Executable), formatPercent(total.Percent)})
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

// runCoverage is what a run with coverage learns of the files it measures:
// the lib folders of the tested folders, and the lib modules the test files
// required themselves. Test files run one after another, but the lock
// keeps it right whatever goroutine a session runs on.
type runCoverage struct {
	mu      sync.Mutex
	libDirs []string
	// targets holds the paths of the modules a test file required
	// itself, each loaded: at most the files of the lib folders.
	targets map[string]bool
}

// addLibDir notes dir, a tested folder's lib.
func (rc *runCoverage) addLibDir(dir string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !slices.Contains(rc.libDirs, dir) {
		rc.libDirs = append(rc.libDirs, dir)
	}
}

// addTarget notes path, a module a test file required itself.
func (rc *runCoverage) addTarget(path string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.targets == nil {
		rc.targets = map[string]bool{}
	}
	rc.targets[path] = true
}

// lib reports whether path is a lib module no test file required itself.
func (rc *runCoverage) lib(path string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.targets[path] {
		return false
	}
	for _, d := range rc.libDirs {
		if strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// wrapRequire replaces the require of the test file's session with one
// that notes, in rc, each lib module the test file itself requires (not
// the modules those require in turn), once it has loaded. An error keeps
// the position of the require call in the test file: the wrapper, a Go
// function, is skipped where errors name their line.
func (tf *testFile) wrapRequire(L *lua.LState, rc *runCoverage) {
	orig, ok := L.GetGlobal("require").(*lua.LFunction)
	if !ok {
		return
	}
	L.SetGlobal("require", L.NewFunction(func(L *lua.LState) int {
		name, isName := L.Get(1).(lua.LString)
		direct := false
		if dbg, ok := L.GetStack(1); ok {
			if _, err := L.GetInfo("S", dbg, lua.LNil); err == nil {
				direct = dbg.Source == tf.path
			}
		}
		top := L.GetTop()
		L.Push(orig)
		for i := 1; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top, lua.MultRet)
		if isName && direct && name != "host" && !strings.HasPrefix(string(name), "host.") {
			rel := filepath.FromSlash(strings.ReplaceAll(string(name), ".", "/") + ".lua")
			rc.addTarget(filepath.Join(tf.dir, "lib", rel))
		}
		return L.GetTop() - top
	}))
}
