//go:build !unix

package decisionlog_test

// settleWrites has nothing to wait for where sync(2) is not available.
func settleWrites() {}
