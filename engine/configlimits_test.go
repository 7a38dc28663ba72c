package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigPastItsLimitsOnReloadKeepsTheLastGoodConfig: a configuration
// file too deep or too large is refused quickly on a hot reload, with an
// error naming the file (and the line), and the configuration in force
// stays in force.
func TestConfigPastItsLimitsOnReloadKeepsTheLastGoodConfig(t *testing.T) {
	const cmdHook = "[[hooks.PreToolUse]]\nname = \"cfg\"\nmatcher = \"bash\"\ncommand = \"sh -c 'echo %s >&2; exit 2'\"\n"
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, fmt.Sprintf(cmdHook, "good"))
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: filepath.Join(root, "hooks.d"), NoWatch: true})
	good := e.Config()
	if got := verdict(e); got != "good" {
		t.Fatalf("verdict %q", got)
	}

	// Each is a valid configuration, with a new hook, that only the limits
	// refuse.
	deep := "[tools.t]\nschema = " + strings.Repeat("{not = ", 1000) + "{}" + strings.Repeat("}", 1000) + "\n"
	tests := []struct{ name, src, want string }{
		{"nested inline tables", fmt.Sprintf(cmdHook, "deep") + deep,
			cfgPath + ":6: tools.t.schema.not…: nested more than 64 levels deep"},
		{"over a MiB", fmt.Sprintf(cmdHook, "big") + "#" + strings.Repeat("x", 1<<20) + "\n",
			cfgPath + ": file is larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeFile(t, cfgPath, tt.src)
			start := time.Now()
			err := e.Reload(context.Background())
			if took := time.Since(start); took > time.Second {
				t.Errorf("Reload took %v", took)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Reload: %v\nwant an error with %s", err, tt.want)
			}
			if e.Config() != good {
				t.Error("the configuration in force changed")
			}
			if got := verdict(e); got != "good" {
				t.Errorf("verdict %q, want the last good config's hook", got)
			}
		})
	}
	writeFile(t, cfgPath, fmt.Sprintf(cmdHook, "fixed"))
	if err := e.Reload(context.Background()); err != nil {
		t.Fatalf("Reload of a fixed config: %v", err)
	}
	if got := verdict(e); got != "fixed" {
		t.Errorf("verdict %q after the fix", got)
	}
}
