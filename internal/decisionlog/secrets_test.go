package decisionlog

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSecretsAreThePatternsOfTheShippedLib reads hooks.d/lib/secrets.lua
// from the repository and checks that the log redacts exactly its
// patterns, in its order, and that the shipped prompt policy uses that
// module rather than a list of its own.
func TestSecretsAreThePatternsOfTheShippedLib(t *testing.T) {
	src, err := os.ReadFile("../../hooks.d/lib/secrets.lua")
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`\{\s*\[\[(.*?)\]\],\s*"([^"]*)"\s*\}`)
	var lua []Secret
	for _, m := range entry.FindAllStringSubmatch(string(src), -1) {
		lua = append(lua, Secret{Pattern: m[1], What: m[2]})
	}
	if len(lua) < 5 {
		t.Fatalf("%d { [[pattern]], \"what\" } entries found in lib/secrets.lua: the test must learn its new shape", len(lua))
	}
	if !slices.Equal(lua, Secrets()) {
		t.Errorf("decisionlog.Secrets() = %q\nlib/secrets.lua's patterns = %q", Secrets(), lua)
	}
	for _, s := range Secrets() {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			t.Errorf("%s: %v", s.What, err)
		}
	}
	policy, err := os.ReadFile("../../hooks.d/60-prompt-secrets.lua")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(policy), `require("secrets")`) {
		t.Error("60-prompt-secrets.lua does not require the secrets module: its patterns and the log's could drift")
	}
}

func TestSecretsAreFoundInAnyStringThatHoldsOne(t *testing.T) {
	for _, s := range []string{
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE...",
		"aws AKIAIOSFODNN7EXAMPLE here",
		"git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789AB@github.com/x",
		"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv",
		"xoxb-1234567890-abcdef",
		"xoxa-0123456789",
		"creds ASIAIOSFODNN7EXAMPLE",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"npm_abcdefghijklmnopqrstuvwxyz0123456789",
	} {
		if !hasSecret(s) {
			t.Errorf("hasSecret(%q) = false", s)
		}
	}
	for _, s := range []string{"", "ls -la", "sk-short", "AKIA123", "the key is in the vault", "set aws_secret_access_key from the vault"} {
		if hasSecret(s) {
			t.Errorf("hasSecret(%q) = true", s)
		}
	}
}

// FuzzHasSecretAgreesWithThePatterns checks hasSecret's shortcuts (the
// shortest match, the one pass over the hints) against running every
// pattern on the string.
func FuzzHasSecretAgreesWithThePatterns(f *testing.F) {
	for _, s := range []string{"", "xoxa-0123456789", "xoxa-012345678", "aws ASIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPL",
		"AWS_Secret_Access_Key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"", "SeCrEt", "-----BEGIN EC PRIVATE KEY-----",
		"sha256:7e4614cf41d9f699c8ffa564797131abc87b98b0f0e4546c51eceaf32aa9083c", "/x/hooks.d/10-guard.lua:1",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789A", "rk_live_abcdefghijklmnopqrst",
		"AIzaSyA-abcdefghijklmnopqrstuvwxyz012345", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "glpat-abcdefghijklmnopqrst",
		"aws_ſecret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_\u212aey=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"} {
		f.Add(s)
	}
	res := secretTables().res
	f.Fuzz(func(t *testing.T, s string) {
		want := false
		for _, re := range res {
			want = want || re.MatchString(s)
		}
		if got := hasSecret(s); got != want {
			t.Fatalf("hasSecret(%q) = %v, the patterns say %v", s, got, want)
		}
	})
}
