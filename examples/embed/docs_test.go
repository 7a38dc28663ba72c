package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docsWithGo are the pages, relative to the module's root, whose ```go
// blocks must compile as written; docs/embedding.md must have some. The
// fragments of a page with a program compile in that program's package
// main, where they may use its identifiers; the others in a package of
// their own.
var docsWithGo = []struct{ path, program string }{
	{"docs/embedding.md", ""},
	{"README.md", ""},
	{"examples/embed/README.md", "examples/embed"},
}

// fragmentImports are the packages a fragment (a block that does not start
// with package) may use, by the name it uses them by, each with one of its
// exported names, so that the file uses every import whatever the fragment
// does. A fragment is the body of func(ctx context.Context) error: ctx is
// the only name it gets, it declares everything else it uses, and it may
// return an error.
var fragmentImports = []struct{ name, path, use string }{
	{"", "context", "Background"},
	{"", "encoding/json", "Marshal"},
	{"", "errors", "New"},
	{"", "fmt", "Sprint"},
	{"", "log/slog", "New"},
	{"", "os", "Getwd"},
	{"", "strings", "Contains"},
	{"", "sync", "NewCond"},
	{"", "time", "Now"},
	{"", "github.com/luahook/luahook", "Context"},
	{"", "github.com/luahook/luahook/agent", "Lookup"},
	{"", "github.com/luahook/luahook/engine", "Open"},
	{"hooksd", "github.com/luahook/luahook/hooks.d", "FS"},
	{"", "github.com/luahook/luahook/host", "WriteStubs"},
	{"hostgit", "github.com/luahook/luahook/host/git", "Module"},
	{"", "github.com/luahook/luahook/policytest", "Run"},
	{"", "github.com/luahook/luahook/registry", "New"},
	{"", "github.com/luahook/luahook/runner", "New"},
}

// codeBlock is one ```go block of a page.
type codeBlock struct {
	doc     string // the page's path
	program string // the folder of the program whose package main its fragments join; "" for none
	line    int    // the line of the block's first line of code (1-based)
	code    string
}

// goBlocks returns the ```go blocks of a Markdown text, their indentation
// (that of the opening fence) removed.
func goBlocks(doc string, text []byte) ([]codeBlock, error) {
	var out []codeBlock
	var cur *codeBlock
	var indent string
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```go") && strings.TrimSpace(trimmed[len("```go"):]) == "":
			indent = line[:len(line)-len(trimmed)]
			cur = &codeBlock{doc: doc, line: n + 1}
		case cur != nil && strings.HasPrefix(trimmed, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += strings.TrimPrefix(line, indent) + "\n"
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a ```go block that is not closed", doc, cur.line-1)
	}
	return out, sc.Err()
}

// isFile reports whether a block is a whole file: its first line of code
// (comments aside) is a package clause.
func (b codeBlock) isFile() bool {
	for line := range strings.SplitSeq(b.code, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		return strings.HasPrefix(line, "package ")
	}
	return false
}

// source returns the Go file the block compiles as, in package pkg, with
// a line directive that makes the compiler's positions those of the page
// (at docPath, absolute).
func (b codeBlock) source(pkg, docPath string) string {
	directive := "//line " + docPath + ":" + strconv.Itoa(b.line) + "\n"
	if b.isFile() {
		// The same file, in a package of the test's naming, so that a
		// package main is compiled without being linked.
		lines := strings.Split(b.code, "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "package ") {
				lines[i] = "package " + pkg
				break
			}
		}
		return directive + strings.Join(lines, "\n")
	}
	var s strings.Builder
	s.WriteString("package " + pkg + "\n\nimport (\n")
	for _, imp := range fragmentImports {
		fmt.Fprintf(&s, "\t%s %q\n", imp.name, imp.path)
	}
	s.WriteString(")\n\n")
	for _, imp := range fragmentImports {
		name := imp.name
		if name == "" {
			name = path.Base(imp.path)
		}
		fmt.Fprintf(&s, "var _ = %s.%s\n", name, imp.use)
	}
	s.WriteString("\nfunc _(ctx context.Context) error {\n" + directive + b.code + "\treturn nil\n}\n")
	return s.String()
}

// moduleRoot returns the folder of luahook's go.mod, above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(data, []byte("module github.com/luahook/luahook\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of github.com/luahook/luahook above the test")
		}
		dir = parent
	}
}

// TestDocsGoBlocksCompile builds every ```go block of docsWithGo, each
// whole file as a package of its own and every fragment as a function of
// one more (or of its program's package main), through an overlay: the
// files exist only in the build (under virtualDir, which exists nowhere on
// disk, and beside the program's own), nothing is written in the module.
// Compiler errors name the page and line. A block may import only
// luahook's public packages, as a host in another module can.
func TestDocsGoBlocksCompile(t *testing.T) {
	root := moduleRoot(t)
	var blocks []codeBlock
	var pages []string
	for i, doc := range docsWithGo {
		pages = append(pages, doc.path)
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc.path)))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := goBlocks(doc.path, text)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && len(bs) == 0 {
			t.Fatalf("%s has no ```go block: the test would check nothing", doc.path)
		}
		for _, b := range bs {
			b.program = doc.program
			blocks = append(blocks, b)
		}
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(virtualDir))); err == nil {
		t.Fatalf("%s exists: the test builds its packages there through an overlay", virtualDir)
	}
	tmp := t.TempDir()
	overlay := map[string]string{}
	pkgs := map[string]bool{} // package folders to build, relative to root, slash-separated
	files, fragments := 0, 0
	add := func(pkgDir, name, src string) {
		real := filepath.Join(tmp, fmt.Sprintf("%03d.go", len(overlay)))
		if err := os.WriteFile(real, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		at := filepath.Join(root, filepath.FromSlash(pkgDir), name)
		if _, err := os.Stat(at); err == nil {
			t.Fatalf("%s exists: the test adds a file of that name through an overlay", at)
		}
		overlay[at] = real
		pkgs[pkgDir] = true
	}
	for i, b := range blocks {
		docPath := filepath.Join(root, filepath.FromSlash(b.doc))
		switch {
		case b.isFile():
			files++
			pkg := fmt.Sprintf("file%02d", i)
			src := b.source(pkg, docPath)
			checkImports(t, b, src)
			add(path.Join(virtualDir, pkg), "snippet.go", src)
		case b.program != "":
			fragments++
			add(b.program, fmt.Sprintf("zz_docs_fragment%02d.go", i), b.source("main", docPath))
		default:
			fragments++
			add(path.Join(virtualDir, "fragments"), fmt.Sprintf("fragment%02d.go", i), b.source("fragments", docPath))
		}
	}
	ov, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	// Several packages are compiled and their results discarded; one alone
	// would leave a binary behind without -o. (-o naming a folder would skip
	// every package but the main ones.)
	args := []string{"build", "-overlay", ovPath}
	if len(pkgs) == 1 {
		args = append(args, "-o", os.DevNull)
	}
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		args = append(args, "./"+dir)
	}
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go blocks of %s do not compile: %v\n%s", strings.Join(pages, ", "), err, out)
	}
	t.Logf("%d go blocks compiled: %d files, %d fragments", len(blocks), files, fragments)
}

// virtualDir is where the packages of the blocks are, relative to the
// module's root: a folder that exists only in the build's overlay.
const virtualDir = "examples/embed/internal/docsnippets"

// checkImports fails the test when a whole-file block imports one of
// luahook's internal packages, which a host in another module cannot.
func checkImports(t *testing.T, b codeBlock, src string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), b.doc, src, parser.ImportsOnly)
	if err != nil {
		return // the build names the syntax error
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if internalImport(p) {
			t.Errorf("%s:%d: the block imports %s: a host outside luahook's module cannot", b.doc, b.line, p)
		}
	}
}

// internalImport reports whether path is one of luahook's internal
// packages.
func internalImport(path string) bool {
	rest, ok := strings.CutPrefix(path, "github.com/luahook/luahook/")
	if !ok {
		return false
	}
	return rest == "internal" || strings.HasPrefix(rest, "internal/") || strings.Contains(rest, "/internal/") || strings.HasSuffix(rest, "/internal")
}

// TestTheProgramImportsOnlyPublicPackages: examples/embed builds in a
// module of its own (.ci/host-module), so its files (tests aside) import
// none of luahook's internal packages.
func TestTheProgramImportsOnlyPublicPackages(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if internalImport(p) {
				t.Errorf("%s imports %s: a host outside luahook's module cannot", name, p)
			}
		}
	}
	if n == 0 {
		t.Fatal("no Go files")
	}
}

func TestGoBlocksAreFoundAsWritten(t *testing.T) {
	text := "# Page\n\n```go\nx := 1\n_ = x\n```\n\n```sh\nls\n```\n\n- item:\n\n  ```go\n  package main\n\n  func main() {}\n  ```\n\n```golang\nnot a go block\n```\n"
	bs, err := goBlocks("page.md", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 {
		t.Fatalf("%d blocks, want 2: %+v", len(bs), bs)
	}
	if bs[0].line != 4 || bs[0].code != "x := 1\n_ = x\n" || bs[0].isFile() {
		t.Errorf("first block %+v, want the fragment at line 4", bs[0])
	}
	if bs[1].line != 15 || bs[1].code != "package main\n\nfunc main() {}\n" || !bs[1].isFile() {
		t.Errorf("second block %+v, want the file at line 15, unindented", bs[1])
	}
	if _, err := goBlocks("page.md", []byte("```go\nx := 1\n")); err == nil {
		t.Error("an unclosed block was accepted")
	}
	for path, want := range map[string]bool{
		"github.com/luahook/luahook/internal/config":            true,
		"github.com/luahook/luahook/luabind/internal/codec":     true,
		"github.com/luahook/luahook/internal":                   true,
		"github.com/luahook/luahook/engine":                     false,
		"github.com/luahook/luahook/examples/embed/internalish": false,
		"example.com/x/internal/y":                              false,
	} {
		if internalImport(path) != want {
			t.Errorf("internalImport(%q) = %v, want %v", path, !want, want)
		}
	}
}
