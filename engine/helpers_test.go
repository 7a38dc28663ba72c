package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// testDebounce keeps the watcher tests quick; the default is measured by the
// benchmarks.
const testDebounce = 10 * time.Millisecond

// openEngine opens an engine with a short debounce and closes it when the
// test ends.
func openEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = testDebounce
	}
	e, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// hooksDir returns a fresh hooks folder holding files (name -> content).
func hooksDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hooks.d")
	if err := os.MkdirAll(filepath.Join(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		writeFile(t, filepath.Join(dir, name), src)
	}
	return dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// saveByRename writes content the way editors save: into a temporary file
// next to path, renamed over it.
func saveByRename(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp~"
	writeFile(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// denyFile is a hook file whose bash hook denies with reason.
func denyFile(reason string) string {
	return fmt.Sprintf("hook.register(\"PreToolUse\", \"bash\", function() return hook.deny(%q) end, { name = \"ver\" })\n", reason)
}

func bashInput(cwd string) *luahook.Input {
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash",
		ToolInput: json.RawMessage(`{"command":"ls"}`), Cwd: cwd, SessionID: "s1"}
}

// verdict fires a bash PreToolUse and describes the result: the deny reason,
// "allowed", or the first hook failure.
func verdict(e *Engine) string {
	res := e.Runner().PreToolUse(context.Background(), bashInput(os.TempDir()))
	return describe(res)
}

func describe(res runner.Result) string {
	for _, tr := range res.Trace {
		if tr.Failure != nil {
			return "failure: " + tr.Failure.Error()
		}
	}
	if res.Denied() {
		return res.Reason
	}
	return "allowed"
}

// eventually polls cond every 10 ms for up to 5 s and fails the test with
// what when it never holds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitVerdict waits until a bash PreToolUse gives want.
func waitVerdict(t testing.TB, e *Engine, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := verdict(e)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5s: verdict %q, want %q (errors: %v)", got, want, e.Err())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitNoErr waits until the engine lists no load error: the registry swaps
// a file in before the reload publishes its errors.
func waitNoErr(t testing.TB, e *Engine) {
	t.Helper()
	eventually(t, "no load error", func() bool { return e.Err() == nil })
}

// ids returns the registry IDs of the entries of owner, in order: a
// reloaded file or a rebuilt configured set gets new IDs.
func ids(e *Engine, owner string) []string {
	var out []string
	for _, en := range e.Registry().All() {
		if en.Owner == owner {
			out = append(out, en.ID)
		}
	}
	return out
}

// logRecorder is a slog.Handler that keeps every record, for assertions.
type logRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.recs = append(h.recs, r.Clone())
	h.mu.Unlock()
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

// records returns the records at level whose message is msg, as text lines
// "msg key=value ...".
func (h *logRecorder) records(level slog.Level, msg string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.recs {
		if r.Level != level || r.Message != msg {
			continue
		}
		var b strings.Builder
		b.WriteString(r.Message)
		r.Attrs(func(a slog.Attr) bool {
			fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
			return true
		})
		out = append(out, b.String())
	}
	return out
}
