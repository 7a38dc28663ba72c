package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/luahook/luahook/internal/shim"
)

// TestMain lets the test binary be the luahook command: testscript puts a
// copy named "luahook" on PATH, and a process started under that name runs
// main, the real CLI (signals, exit codes and all). Scripts, serve tests and
// command hooks that call "luahook" all run it that way; "luahook-fire",
// next to it, runs cmd/luahook-fire's main.
//
// The tests' luahook fire keeps its store under $XDG_STATE_HOME: a folder of
// this run's own, never the user's.
func TestMain(m *testing.M) {
	testscript.Main(ownStateHome{m}, map[string]func(){"luahook": main, "luahook-then-lazy": mainThenLazy,
		"luahook-fire": func() { os.Exit(shim.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }})
}

// ownStateHome runs the tests with $XDG_STATE_HOME set to a new folder,
// removed after them.
type ownStateHome struct{ m *testing.M }

func (o ownStateHome) Run() int {
	dir, err := os.MkdirTemp("", "luahook-test-state-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_STATE_HOME", dir)
	return o.m.Run()
}

// TestScripts runs testdata/script/*.txtar. Each script works in its own
// folder; $SHIPPED is the absolute path of the repository's hooks.d,
// $AGENTDATA that of agent/testdata (each agent's native payloads), and
// $XDG_CONFIG_HOME (where trust records and the user's own hooks live) is
// $WORK/.config, $XDG_CACHE_HOME (the compiled-chunk cache) $WORK/.cache.
//
// Beyond testscript's own commands, "exits CODE prog args..." runs prog and
// requires its exact exit status.
func TestScripts(t *testing.T) {
	shipped, err := filepath.Abs(filepath.Join("..", "..", "hooks.d"))
	if err != nil {
		t.Fatal(err)
	}
	agentData, err := filepath.Abs(filepath.Join("..", "..", "agent", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: false,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("SHIPPED", shipped)
			env.Setenv("AGENTDATA", agentData)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("GORACE", quickRaceExit())
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
	})
}

// cmdExits implements "exits CODE prog args...".
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// quickRaceExit returns $GORACE with atexit_sleep_ms=0: a program built with
// -race otherwise sleeps a second before it exits, and the scripts start
// the luahook command (this test binary) a hundred times.
func quickRaceExit() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// luahookExe returns the command that runs the luahook CLI in a
// subprocess: this test binary under the name "luahook" (see TestMain).
func luahookExe(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = "luahook"
	cmd.Env = append(os.Environ(), "GORACE="+quickRaceExit(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	return cmd
}
