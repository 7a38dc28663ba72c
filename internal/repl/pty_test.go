package repl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// luahookBin is the luahook binary the terminal tests run, built once by
// TestMain: a real process on a real pseudo-terminal, so that line editing,
// raw mode and Ctrl-C (a SIGINT from the terminal driver) are the real thing.
var luahookBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "luahook-repl-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	luahookBin = filepath.Join(dir, "luahook")
	build := exec.Command("go", "build", "-o", luahookBin, "github.com/luahook/luahook/cmd/luahook")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building luahook: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// session is a luahook repl running on a pseudo-terminal.
type session struct {
	t    *testing.T
	pty  *os.File
	cmd  *exec.Cmd
	exit chan error

	mu   sync.Mutex
	out  bytes.Buffer
	seen int           // what expect has consumed
	more chan struct{} // a read happened
}

// home is a test's HOME, working folder and hooks folder.
type home struct {
	dir, hooks, history string
}

func newHome(t *testing.T) home {
	dir := t.TempDir()
	h := home{dir: dir, hooks: filepath.Join(dir, "hooks.d"), history: filepath.Join(dir, "history")}
	if err := os.Mkdir(h.hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// start runs `luahook repl` on a new pseudo-terminal in h.
func start(t *testing.T, h home) *session {
	t.Helper()
	cmd := exec.Command(luahookBin, "repl", "--dir", h.hooks)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "HOME="+h.dir, "LUAHOOK_HISTORY="+h.history, "TERM=xterm",
		"LUAHOOK_DIR=", "LUAHOOK_CONFIG=")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, pty: f, cmd: cmd, exit: make(chan error, 1), more: make(chan struct{}, 1)}
	go s.read()
	go func() { s.exit <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		f.Close()
	})
	s.expect("Ctrl-D to quit.")
	s.prompt()
	return s
}

func (s *session) read() {
	buf := make([]byte, 4096)
	for {
		n, err := s.pty.Read(buf)
		s.mu.Lock()
		s.out.Write(buf[:n])
		s.mu.Unlock()
		select {
		case s.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// send types text on the terminal.
func (s *session) send(text string) {
	s.t.Helper()
	if _, err := s.pty.WriteString(text); err != nil {
		s.t.Fatalf("typing %q: %v", text, err)
	}
}

// expect waits until the output, past what earlier expects consumed,
// contains want, and consumes it.
func (s *session) expect(want string) {
	s.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		rest := s.out.String()[s.seen:]
		if i := strings.Index(rest, want); i >= 0 {
			s.seen += i + len(want)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		select {
		case <-s.more:
		case <-timeout:
			s.t.Fatalf("waited 20s for %q; the terminal shows after the last match:\n%q", want, rest)
		}
	}
}

// prompt waits for the next prompt. Keys typed before it would reach the
// terminal in cooked mode, where the driver, not the REPL, reads control
// keys (the REPL is busy: as in any shell, Ctrl-D then is lost).
func (s *session) prompt() {
	s.t.Helper()
	s.expect("\r> ")
}

// result waits for a line of output, then for the prompt after it.
func (s *session) result(line string) {
	s.t.Helper()
	s.expect(line + "\r\n")
	s.prompt()
}

// quit sends Ctrl-D at the prompt and waits for the REPL to exit with
// status 0.
func (s *session) quit() {
	s.t.Helper()
	s.send("\x04")
	select {
	case err := <-s.exit:
		if err != nil {
			s.t.Fatalf("after Ctrl-D the REPL exited with %v, want status 0", err)
		}
	case <-time.After(20 * time.Second):
		s.t.Fatal("the REPL did not exit after Ctrl-D")
	}
}

func TestTerminalMultiLineFunctionUsesTheContinuationPrompt(t *testing.T) {
	s := start(t, newHome(t))
	s.send("function add(a, b)\r")
	s.expect("\r>> ")
	s.send("  return a + b\r")
	s.expect("\r>> ")
	s.send("end\r")
	s.prompt()
	s.send("=add(20, 22)\r")
	s.result("42")
	s.quit()
}

func TestTerminalPrintsNestedTables(t *testing.T) {
	s := start(t, newHome(t))
	s.send("={ list = { 1, 2, { deep = true } }, name = 'x', [\"end\"] = json.null }\r")
	s.result(`{ ["end"] = json.null, list = { 1, 2, { deep = true } }, name = "x" }`)
	s.quit()
}

func TestTerminalCompletesFieldsWithTab(t *testing.T) {
	s := start(t, newHome(t))
	s.send("hook.reg\t")
	s.expect("hook.register")
	s.send("('Stop', nil, function() end)\r")
	s.result(`"repl#1"`)
	s.send(":fi\t")
	s.expect(":fire ")
	s.send("\x15") // Ctrl-U: clear the line
	s.prompt()
	s.quit()
}

func TestTerminalHistorySurvivesARestart(t *testing.T) {
	h := newHome(t)
	s := start(t, h)
	s.send("=40 + 2\r")
	s.result("42")
	s.send("function twice(x)\r")
	s.expect("\r>> ")
	s.send("  return 2 * x\r")
	s.expect("\r>> ")
	s.send("end\r")
	s.prompt()
	s.quit()
	data, err := os.ReadFile(h.history)
	if err != nil || !strings.Contains(string(data), "=40 + 2\n") || !strings.Contains(string(data), "function twice(x) return 2 * x end\n") {
		t.Fatalf("history file: %q, %v; want both entries", data, err)
	}
	if st, err := os.Stat(h.history); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}

	s = start(t, h)
	s.send("\x10\x10\r") // Ctrl-P twice: the entry before the last
	s.result("42")
	s.send("\x10\x10\r") // the whole function came back as one entry
	s.prompt()
	s.send("=twice(21)\r")
	s.result("42")
	s.quit()
}

func TestTerminalCtrlCCancelsARunningHookNotTheREPL(t *testing.T) {
	s := start(t, newHome(t))
	s.send(`hook.register("Stop", nil, function() print("spinning") while true do end end, { timeout_ms = 600000 })` + "\r")
	s.result(`"repl#1"`)
	s.send(":fire Stop\r")
	s.expect("spinning")
	s.send("\x03") // the hook runs: the terminal driver sends SIGINT
	s.result("interrupted")
	s.send("=20 + 22\r")
	s.result("42")
	s.send("\x03") // at the prompt: readline clears the line, the REPL lives on
	s.expect("^C")
	s.prompt()
	s.send("=1 + 1\r")
	s.result("2")
	s.quit()
}

func TestTerminalSIGTERMEndsTheREPLAtThePrompt(t *testing.T) {
	s := start(t, newHome(t))
	s.send("=1 +") // a line half typed: the REPL waits in raw mode
	s.expect("=1 +")
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.exit:
		if err != nil {
			t.Errorf("after SIGTERM the REPL exited with %v, want status 0", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the REPL did not exit after SIGTERM")
	}
}

func TestScriptOnStandardInput(t *testing.T) {
	h := newHome(t)
	if err := os.WriteFile(filepath.Join(h.hooks, "10-no-rm.lua"), []byte(denyRm), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(luahookBin, "repl", "--dir", h.hooks)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "HOME="+h.dir, "LUAHOOK_DIR=", "LUAHOOK_CONFIG=")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		"function double(x)",
		"  return 2 * x",
		"end",
		"double(21)",
		`:fire PreToolUse {"toolName":"bash","toolInput":{"command":"rm -rf /"}}`,
		`:fire PreToolUse {"toolName":"bash","toolInput":{"command":"ls"}}`,
		"={ ok = true }",
	}, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("luahook repl < script: %v\n%s", err, stderr.String())
	}
	want := "42\n" + `{"action":"deny","reason":"no rm -rf"}` + "\n" + `{}` + "\n{ ok = true }\n"
	if stdout.String() != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout.String(), want)
	}

	cmd = exec.Command(luahookBin, "repl", "--dir", h.hooks)
	cmd.Dir = h.dir
	cmd.Stdin = strings.NewReader("error('boom')\n=1\n")
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var exit *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("a script with an error: %v, want exit status 1", err)
	}
	if stdout.String() != "1\n" || !strings.Contains(stderr.String(), "stdin:1: boom") {
		t.Errorf("stdout %q, stderr %q; want the error reported and the next line run", stdout.String(), stderr.String())
	}
}
