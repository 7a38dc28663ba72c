package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/jsonschema"
)

// mainThenLazy runs the CLI like main, then prints on standard error
// whether the JSON Schema metaschemas were compiled in the process.
func mainThenLazy() {
	st := &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}
	code := runStreams(context.Background(), os.Args[1:], st)
	fmt.Fprintf(os.Stderr, "metaschemas compiled: %v\n", jsonschema.MetaschemasCompiled())
	os.Exit(code)
}

// TestFireWithoutSchemasNeverCompilesTheMetaschemas runs one-shot fires in
// fresh processes: with no tool schema configured (the shipped policies, an
// empty folder) the JSON Schema library's metaschemas are never compiled,
// a cost of about 10 ms per process; with a [tools] schema they are.
func TestFireWithoutSchemasNeverCompilesTheMetaschemas(t *testing.T) {
	shipped, err := filepath.Abs(filepath.Join("..", "..", "hooks.d"))
	if err != nil {
		t.Fatal(err)
	}
	withSchema := t.TempDir()
	cfg := filepath.Join(withSchema, "luahook.toml")
	if err := os.WriteFile(cfg, []byte(`[tools.Bash]
schema = '{"type":"object","required":["command"]}'
`), 0o600); err != nil {
		t.Fatal(err)
	}
	payload := `{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"ls -la src"}}`
	for _, tc := range []struct {
		name     string
		args     []string
		compiled bool
	}{
		{"shipped hooks.d", []string{"--dir", shipped, "fire", "PreToolUse"}, false},
		{"empty folder", []string{"--dir", t.TempDir(), "fire", "PreToolUse"}, false},
		{"a tool schema", []string{"--dir", t.TempDir(), "--config", cfg, "fire", "PreToolUse"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := luahookExe(t, tc.args...)
			cmd.Args[0] = "luahook-then-lazy"
			cmd.Stdin = strings.NewReader(payload)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("fire: %v\n%s", err, stderr.String())
			}
			if got := strings.TrimSpace(stdout.String()); got != `{}` {
				t.Errorf("fire printed %s, want {} (no objection)", got)
			}
			want := fmt.Sprintf("metaschemas compiled: %v", tc.compiled)
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("standard error %q, want %q", stderr.String(), want)
			}
		})
	}
}

// TestStartUpSkipsTheSchemaAndSecretTables reads the Go runtime's trace of
// package initialisers (GODEBUG=inittrace=1) in a real fire: the packages
// whose tables are built on first use (the JSON Schema metaschemas, the
// decision log's secret patterns) allocate next to nothing at start.
func TestStartUpSkipsTheSchemaAndSecretTables(t *testing.T) {
	const maxBytes = 16 << 10
	cmd := luahookExe(t, "--dir", t.TempDir(), "fire", "PreToolUse")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	cmd.Stdin = strings.NewReader(`{"toolName":"Bash","toolInput":{"command":"ls"}}`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fire: %v\n%s", err, stderr.String())
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @.* ([0-9]+) bytes, [0-9]+ allocs$`)
	seen := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(stderr.String(), -1) {
		pkg := m[1]
		if pkg != "github.com/luahook/luahook/internal/jsonschema" && pkg != "github.com/luahook/luahook/internal/decisionlog" {
			continue
		}
		seen[pkg] = true
		if n, _ := strconv.Atoi(m[2]); n > maxBytes {
			t.Errorf("init of %s allocated %d bytes, over %d: a table built at start again", pkg, n, maxBytes)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("inittrace names %v of the two packages; the trace's format may have changed:\n%s", seen, stderr.String())
	}
}
