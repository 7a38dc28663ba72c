package hooktest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// hookprog is the absolute path of testdata/hookprog, built once by TestMain:
// the program the command factory runs.
var hookprog string

func TestMain(m *testing.M) {
	if os.Getenv(brokenEnv) != "" { // a helper process runs Go hooks only
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "hooktest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	hookprog = filepath.Join(dir, "hookprog")
	// go test puts its own go command first in PATH.
	build := exec.Command("go", "build", "-o", hookprog, "./testdata/hookprog")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building testdata/hookprog: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
