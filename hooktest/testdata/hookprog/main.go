// Command hookprog is a command hook that behaves as its argument says: it is
// how the hooktest suite drives the command transport. It reads the payload
// from stdin and acts on argv[1], a behaviour name (hooktest.Behaviour.String):
//
//	hookprog deny < payload.json
//
// hang sleeps until it is killed; crash writes to stderr and exits 1; every
// other behaviour prints hooktest.Answer and exits 0.
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/luahook/luahook/hooktest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hookprog BEHAVIOUR < payload.json")
		os.Exit(64)
	}
	b, err := hooktest.ParseBehaviour(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(64)
	}
	switch b {
	case hooktest.Hang:
		// Not select{}: the runtime would call a goroutine-less block a deadlock and exit.
		for {
			time.Sleep(time.Hour)
		}
	case hooktest.Crash:
		fmt.Fprintln(os.Stderr, "hooktest: crash")
		os.Exit(1)
	}
	payload, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reading the payload:", err)
		os.Exit(1)
	}
	out, err := hooktest.Answer(b, payload)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		os.Exit(1)
	}
}
