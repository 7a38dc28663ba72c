package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// The log level a command runs at without --log-level is the one --help
// states: both come from defaultLevels, which names every command that
// logs.
func TestLogLevelDefaultsAreTheOnesHelpStates(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, io.Discard); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	help := strings.Join(strings.Fields(out.String()), " ")
	if want := "(default: info for serve, repl; warn for check, list; error for fire, explain, demo, test, replay)"; !strings.Contains(help, want) {
		t.Errorf("--help does not state %q:\n%s", want, out.String())
	}
	root := newRootCmd(&streams{})
	listed := map[string]bool{}
	for _, d := range defaultLevels {
		for _, name := range d.cmds {
			listed[name] = true
			if c, _, err := root.Find([]string{name}); err != nil || c.Name() != name {
				t.Errorf("defaultLevels names %q, which is no command", name)
			}
			g := &globalOptions{}
			l, err := g.loggerFor(name, io.Discard, false)
			if err != nil || !l.Enabled(context.Background(), d.level) || l.Enabled(context.Background(), d.level-1) {
				t.Errorf("%s logs at another level than %v", name, d.level)
			}
		}
	}
	for _, c := range root.Commands() {
		if name := c.Name(); !listed[name] && name != "trust" && name != "untrust" && name != "install" && name != "doctor" && name != "add" && name != "init" && name != "verify" && name != "help" && name != "completion" {
			t.Errorf("command %q has no default log level in defaultLevels", name)
		}
	}
}
