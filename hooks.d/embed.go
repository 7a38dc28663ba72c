// Package hooksd embeds the policies that ship with luahook, so that
// `luahook demo` runs from anywhere, with or without a checkout.
package hooksd

import "embed"

// FS holds the shipped hook files, their tests and the lib modules they
// require (lib/*.lua, lib/shell/*.lua and lib/pwsh/*.lua), which the packs of the policy
// library (package packs) require too.
//
//go:embed *.lua lib/*.lua lib/shell/*.lua lib/pwsh/*.lua lib/redact/*.lua
var FS embed.FS
