//go:build unix

package git

import (
	"context"
	"testing"
)

// BenchmarkOneCall is one hook call reading all four functions: one git
// config, one git status and one git log run.
func BenchmarkOneCall(b *testing.B) {
	requireGit(b)
	isolateHome(b)
	dir := newRepo(b)
	for b.Loop() {
		if _, _, _, _, err := all(callIn(context.Background(), dir)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStatusRun is the status alone, the run every function needs.
func BenchmarkStatusRun(b *testing.B) {
	requireGit(b)
	isolateHome(b)
	dir := newRepo(b)
	for b.Loop() {
		if _, err := runGit(context.Background(), dir, nil, statusEnough, "status", "--porcelain=v2", "--branch", "-z"); err != nil {
			b.Fatal(err)
		}
	}
}
