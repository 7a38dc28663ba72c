package decisionlog

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestSecretsAreThePatternsOfTheShippedPolicy reads the shipped
// prompt-secrets policy and checks that the log redacts exactly the
// patterns it looks for, in its order, so that the two cannot drift.
func TestSecretsAreThePatternsOfTheShippedPolicy(t *testing.T) {
	src, err := os.ReadFile("../hooks.d/60-prompt-secrets.lua")
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`\{\s*\[\[(.*?)\]\],\s*"([^"]*)"\s*\}`)
	var lua []Secret
	for _, m := range entry.FindAllStringSubmatch(string(src), -1) {
		lua = append(lua, Secret{Pattern: m[1], What: m[2]})
	}
	if len(lua) == 0 {
		t.Fatal("no { [[pattern]], \"what\" } entries found in 60-prompt-secrets.lua: the test must learn its new shape")
	}
	if !slices.Equal(lua, Secrets()) {
		t.Errorf("decisionlog.Secrets() = %q\nthe shipped policy's patterns = %q\nupdate decisionlog/secrets.go", Secrets(), lua)
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
	} {
		if !hasSecret(s) {
			t.Errorf("hasSecret(%q) = false", s)
		}
	}
	for _, s := range []string{"", "ls -la", "sk-short", "AKIA123", "the key is in the vault"} {
		if hasSecret(s) {
			t.Errorf("hasSecret(%q) = true", s)
		}
	}
}
