//go:build linux

package transports

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readPID waits until the hook wrote a pid into path and returns it.
func readPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // when the test fails
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook never wrote its pid to %s", path)
		}
		time.Sleep(10 * time.Millisecond) // polling a file another process writes
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// startUnrelated starts a process of the same user, in a session of its own
// like an escaped one, but without the call's marker.
func startUnrelated(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// A grandchild script writes its pid into $1 and sleeps: escapes are built
// around it.
const sleeper = `sh -c "echo \$\$ > \"\$1\"; exec sleep 300" sh "$1"`

// waitPID makes the hook wait until the grandchild wrote its pid.
const waitPID = `until [ -s "$1" ]; do sleep 0.01; done; `

func TestCommandDescendantsDoNotOutliveTheCall(t *testing.T) {
	tests := []struct {
		name, script string
		timeout      time.Duration
	}{
		{"a setsid grandchild at the timeout", `setsid ` + sleeper + ` & sleep 300`, time.Second},
		{"a background job of a hook that exits 0", sleeper + ` & ` + waitPID + `exit 0`, 10 * time.Second},
		{"a double-forked daemon of a hook that exits 0", `(setsid ` + sleeper + ` </dev/null >/dev/null 2>&1 &); ` + waitPID + `exit 0`, 10 * time.Second},
		{"a setsid grandchild of a hook that denies", `setsid ` + sleeper + ` & ` + waitPID + `echo no >&2; exit 2`, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unrelated := startUnrelated(t)
			pidfile := filepath.Join(t.TempDir(), "pid")
			c := newCommand(t, CommandSpec{Command: fmt.Sprintf(`sh -c '%s' sh %s`, tt.script, pidfile)})
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			start := time.Now()
			c.Call(ctx, payload(t))
			if took := time.Since(start); took > tt.timeout+3*time.Second {
				t.Fatalf("Call took %v", took)
			}
			pid := readPID(t, pidfile)
			waitGone(t, pid)
			if !alive(unrelated) {
				t.Errorf("the unrelated process %d of the same user was killed", unrelated)
			}
		})
	}
}

// When the pid counter may have gone round since a call started, the sweep
// looks at every process; it still kills only those that carry the call's
// marker, and reaps them when they are its own children.
func TestSweepWhenThePidCounterMayHaveWrappedKillsOnlyMarkedProcesses(t *testing.T) {
	unrelated := startUnrelated(t)
	marked := exec.Command("sleep", "300")
	marked.Env = []string{"PATH=/usr/bin:/bin", callVar + "=wrapped-call"}
	marked.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := marked.Start(); err != nil {
		t.Fatal(err)
	}
	pid := marked.Process.Pid
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	jobs := []*leftovers{watchCall().ended(os.Getpid(), "wrapped-call")}
	jobs[0].full = true
	buf := make([]byte, 64) // smaller than most environments: the needle is found across reads
	for round := 0; len(jobs) > 0; round++ {
		if round == maxSweepRounds {
			t.Fatalf("still sweeping after %d rounds", round)
		}
		jobs = sweep(jobs, buf)
	}
	if alive(pid) {
		t.Errorf("the marked process %d survived the sweep", pid)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Errorf("the marked process %d, a child of the sweeper's process, was not reaped", pid)
	}
	if !alive(unrelated) {
		t.Errorf("the unrelated process %d was killed", unrelated)
	}
}
