package main

import (
	"os"
	"path/filepath"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/install"
	"github.com/luahook/luahook/internal/trust"
)

// protected are the paths the engine's self-protection guards besides the
// hooks folder and the config it opens (engine.Options.Protect): the trust
// records, every agent settings file luahook install writes (the project
// files relative, so guarded in whatever folder the agent works; the
// user's under $HOME), and Claude Code's project-local settings, which
// can turn its hooks off.
func protected() []engine.Protected {
	var out []engine.Protected
	if dir, err := trust.DefaultDir(); err == nil {
		out = append(out, engine.Protected{Path: dir, What: "luahook's trust records"})
	}
	home, _ := os.UserHomeDir()
	for _, f := range install.SettingsFiles(home, os.LookupEnv) {
		out = append(out, engine.Protected{Path: f.Path, What: "the " + string(f.Agent) + " settings luahook's hooks are installed in"})
	}
	return append(out, engine.Protected{Path: filepath.Join(".claude", "settings.local.json"),
		What: "Claude Code's local settings (they can turn its hooks off)"})
}
