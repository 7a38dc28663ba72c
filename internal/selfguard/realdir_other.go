//go:build !linux

package selfguard

// realDir is Linux's shortcut; elsewhere filepath.EvalSymlinks answers.
func realDir(string) (string, bool) { return "", false }
