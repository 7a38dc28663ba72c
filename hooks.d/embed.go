// Package hooksd embeds the policies that ship with luahook, so that
// `luahook demo` runs from anywhere, with or without a checkout.
package hooksd

import "embed"

// FS holds the shipped hook files and their tests.
//
//go:embed *.lua
var FS embed.FS
