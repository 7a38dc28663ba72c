package luahook

import (
	"context"
	"strings"
	"testing"
)

// benchOutput is an everyday tool output of n bytes: lines of a build log,
// with a GitHub token and an AWS key id in it when secrets is set.
func benchOutput(n int, secrets bool) string {
	line := "ok  \tgithub.com/example/project/internal/pkg\t0.412s\tcoverage: 81.3% of statements\n"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(line)
	}
	s := b.String()[:n]
	if secrets {
		mid := len(s) / 2
		s = s[:mid] + " GITHUB_TOKEN=ghp_" + strings.Repeat("aB3", 12) + " AWS=AKIAIOSFODNN7EXAMPLE " + s[mid:]
	}
	return s
}

var benchRedactions = []Redaction{
	{Pattern: `ghp_[A-Za-z0-9]{36}`, Label: "a GitHub token"},
	{Pattern: `(?:AKIA|ASIA)[0-9A-Z]{16}`, Label: "an AWS access key id"},
	{Pattern: `-----BEGIN [A-Z ]*PRIVATE KEY-----`, Label: "a private key"},
	{Pattern: `xox[abpr]-[A-Za-z0-9-]{10,}`, Label: "a Slack token"},
}

// BenchmarkOutputChain measures a PostToolUse output through the chain:
// one hook's redactions (four patterns) applied and the rewrite built, up
// to the largest output a hook is given (MaxScanBytes). "untouched" is the chain over an output
// no hook rewrote: what every PostToolUse pays.
func BenchmarkOutputChain(b *testing.B) {
	ctx := context.Background()
	red := Redact(benchRedactions...)
	for _, c := range []struct {
		name    string
		n       int
		secrets bool
		out     *Outcome
	}{
		{"untouched/4KiB", 4 << 10, false, nil},
		{"redact/4KiB-clean", 4 << 10, false, red},
		{"redact/4KiB-2secrets", 4 << 10, true, red},
		{"redact/1MiB-2secrets", MaxScanBytes, true, red},
	} {
		out := benchOutput(c.n, c.secrets)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			var chain OutputChain
			for b.Loop() {
				chain.Start(out, 0)
				if err := chain.Apply(ctx, c.out, out); err != nil {
					b.Fatal(err)
				}
				w, err := chain.Finish(ctx)
				if err != nil || (w != nil) != c.secrets {
					b.Fatalf("rewrite %v, %v", w != nil, err)
				}
			}
		})
	}
}
