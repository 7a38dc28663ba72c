//go:build unix

package decisionlog_test

import "syscall"

// settleWrites waits until the file writes made so far reached the disk: a
// benchmark that writes hundreds of megabytes of records would otherwise
// leave the kernel writing them back during the next one, on the same two
// cores, and that one would be charged for it.
func settleWrites() { syscall.Sync() }
