package config

import (
	"testing"

	"github.com/luahook/luahook/internal/depstest"
)

// Reading luahook.toml links neither the Lua VM nor what runs hooks or
// writes the decision log: the defaults and checks config shares with them
// live below them (internal/defaults, internal/store, internal/logconf).
func TestConfigDoesNotLinkTheHookMachinery(t *testing.T) {
	depstest.Forbid(t, ".",
		"github.com/yuin/gopher-lua",
		"layeh.com/gopher-luar",
		"github.com/luahook/luahook/luabind",
		"github.com/luahook/luahook/runner",
		"github.com/luahook/luahook/internal/decisionlog",
	)
}
