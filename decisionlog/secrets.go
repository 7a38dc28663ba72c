package decisionlog

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Secret is one built-in secret pattern: an RE2 pattern and what it finds.
type Secret struct {
	Pattern string
	What    string
}

// secrets are the patterns of the shipped prompt-secrets policy
// (hooks.d/60-prompt-secrets.lua), in its order; a test reads the policy
// and fails when the two differ.
var secrets = []Secret{
	{`-----BEGIN [A-Z ]*PRIVATE KEY-----`, "a private key"},
	{`\bAKIA[0-9A-Z]{16}\b`, "an AWS access key id"},
	{`\bgh[pousr]_[A-Za-z0-9]{36,}\b`, "a GitHub token"},
	{`\bsk-[A-Za-z0-9_-]{20,}\b`, "an API secret key"},
	{`\bxox[abpr]-[A-Za-z0-9-]{10,}\b`, "a Slack token"},
}

// Secrets returns the built-in secret patterns: the ones the shipped secret
// policies look for. A string value of a logged payload that matches any of
// them is redacted unless Options.KeepSecrets is set.
func Secrets() []Secret { return append([]Secret(nil), secrets...) }

// secretRe matches any of the secrets in one pass.
var secretRe = func() *regexp.Regexp {
	alts := make([]string, len(secrets))
	for i, s := range secrets {
		alts[i] = "(?:" + s.Pattern + ")"
	}
	return regexp.MustCompile(strings.Join(alts, "|"))
}()

// secretHints holds, for each secret, a literal that every match of it
// contains (the longest literal of its top-level sequence): a string that
// holds none of them is not searched.
var secretHints = func() [][]byte {
	hints := make([][]byte, len(secrets))
	for i, s := range secrets {
		re, err := syntax.Parse(s.Pattern, syntax.Perl)
		if err != nil {
			panic(err)
		}
		re = re.Simplify()
		subs := []*syntax.Regexp{re}
		if re.Op == syntax.OpConcat {
			subs = re.Sub
		}
		for _, sub := range subs {
			if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 && len(string(sub.Rune)) > len(hints[i]) {
				hints[i] = []byte(string(sub.Rune))
			}
		}
		if len(hints[i]) == 0 {
			panic("decisionlog: secret pattern " + s.Pattern + " has no literal to look for first")
		}
	}
	return hints
}()

// hasSecret reports whether s holds a built-in secret.
func hasSecret(s string) bool {
	for _, h := range secretHints {
		if strings.Contains(s, string(h)) {
			return secretRe.MatchString(s)
		}
	}
	return false
}

// hasSecretBytes is hasSecret of a string's bytes.
func hasSecretBytes(b []byte) bool {
	for _, h := range secretHints {
		if bytes.Contains(b, h) {
			return secretRe.Match(b)
		}
	}
	return false
}
