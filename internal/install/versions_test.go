package install

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/agent"
)

func TestParseVersionReadsWhatAgentsPrint(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Version
		ok   bool
	}{
		{"2.1.295 (Claude Code)\n", Version{2, 1, 295}, true},
		{"codex-cli 0.124.0\n", Version{0, 124, 0}, true},
		{"v10.20.30", Version{10, 20, 30}, true},
		{"1.2.3.4", Version{}, false},
		{"2.1", Version{}, false},
		{"build 12345678.1.1", Version{}, false},
		{"", Version{}, false},
	} {
		got, ok := ParseVersion(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if !(Version{2, 1, 63}).Less(Version{2, 1, 295}) || (Version{2, 2, 0}).Less(Version{2, 1, 295}) || (Version{2, 1, 295}).Less(Version{2, 1, 295}) {
		t.Error("Less does not order releases by major, minor, patch")
	}
}

// The entries install writes state the release they need: Claude Code's
// onFailure always, its HTTP hooks with --http (not over the socket, where
// luahook-fire is a command hook), Codex's hooks.json; none is known for
// the other agents.
func TestRequirementsFollowTheEntriesWritten(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want []Requirement
	}{
		{Options{Agent: agent.Claude}, []Requirement{claudeOnFailure}},
		{Options{Agent: agent.Claude, HTTP: "https://x"}, []Requirement{claudeOnFailure, claudeHTTP}},
		{Options{Agent: agent.Claude, Socket: "/s"}, []Requirement{claudeOnFailure}},
		{Options{Agent: agent.Codex, HTTP: "https://x"}, []Requirement{codexHooks}},
		{Options{Agent: agent.Copilot}, nil},
		{Options{Agent: agent.Cursor}, nil},
		{Options{Agent: agent.Gemini}, nil},
	} {
		got := c.o.Requirements()
		if len(got) != len(c.want) {
			t.Errorf("%+v: %v; want %v", c.o, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%+v: %v; want %v", c.o, got, c.want)
			}
		}
	}
	if m := Minimum([]Requirement{claudeHTTP, claudeOnFailure}); m != (Version{2, 1, 295}) {
		t.Errorf("Minimum = %v, want the newest, 2.1.295", m)
	}
	// Every setting install writes for Claude Code that needs a release
	// is in the entries: onFailure, and the HTTP hook's fields.
	o := &Options{Agent: agent.Claude, ProjectDir: "/p", Command: "luahook", HTTP: "https://x"}
	h := compact(targets[agent.Claude].handler(o, "PreToolUse"))
	for _, key := range []string{`"onFailure"`, `"type": "http"`, `"headers"`, `"allowedEnvVars"`} {
		if !strings.Contains(h, key) {
			t.Errorf("the entry %s has no %s, which Requirements states", h, key)
		}
	}
}

// fakeAgent puts a program name on PATH (alone there) that runs the shell
// script body.
func fakeAgent(t *testing.T, name, body string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
}

// InstalledVersion asks the agent on PATH, and never waits past its
// context: an agent that does not answer is killed, one that is absent or
// prints no version is reported, not guessed.
func TestInstalledVersionAsksTheAgentWithinItsContext(t *testing.T) {
	sleep, err := exec.LookPath("sleep") // before PATH holds the fake alone
	if err != nil {
		t.Fatal(err)
	}
	fakeAgent(t, "claude", "echo '2.1.301 (Claude Code)'\n")
	prog, v, err := InstalledVersion(context.Background(), agent.Claude)
	if err != nil || v != (Version{2, 1, 301}) || filepath.Base(prog) != "claude" {
		t.Errorf("InstalledVersion = %q, %v, %v; want claude 2.1.301", prog, v, err)
	}

	fakeAgent(t, "claude", "echo 'Claude Code, latest'\n")
	if _, _, err := InstalledVersion(context.Background(), agent.Claude); err == nil || !strings.Contains(err.Error(), "printed no version number") {
		t.Errorf("no version printed: %v", err)
	}

	t.Setenv("PATH", t.TempDir())
	if _, _, err := InstalledVersion(context.Background(), agent.Claude); !errors.Is(err, ErrNoAgentProgram) {
		t.Errorf("no claude on PATH: %v; want ErrNoAgentProgram", err)
	}
	if _, _, err := InstalledVersion(context.Background(), agent.Cursor); !errors.Is(err, ErrNoAgentProgram) {
		t.Errorf("cursor, which reports no release known: %v; want ErrNoAgentProgram", err)
	}

	fakeAgent(t, "claude", "exec "+sleep+" 60\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = InstalledVersion(ctx, agent.Claude)
	if err == nil || !strings.Contains(err.Error(), "gave no answer in time") {
		t.Errorf("a claude that hangs: %v; want no answer in time", err)
	}
	// The program sleeps for a minute: returning well before says it was
	// killed (the margin is for busy machines).
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("InstalledVersion waited %v for a program that hangs", took)
	}
}
