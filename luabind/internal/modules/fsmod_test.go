package modules

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A glob looks at its context every fsCheckEvery entries: once the
// context is done, the walk visits fewer than fsCheckEvery more entries
// (counted, whatever the machine's speed) and ends with the context's
// error.
func TestGlobWalkStopsSoonAfterItsContextIsDone(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range 50 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d", j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, pattern := range []string{"**/none", "*/*", "d*/f0*"} {
		t.Run(pattern, func(t *testing.T) {
			segs, err := globSegments(pattern)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const at = 300
			w := &globWalk{ctx: ctx, root: root, segs: segs, limit: FSGlobVisits}
			w.onVisit = func(n int) {
				if n == at {
					cancel()
				}
			}
			w.walk(".", 0)
			if !errors.Is(w.err, context.Canceled) {
				t.Fatalf("the walk ended with %v after %d visits, want the context's error", w.err, w.visits)
			}
			if w.visits < at || w.visits >= at+fsCheckEvery {
				t.Errorf("the walk visited %d entries, cancelled at %d (want fewer than %d more)", w.visits, at, fsCheckEvery)
			}
		})
	}
}

// fsRun returns once the context is done even though the operation has
// not (a file system that does not answer), and the operation keeps its
// slot until it ends: with every slot held, a later call waits on its own
// context and never starts its operation.
func TestFSRunDoesNotOutwaitItsContext(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, FSInFlight)
	ended := make(chan struct{}, FSInFlight)
	hung := func(context.Context) int {
		started <- struct{}{}
		<-release
		ended <- struct{}{}
		return 1
	}
	for range FSInFlight {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-started
			cancel()
		}()
		v, err := fsRun(ctx, hung)
		if v != 0 || !errors.Is(err, context.Canceled) {
			t.Fatalf("fsRun = %d, %v; want 0 and the context's error", v, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ran := false
	if _, err := fsRun(ctx, func(context.Context) int { ran = true; return 1 }); !errors.Is(err, context.DeadlineExceeded) || ran {
		t.Fatalf("with every slot held: err %v, ran %v; want the deadline, and the operation not run", err, ran)
	}
	close(release)
	for range FSInFlight {
		<-ended
	}
	// The slots come back once the hung operations end.
	deadline, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if v, err := fsRun(deadline, func(context.Context) int { return 7 }); v != 7 || err != nil {
		t.Fatalf("fsRun = %d, %v once the slots are free", v, err)
	}
}

// A path is judged on its text first: '..' must not climb out, an
// absolute path must be the folder or below it.
func TestFSLocal(t *testing.T) {
	for _, c := range []struct{ p, rel, refused string }{
		{"a/b", "a/b", ""},
		{"./a//b/", "a/b", ""},
		{"a/../b", "b", ""},
		{".", ".", ""},
		{"/p/q", ".", ""},
		{"/p/q/", ".", ""},
		{"/p/q/x/../y", "y", ""},
		{"..", "", "'..' leads out"},
		{"a/../../b", "", "'..' leads out"},
		{"/p/q/../r", "", "outside the project folder"},
		{"/p/qr", "", "outside the project folder"},
		{"/", "", "outside the project folder"},
	} {
		rel, refused := fsLocal("/p/q", c.p)
		if rel != c.rel || (c.refused == "") != (refused == "") || (c.refused != "" && !strings.Contains(refused, c.refused)) {
			t.Errorf("fsLocal(%q) = %q, %q; want %q, %q", c.p, rel, refused, c.rel, c.refused)
		}
	}
	if rel, refused := fsLocal("/", "/etc"); rel != "etc" || refused != "" {
		t.Errorf("below the root folder: %q, %q", rel, refused)
	}
}
