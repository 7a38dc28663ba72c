package transports

import (
	"errors"
	"slices"
	"testing"
)

func TestSplitArgvHonoursQuotesWithoutAShell(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty string", "", nil},
		{"only white space", " \t\n ", nil},
		{"white space separates", "bash ./x.sh", []string{"bash", "./x.sh"}},
		{"runs of white space collapse", "  a \t b\n\nc  ", []string{"a", "b", "c"}},
		{"single quotes are literal", `sh -c 'echo "$HOME" \n'`, []string{"sh", "-c", `echo "$HOME" \n`}},
		{"single quotes keep backslashes", `echo 'a\'`, []string{"echo", `a\`}},
		{"double quotes group", `sh -c "echo hi && exit 2"`, []string{"sh", "-c", "echo hi && exit 2"}},
		{"backslash escapes a double quote inside double quotes", `echo "say \"hi\""`, []string{"echo", `say "hi"`}},
		{"backslash escapes a backslash inside double quotes", `echo "a\\b"`, []string{"echo", `a\b`}},
		{"other backslashes stay inside double quotes", `echo "a\nb\$c"`, []string{"echo", `a\nb\$c`}},
		{"backslash outside quotes is literal", `node C:\dir\f.js`, []string{"node", `C:\dir\f.js`}},
		{"backslash outside quotes does not escape a quote", `echo a\"b c"`, []string{"echo", `a\b c`}},
		{"adjacent pieces join", `echo a'b c'"d e"f`, []string{"echo", "ab cd ef"}},
		{"empty double quotes are an empty argument", `echo "" x`, []string{"echo", "", "x"}},
		{"empty single quotes are an empty argument", `echo '' x`, []string{"echo", "", "x"}},
		{"trailing empty argument", `echo x ""`, []string{"echo", "x", ""}},
		{"and-and is literal", "echo a && rm -rf /", []string{"echo", "a", "&&", "rm", "-rf", "/"}},
		{"pipe and semicolon are literal", "cat f | grep x; ls", []string{"cat", "f", "|", "grep", "x;", "ls"}},
		{"redirect is literal", "echo hi > /tmp/out", []string{"echo", "hi", ">", "/tmp/out"}},
		{"command substitution is literal", "echo $(whoami) `id`", []string{"echo", "$(whoami)", "`id`"}},
		{"variables are not expanded", "echo $HOME ${PATH}", []string{"echo", "$HOME", "${PATH}"}},
		{"glob is not expanded", "ls *.go", []string{"ls", "*.go"}},
		{"single quote inside double quotes is literal", `echo "it's"`, []string{"echo", "it's"}},
		{"double quote inside single quotes is literal", `echo 'say "x"'`, []string{"echo", `say "x"`}},
		{"multi-byte text survives", `echo "héllo wörld" 日本`, []string{"echo", "héllo wörld", "日本"}},
		{"quoted path with spaces", `node "./my hooks/guard.js" --strict`, []string{"node", "./my hooks/guard.js", "--strict"}},
		{"tab and newline inside quotes are kept", "echo \"a\tb\nc\"", []string{"echo", "a\tb\nc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitArgv(tt.in)
			if err != nil {
				t.Fatalf("SplitArgv(%q) error: %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("SplitArgv(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitArgvRejectsAnUnterminatedQuote(t *testing.T) {
	for _, in := range []string{
		`sh -c 'echo hi`,
		`sh -c "echo hi`,
		`echo "a\"`,
		`echo 'it''s`,
		`echo "`,
		`'`,
	} {
		got, err := SplitArgv(in)
		if !errors.Is(err, ErrUnterminatedQuote) {
			t.Errorf("SplitArgv(%q) = %q, %v; want ErrUnterminatedQuote", in, got, err)
		}
	}
}
