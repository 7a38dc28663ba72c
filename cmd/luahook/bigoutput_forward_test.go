package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The doors that forward a payload to serve (fire --socket, fire --http,
// luahook-fire) read it cut, as fire does, and tell serve how much they
// withheld: serve decides it as cut, so the answer carries the cut output,
// never a rewrite that would let the agent keep the tool's whole one. When
// serve cannot be reached, luahook-fire hands the cut payload to luahook
// fire, which cannot reach it either: the model still reads the output
// cut, although no hook decided on it.
func TestBigOutputThroughTheForwardingDoorsStaysCut(t *testing.T) {
	dir, cfg := bigOutputDir(t), bigOutputConfig(t)
	socket := filepath.Join(t.TempDir(), "luahook.sock")
	s := startServe(t, []string{"--dir", dir, "--config", cfg}, "--socket", socket)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, name := range []string{"luahook", "luahook-fire"} {
		if err := os.Symlink(exe, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	run := func(t *testing.T, name string, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Env = append(os.Environ(), "GORACE="+quickRaceExit(), "XDG_CONFIG_HOME="+t.TempDir())
		var out, errb bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = claudeBigOutput(t.TempDir(), bigOutputSize), &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %q: %v; stderr %q", name, args, err, errb.String())
		}
		return out.String(), errb.String()
	}
	for _, c := range []struct {
		name, prog string
		args       []string
		hooksRan   bool
	}{
		{"fire --socket", "luahook", []string{"fire", "--agent", "claude", "--socket", socket}, true},
		{"fire --http", "luahook", []string{"fire", "--agent", "claude", "--http", s.base}, true},
		{"luahook-fire", "luahook-fire", []string{"--socket", socket, "--agent", "claude"}, true},
		{"luahook-fire, no server", "luahook-fire", []string{"--socket", filepath.Join(t.TempDir(), "none.sock"), "--agent", "claude"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _ := run(t, c.prog, c.args...)
			checkCutAnswer(t, out)
			if c.hooksRan {
				checkSeen(t, out, false)
			} else if seenRE.MatchString(out) {
				t.Errorf("a hook ran although no server could be asked: %.300q", out)
			}
		})
	}
}
