//go:build unix

package transports

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

func newCommand(t testing.TB, spec CommandSpec) *Command {
	t.Helper()
	c, err := NewCommand(spec)
	if err != nil {
		t.Fatalf("NewCommand(%q): %v", spec.Command, err)
	}
	return c
}

func payload(t testing.TB) *luahook.Input {
	return &luahook.Input{
		Event:     luahook.PreToolUse,
		ToolName:  "bash",
		ToolInput: json.RawMessage(`{"command":"ls -la"}`),
		Cwd:       t.TempDir(),
		SessionID: "s-1",
	}
}

func asFailure(t testing.TB, err error, kind luahook.FailureKind) *luahook.Failure {
	t.Helper()
	var f *luahook.Failure
	if !errors.As(err, &f) {
		t.Fatalf("error %v (%T) is not a *luahook.Failure", err, err)
	}
	if f.Kind != kind {
		t.Fatalf("failure kind = %q (%s), want %q", f.Kind, f.Message, kind)
	}
	return f
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommandFeedsThePayloadAndANewlineOnStdin(t *testing.T) {
	in := payload(t)
	out := filepath.Join(t.TempDir(), "stdin")
	c := newCommand(t, CommandSpec{Command: fmt.Sprintf(`sh -c 'cat > "$1"' sh %q`, out)})
	o, err := c.Call(context.Background(), in)
	if err != nil || o != nil {
		t.Fatalf("Call = %v, %v; want no objection", o, err)
	}
	want, _ := json.Marshal(in)
	got, _ := os.ReadFile(out)
	if string(got) != string(want)+"\n" {
		t.Fatalf("stdin = %q, want %q", got, string(want)+"\n")
	}
}

func TestCommandThatIgnoresStdinIsFineWithABigPayload(t *testing.T) {
	in := payload(t)
	in.Prompt = strings.Repeat("x", 1<<20)
	tests := []struct {
		name    string
		command string
		check   func(*luahook.Outcome, error) bool
	}{
		{"exit 0 silently", `sh -c 'exit 0'`, func(o *luahook.Outcome, err error) bool { return o == nil && err == nil }},
		{"answer without reading", `sh -c 'echo "{\"action\":\"deny\",\"reason\":\"no\"}"'`, func(o *luahook.Outcome, err error) bool {
			return err == nil && o != nil && o.Action == luahook.ActionDeny && o.Reason == "no"
		}},
		{"deny by exit code without reading", `sh -c 'echo nope >&2; exit 2'`, func(o *luahook.Outcome, err error) bool {
			return err == nil && o != nil && o.Action == luahook.ActionDeny && o.Reason == "nope"
		}},
		{"fail without reading", `sh -c 'exit 3'`, func(o *luahook.Outcome, err error) bool {
			var f *luahook.Failure
			return errors.As(err, &f) && f.Kind == luahook.FailExit
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCommand(t, CommandSpec{Command: tt.command})
			for range 5 {
				o, err := c.Call(context.Background(), in)
				if !tt.check(o, err) {
					t.Fatalf("Call = %+v, %v", o, err)
				}
			}
		})
	}
}

// The child runs in the payload's working directory, but its script comes
// from the hook's configuration folder: a script of the same name in the
// payload's folder never runs.
func TestCommandRunsInThePayloadWorkingDirectoryWithItsScriptFromTheConfigFolder(t *testing.T) {
	in := payload(t)
	dir, err := filepath.EvalSymlinks(in.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	in.Cwd = dir
	conf, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, conf, "hook.sh", `printf '%s|%s|%s' "$(pwd -P)" "$PWD" "$LUAHOOK_CONFIG_DIR" >&2; exit 2`)
	writeFile(t, dir, "hook.sh", `echo "the payload's hook.sh ran" >&2; exit 2`)
	c := newCommand(t, CommandSpec{Command: "sh ./hook.sh", Dir: conf})
	if want := "sh " + filepath.Join(conf, "hook.sh"); c.Resolved() != want {
		t.Errorf("Resolved() = %q, want %q", c.Resolved(), want)
	}
	o, err := c.Call(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if want := dir + "|" + dir + "|" + conf; o == nil || o.Reason != want {
		t.Fatalf("outcome = %+v, want reason %q", o, want)
	}
}

func TestCommandMissingWorkingDirectoryIsAnErrorNamingIt(t *testing.T) {
	in := payload(t)
	in.Cwd = filepath.Join(in.Cwd, "gone")
	c := newCommand(t, CommandSpec{Command: "sh -c 'exit 0'"})
	_, err := c.Call(context.Background(), in)
	f := asFailure(t, err, luahook.FailError)
	if !strings.Contains(f.Message, strconv.Quote(in.Cwd)) || !strings.Contains(f.Message, "does not exist") {
		t.Fatalf("message %q does not name the missing folder", f.Message)
	}
}

func TestCommandProgramMissingFromPathIsAnError(t *testing.T) {
	c := newCommand(t, CommandSpec{Command: "no-such-program-luahook --x", Allow: []string{"no-such-program-luahook"}})
	_, err := c.Call(context.Background(), payload(t))
	f := asFailure(t, err, luahook.FailError)
	if !strings.Contains(f.Message, `"no-such-program-luahook"`) || !strings.Contains(f.Message, "not found") {
		t.Fatalf("message %q does not name the program", f.Message)
	}
}

func TestNewCommandRejectsBadCommandsUpFront(t *testing.T) {
	tests := []struct {
		command string
		want    string
	}{
		{`sh -c 'echo hi`, "unterminated quote"},
		{`bash -c "exit 2`, "unterminated quote"},
		{`./scripts/guard.sh`, `first word "./scripts/guard.sh" is not in the command-hook allowlist`},
		{`env FOO=1 sh`, `first word "env"`},
		{``, "no program to run"},
		{`   `, "no program to run"},
		{`"" x`, "no program to run"},
	}
	for _, tt := range tests {
		_, err := NewCommand(CommandSpec{Command: tt.command})
		f := asFailure(t, err, luahook.FailRejected)
		if !strings.Contains(f.Message, tt.want) || !strings.Contains(f.Message, strconv.Quote(tt.command)) {
			t.Errorf("NewCommand(%q) message %q; want it to name the command and say %q", tt.command, f.Message, tt.want)
		}
	}
}

func TestCommandExitCodeAndStdoutDecideTheOutcome(t *testing.T) {
	tests := []struct {
		name       string
		command    string
		wantAction luahook.Action
		wantReason string
		wantInput  string
		wantKind   luahook.FailureKind
		wantMsg    string
		wantNil    bool
	}{
		{name: "exit 2 denies with stderr", command: `sh -c 'echo "  out  "; echo "  no rm -rf  " >&2; exit 2'`,
			wantAction: luahook.ActionDeny, wantReason: "no rm -rf"},
		{name: "exit 2 falls back to stdout", command: `sh -c 'echo "  from stdout "; exit 2'`,
			wantAction: luahook.ActionDeny, wantReason: "from stdout"},
		{name: "exit 2 falls back to a default", command: `sh -c 'echo "   " >&2; exit 2'`,
			wantAction: luahook.ActionDeny, wantReason: luahook.DefaultBlockReason},
		{name: "exit 2 ignores stdout JSON when stderr speaks", command: `sh -c 'echo "{\"action\":\"allow\"}"; echo why >&2; exit 2'`,
			wantAction: luahook.ActionDeny, wantReason: "why"},
		{name: "other exit is an exit failure with stderr", command: `sh -c 'echo boom >&2; exit 3'`,
			wantKind: luahook.FailExit, wantMsg: `command "sh -c 'echo boom >&2; exit 3'": exited with code 3: boom`},
		{name: "silent exit 1 names the code", command: `sh -c 'exit 1'`,
			wantKind: luahook.FailExit, wantMsg: `command "sh -c 'exit 1'": exited with code 1`},
		{name: "killed by a signal is an exit failure", command: `sh -c 'kill -9 $$'`,
			wantKind: luahook.FailExit, wantMsg: "killed by signal 9"},
		{name: "exit 0 silent is no objection", command: `sh -c 'exit 0'`, wantNil: true},
		{name: "exit 0 white space is no objection", command: `sh -c 'printf "  \n\t\n"'`, wantNil: true},
		{name: "exit 0 empty object is no objection", command: `echo {}`, wantNil: true},
		{name: "exit 0 deny object", command: `echo '{"action":"deny","reason":"nope"}'`,
			wantAction: luahook.ActionDeny, wantReason: "nope"},
		{name: "exit 0 mutate object", command: `echo '{"action":"mutate","input":{"command":"ls"}}'`,
			wantAction: luahook.ActionMutate, wantInput: `{"command":"ls"}`},
		{name: "legacy block decision", command: `echo '{"decision":"block"}'`,
			wantAction: luahook.ActionDeny, wantReason: luahook.DefaultBlockReason},
		{name: "not JSON is invalid output naming the command", command: `echo hello`,
			wantKind: luahook.FailInvalidOutput, wantMsg: `command "echo hello": output is not a JSON object`},
		{name: "truncated JSON is invalid output", command: `echo '{"action":"deny"'`,
			wantKind: luahook.FailInvalidOutput, wantMsg: "not valid outcome JSON"},
		{name: "unknown action is invalid output", command: `echo '{"action":"block"}'`,
			wantKind: luahook.FailInvalidOutput, wantMsg: `unknown hook action "block"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCommand(t, CommandSpec{Command: tt.command})
			o, err := c.Call(context.Background(), payload(t))
			switch {
			case tt.wantKind != "":
				f := asFailure(t, err, tt.wantKind)
				if !strings.Contains(f.Message, tt.wantMsg) {
					t.Fatalf("message %q, want it to contain %q", f.Message, tt.wantMsg)
				}
			case tt.wantNil:
				if o != nil || err != nil {
					t.Fatalf("Call = %+v, %v; want no objection", o, err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if o == nil || o.Action != tt.wantAction || o.Reason != tt.wantReason || string(o.Input) != tt.wantInput {
					t.Fatalf("outcome = %+v, want action %q reason %q input %s", o, tt.wantAction, tt.wantReason, tt.wantInput)
				}
			}
		})
	}
}

func TestCommandReasonIsCutTo2000CharactersWithoutSplittingOne(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é€😀x", 1250) // 5,000 characters of 1 to 4 bytes
	file := writeFile(t, dir, "long", long)
	want := string([]rune(long)[:luahook.MaxReasonChars])

	deny := newCommand(t, CommandSpec{Command: fmt.Sprintf(`sh -c 'cat "$1" >&2; exit 2' sh %q`, file)})
	o, err := deny.Call(context.Background(), payload(t))
	if err != nil {
		t.Fatal(err)
	}
	if o.Reason != want || !utf8.ValidString(o.Reason) {
		t.Fatalf("reason has %d characters (valid %v), want the first %d", utf8.RuneCountInString(o.Reason), utf8.ValidString(o.Reason), luahook.MaxReasonChars)
	}

	exit := newCommand(t, CommandSpec{Command: fmt.Sprintf(`sh -c 'cat "$1" >&2; exit 5' sh %q`, file)})
	_, err = exit.Call(context.Background(), payload(t))
	f := asFailure(t, err, luahook.FailExit)
	if !strings.HasSuffix(f.Message, ": exited with code 5: "+want) {
		t.Fatalf("exit message does not end with the first %d characters of stderr: ...%q", luahook.MaxReasonChars, f.Message[max(0, len(f.Message)-40):])
	}
}

func TestCommandInvalidUTF8BecomesReplacementCharacters(t *testing.T) {
	c := newCommand(t, CommandSpec{Command: `sh -c 'printf "h\303\251llo \377\376 w\303\266rld \342\202" >&2; exit 2'`})
	o, err := c.Call(context.Background(), payload(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := "héllo \uFFFD wörld \uFFFD"; o.Reason != want {
		t.Fatalf("reason = %q, want %q", o.Reason, want)
	}
}

func TestCommandStdoutCapIsExactly64KiB(t *testing.T) {
	dir := t.TempDir()
	object := func(size int) string {
		const head, tail = `{"additionalContext":"`, `"}`
		return head + strings.Repeat("a", size-len(head)-len(tail)) + tail
	}
	fits := writeFile(t, dir, "fits", object(MaxOutputBytes))
	over := writeFile(t, dir, "over", object(MaxOutputBytes+1))

	o, err := newCommand(t, CommandSpec{Command: "cat " + fits}).Call(context.Background(), payload(t))
	if err != nil || o == nil || len(o.AdditionalContext) != MaxOutputBytes-24 {
		t.Fatalf("64 KiB answer: %v, %v; want it accepted", o != nil, err)
	}
	_, err = newCommand(t, CommandSpec{Command: "cat " + over}).Call(context.Background(), payload(t))
	f := asFailure(t, err, luahook.FailInvalidOutput)
	if !strings.Contains(f.Message, "stdout exceeded 64 KiB") {
		t.Fatalf("message %q", f.Message)
	}
}

func TestCommandFloodingStdoutIsStoppedWithBoundedMemory(t *testing.T) {
	c := newCommand(t, CommandSpec{Command: "cat /dev/zero"}) // endless
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := heapTotal()
	start := time.Now()
	_, err := c.Call(ctx, payload(t))
	took := time.Since(start)
	grew := heapTotal() - before
	f := asFailure(t, err, luahook.FailInvalidOutput)
	if !strings.Contains(f.Message, `command "cat /dev/zero": stdout exceeded 64 KiB`) {
		t.Fatalf("message %q", f.Message)
	}
	if took > 10*time.Second {
		t.Fatalf("flooding hook stopped after %v; want it stopped at the cap, long before its deadline", took)
	}
	if grew > 8<<20 {
		t.Fatalf("allocated %d bytes while the hook flooded stdout; want < 8 MiB", grew)
	}
}

func TestCommandFloodingStderrIsDrainedWithBoundedMemory(t *testing.T) {
	c := newCommand(t, CommandSpec{Command: `sh -c 'head -c 104857600 /dev/zero >&2; echo tail >&2; exit 4'`}) // 100 MiB
	before := heapTotal()
	_, err := c.Call(context.Background(), payload(t))
	grew := heapTotal() - before
	f := asFailure(t, err, luahook.FailExit)
	if !strings.Contains(f.Message, "exited with code 4") {
		t.Fatalf("message %q", f.Message[:min(len(f.Message), 200)])
	}
	if grew > 8<<20 {
		t.Fatalf("allocated %d bytes for 100 MiB of stderr; want < 8 MiB", grew)
	}
}

func heapTotal() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// pidsFromFIFO makes a FIFO and returns its path and a channel that receives
// the process ids the hook writes into it.
func pidsFromFIFO(t *testing.T) (string, <-chan []int) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ch := make(chan []int, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // blocks until the hook opens and closes it
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		ch <- pids
	}()
	t.Cleanup(func() { // unblock the reader if the hook never wrote
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return fifo, ch
}

// waitGone waits until pid has exited (gone or a zombie awaiting its reaper).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs after the hook was stopped: %s", pid, b)
		}
		time.Sleep(10 * time.Millisecond) // polling the kernel: no channel reports another process's death
	}
}

func TestCommandTimeoutKillsTheWholeProcessGroup(t *testing.T) {
	fifo, pids := pidsFromFIFO(t)
	c := newCommand(t, CommandSpec{Command: fmt.Sprintf(`sh -c 'sleep 300 & echo $$ $! > "$1"; sleep 300' sh %q`, fifo)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Call(ctx, payload(t))
	took := time.Since(start)
	f := asFailure(t, err, luahook.FailTimeout)
	// The message names the time the call had: the context's 1000 ms, less
	// what passed before the call read the clock (a few ms on a busy
	// machine).
	_, after, _ := strings.Cut(f.Message, "timed out after ")
	ms, err := strconv.Atoi(strings.TrimSuffix(after, "ms"))
	if err != nil || !strings.HasSuffix(after, "ms") || ms > 1000 || ms < 500 || !strings.Contains(f.Message, "command \"sh -c") {
		t.Fatalf("message %q, want one naming the command and the call's time, up to 1000ms", f.Message)
	}
	if took > 3*time.Second {
		t.Fatalf("Call returned %v after start with a 1 s deadline", took)
	}
	var got []int
	select {
	case got = <-pids:
	default:
		t.Fatal("the hook never reported its process ids")
	}
	if len(got) != 2 {
		t.Fatalf("pids = %v, want the shell and its background child", got)
	}
	for _, pid := range got {
		waitGone(t, pid)
	}
}

func TestCommandCallerCancelKillsTheWholeProcessGroupAtOnce(t *testing.T) {
	fifo, pids := pidsFromFIFO(t)
	c := newCommand(t, CommandSpec{Command: fmt.Sprintf(`sh -c 'sleep 300 & echo $$ $! > "$1"; sleep 300' sh %q`, fifo)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct{ err error }
	done := make(chan result, 1)
	go func() {
		_, err := c.Call(ctx, payload(t))
		done <- result{err}
	}()
	var got []int
	select {
	case got = <-pids:
	case r := <-done:
		t.Fatalf("Call returned before the hook reported its pids: %v", r.err)
	}
	cancelled := time.Now()
	cancel()
	r := <-done
	if took := time.Since(cancelled); took > 2*time.Second {
		t.Fatalf("Call returned %v after cancel", took)
	}
	asFailure(t, r.err, luahook.FailAborted)
	if len(got) != 2 {
		t.Fatalf("pids = %v, want the shell and its background child", got)
	}
	for _, pid := range got {
		waitGone(t, pid)
	}
}

func TestCommandDoesNotWaitForABackgroundProcessHoldingStdout(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	c := newCommand(t, CommandSpec{Command: fmt.Sprintf(
		`sh -c 'sleep 300 & echo $! > "$1"; echo "{\"additionalContext\":\"done\"}"' sh %q`, pidfile)})
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidfile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	o, err := c.Call(ctx, payload(t))
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Call waited %v for the orphan holding stdout", took)
	}
	if err != nil || o == nil || o.AdditionalContext != "done" {
		t.Fatalf("Call = %+v, %v; want the answer written before the hook exited", o, err)
	}
}

func TestCommandAlreadyCancelledContextDoesNotSpawn(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	c := newCommand(t, CommandSpec{Command: fmt.Sprintf(`touch %q`, marker)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Call(ctx, payload(t))
	asFailure(t, err, luahook.FailAborted)
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	_, err = c.Call(expired, payload(t))
	asFailure(t, err, luahook.FailTimeout)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the hook ran although its context was already done")
	}
}

func TestCommandChildSeesASanitisedEnvironment(t *testing.T) {
	parent := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=/home/op",
		"GITHUB_TOKEN=ghp_secret",
		"DATABASE_URL=postgres://u:p@h/db",
		"AWS_SECRET_ACCESS_KEY=aws-secret",
		"OPENAI_API_KEY=sk-secret",
		"NODE_OPTIONS=--require /tmp/evil.js",
		"LUAHOOK_SESSION_ID=stale",
		"LUAHOOK_MODE=strict",
		"PASSED_TOKEN=explicit",
		"RANDOM_THING=x",
	}
	out := filepath.Join(t.TempDir(), "env")
	c := newCommand(t, CommandSpec{
		Command: fmt.Sprintf(`sh -c 'env > "$1"' sh %q`, out),
		PassEnv: []string{"PASSED_TOKEN"},
		Environ: func() []string { return parent },
	})
	in := payload(t)
	if _, err := c.Call(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := envMap(strings.Split(strings.TrimSpace(string(b)), "\n"))
	for _, name := range []string{"GITHUB_TOKEN", "DATABASE_URL", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "NODE_OPTIONS", "RANDOM_THING"} {
		if v, ok := got[name]; ok {
			t.Errorf("child sees %s=%q", name, v)
		}
	}
	for _, secret := range []string{"ghp_secret", "u:p@h", "aws-secret", "sk-secret", "evil.js"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("child environment contains %q", secret)
		}
	}
	want := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": "/home/op", "LUAHOOK_MODE": "strict", "PASSED_TOKEN": "explicit",
		"LUAHOOK_EVENT": "PreToolUse", "LUAHOOK_TOOL_NAME": "bash", "LUAHOOK_SESSION_ID": "s-1",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("child sees %s=%q, want %q", k, got[k], v)
		}
	}
}

func TestCommandIsBoundByContext(t *testing.T) {
	var h luahook.Hook = newCommand(t, CommandSpec{Command: "true-ish", Allow: []string{"true-ish"}})
	if b, ok := h.(luahook.ContextBound); !ok || !b.BoundByContext() {
		t.Fatal("a command hook must report BoundByContext() == true")
	}
}

func BenchmarkCommandHook(b *testing.B) {
	c := newCommand(b, CommandSpec{Command: "sh -c 'cat >/dev/null'"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, benchPayload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBareExec(b *testing.B) {
	exec := bareExec(b)
	b.ReportAllocs()
	for b.Loop() {
		exec()
	}
}

// bareExec runs the benchmark's command with the payload on its standard
// input, as a host would without luahook.
func bareExec(b *testing.B) func() {
	data, _ := json.Marshal(benchPayload)
	data = append(data, '\n')
	return func() {
		cmd := exec.Command("sh", "-c", "cat >/dev/null")
		cmd.Dir = benchPayload.Cwd
		cmd.Stdin = bytes.NewReader(data)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommandHookInterleaved is the command hook beside a bare exec,
// in turns of 4 calls (about 30 ms each): "hook/bare".
func BenchmarkCommandHookInterleaved(b *testing.B) {
	c := newCommand(b, CommandSpec{Command: "sh -c 'cat >/dev/null'"})
	ctx := context.Background()
	interleave(b, "hook/bare", 4, func() {
		if _, err := c.Call(ctx, benchPayload); err != nil {
			b.Fatal(err)
		}
	}, bareExec(b))
}

func TestCommandLogsEachRunAtDebugLevel(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ok := newCommand(t, CommandSpec{Command: "sh -c 'exit 0'", Logger: logger})
	bad := newCommand(t, CommandSpec{Command: "sh -c 'exit 7'", Logger: logger})
	ok.Call(context.Background(), payload(t))
	bad.Call(context.Background(), payload(t))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], `"failure"`) || !strings.Contains(lines[1], `"failure":"exit: command`) {
		t.Fatalf("log lines:\n%s", buf.String())
	}
}
