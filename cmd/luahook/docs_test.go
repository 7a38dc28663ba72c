package main

// The documentation's promises, checked: every luahook command line in
// README.md and docs/*.md names a subcommand that exists and only flags it
// defines; the README's tour runs, in order, with the output it shows; every
// relative link and #anchor resolves; and ARCHITECTURE.md names every folder
// and only folders that exist.

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// repoRoot is the repository's root, seen from this package's folder.
var repoRoot = filepath.Join("..", "..")

// docPages returns README.md and docs/*.md, relative to repoRoot.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// readDoc reads and scans a Markdown file given relative to repoRoot.
func readDoc(t *testing.T, rel string) *mdDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return scanMarkdown(rel, string(b))
}

// TestDocsCommandsUseRealSubcommandsAndFlags checks every luahook command
// line the documentation shows: in ```sh, ```bash, ```shell, ```console and
// plain fences (in the last two, the lines after a "$ " prompt), each part
// of a pipeline or list that runs "luahook ..." or "go run ./cmd/luahook
// ..." must find its subcommand in the real command tree, parse its flags,
// and pass the subcommand's argument check, without running. Inline code
// spans that start with "luahook " (and the flags named in a table row
// whose first cell is one) must name only flags their subcommand has.
func TestDocsCommandsUseRealSubcommandsAndFlags(t *testing.T) {
	fenced, inline := 0, 0
	for _, page := range docPages(t) {
		doc := readDoc(t, page)
		for _, c := range doc.commands() {
			if c.err != nil {
				t.Errorf("%s:%d: %v", page, c.line, c.err)
				continue
			}
			fenced++
			if err := checkCommandLine(c.args); err != nil {
				t.Errorf("%s:%d: luahook %s: %v", page, c.line, strings.Join(c.args, " "), err)
			}
		}
		for _, u := range doc.inlineFlagUses() {
			inline++
			if err := checkFlagNames(u.words, u.flags); err != nil {
				t.Errorf("%s:%d: %s: %v", page, u.line, u.text, err)
			}
		}
	}
	if fenced < 20 || inline < 20 {
		t.Errorf("found %d fenced luahook commands and %d inline ones: the extraction is broken", fenced, inline)
	}
}

// checkCommandLine finds args' subcommand in a fresh command tree and
// parses its flags and arguments as cobra would before running it.
func checkCommandLine(args []string) error {
	root := newRootCmd(&streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if cmd.DisableFlagParsing {
		// The command parses its own flags (test: the Go-style -run).
		cmd.InheritedFlags()
		if err := cmd.Flags().Parse(goStyleFlags(rest)); err != nil {
			return err
		}
	} else {
		if err := cmd.ParseFlags(rest); err != nil {
			return err
		}
		if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
			return err
		}
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return err
	}
	return cmd.ValidateFlagGroups()
}

// checkFlagNames finds the subcommand words names (placeholders such as
// AGENT or [EVENT] are positional arguments) and checks that each of flags
// is one of its flags, its parents' persistent flags, or --help/--version.
// Values are not checked: an inline span shows placeholders (N, PATH).
func checkFlagNames(words, flags []string) error {
	root := newRootCmd(&streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	cmd, _, err := root.Find(words)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	fs := cmd.Flags()
	cmd.InheritedFlags() // merges the persistent flags into cmd.Flags()
	for _, f := range flags {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch {
		case name == "":
		case strings.HasPrefix(f, "--"):
			if fs.Lookup(name) == nil {
				return fmt.Errorf("%s has no flag --%s", cmd.CommandPath(), name)
			}
		case len(name) == 1:
			if fs.ShorthandLookup(name) == nil {
				return fmt.Errorf("%s has no flag -%s", cmd.CommandPath(), name)
			}
		case cmd.DisableFlagParsing && len(goStyleFlags([]string{f})[0]) > len(f):
			// -run, the Go spelling test accepts.
			if fs.Lookup(name) == nil {
				return fmt.Errorf("%s has no flag -%s", cmd.CommandPath(), name)
			}
		default:
			return fmt.Errorf("%s: %s is not a flag (one dash: a one-letter flag)", cmd.CommandPath(), f)
		}
	}
	return nil
}

// TestDocsTourRuns runs the README's tour in a fresh folder, in order,
// through a testscript generated from README.md: each ```lua fence whose
// first line is "-- PATH" is written to PATH where it appears, and each
// "$ " line of a ```console fence in the tour section runs under sh in the
// folder (standard output and error together, as on a terminal). The lines
// shown after a command must appear in its output, in order ("…" in a line
// matches anything, durations match any duration, runs of spaces any run,
// and the folder is shown as /home/you/app); "$ echo $?" followed by N
// says the command before exits N, else it must exit 0.
func TestDocsTourRuns(t *testing.T) {
	runDocScript(t, readDoc(t, "README.md"), "tour")
}

// TestDocsWritingGuideRuns runs the first section of the writing guide
// ("Your first policy folder") as the tour runs: every file it shows is
// written where it says, every command it shows must print what it shows.
func TestDocsWritingGuideRuns(t *testing.T) {
	runDocScript(t, readDoc(t, "docs/writing-policies.md"), "your first policy folder")
}

// runDocScript runs the section of doc whose heading says word as a
// testscript (tourScript).
func runDocScript(t *testing.T, doc *mdDoc, word string) {
	t.Helper()
	script, err := tourScript(doc, word)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tour.txtar"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv("GORACE", quickRaceExit())
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"doc": cmdDoc,
		},
	})
}

// TestDocsExampleIsInitsSample checks that the policy at the top of the
// README, which the tour has luahook init write, is the sample init writes.
func TestDocsExampleIsInitsSample(t *testing.T) {
	readme := readDoc(t, "README.md")
	for _, f := range readme.fences {
		if f.info == "lua" && len(f.lines) > 1 && f.lines[0] == "-- hooks.d/"+initPolicyName {
			code := strings.Join(f.lines[1:], "\n") + "\n"
			if !strings.HasSuffix(initPolicy, code) {
				t.Fatalf("README.md:%d: the example is not the policy luahook init writes:\n%s", f.start+1, initPolicy)
			}
			return
		}
	}
	t.Fatalf("README.md shows no -- hooks.d/%s example", initPolicyName)
}

// tourHome is how the tour shows the folder it runs in.
const tourHome = "/home/you/app"

// tourScript turns a page's section (the README's tour) into a testscript:
// files staged under .doc/ in the archive and copied into place where the
// page shows them, and one "doc CODE COMMAND EXPECTED..." line per command.
func tourScript(readme *mdDoc, word string) ([]byte, error) {
	start, end := readme.section(word)
	if start < 0 {
		return nil, fmt.Errorf("%s has no section whose heading says %q", readme.path, word)
	}
	var script strings.Builder
	fmt.Fprintf(&script, "# Generated from %s's section %q by runDocScript.\n\n", readme.path, word)
	ar := &txtar.Archive{}
	commands := 0
	for _, f := range readme.fences {
		if f.start >= end {
			break
		}
		switch {
		case f.info == "lua" && f.start > start && len(f.lines) > 0 && strings.HasPrefix(f.lines[0], "-- "):
			// The tour's own files (the example at the top of the page is
			// the sample luahook init writes: TestDocsExampleIsInitsSample).
			path := strings.TrimSpace(strings.TrimPrefix(f.lines[0], "-- "))
			if path == "" || strings.ContainsAny(path, " \t") || filepath.IsAbs(path) || strings.HasPrefix(path, "..") {
				continue
			}
			data := []byte(strings.Join(f.lines, "\n") + "\n")
			stage := ".doc/" + path
			if txtar.NeedsQuote(data) {
				q, err := txtar.Quote(data)
				if err != nil {
					return nil, err
				}
				data = q
				fmt.Fprintf(&script, "unquote %s\n", stage)
			}
			ar.Files = append(ar.Files, txtar.File{Name: stage, Data: data})
			fmt.Fprintf(&script, "# %s:%d: %s\n", readme.path, f.start+1, path)
			if d := filepath.Dir(path); d != "." {
				fmt.Fprintf(&script, "mkdir %s\n", tsQuote(d))
			}
			fmt.Fprintf(&script, "cp %s %s\n\n", tsQuote(stage), tsQuote(path))
		case f.info == "console" && f.start > start:
			steps, err := consoleSteps(f)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", readme.path, f.start+1, err)
			}
			for _, s := range steps {
				commands++
				fmt.Fprintf(&script, "# %s:%d\ndoc %d %s", readme.path, s.line+1, s.code, tsQuote(s.command))
				for _, w := range s.want {
					fmt.Fprintf(&script, " %s", tsQuote(w))
				}
				script.WriteString("\n\n")
			}
		}
	}
	if commands == 0 {
		return nil, fmt.Errorf("%s's section %q shows no command", readme.path, word)
	}
	ar.Comment = []byte(script.String())
	return txtar.Format(ar), nil
}

// tsQuote quotes s as one testscript word, with no variable expansion.
func tsQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

type consoleStep struct {
	line    int
	command string
	want    []string
	code    int
}

// consoleSteps splits a console fence into commands and their output.
func consoleSteps(f mdFence) ([]consoleStep, error) {
	var steps []consoleStep
	for i := 0; i < len(f.lines); i++ {
		l := f.lines[i]
		if !strings.HasPrefix(l, "$ ") {
			if len(steps) == 0 {
				if strings.TrimSpace(l) != "" {
					return nil, fmt.Errorf("output before any command: %q", l)
				}
				continue
			}
			last := &steps[len(steps)-1]
			last.want = append(last.want, l)
			continue
		}
		cmd := strings.TrimPrefix(l, "$ ")
		line := f.start + 1 + i
		for strings.HasSuffix(cmd, "\\") && i+1 < len(f.lines) {
			i++
			cmd = strings.TrimSuffix(cmd, "\\") + "\n" + strings.TrimPrefix(f.lines[i], "> ")
		}
		if strings.TrimSpace(cmd) == "echo $?" && len(steps) > 0 && i+1 < len(f.lines) {
			code, err := strconv.Atoi(strings.TrimSpace(f.lines[i+1]))
			if err != nil {
				return nil, fmt.Errorf("echo $? is followed by %q, not an exit status", f.lines[i+1])
			}
			steps[len(steps)-1].code = code
			i++
			continue
		}
		steps = append(steps, consoleStep{line: line, command: cmd})
	}
	for i := range steps {
		for len(steps[i].want) > 0 && strings.TrimSpace(steps[i].want[len(steps[i].want)-1]) == "" {
			steps[i].want = steps[i].want[:len(steps[i].want)-1]
		}
	}
	return steps, nil
}

// cmdDoc implements "doc CODE COMMAND [LINE...]": COMMAND runs under sh
// in the script's folder with standard error joined to standard output; it
// must exit CODE and print each LINE, in order (see TestDocsTourRuns).
func cmdDoc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: doc CODE COMMAND [LINE...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("doc: bad exit status %q", args[0])
	}
	got := 0
	if err := ts.Exec("sh", "-c", "exec 2>&1\n"+args[1]); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("doc: %v", err)
		}
		got = ee.ExitCode()
	}
	out := ts.ReadFile("stdout")
	work := ts.Getenv("WORK")
	if real, err := filepath.EvalSymlinks(work); err == nil && real != work {
		out = strings.ReplaceAll(out, real, tourHome)
	}
	out = strings.ReplaceAll(out, work, tourHome)
	if got != want {
		ts.Fatalf("exit status %d, want %d; output:\n%s", got, want, out)
	}
	if err := matchOutput(args[2:], strings.Split(out, "\n")); err != nil {
		ts.Fatalf("%v; output:\n%s", err, out)
	}
}

var (
	durationRE = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|us|ms|s)\b`)
	spacesRE   = regexp.MustCompile(`[ \t]+`)
)

// normalLine makes a line of output comparable with the one a page shows.
func normalLine(s string) string {
	s = durationRE.ReplaceAllString(s, "DURATION")
	return strings.TrimSpace(spacesRE.ReplaceAllString(s, " "))
}

// matchOutput reports the first of want that is not in got, each line of
// want matched in order after the one before; "…" in a line of want
// matches any text, and a line "..." or "…" alone is skipped.
func matchOutput(want, got []string) error {
	i := 0
	for _, w := range want {
		w = normalLine(w)
		if w == "..." || w == "…" {
			continue
		}
		parts := strings.Split(w, "…")
		for k, p := range parts {
			parts[k] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
		for ; i < len(got) && !re.MatchString(normalLine(got[i])); i++ {
		}
		if i == len(got) {
			return fmt.Errorf("the output shown has %q, which the command did not print (after the lines before it)", w)
		}
		i++
	}
	return nil
}

// TestDocsLinksResolve checks every relative link of README.md,
// ARCHITECTURE.md and docs/*.md: the file or folder exists, and a #anchor
// names a heading of the Markdown file it points into. Links from any other
// Markdown file of the repository into those pages are checked too.
func TestDocsLinksResolve(t *testing.T) {
	ours := append(docPages(t), "ARCHITECTURE.md")
	var others []string
	err := filepath.WalkDir(repoRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != repoRoot && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			if rel = filepath.ToSlash(rel); !slices.Contains(ours, rel) {
				others = append(others, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]*mdDoc{}
	load := func(rel string) *mdDoc {
		if d, ok := docs[rel]; ok {
			return d
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
		if err != nil {
			docs[rel] = nil
			return nil
		}
		d := scanMarkdown(rel, string(b))
		docs[rel] = d
		return d
	}
	n := 0
	for _, page := range append(ours, others...) {
		doc := load(page)
		for _, l := range doc.links() {
			target, err := resolveLink(page, l.target)
			if err != nil {
				t.Errorf("%s:%d: link %s: %v", page, l.line, l.target, err)
				continue
			}
			if target.path == "" {
				continue // a URL
			}
			if !slices.Contains(ours, page) && !slices.Contains(ours, target.path) {
				continue
			}
			n++
			if err := checkLinkTarget(target, load); err != nil {
				t.Errorf("%s:%d: link %s: %v", page, l.line, l.target, err)
			}
		}
	}
	if n < 50 {
		t.Errorf("checked %d links: the extraction is broken", n)
	}
}

// linkTarget is a relative link resolved against the repository's root.
type linkTarget struct {
	path, anchor string
}

// resolveLink resolves a link found in page; an absolute URL gives "".
var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

func resolveLink(page, link string) (linkTarget, error) {
	if schemeRE.MatchString(link) || strings.HasPrefix(link, "//") {
		return linkTarget{}, nil
	}
	p, anchor, _ := strings.Cut(link, "#")
	if p == "" {
		return linkTarget{path: page, anchor: anchor}, nil
	}
	if strings.HasPrefix(p, "/") {
		return linkTarget{}, errors.New("an absolute path: links are relative to the page")
	}
	full := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), filepath.FromSlash(p))))
	if full == ".." || strings.HasPrefix(full, "../") {
		return linkTarget{}, errors.New("points outside the repository")
	}
	return linkTarget{path: full, anchor: anchor}, nil
}

func checkLinkTarget(target linkTarget, load func(string) *mdDoc) error {
	if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(target.path))); err != nil {
		return fmt.Errorf("%s does not exist", target.path)
	}
	if target.anchor == "" {
		return nil
	}
	if !strings.HasSuffix(target.path, ".md") {
		return fmt.Errorf("an anchor into %s, which is no Markdown page", target.path)
	}
	doc := load(target.path)
	if doc == nil || !doc.anchors[target.anchor] {
		return fmt.Errorf("%s has no heading with the anchor #%s", target.path, target.anchor)
	}
	return nil
}

// movedFolders are top-level folders whose packages moved (most under
// internal/); a path the pages show under one of them is stale unless the
// folder came back.
var movedFolders = []string{"bench", "config", "decisionlog", "metrics", "packs", "repl", "replay",
	"security", "server", "store", "stress", "third_party", "trust"}

// TestDocsAgentTableIsTheConformanceSuites checks that the README's table
// of what the agents' programs did is the one the conformance suite wrote
// (internal/install/conformance.md, which luahook doctor embeds), and
// that it names every release agents.txt pins: the README cannot claim
// what the suite did not see, nor lag behind a release added to the suite.
func TestDocsAgentTableIsTheConformanceSuites(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(repoRoot, "internal", "install", "conformance.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- conformance results: written by the conformance suite with -update -->\n", "<!-- end of conformance results -->\n"
	i, j := strings.Index(string(readme), begin), strings.Index(string(readme), end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q section", strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	if got := string(readme)[i+len(begin) : j]; got != string(table) {
		t.Errorf("the README's agent table is not internal/install/conformance.md: run the conformance suite with -update\nREADME:\n%s\nconformance.md:\n%s", got, table)
	}
	pinned, err := os.ReadFile(filepath.Join(repoRoot, "internal", "conformance", "agents.txt"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(table), "\n")
	for _, line := range strings.Split(string(pinned), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		version := line[strings.LastIndex(line, "@")+1:]
		if !strings.Contains(header, " "+version+" |") {
			t.Errorf("agents.txt pins %s, which the table has no column for: run the conformance suite with -update", line)
		}
	}
}

// TestDocsNameNoMovedPath checks that no code span or fenced line of the
// pages shows a path under a folder that moved, such as security/x_test.go
// for internal/security/x_test.go, unless that path exists.
func TestDocsNameNoMovedPath(t *testing.T) {
	pathRE := regexp.MustCompile(`(?:^|[\s\x60'"(=])(?:\./)?((?:` + strings.Join(movedFolders, "|") + `)/[A-Za-z0-9_./<>*-]*)`)
	for _, page := range append(docPages(t), "ARCHITECTURE.md") {
		doc := readDoc(t, page)
		check := func(line int, text string) {
			for _, m := range pathRE.FindAllStringSubmatch(text, -1) {
				p := strings.TrimRight(m[1], ".")
				if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(p))); err != nil {
					t.Errorf("%s:%d: %s: no such path (moved under internal/?)", page, line, p)
				}
			}
		}
		for _, s := range doc.spans() {
			check(s.line, s.text)
		}
		for _, f := range doc.fences {
			for i, l := range f.lines {
				check(f.start+2+i, l)
			}
		}
	}
}

// TestArchitectureNamesEveryFolder checks that ARCHITECTURE.md names every
// top-level folder and every folder under internal/ that holds Go files, as
// a code span or at the start of a line of the layer diagram (internal/
// folders anywhere as a whole path).
func TestArchitectureNamesEveryFolder(t *testing.T) {
	arch := readDoc(t, "ARCHITECTURE.md")
	named := map[string]bool{} // each path named, and its parent folders
	exact := map[string]bool{}
	for _, p := range arch.namedPathsWithLines() {
		q := strings.TrimSuffix(p.path, "/")
		exact[q] = true
		for ; q != "." && q != ""; q = filepath.ToSlash(filepath.Dir(q)) {
			named[q] = true
		}
	}
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !named[e.Name()] {
			t.Errorf("ARCHITECTURE.md does not name the folder %s/ (in a code span, or first on a line of the layer diagram)", e.Name())
		}
	}
	text := strings.Join(arch.lines, "\n")
	err = filepath.WalkDir(filepath.Join(repoRoot, "internal"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		goFiles, _ := filepath.Glob(filepath.Join(p, "*.go"))
		if len(goFiles) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(repoRoot, p)
		rel = filepath.ToSlash(rel)
		if !exact[rel] && !regexp.MustCompile(`(^|[^\w./-])`+regexp.QuoteMeta(rel)+`($|[^\w./-]|/[^\w])`).MatchString(text) {
			t.Errorf("ARCHITECTURE.md does not name %s, which holds Go files", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestArchitecturePathsExist checks that every path ARCHITECTURE.md names
// exists: the packages of the layer diagram (first on a line, and after
// "->"), any path-like word in it, the first cells of its tables, and every
// code span that holds a path (a <placeholder> matches any name).
func TestArchitecturePathsExist(t *testing.T) {
	arch := readDoc(t, "ARCHITECTURE.md")
	paths := arch.namedPathsWithLines()
	if len(paths) < 60 {
		t.Fatalf("found %d paths in ARCHITECTURE.md: the extraction is broken", len(paths))
	}
	for _, p := range paths {
		pattern := regexp.MustCompile(`<[^>/]*>`).ReplaceAllString(strings.TrimSuffix(p.path, "/"), "*")
		matches, err := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(pattern)))
		if err != nil || len(matches) == 0 {
			t.Errorf("ARCHITECTURE.md:%d names %s, which does not exist", p.line, p.path)
		}
	}
}

// TestArchitectureLayersMatchImports holds the layer diagram to the code:
// no package imports a package of this module that the diagram shows above
// it ("Imports point down only"). A package's place is the line of the
// diagram that names it first in its first column, or, for the leaves,
// the line of its description.
func TestArchitectureLayersMatchImports(t *testing.T) {
	const module = "github.com/luahook/luahook"
	order := readDoc(t, "ARCHITECTURE.md").diagramOrder()
	if len(order) < 40 {
		t.Fatalf("found %d packages in the layer diagram: the extraction is broken", len(order))
	}
	checked := 0
	reported := map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != repoRoot && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(repoRoot, p)
		rel = filepath.ToSlash(rel)
		at, ok := order[rel]
		if !ok {
			return nil
		}
		files, _ := filepath.Glob(filepath.Join(p, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != module && !strings.HasPrefix(path, module+"/") {
					continue
				}
				dep := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
				if dep == "" {
					dep = "."
				}
				checked++
				if depAt, ok := order[dep]; ok && depAt < at && !reported[rel+" "+dep] {
					reported[rel+" "+dep] = true
					t.Errorf("%s imports %s, which the layer diagram of ARCHITECTURE.md shows above it (line %d, %s at line %d)",
						rel, dep, depAt, rel, at)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("checked %d imports: the walk is broken", checked)
	}
}

// diagramOrder returns the 1-based line at which the layer diagram places
// each package ("." for the root package).
func (d *mdDoc) diagramOrder() map[string]int {
	order := map[string]int{}
	place := func(p string, line int) {
		p = strings.TrimSpace(p)
		if _, ok := order[p]; !ok && p != "" {
			order[p] = line
		}
	}
	for _, f := range d.fences {
		if f.info != "" {
			continue
		}
		entry := ""
		for i, l := range f.lines {
			line := f.start + 2 + i
			if l != "" && (l[0] != ' ' || strings.HasPrefix(l, "  ") && l[2] != ' ') {
				first, _, _ := strings.Cut(strings.TrimSpace(l), "  ")
				entry = first
				switch first {
				case "luahook (root)":
					place(".", line)
				case "leaves", "tests and benchmarks":
				default:
					for _, p := range strings.Split(first, ",") {
						place(p, line)
					}
				}
			}
			if entry == "leaves" {
				desc, _, _ := strings.Cut(l, " -> ")
				for _, w := range strings.Fields(desc) {
					if w = strings.Trim(w, ",;:()"); diagramPathRE.MatchString(w) {
						place(w, line)
					}
				}
			}
		}
		break
	}
	return order
}

// TestDocsCheckersCatchMistakes holds the checkers above to failing: a page
// with a flag no subcommand has, an unknown subcommand, a broken link and
// an anchor that names no heading must each be reported.
func TestDocsCheckersCatchMistakes(t *testing.T) {
	page := "# Page\n\n## A heading\n\n```sh\nluahook --dir hooks.d fire PreToolUse --no-such-flag\n" +
		"echo '{}' | luahook fire --tool bash && luahook frobnicate\n```\n\n" +
		"```console\n$ luahook test -run x --coverage-min=90 --coverage\n$ go run ./cmd/luahook check --strict extra\n```\n\n" +
		"Inline: `luahook install AGENT --prnt` and [x](no-such-file.md), [y](#a-heading), [z](#no-such-heading).\n"
	doc := scanMarkdown("docs/page.md", page)
	var errs []string
	for _, c := range doc.commands() {
		if err := checkCommandLine(c.args); err != nil {
			errs = append(errs, fmt.Sprintf("%d %v", c.line, err))
		}
	}
	for _, u := range doc.inlineFlagUses() {
		if err := checkFlagNames(u.words, u.flags); err != nil {
			errs = append(errs, fmt.Sprintf("%d %v", u.line, err))
		}
	}
	load := func(rel string) *mdDoc {
		if rel == "docs/page.md" {
			return doc
		}
		return nil
	}
	for _, l := range doc.links() {
		target, err := resolveLink("docs/page.md", l.target)
		if err == nil && target.path == "docs/page.md" {
			// The page is not on disk: check the anchor alone.
			if !doc.anchors[target.anchor] {
				errs = append(errs, fmt.Sprintf("%d anchor #%s", l.line, target.anchor))
			}
			continue
		}
		if err == nil {
			err = checkLinkTarget(target, load)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%d %v", l.line, err))
		}
	}
	want := []string{
		"6 unknown flag: --no-such-flag",
		`7 unknown command "frobnicate" for "luahook"`,
		`12 unknown command "extra" for "luahook check"`,
		"15 luahook install has no flag --prnt",
		"15 docs/no-such-file.md does not exist",
		"15 anchor #no-such-heading",
	}
	if strings.Join(errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("the checkers reported:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
	if err := matchOutput([]string{"ok   a (1.1ms)", "…", "2 passed, …"}, []string{"x", "ok a (731µs)", "2 passed, 0 failed"}); err != nil {
		t.Errorf("matchOutput: %v", err)
	}
	if err := matchOutput([]string{"2 passed", "ok a"}, []string{"ok a", "2 passed"}); err == nil {
		t.Errorf("matchOutput accepted lines out of order")
	}
}

// Markdown, as much of it as the checks need.

type mdFence struct {
	info  string   // the info string's first word, lower case
	start int      // 0-based line of the opening fence
	lines []string // the lines inside, the fence's indentation removed
}

type mdHeading struct {
	level  int
	text   string
	line   int
	anchor string
}

type mdDoc struct {
	path     string
	lines    []string
	inFence  []bool // the line is a fence or inside one
	fences   []mdFence
	headings []mdHeading
	anchors  map[string]bool
}

var headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

func scanMarkdown(path, text string) *mdDoc {
	d := &mdDoc{path: path, lines: strings.Split(text, "\n"), anchors: map[string]bool{}}
	d.inFence = make([]bool, len(d.lines))
	seen := map[string]int{}
	var open *mdFence
	var marker, indent string
	for i, l := range d.lines {
		trimmed := strings.TrimLeft(l, " ")
		if open != nil {
			d.inFence[i] = true
			if strings.HasPrefix(trimmed, marker) && strings.TrimSpace(strings.TrimLeft(trimmed, marker[:1])) == "" {
				d.fences = append(d.fences, *open)
				open = nil
				continue
			}
			open.lines = append(open.lines, strings.TrimPrefix(l, indent))
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			d.inFence[i] = true
			marker = trimmed[:3]
			for len(marker) < len(trimmed) && trimmed[len(marker)] == marker[0] {
				marker += marker[:1]
			}
			indent = l[:len(l)-len(trimmed)]
			info := strings.Fields(trimmed[len(marker):])
			open = &mdFence{start: i}
			if len(info) > 0 {
				open.info = strings.ToLower(info[0])
			}
			continue
		}
		if m := headingRE.FindStringSubmatch(l); m != nil {
			slug := slugify(m[2])
			if n, ok := seen[slug]; ok {
				seen[slug] = n + 1
				slug = fmt.Sprintf("%s-%d", slug, n+1)
			} else {
				seen[slug] = 0
			}
			d.anchors[slug] = true
			d.headings = append(d.headings, mdHeading{level: len(m[1]), text: m[2], line: i, anchor: slug})
		}
	}
	return d
}

var mdLinkTextRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slugify is GitHub's anchor for a heading: its text as rendered, lower
// case, spaces as hyphens, anything but letters, digits, "-" and "_"
// dropped.
func slugify(heading string) string {
	heading = mdLinkTextRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// section returns the lines [start, end) of the level-2 section whose
// heading contains word, or -1.
func (d *mdDoc) section(word string) (start, end int) {
	start, end = -1, len(d.lines)
	for _, h := range d.headings {
		if start >= 0 && h.level <= 2 && h.line > start {
			return start, h.line
		}
		if start < 0 && h.level == 2 && strings.Contains(strings.ToLower(h.text), word) {
			start = h.line
		}
	}
	return start, end
}

// textBlocks returns the runs of lines outside fences, each joined with
// "\n", with the 0-based line each starts at.
func (d *mdDoc) textBlocks() (blocks []string, starts []int) {
	for i := 0; i < len(d.lines); {
		if d.inFence[i] {
			i++
			continue
		}
		j := i
		for j < len(d.lines) && !d.inFence[j] {
			j++
		}
		blocks = append(blocks, strings.Join(d.lines[i:j], "\n"))
		starts = append(starts, i)
		i = j
	}
	return blocks, starts
}

type mdSpan struct {
	text       string
	line       int // 1-based
	start, end int // byte offsets in the block, backticks included
}

// blockSpans finds the code spans of a text block.
func blockSpans(block string, firstLine int) []mdSpan {
	var spans []mdSpan
	for i := 0; i < len(block); {
		if block[i] != '`' {
			if block[i] == '\\' {
				i++
			}
			i++
			continue
		}
		n := 0
		for i+n < len(block) && block[i+n] == '`' {
			n++
		}
		ticks := block[i : i+n]
		j := i + n
		closed := -1
		for j < len(block) {
			k := strings.Index(block[j:], ticks)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(block) && block[k+m] == '`' {
				m++
			}
			if m == n {
				closed = k
				break
			}
			j = k + m
		}
		if closed < 0 {
			i += n
			continue
		}
		content := strings.ReplaceAll(block[i+n:closed], "\n", " ")
		if len(content) >= 2 && content[0] == ' ' && content[len(content)-1] == ' ' && strings.TrimSpace(content) != "" {
			content = content[1 : len(content)-1]
		}
		spans = append(spans, mdSpan{text: content, line: firstLine + strings.Count(block[:i], "\n") + 1, start: i, end: closed + n})
		i = closed + n
	}
	return spans
}

// spans returns every code span outside fences.
func (d *mdDoc) spans() []mdSpan {
	var all []mdSpan
	blocks, starts := d.textBlocks()
	for k, b := range blocks {
		all = append(all, blockSpans(b, starts[k])...)
	}
	return all
}

type mdLink struct {
	target string
	line   int
}

var linkRE = regexp.MustCompile(`\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)

// links returns the targets of the inline links outside fences and code.
func (d *mdDoc) links() []mdLink {
	var out []mdLink
	blocks, starts := d.textBlocks()
	for k, b := range blocks {
		masked := []byte(b)
		for _, s := range blockSpans(b, starts[k]) {
			for i := s.start; i < s.end; i++ {
				if masked[i] != '\n' {
					masked[i] = ' '
				}
			}
		}
		for _, m := range linkRE.FindAllSubmatchIndex(masked, -1) {
			out = append(out, mdLink{target: b[m[2]:m[3]], line: starts[k] + strings.Count(b[:m[0]], "\n") + 1})
		}
	}
	return out
}

// A shell word, or an operator (|, &&, ;, >, ...).
type shellWord struct {
	text string
	op   bool
}

// shellWords splits a command line as sh would, quotes removed; an
// unquoted # at the start of a word ends the line.
func shellWords(line string) ([]shellWord, error) {
	var words []shellWord
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, shellWord{text: cur.String()})
		}
		cur.Reset()
		inWord = false
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			flush()
		case r == '#' && !inWord:
			flush()
			return words, nil
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, errors.New(`unterminated " quote`)
			}
			i = j
		case r == '\\':
			inWord = true
			if i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			}
		case strings.ContainsRune("|&;<>", r):
			flush()
			j := i
			for j < len(rs) && strings.ContainsRune("|&;<>", rs[j]) {
				j++
			}
			words = append(words, shellWord{text: string(rs[i:j]), op: true})
			i = j - 1
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	flush()
	return words, nil
}

var assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// luahookInvocations returns the arguments of each simple command of a
// command line that runs luahook (or go run ./cmd/luahook).
func luahookInvocations(line string) ([][]string, error) {
	words, err := shellWords(line)
	if err != nil {
		return nil, err
	}
	var out [][]string
	var cmd []string
	end := func() {
		for len(cmd) > 0 && assignmentRE.MatchString(cmd[0]) {
			cmd = cmd[1:]
		}
		switch {
		case len(cmd) > 0 && cmd[0] == "luahook":
			out = append(out, cmd[1:])
		case len(cmd) >= 3 && cmd[0] == "go" && cmd[1] == "run" && (cmd[2] == "./cmd/luahook" || cmd[2] == "./cmd/luahook/"):
			out = append(out, cmd[3:])
		}
		cmd = nil
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case !w.op:
			cmd = append(cmd, w.text)
		case strings.ContainsAny(w.text, "<>"):
			i++ // a redirection's target
		default:
			end()
		}
	}
	end()
	return out, nil
}

type docCommand struct {
	line int // 1-based
	args []string
	err  error
}

// commands returns the luahook command lines of the page's shell fences.
func (d *mdDoc) commands() []docCommand {
	var out []docCommand
	for _, f := range d.fences {
		var prompt bool
		switch f.info {
		case "sh", "bash", "shell":
		case "console", "":
			prompt = true
		default:
			continue
		}
		for i := 0; i < len(f.lines); i++ {
			l := strings.TrimSpace(f.lines[i])
			line := f.start + 2 + i
			if prompt {
				if !strings.HasPrefix(l, "$ ") {
					continue
				}
				l = strings.TrimPrefix(l, "$ ")
			}
			for strings.HasSuffix(l, "\\") && i+1 < len(f.lines) {
				i++
				l = strings.TrimSuffix(l, "\\") + " " + strings.TrimPrefix(strings.TrimSpace(f.lines[i]), "> ")
			}
			invs, err := luahookInvocations(l)
			if err != nil {
				out = append(out, docCommand{line: line, err: err})
				continue
			}
			for _, args := range invs {
				out = append(out, docCommand{line: line, args: args})
			}
		}
	}
	return out
}

type flagUse struct {
	line  int
	text  string
	words []string // the command's words after "luahook", placeholders and all
	flags []string
}

var flagWordRE = regexp.MustCompile(`^--?[A-Za-z]`)

// commandSpanWords returns the words after "luahook " (or "go run
// ./cmd/luahook ") of a code span, table escapes and [optional] brackets
// removed, or nil when the span shows no luahook command.
func commandSpanWords(span string) []string {
	span = strings.ReplaceAll(span, `\|`, "|")
	var rest string
	switch {
	case strings.HasPrefix(span, "luahook "):
		rest = strings.TrimPrefix(span, "luahook ")
	case strings.HasPrefix(span, "go run ./cmd/luahook "):
		rest = strings.TrimPrefix(span, "go run ./cmd/luahook ")
	default:
		return nil
	}
	rest = strings.NewReplacer("[", " ", "]", " ").Replace(rest)
	return strings.Fields(rest)
}

func flagWords(words []string) []string {
	var flags []string
	for _, w := range words {
		if flagWordRE.MatchString(w) {
			flags = append(flags, w)
		}
	}
	return flags
}

// inlineFlagUses returns the luahook commands of the page's code spans,
// and the flags of the table rows whose first cell is one.
func (d *mdDoc) inlineFlagUses() []flagUse {
	var out []flagUse
	blocks, starts := d.textBlocks()
	for k, b := range blocks {
		spans := blockSpans(b, starts[k])
		for _, s := range spans {
			if words := commandSpanWords(s.text); words != nil {
				out = append(out, flagUse{line: s.line, text: "`" + s.text + "`", words: words, flags: flagWords(words)})
			}
		}
		// Table rows: | `luahook CMD ...` | ... `--flag` ... |
		for _, s := range spans {
			lineStart := strings.LastIndexByte(b[:s.start], '\n') + 1
			prefix := strings.TrimSpace(b[lineStart:s.start])
			if prefix != "|" {
				continue
			}
			words := commandSpanWords(s.text)
			if words == nil {
				continue
			}
			lineEnd := strings.IndexByte(b[s.start:], '\n')
			if lineEnd < 0 {
				lineEnd = len(b)
			} else {
				lineEnd += s.start
			}
			var flags []string
			for _, o := range spans {
				if o.start > s.end && o.end <= lineEnd && commandSpanWords(o.text) == nil {
					flags = append(flags, flagWords(strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(o.text)))...)
				}
			}
			if len(flags) > 0 {
				out = append(out, flagUse{line: s.line, text: "the row of `" + s.text + "`", words: words, flags: flags})
			}
		}
	}
	return out
}

type namedPath struct {
	path string
	line int
}

var (
	diagramPathRE = regexp.MustCompile(`^[a-z][a-z0-9_.-]*(/[a-z0-9_.-]+)+/?$`)
	spanPathRE    = regexp.MustCompile(`^[a-z][a-z0-9_.-]*(/[A-Za-z0-9_.<>*-]+)+/?$`)
	parenRE       = regexp.MustCompile(`\([^)]*\)?`)
)

// namedPathsWithLines returns the paths ARCHITECTURE.md names (see
// TestArchitecturePathsExist). In the layer diagram (its first plain
// fence) a line that starts at the margin, or two spaces in, names its
// packages before the first run of two spaces ("leaves", "tests and
// benchmarks" and "luahook (root)" aside); " -> " starts a list of the packages it
// imports, which goes on over the next lines while a line ends with ",".
func (d *mdDoc) namedPathsWithLines() []namedPath {
	var out []namedPath
	seen := map[namedPath]bool{}
	add := func(p string, line int) {
		p = strings.Trim(strings.TrimSpace(p), ",;:")
		if p == "" || p == "luahook" || p == "standard library" || p == "gopher-lua" || seen[namedPath{p, line}] {
			return
		}
		seen[namedPath{p, line}] = true
		out = append(out, namedPath{p, line})
	}
	addList := func(list string, line int) {
		for _, p := range strings.Split(parenRE.ReplaceAllString(list, ""), ",") {
			add(p, line)
		}
	}
	for _, f := range d.fences {
		if f.info != "" {
			continue
		}
		inList := false
		for i, l := range f.lines {
			line := f.start + 2 + i
			if l != "" && (l[0] != ' ' || strings.HasPrefix(l, "  ") && l[2] != ' ') {
				first, _, _ := strings.Cut(strings.TrimSpace(l), "  ")
				if first != "leaves" && first != "tests and benchmarks" && first != "luahook (root)" {
					addList(first, line)
				}
			}
			if _, deps, ok := strings.Cut(l, " -> "); ok {
				addList(deps, line)
				inList = strings.HasSuffix(strings.TrimSpace(l), ",")
			} else if inList {
				addList(l, line)
				inList = strings.HasSuffix(strings.TrimSpace(l), ",")
			}
			for _, w := range strings.Fields(l) {
				if w = strings.Trim(w, ",;:()"); diagramPathRE.MatchString(w) {
					add(w, line)
				}
			}
		}
		break
	}
	blocks, starts := d.textBlocks()
	for k, b := range blocks {
		for _, s := range blockSpans(b, starts[k]) {
			first, _, _ := strings.Cut(s.text, "/")
			if spanPathRE.MatchString(s.text) && (!strings.Contains(first, ".") || first == "hooks.d") {
				add(s.text, s.line)
			}
		}
		// The first cell of each table row that starts with a code span.
		for i, l := range strings.Split(b, "\n") {
			if !strings.HasPrefix(l, "| `") {
				continue
			}
			cell, _, _ := strings.Cut(strings.TrimPrefix(l, "|"), "|")
			for _, s := range blockSpans(cell, 0) {
				if !strings.Contains(s.text, " ") {
					add(s.text, starts[k]+i+1)
				}
			}
		}
	}
	return out
}
