// Package depstest holds a package to the direction of luahook's imports,
// for tests: what a package links, as `go list -deps` lists it, must leave
// out the packages above it.
package depstest

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Forbid fails t, naming each one, when the non-test dependencies of the
// package pkg (an import path, or "." for the package under test) hold a
// forbidden package or a package below one: "github.com/yuin/gopher-lua"
// forbids github.com/yuin/gopher-lua/ast too. It runs the go command found
// on PATH (go test puts its own first) and skips t when there is none.
func Forbid(t testing.TB, pkg string, forbidden ...string) {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the dependencies of %s: %v", pkg, err)
	}
	out, err := exec.Command(gocmd, "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		var stderr string
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatalf("go list -deps %s listed nothing", pkg)
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("%s depends on %s (forbidden: %s)", deps[len(deps)-1], dep, f)
			}
		}
	}
}
