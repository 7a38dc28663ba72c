package decisionlog

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unsafe"

	hooksd "github.com/luahook/luahook/hooks.d"
)

// Secret is one built-in secret pattern: an RE2 pattern and what it finds.
type Secret struct {
	Pattern string
	What    string
}

// secretEntry is one line of secrets.lua's patterns table:
// { [[pattern]], "label" }.
const secretEntry = `(?m)^\s*\{\s*\[\[(.*?)\]\],\s*"([^"]*)"\s*\},?\s*$`

// secretTables are the patterns of the shipped lib module
// hooks.d/lib/secrets.lua, which every shipped secret policy and pack uses,
// in its order: read from the copy embedded in the binary, so that the two
// are one list. They are built on first use, not at start: a one-shot fire
// that logs no decision does not pay for compiling them.
var secretTables = sync.OnceValue(func() secretTable {
	list := readSecrets()
	return secretTable{list: list, res: compileSecrets(list), hints: secretHintsOf(list)}
})

// secretTable holds the built-in secrets with their compiled patterns and
// hints, index for index.
type secretTable struct {
	list  []Secret
	res   []*regexp.Regexp
	hints []secretHint
}

// readSecrets reads the patterns table of the embedded lib/secrets.lua. A
// module without entries, or with a pattern RE2 refuses, is a build of
// luahook that cannot redact: it panics on first use (and its tests fail).
func readSecrets() []Secret {
	src, err := hooksd.FS.ReadFile("lib/secrets.lua")
	if err != nil {
		panic("decisionlog: " + err.Error())
	}
	var list []Secret
	for _, m := range regexp.MustCompile(secretEntry).FindAllSubmatch(src, -1) {
		list = append(list, Secret{Pattern: string(m[1]), What: string(m[2])})
	}
	if len(list) == 0 {
		panic("decisionlog: no { [[pattern]], \"label\" } entries in hooks.d/lib/secrets.lua")
	}
	return list
}

// Secrets returns the built-in secret patterns: the ones the shipped secret
// policies look for. A string value of a logged payload that matches any of
// them is redacted unless Options.KeepSecrets is set.
func Secrets() []Secret { return append([]Secret(nil), secretTables().list...) }

// compileSecrets compiles the secrets' patterns; each is run only on a
// string that holds its hint.
func compileSecrets(secrets []Secret) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(secrets))
	for i, s := range secrets {
		res[i] = regexp.MustCompile(s.Pattern)
	}
	return res
}

// secretHintsOf returns, for each secret, a literal that every match of it
// contains (the longest literal of its top-level sequence; ASCII-folded for
// a part that ignores case): a string that holds none of them is not
// searched. Scanning for the hints costs a fraction of the regular
// expression, whose \b and case folding make it slow.
func secretHintsOf(secrets []Secret) []secretHint {
	hints := make([]secretHint, len(secrets))
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
			lit := string(sub.Rune)
			if sub.Op != syntax.OpLiteral || len(lit) <= len(hints[i].lit) || !isASCII(lit) {
				continue
			}
			fold := sub.Flags&syntax.FoldCase != 0
			if fold {
				lit = strings.ToLower(lit)
			}
			hints[i] = secretHint{lit: lit, fold: fold}
		}
		if hints[i].lit == "" {
			panic("decisionlog: secret pattern " + s.Pattern + " has no ASCII literal to look for first")
		}
	}
	return hints
}

// secretHint is a literal every match of one secret pattern contains.
type secretHint struct {
	lit  string // lower-case when fold
	fold bool   // compared ignoring ASCII case
}

func (h secretHint) in(s string) bool {
	if !h.fold {
		return strings.Contains(s, h.lit)
	}
	for i := 0; i+len(h.lit) <= len(s); i++ {
		j := 0
		for j < len(h.lit) && lowerASCII(s[i+j]) == h.lit[j] {
			j++
		}
		if j == len(h.lit) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// hasSecret reports whether s holds a built-in secret.
func hasSecret(s string) bool {
	t := secretTables()
	for i, h := range t.hints {
		if h.in(s) && t.res[i].MatchString(s) {
			return true
		}
	}
	return false
}

// hasSecretBytes is hasSecret of a string's bytes.
func hasSecretBytes(b []byte) bool {
	return hasSecret(unsafe.String(unsafe.SliceData(b), len(b)))
}
