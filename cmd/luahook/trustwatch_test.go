package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/luahook/luahook/internal/trust"
)

// noAgent clears, for the rest of t, the environment variables that mark
// an agent's shell (the tests may run under one).
func noAgent(t *testing.T) {
	for _, name := range agentMarkers {
		t.Setenv(name, "")
	}
}

// denyPolicy is a hook file that denies every PreToolUse with reason.
func denyPolicy(reason string) string {
	return `hook.register("PreToolUse", nil, function() return hook.deny("` + reason + `") end)` + "\n"
}

// luahookAt returns the luahook CLI run in folder dir with the trust
// records (and the user's folder) of cfgHome, outside any agent.
func luahookAt(t *testing.T, cfgHome, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := luahookExe(t, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+cfgHome)
	for _, name := range agentMarkers {
		cmd.Env = append(cmd.Env, name+"=")
	}
	return cmd
}

// firePreToolUse fires a PreToolUse in folder as an agent's hook would and
// returns the deny reason's line of the answer.
func firePreToolUse(t *testing.T, cfgHome, folder string) string {
	t.Helper()
	cmd := luahookAt(t, cfgHome, folder, "fire", "--input", `{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"ls"}}`)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("fire: %v, want exit 2 (denied); stdout %q, stderr %q", err, out.String(), errb.String())
	}
	return out.String()
}

// ptyOutput collects what a process writes to its terminal.
type ptyOutput struct{ buf syncBuffer }

// waitFor waits until the output matches re, failing t after a wide
// deadline (two busy cores, the race detector).
func (o *ptyOutput) waitFor(t *testing.T, exited <-chan error, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(30 * time.Second)
	for !rx.MatchString(o.buf.String()) {
		select {
		case err := <-exited:
			t.Fatalf("trust --watch ended (%v) before printing %q:\n%s", err, re, o.buf.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("trust --watch did not print %q:\n%s", re, o.buf.String())
		}
	}
}

func shortSum(content string) string {
	s := sha256.Sum256([]byte(content))
	return hex.EncodeToString(s[:])[:12]
}

// luahook trust --watch, in a real terminal, trusts each change saved while
// it runs (an editor's rename over a file, a plain write, a new file),
// printing a line for each with its new digest, so that fire runs the new
// content at once; a file changed before it started stays untrusted; and
// Ctrl-C ends it.
func TestTrustWatchInATerminalTrustsEachSaveAndNothingBefore(t *testing.T) {
	cfgHome := t.TempDir()
	folder, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(folder, "hooks.d")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(hooks, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("10-a.lua", denyPolicy("version one says no"))
	write("20-u.lua", "-- u\n")
	if out, err := luahookAt(t, cfgHome, folder, "trust").CombinedOutput(); err != nil {
		t.Fatalf("luahook trust: %v\n%s", err, out)
	}
	write("20-u.lua", "-- u, changed before the watch\n")

	cmd := luahookAt(t, cfgHome, folder, "trust", "--watch")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var out ptyOutput
	go io.Copy(&out.buf, ptmx)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	}()
	out.waitFor(t, exited, `watching `+regexp.QuoteMeta(folder)+`: hooks.d \(2 files\); each change saved while this runs is trusted`)
	out.waitFor(t, exited, `not trusted: \./hooks\.d/20-u\.lua changed before --watch started`)

	// An editor's save (a temporary file renamed over the hook file), a
	// plain write of a new file.
	v2 := denyPolicy("version two says no")
	tmp := filepath.Join(hooks, ".10-a.lua.swp")
	if err := os.WriteFile(tmp, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(hooks, "10-a.lua")); err != nil {
		t.Fatal(err)
	}
	write("30-b.lua", "-- b\n")
	out.waitFor(t, exited, `\d\d:\d\d:\d\d changed ./hooks\.d/10-a\.lua sha256:`+shortSum(v2))
	out.waitFor(t, exited, `\d\d:\d\d:\d\d added   ./hooks\.d/30-b\.lua sha256:`+shortSum("-- b\n"))

	// The engine runs the content saved: its own reason, not a refusal.
	if got := firePreToolUse(t, cfgHome, folder); !strings.Contains(got, "version two says no") {
		t.Errorf("fire after the save answers %s, want the saved policy's deny", got)
	}
	files := (&trust.Store{Dir: filepath.Join(cfgHome, "luahook", "trust")}).Files(folder)
	if err := files.Check("hooks.d/30-b.lua", sha256.Sum256([]byte("-- b\n"))); err != nil {
		t.Errorf("the new file as saved: %v", err)
	}
	if err := files.Check("hooks.d/20-u.lua", sha256.Sum256([]byte("-- u, changed before the watch\n"))); err == nil {
		t.Error("the file changed before --watch started is trusted")
	}
	if strings.Contains(out.buf.String(), "20-u.lua sha256:") {
		t.Errorf("a change made before the start was reported trusted:\n%s", out.buf.String())
	}

	// Ctrl-C, typed at the terminal, ends it.
	if _, err := ptmx.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("trust --watch after Ctrl-C: %v\n%s", err, out.buf.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("trust --watch still runs after Ctrl-C:\n%s", out.buf.String())
	}
	out.waitFor(t, nil, `stopped watching `+regexp.QuoteMeta(folder))
}

// trust --watch refuses to start, before it reads or writes anything, when
// its standard input or output is not a terminal (an agent's tool call, a
// script), and under an agent's environment even at a terminal.
func TestTrustWatchRefusesWithoutATerminalAndUnderAnAgent(t *testing.T) {
	noAgent(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	folder := t.TempDir()
	if err := os.MkdirAll(filepath.Join(folder, "hooks.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), []string{"trust", folder}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
		t.Fatalf("trust: exit %d", code)
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go io.Copy(io.Discard, ptmx)

	for _, tc := range []struct {
		name    string
		in      io.Reader
		out     io.Writer
		agent   string
		message string
	}{
		{"no terminal", strings.NewReader(""), &bytes.Buffer{}, "", "its standard input and output must be a terminal"},
		{"input not a terminal", strings.NewReader(""), tty, "", "its standard input and output must be a terminal"},
		{"output not a terminal", tty, &bytes.Buffer{}, "", "its standard input and output must be a terminal"},
		{"a terminal, under Claude Code", tty, tty, "CLAUDECODE", "$CLAUDECODE is set, so this runs under an agent"},
		{"a terminal, under Gemini CLI", tty, tty, "GEMINI_CLI", "$GEMINI_CLI is set, so this runs under an agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.agent != "" {
				t.Setenv(tc.agent, "1")
			}
			var errb syncBuffer
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			code := run(ctx, []string{"trust", "--watch", folder}, tc.in, tc.out, &errb)
			if code != 1 || !strings.HasPrefix(errb.String(), "luahook: trust --watch: refused: ") ||
				!strings.Contains(errb.String(), tc.message) {
				t.Errorf("exit %d, stderr %q; want refused: %q", code, errb.String(), tc.message)
			}
		})
	}
}

// The self-protection denies an agent's Bash call that runs luahook trust
// --watch, however it is wrapped, as it denies luahook trust.
func TestSelfProtectionDeniesAnAgentsTrustWatch(t *testing.T) {
	noAgent(t)
	dir := t.TempDir()
	for _, command := range []string{
		`luahook trust --watch`,
		`luahook trust --watch ~/src/project`,
		`nohup luahook trust --watch &`,
		`script -qc 'luahook trust --watch' /dev/null`,
		`env -u CLAUDECODE script -q /dev/null luahook trust --watch`,
	} {
		var out, errb bytes.Buffer
		payload := `{"event":"PreToolUse","toolName":"Bash","cwd":"` + dir + `","toolInput":{"command":` + quoteJSON(command) + `}}`
		code := run(context.Background(), []string{"--dir", dir, "fire", "--input", payload}, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(out.String(), "ask the user to run it") {
			t.Errorf("%s: exit %d, answer %s %s; want denied by the self-protection", command, code, out.String(), errb.String())
		}
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
