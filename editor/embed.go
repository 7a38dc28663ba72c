// Package editor embeds the lua-language-server annotations of luahook's
// Lua API (luahook.lua, host-git.lua), which `luahook init` writes next to a
// new policy folder so that an editor completes, documents and checks its
// hook files.
package editor

import "embed"

// FS holds the annotation files.
//
//go:embed *.lua
var FS embed.FS
