package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// luahookOnPath returns a folder holding "luahook", a link to this test
// binary (which runs the CLI under that name, see TestMain), for commands
// such as timeout(1) that exec it themselves.
func luahookOnPath(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "luahook")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "luahook")
}

func TestFireUnderTimeoutSIGTERMOnABlockedInputEndsWithinTheGrace(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Fatalf("timeout(1) is needed: %v", err)
	}
	cmd := exec.Command("timeout", "-s", "TERM", "1", luahookOnPath(t), "--dir", t.TempDir(), "fire", "PreToolUse")
	cmd.Env = append(os.Environ(), "GORACE="+quickRaceExit())
	stdin, err := cmd.StdinPipe() // never written, never closed: a host that hangs
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		took := time.Since(start)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Errorf("exit %v, want a failure", err)
		}
		if took > time.Second+defaultStopGrace {
			t.Errorf("fire ended %v after start, later than timeout's 1s plus the %v grace", took, defaultStopGrace)
		}
	case <-time.After(time.Second + defaultStopGrace + 10*time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("fire was still running long after SIGTERM; stderr %q", stderr.String())
	}
}

func TestFireAnswersAHostThatKeepsStandardInputOpen(t *testing.T) {
	cmd := luahookExe(t, "--dir", t.TempDir(), "fire")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write([]byte(`{"event":"Stop","prompt":"a } in a \"string\" ]"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || out.String() != "{}\n" {
			t.Errorf("exit %v, stdout %q; want 0 and {}", err, out.String())
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("fire waited for standard input to close after a complete payload")
	}
}

func TestFireGivesUpOnAPayloadThatNeverCompletes(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.Write([]byte(`{"event":"Stop",`))
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"--dir", t.TempDir(), "fire", "--read-timeout", "200ms"}, r, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "no complete payload within --read-timeout 200ms") {
		t.Errorf("exit %d, stderr %q; want 1 and the read timeout named", code, errb.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("fire took %v to give up on a 200ms read timeout", took)
	}
}

func TestFireRefusesAnInputFileThatIsNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "payload")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"--dir", t.TempDir(), "fire", "Stop", "--input", "@" + fifo}, nil, &out, &errb)
	}()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(errb.String(), "not a regular file") {
			t.Errorf("exit %d, stderr %q; want 1 and 'not a regular file'", code, errb.String())
		}
	case <-time.After(5 * time.Second):
		f, _ := os.OpenFile(fifo, os.O_WRONLY, 0) // unblocks the open
		f.Close()
		<-done
		t.Fatal("fire blocked opening a FIFO given as --input @file")
	}
}

func TestTheSecondSignalOrTheGraceEndsTheProcess(t *testing.T) {
	for _, tc := range []struct {
		name    string
		signals []os.Signal
		code    int
		within  time.Duration
	}{
		{"grace after one SIGTERM", []os.Signal{syscall.SIGTERM}, 143, 2 * time.Second},
		{"second signal", []os.Signal{syscall.SIGTERM, syscall.SIGINT}, 130, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sigs := make(chan os.Signal, 2)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var errb bytes.Buffer
			st := &streams{err: &errb}
			st.stopGrace.Store(int64(300 * time.Millisecond))
			if tc.name == "second signal" {
				st.stopGrace.Store(int64(time.Hour))
			}
			exited := make(chan int, 1)
			go endOnSignals(sigs, cancel, st, func(code int) { exited <- code })
			for _, s := range tc.signals {
				sigs <- s
			}
			select {
			case code := <-exited:
				if code != tc.code {
					t.Errorf("exit %d, want %d", code, tc.code)
				}
				if ctx.Err() == nil {
					t.Error("the first signal did not cancel the command's context")
				}
			case <-time.After(tc.within):
				t.Fatalf("the process was not ended within %v; stderr %q", tc.within, errb.String())
			}
		})
	}
}
