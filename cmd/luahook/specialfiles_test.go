//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/fifotest"
)

// TestANamedPipeAsAnInputFileFailsAtOnce: `luahook check --config FIFO`
// and `luahook test FIFO_test.lua`, run in-process and as a real
// subprocess, exit 1 within seconds with an error naming the pipe; the
// command never waits on it (item 1 of the second security review).
func TestANamedPipeAsAnInputFileFailsAtOnce(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.d")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	config := fifotest.Make(t, filepath.Join(dir, "luahook.toml"))
	test := fifotest.Make(t, filepath.Join(hooks, "guard_test.lua"))
	fifos := []string{config, test}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--config", config, "--dir", hooks}, config + ": not a regular file: it is a named pipe (FIFO)"},
		{[]string{"test", "--dir", hooks, test}, test + ": not a regular file: it is a named pipe (FIFO)"},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			var out, errs bytes.Buffer
			code := -1
			fifotest.Within(t, time.Second, fifos, func() {
				code = run(context.Background(), tt.args, strings.NewReader(""), &out, &errs)
			})
			if code != 1 || !strings.Contains(out.String()+errs.String(), tt.want) {
				t.Errorf("run %q: exit %d\nstdout %s\nstderr %s\nwant exit 1 and %q", tt.args, code, out.String(), errs.String(), tt.want)
			}

			cmd := luahookExe(t, tt.args...)
			cmd.Dir = t.TempDir() // no ./luahook.toml
			var combined bytes.Buffer
			cmd.Stdout, cmd.Stderr = &combined, &combined
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Errorf("luahook %q still running after 5s", tt.args)
				cmd.Process.Kill()
				<-exited
			}
			if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(combined.String(), tt.want) {
				t.Errorf("luahook %q: exit %d, output %s\nwant exit 1 and %q", tt.args, cmd.ProcessState.ExitCode(), combined.String(), tt.want)
			}
		})
	}
}
