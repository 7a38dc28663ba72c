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

// A process whose environment reads empty is looked at again: between the
// two halves of an exec the kernel shows no environment at all, marker or
// not, so a daemon caught there would pass for one without the marker. A
// zombie or a kernel thread, which never has one, is not waited for.
func TestSweepLooksAgainAtAProcessWhoseEnvironmentReadsEmpty(t *testing.T) {
	cmd := exec.Command("env", "-i", "sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	dir := fmt.Sprintf("/proc/%d", pid)
	buf := make([]byte, 4096)
	deadline := time.Now().Add(5 * time.Second)
	for { // until env has exec'd sleep with its empty environment
		if b, _ := os.ReadFile(dir + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("env never exec'd sleep")
		}
		time.Sleep(time.Millisecond)
	}
	if has, empty := environFind(dir, []byte("\x00"+callVar+"=x\x00"), buf); has || !empty {
		t.Fatalf("environFind of a process with no environment: has %v, empty %v; want false, true", has, empty)
	}
	if !execing(dir, buf) {
		t.Error("a live process whose environment reads empty is not looked at again")
	}
	jobs := []*leftovers{watchCall().ended(os.Getpid(), "no-such-call")}
	jobs[0].full = true
	again := sweep(jobs, buf)
	if len(again) != 1 || !again[0].unsure || again[0].marked {
		t.Errorf("sweep kept %d jobs (unsure %v): want the job, unsure, for another look", len(again), len(again) == 1 && again[0].unsure)
	}
	if !alive(pid) {
		t.Error("a process without the call's marker was killed")
	}

	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	zdir := fmt.Sprintf("/proc/%d", zombie.Process.Pid)
	for !strings.Contains(string(readSmall(zdir+"/stat", buf)), ") Z") {
		if time.Now().After(deadline) {
			t.Fatal("the child never became a zombie")
		}
		time.Sleep(time.Millisecond)
	}
	if execing(zdir, buf) {
		t.Error("a zombie is waited for")
	}
	zombie.Wait()
	if b, _ := os.ReadFile("/proc/2/comm"); strings.TrimSpace(string(b)) == "kthreadd" && execing("/proc/2", buf) {
		t.Error("a kernel thread is waited for")
	}
}

// Daemons that exec through a chain of shells right as their hook exits are
// still found and killed: a sweep that reads one of them between the two
// halves of an exec looks again.
func TestDaemonsExecingAsTheirHookExitsDoNotOutliveTheCall(t *testing.T) {
	dir := t.TempDir()
	chain := filepath.Join(dir, "chain.sh")
	script := "echo $$ > \"$1\"\nexec sh -c 'exec sh -c \"exec sh -c \\\"exec sleep 300\\\"\"'\n"
	if err := os.WriteFile(chain, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		pidfile := filepath.Join(dir, fmt.Sprintf("pid%d", i))
		c := newCommand(t, CommandSpec{Command: fmt.Sprintf(`sh -c '(setsid sh "$1" "$2" </dev/null >/dev/null 2>&1 &); until [ -s "$2" ]; do sleep 0.01; done; exit 0' sh %s %s`, chain, pidfile)})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c.Call(ctx, payload(t))
		cancel()
		pid := readPID(t, pidfile)
		c.Close()
		waitGone(t, pid)
	}
}
