//go:build unix

package policytest

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
)

// TestANamedPipeAsATestFileFailsAtOnce: a named pipe with a test file's
// name, in a folder or named on the command line, fails as a file that does
// not load, naming it and what it is, within a second; it is neither
// waited on nor passed over (item 1 of the second security review).
func TestANamedPipeAsATestFileFailsAtOnce(t *testing.T) {
	for _, named := range []bool{false, true} {
		dir := folder(t, map[string]string{"guard.lua": guard})
		fifo := fifotest.Make(t, filepath.Join(dir, "guard_test.lua"))
		path := dir
		if named {
			path = fifo
		}
		var out bytes.Buffer
		var sum Summary
		var err error
		fifotest.Within(t, time.Second, []string{fifo}, func() {
			sum, err = Run(context.Background(), Options{Paths: []string{path}, Out: &out})
		})
		want := "FAIL " + fifo + " (does not load)"
		if err != nil || sum.Failed != 1 || !strings.Contains(out.String(), want) ||
			!strings.Contains(out.String(), "not a regular file: it is a named pipe (FIFO)") {
			t.Errorf("Run(%s): %v, %v\n%s\nwant %q and the pipe named", path, sum, err, out.String(), want)
		}
	}
}
