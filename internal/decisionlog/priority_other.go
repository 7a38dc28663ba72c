//go:build !linux

package decisionlog

// runLowPriority runs f on a goroutine of its own: threads have no
// priority of their own here.
func runLowPriority(f func()) { go f() }
