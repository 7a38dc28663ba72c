// Command luahook-fire is the one-shot command hook that asks a resident
// `luahook serve --socket PATH` instead of loading the hooks itself:
//
//	luahook-fire --socket PATH --agent NAME [--timeout 5s] [EVENT]
//
// answers as `luahook fire --agent NAME --socket PATH [EVENT]` does, in
// the time it takes to start a small program. Whatever it cannot do
// itself (the server is down, too slow, not the operator's own, or answers
// anything malformed) it hands to the luahook installed next to it (else
// the one on PATH), which blocks what it cannot decide. See internal/shim.
package main

import (
	"os"

	"github.com/luahook/luahook/internal/shim"
)

func main() {
	os.Exit(shim.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
