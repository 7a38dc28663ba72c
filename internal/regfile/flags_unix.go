//go:build unix

package regfile

import "syscall"

// openFlags make an open return at once on a named pipe with no writer
// (O_NONBLOCK; it changes nothing for a regular file) and keep a terminal
// from becoming the controlling terminal (O_NOCTTY).
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
