// Package hooksd embeds the policies that ship with luahook, so that
// `luahook demo` runs from anywhere, with or without a checkout.
package hooksd

import "embed"

// FS holds the shipped hook files, their tests and the lib modules they
// require (lib/shell.lua and lib/shell/*.lua).
//
//go:embed *.lua lib/*.lua lib/shell/*.lua
var FS embed.FS
