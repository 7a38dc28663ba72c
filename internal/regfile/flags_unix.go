//go:build unix

package regfile

import "syscall"

// OpenFlags make an open return at once on a named pipe with no writer
// (O_NONBLOCK; it changes nothing for a regular file) and keep a terminal
// from becoming the controlling terminal (O_NOCTTY). Every open of this
// package adds them, and so does internal/safefile's.
const OpenFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
