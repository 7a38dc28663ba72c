package decisionlog

import (
	"regexp"
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

// hasSecret reports whether s holds a built-in secret.
func hasSecret(s string) bool { return secretRe.MatchString(s) }
