//go:build unix

package selfguard

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
)

// TestGlobExpansionNeverWaitsOnANamedPipe: expanding a pattern on disk
// reads folders only; a named pipe a component matches (pi*/* matching
// pipe) is no folder and holds no names, and is never opened to wait for a
// writer. A folder whose names cannot be known stays denied; a path that is
// no folder holds nothing to protect.
func TestGlobExpansionNeverWaitsOnANamedPipe(t *testing.T) {
	f := newFixture(t)
	pipe := fifotest.Make(t, filepath.Join(f.proj, "pipe"))
	fifotest.Within(t, 30*time.Second, []string{pipe}, func() {
		if ok, reason := f.g.Check(f.shell(`rm -rf pi*/*`, f.proj)); ok {
			t.Errorf("pi*/* over a named pipe: denied: %s", reason)
		}
	})
}
