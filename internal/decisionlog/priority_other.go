//go:build !linux

package decisionlog

// lowerPriority does nothing where threads have no priority of their own.
func lowerPriority() {}
