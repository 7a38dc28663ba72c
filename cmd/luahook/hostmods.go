package main

import (
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/host/git"
)

// hostModules are the host modules every engine the command opens gives
// its hook files (fire, explain, replay, list, check, test, repl, serve,
// demo): the built-in ones, which need no Go code from the operator. A
// host that embeds luahook passes its own in engine.Options.Host.
func hostModules() []host.Module {
	return []host.Module{git.Module()}
}
