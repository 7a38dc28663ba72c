//go:build unix

package unixsock

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
)

// TestListenRefusesANamedPipeOrALinkAtTheSocketsPath: a named pipe at the
// socket's path is refused at once (never opened), and a link to a file
// elsewhere is refused, its target untouched; each is left in place and
// named with what it is.
func TestListenRefusesANamedPipeOrALinkAtTheSocketsPath(t *testing.T) {
	dir := shortDir(t)
	fifo := fifotest.Make(t, filepath.Join(dir, "p"))
	fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
		ln, err := Listen(fifo)
		if err == nil {
			ln.Close()
			t.Error("Listen on a named pipe succeeded, want a refusal")
			return
		}
		if want := fifo + ": not a socket: it is a named pipe (FIFO)"; !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	})
	if m := mode(t, fifo); m.Type() != fs.ModeNamedPipe {
		t.Errorf("%s is now %v, want the named pipe left", fifo, m)
	}

	target := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(target, []byte("# rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(link)
	if err == nil {
		ln.Close()
		t.Fatal("Listen on a link succeeded, want a refusal")
	}
	if want := link + ": not a socket: it is a symbolic link"; !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not say %q", err, want)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "# rc\n" {
		t.Errorf("the link's target now holds %q, %v", b, err)
	}
}
