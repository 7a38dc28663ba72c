package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// printable reports whether every character of s but its line breaks is
// printable.
func printable(s string) bool {
	for _, r := range s {
		if r != '\n' && r != ' ' && !unicode.IsPrint(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// TestABlockedRewriteGivesTheCallPrintableAndBounded: the reason of a
// block that stands for a rewrite quotes the rewritten command of a shell
// call as a JSON string, and any other tool's rewritten input as compact
// JSON, both decoding back to exactly the rewrite, with every character
// that is not printable escaped; it keeps within luahook.MaxReasonChars,
// and a call too long for it is cut with a note saying how long it is.
func TestABlockedRewriteGivesTheCallPrintableAndBounded(t *testing.T) {
	shell := &Request{Input: &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash"}}
	mcp := &Request{Input: &luahook.Input{Event: luahook.PreToolUse, ToolName: "mcp__github__create_issue"}}
	commandOf := func(cmd string) json.RawMessage {
		b, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	odd := "printf 'a\tb\\n' \"$X\"\n\u202eexe.txt\x00\x7f" + string([]byte{0xff}) + " 🦀"
	t.Run("shell command", func(t *testing.T) {
		d := Decision{Input: commandOf(odd), RewriteReason: "quoting fixed"}
		got := rewriteBlock(shell, d, "", "this call is blocked", true)
		const prefix = "luahook rewrote this call (quoting fixed). this call is blocked; run the rewritten command instead: "
		quoted, ok := strings.CutPrefix(got, prefix)
		if !ok {
			t.Fatalf("reason %q does not begin with %q", got, prefix)
		}
		var back string
		if err := json.Unmarshal([]byte(quoted), &back); err != nil {
			t.Fatalf("the quoted command %s is not one JSON string: %v", quoted, err)
		}
		if want := strings.ToValidUTF8(odd, "\ufffd"); back != want {
			t.Errorf("the quoted command reads %q, want %q", back, want)
		}
		if !printable(got) || strings.Contains(quoted, "\n") {
			t.Errorf("reason %q has characters that are not printable", got)
		}
	})
	t.Run("other tool's input", func(t *testing.T) {
		in := json.RawMessage("{\n  \"title\": \"two  spaces\u2028and a separator\",\n  \"labels\": [ \"a\", \"b\" ],\n  \"n\": 1.50\n}")
		got := rewriteBlock(mcp, Decision{Input: in}, "installs a package: confirm", "this call is blocked", false)
		lead, rest, _ := strings.Cut(got, "\n")
		if lead != "installs a package: confirm" {
			t.Errorf("first line %q, want the ask's reason", lead)
		}
		_, text, ok := strings.Cut(rest, "; the rewritten input: ")
		if !ok {
			t.Fatalf("reason %q gives no rewritten input", got)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, in); err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatalf("the input %s is not JSON: %v", text, err)
		}
		_ = json.Unmarshal(in, &b)
		ab, _ := json.Marshal(a)
		bb, _ := json.Marshal(b)
		if !bytes.Equal(ab, bb) || strings.ContainsAny(text, "\n\u2028") || !strings.Contains(text, `"two  spaces\u2028and`) ||
			!strings.Contains(text, `"n":1.50`) {
			t.Errorf("the input is given as %s, want the compact %s with U+2028 escaped", text, want.String())
		}
	})
	t.Run("too long", func(t *testing.T) {
		for _, cmd := range []string{strings.Repeat("x", 5000), strings.Repeat("é", 3000), strings.Repeat("\x01", 3000)} {
			lead := strings.Repeat("l", 1000)
			d := Decision{Input: commandOf(cmd), RewriteReason: strings.Repeat("r", 1000)}
			got := rewriteBlock(shell, d, lead, "this call is blocked", true)
			if n := utf8.RuneCountInString(got); n > luahook.MaxReasonChars {
				t.Errorf("a %d-byte command gives a reason of %d characters, over %d", len(cmd), n, luahook.MaxReasonChars)
			}
			if want := "… (cut: the command has 3000 characters)"; len(cmd) != 5000 && !strings.HasSuffix(got, want) {
				t.Errorf("reason ends %q, want %q", got[max(0, len(got)-80):], want)
			}
			if strings.Count(got, "…") != 3 || !printable(got) {
				t.Errorf("the ask's reason, the rewrite's and the command should each be cut with …: %q", got)
			}
		}
		in := json.RawMessage(`{"body":"` + strings.Repeat("b", 4000) + `"}`)
		got := rewriteBlock(mcp, Decision{Input: in}, "", "this call is blocked", true)
		if n := utf8.RuneCountInString(got); n > luahook.MaxReasonChars || !strings.HasSuffix(got, "… (cut: the input is 4011 bytes of JSON)") {
			t.Errorf("a long input gives %d characters ending %q", n, got[max(0, len(got)-60):])
		}
	})
}
