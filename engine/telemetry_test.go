package engine

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// [telemetry] is read once, when luahook starts: a reload that changes it
// says so, and one that does not stays quiet about it.
func TestAReloadThatChangesTelemetrySaysItNeedsARestart(t *testing.T) {
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[telemetry]\nenabled = false\n")
	var logs syncBuffer
	e := openEngine(t, Options{ConfigPath: cfgPath, Dir: filepath.Join(root, "hooks.d"), NoWatch: true,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const warning = "[telemetry] changed; it takes effect when luahook is restarted"
	writeFile(t, cfgPath, "[telemetry]\nenabled = false\n\n[runner]\nmax_input_bytes = 4096\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), warning) {
		t.Fatalf("a reload that left [telemetry] alone warned:\n%s", logs.String())
	}
	writeFile(t, cfgPath, "[telemetry]\nenabled = true\n\n[runner]\nmax_input_bytes = 4096\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), warning) {
		t.Errorf("a reload that changed [telemetry] did not say it needs a restart:\n%s", logs.String())
	}
	if en := e.Config().Telemetry.Enabled; en == nil || !*en {
		t.Error("the reloaded config is not in force")
	}
}
