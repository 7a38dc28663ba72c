package transports

import (
	"strings"
	"testing"
)

// FuzzSplitArgv: the splitter never panics, and quoting its result in single
// quotes and splitting again gives the same argv.
func FuzzSplitArgv(f *testing.F) {
	for _, s := range []string{`sh -c "echo \"hi\" | wc"`, `a'b'"c"`, `""`, `'unterminated`, `C:\dir\f x`, "a\tb\nc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv, err := SplitArgv(s)
		if err != nil {
			return
		}
		var b strings.Builder
		for i, a := range argv {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("'" + strings.ReplaceAll(a, "'", `'"'"'`) + "'")
		}
		again, err := SplitArgv(b.String())
		if err != nil {
			t.Fatalf("re-split of %q: %v", b.String(), err)
		}
		if strings.Join(again, "\x00") != strings.Join(argv, "\x00") || len(again) != len(argv) {
			t.Fatalf("split(%q) = %q, but re-quoted it splits to %q", s, argv, again)
		}
	})
}

// FuzzAdmitURL: admission never panics, and allowing private networks only
// ever admits more.
func FuzzAdmitURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/x", "https://10.0.0.1", "https://[::ffff:10.0.0.1]/", "HTTP://LOCALHOST", "https://u:p@example.com", "https://169.254.169.254"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		strict := AdmitURL(raw, false)
		lax := AdmitURL(raw, true)
		if strict == nil && lax != nil {
			t.Fatalf("%q admitted strictly but refused with allow_private_network: %v", raw, lax)
		}
	})
}
