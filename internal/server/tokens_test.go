package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const (
	aliceToken = "alice-0123456789abcdef"
	bobToken   = "bob-fedcba9876543210"
)

func TestParseTokensReadsNamesTokensAndComments(t *testing.T) {
	toks, err := ParseTokens([]byte("# the team's clients\n\nalice "+aliceToken+"\n\t bob\t"+bobToken+"  \n"+"anonymous-token-0001\n"), "tokens")
	if err != nil {
		t.Fatal(err)
	}
	if toks.Len() != 3 {
		t.Fatalf("Len() = %d, want 3", toks.Len())
	}
	for token, want := range map[string]string{aliceToken: "alice", bobToken: "bob", "anonymous-token-0001": ""} {
		if name, ok := toks.lookup(token); !ok || name != want {
			t.Errorf("lookup(%q) = %q, %v; want %q", token, name, ok, want)
		}
	}
	for _, wrong := range []string{"", "alice", aliceToken[:len(aliceToken)-1], aliceToken + "x", strings.ToUpper(aliceToken)} {
		if name, ok := toks.lookup(wrong); ok {
			t.Errorf("lookup(%q) = %q, true; want no client", wrong, name)
		}
	}
}

// TestParseTokensRefusesBadLinesNamingThemAndNeverTheToken: each refusal
// names the file and the line, and quotes neither the token nor the name
// (a token written where the name goes would show).
func TestParseTokensRefusesBadLinesNamingThemAndNeverTheToken(t *testing.T) {
	const secret = "s3cr3t-value-0123456789"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"no token", "# nothing\n\n", "tokens: no token"},
		{"short", "alice short-tok\n", "tokens:1: the token is 9 bytes, shorter than 16"},
		{"three words", "alice " + secret + " extra\n", "tokens:1: 3 words; want TOKEN or NAME TOKEN"},
		{"duplicate token", "alice " + secret + "\n# c\nbob " + secret + "\n", "tokens:3: the same token as tokens:1"},
		{"duplicate name", "alice " + secret + "\nalice " + aliceToken + "\n", "tokens:2: the client name of tokens:1 again"},
		{"name with a space-like character", "al;ce " + secret + "\n", "tokens:1: the client name may hold only"},
		{"long name", strings.Repeat("n", 65) + " " + secret + "\n", "tokens:1: the client name is 65 bytes, longer than 64"},
		{"control character", "alice " + secret + "\x01\n", "tokens:1: the token has a character that is not visible ASCII"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toks, err := ParseTokens([]byte(tc.text), "tokens")
			if err == nil {
				t.Fatalf("accepted, %d tokens; want an error with %q", toks.Len(), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "0123456789") {
				t.Errorf("the error quotes the token: %q", err)
			}
		})
	}
}

func TestReadTokenFileRefusesAFileOthersCouldReadOrSwap(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("alice "+aliceToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{write("group", 0o640), "mode 0640: its group can read it; a token file must be the user's alone (chmod 600 "},
		{write("others", 0o606), "mode 0606: others can read and write it"},
		{write("both", 0o644), "its group can read it and others can read it"},
		{link, "a symbolic link; name the file itself"},
		{filepath.Join(dir, "missing"), "no such file"},
		{fifo, "not a regular file"},
	} {
		_, err := ReadTokenFile(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadTokenFile(%s) = %v; want an error naming the file and %q", filepath.Base(tc.path), err, tc.want)
		}
	}
	toks, err := ReadTokenFile(good)
	if err != nil || toks.Len() != 1 {
		t.Fatalf("ReadTokenFile(mode 0600) = %v, %v", toks, err)
	}
	if name, ok := toks.lookup(aliceToken); !ok || name != "alice" {
		t.Errorf("the token authenticates %q, %v", name, ok)
	}
}
