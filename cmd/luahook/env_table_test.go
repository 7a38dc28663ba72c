package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envName is what an environment variable's name looks like.
var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`)

// envCallee matches the functions whose string arguments are variables'
// names: os.Getenv, os.LookupEnv and every helper named for the
// environment (envOr, envDir, a LookupEnv option).
var envCallee = regexp.MustCompile(`(?i)env`)

// impliedEnv are the variables the standard library reads for a call of
// luahook's own sources.
var impliedEnv = map[string][]string{
	"UserHomeDir":          {"HOME"},
	"UserConfigDir":        {"XDG_CONFIG_HOME", "HOME"},
	"UserCacheDir":         {"XDG_CACHE_HOME", "HOME"},
	"LookPath":             {"PATH"},
	"ProxyFromEnvironment": {"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"},
}

// envRead is where a variable is read.
type envRead struct {
	name, at string
}

// goPackage is what go list says of a package.
type goPackage struct {
	importPath, name, dir string
	files                 []string
}

// shippedPackages lists the packages luahook ships: the two commands and
// every package a host imports, with everything they import from this
// module. Test helpers (internal/redisstore/redistest, internal/otheruser,
// the benchmarks) are not shipped.
func shippedPackages(t *testing.T) []goPackage {
	t.Helper()
	const module = "github.com/luahook/luahook"
	list := func(args ...string) string {
		cmd := exec.Command("go", append([]string{"list"}, args...)...)
		cmd.Dir = repoRoot
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	var roots []string
	for _, p := range strings.Fields(list("./...")) {
		if !strings.Contains(p, "/internal") && !strings.Contains(p, "/examples") {
			roots = append(roots, p)
		}
	}
	var pkgs []goPackage
	sc := bufio.NewScanner(strings.NewReader(list(append([]string{"-deps", "-f", "{{.ImportPath}}\t{{.Name}}\t{{.Dir}}\t{{join .GoFiles \" \"}} {{join .CgoFiles \" \"}}"}, roots...)...)))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 4)
		if len(f) != 4 || f[0] != module && !strings.HasPrefix(f[0], module+"/") {
			continue
		}
		pkgs = append(pkgs, goPackage{importPath: f[0], name: f[1], dir: f[2], files: strings.Fields(f[3])})
	}
	return pkgs
}

// envReads returns every variable the shipped sources read by name: the
// string constants (literal, or a constant of the package or of one it
// imports) given to a function named for the environment, and the
// variables the standard library reads for the calls of impliedEnv.
func envReads(t *testing.T) []envRead {
	t.Helper()
	pkgs := shippedPackages(t)
	fset := token.NewFileSet()
	type parsed struct {
		pkg  goPackage
		file *ast.File
		path string
	}
	var files []parsed
	consts := map[string]map[string]string{} // import path -> constant -> value
	names := map[string]string{}             // import path -> package name
	for _, p := range pkgs {
		names[p.importPath] = p.name
		consts[p.importPath] = map[string]string{}
		for _, name := range p.files {
			fp := filepath.Join(p.dir, name)
			f, err := parser.ParseFile(fset, fp, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, parsed{p, f, fp})
			ast.Inspect(f, func(n ast.Node) bool {
				if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
					for _, s := range d.Specs {
						vs := s.(*ast.ValueSpec)
						for i, id := range vs.Names {
							if i < len(vs.Values) {
								if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
									consts[p.importPath][id.Name], _ = strconv.Unquote(lit.Value)
								}
							}
						}
					}
				}
				return true
			})
		}
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	var reads []envRead
	for _, pf := range files {
		imports := map[string]string{} // name in the file -> import path
		for _, im := range pf.file.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			name := path.Base(ip)
			if n, ok := names[ip]; ok {
				name = n
			}
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = ip
		}
		value := func(e ast.Expr) string {
			switch e := e.(type) {
			case *ast.BasicLit:
				if e.Kind == token.STRING {
					s, _ := strconv.Unquote(e.Value)
					return s
				}
			case *ast.Ident:
				return consts[pf.pkg.importPath][e.Name]
			case *ast.SelectorExpr:
				if x, ok := e.X.(*ast.Ident); ok {
					return consts[imports[x.Name]][e.Sel.Name]
				}
			}
			return ""
		}
		ast.Inspect(pf.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var callee string
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				callee = fn.Name
			case *ast.SelectorExpr:
				callee = fn.Sel.Name
			}
			rel, _ := filepath.Rel(root, pf.path)
			at := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), fset.Position(call.Pos()).Line)
			for _, v := range impliedEnv[callee] {
				reads = append(reads, envRead{v, at})
			}
			if envCallee.MatchString(callee) {
				for _, a := range call.Args {
					if v := value(a); envName.MatchString(v) {
						reads = append(reads, envRead{v, at})
					}
				}
			}
			return true
		})
	}
	return reads
}

// envTable returns the variables the table of docs/configuration.md's
// "Environment variables" section lists: the names in code spans of each
// row's first cell.
func envTable(t *testing.T) map[string]bool {
	t.Helper()
	doc := readDoc(t, "docs/configuration.md")
	listed := map[string]bool{}
	in := false
	for _, l := range doc.lines {
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == "## Environment variables"
		case in && strings.HasPrefix(l, "| "):
			first, _, _ := strings.Cut(l[2:], " | ")
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
				if envName.MatchString(m[1]) {
					listed[m[1]] = true
				}
			}
		}
	}
	return listed
}

// Every environment variable luahook's shipped sources read is in the
// table of docs/configuration.md, with its effect and whether it can
// change a decision.
func TestEveryEnvironmentVariableIsInTheTable(t *testing.T) {
	reads := envReads(t)
	listed := envTable(t)
	found := map[string]bool{}
	for _, r := range reads {
		found[r.name] = true
		if !listed[r.name] {
			t.Errorf("%s reads $%s, which the table of environment variables in docs/configuration.md does not list: add it, with what it does and whether it can change a decision", r.at, r.name)
			listed[r.name] = true // once
		}
	}
	// The extraction reaches each way a variable is read: a literal, a
	// constant of the package and of another, a helper, the standard
	// library's own.
	for _, want := range []string{"LUAHOOK_DIR", "LUAHOOK_INSTANCE_ID", "LUAHOOK_TOKEN", "CLAUDE_CONFIG_DIR", "GOGC", "HOME", "XDG_CONFIG_HOME", "PATH", "HTTPS_PROXY"} {
		if !found[want] {
			t.Errorf("found no read of $%s: the extraction is broken (found %v)", want, slices.Sorted(maps.Keys(found)))
		}
	}
	if len(listed) < 15 {
		t.Errorf("the table lists %d variables: its extraction is broken", len(listed))
	}
}

// No environment variable names the program luahook-fire hands a call
// to: LUAHOOK_FIRE_LUAHOOK, which once did, is read nowhere.
func TestNoSourceReadsLuahookFireLuahook(t *testing.T) {
	for _, r := range envReads(t) {
		if r.name == "LUAHOOK_FIRE_LUAHOOK" {
			t.Errorf("%s reads $LUAHOOK_FIRE_LUAHOOK", r.at)
		}
	}
}
