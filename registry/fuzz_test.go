package registry

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// FuzzMatch checks that parsing and matching never panic, that a matcher
// either parses or is refused, and that a name list agrees with a plain
// reading of the rule: "" and "*" match everything; a value made only of
// letters, digits, "_", "-", spaces, "|" and "," is a list of exact, trimmed,
// case-insensitive names (an empty element is an error); an empty key
// matches every matcher.
func FuzzMatch(f *testing.F) {
	for _, s := range [][3]string{
		{"", "bash", ""}, {"*", "", ""}, {"edit|write", "Write", ""}, {" bash | * ", "*", ""}, {"|", "x", ""},
		{"é", "É", ""}, {"0\xa9", "0\x89", ""}, {"Edit, Write", "write", ""}, {"mcp__.*", "mcp__a__b", ""},
		{"@shell", "x", ""}, {"Bash(git push:*)", "Bash", `{"command":"git push"}`}, {"Edit(src/**)", "Edit", `{"file_path":"src/a"}`},
		{"WebFetch(domain:a.b)", "WebFetch", `{"url":"https://x.a.b"}`}, {"Read(~/x)", "Read", `{"file_path":"~/x"}`},
		{"Bash(a*b*c*d*e*f*g*h*:*)", "bash", `{"command":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, matcher, key, input string) {
		in := &luahook.Input{Event: luahook.PreToolUse, ToolName: key, ToolInput: []byte(input), ToolCapabilities: []string{key}, Cwd: "/p"}
		m, err := ParseMatcher(luahook.PreToolUse, matcher)
		if err != nil {
			if m.String() != "*" || !strings.Contains(err.Error(), MatcherForms) {
				t.Fatalf("ParseMatcher(%q) failed (%v) but returned %v", matcher, err, m)
			}
		}
		got := err == nil && m.Match(key, in)
		if err == nil && key == "" && !got {
			t.Fatalf("%q does not match the empty key", matcher)
		}
		if err == nil && m.Match(key, in) && !m.MatchTool(key, in) {
			t.Fatalf("%q matches %q but not its tool", matcher, key)
		}
		s := strings.TrimSpace(matcher)
		if !isNameList(s) || strings.Contains(s, "(") {
			return
		}
		want, valid := s == "" || s == "*" || key == "", true
		if s != "" && s != "*" {
			for _, name := range strings.Split(strings.ReplaceAll(s, ",", "|"), "|") {
				name = strings.TrimSpace(name)
				switch {
				case name == "" || strings.Contains(name, " "):
					valid = false
				case strings.EqualFold(name, key):
					want = true
				}
			}
		}
		if (err == nil) != valid {
			t.Fatalf("ParseMatcher(%q): err %v, want valid=%v", matcher, err, valid)
		}
		if valid && got != want {
			t.Fatalf("%q matches %q = %v, want %v", matcher, key, got, want)
		}
	})
}

// FuzzStringField checks the tool input reader against encoding/json's
// tokens: a top-level "command" given once as a string is read as that
// string; given twice, or not a string, or in anything but a JSON object, it
// is not read (and a Tool(pattern) matcher then selects its hook).
func FuzzStringField(f *testing.F) {
	for _, s := range []string{`{"command":"git push"}`, `{"a":{"command":"x"},"command":"y"}`, `{"comm\u0061nd":"z"}`,
		`{"command":"a","command":"b"}`, `{"command":1}`, `[{"command":"x"}]`, `{"x":"\"command\":\"y\"","command":"\ud83d\ude00"}`, ` {} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := stringField([]byte(raw), []string{"command"})
		want, wantOK := referenceField(raw, "command")
		if ok != wantOK || got != want {
			t.Fatalf("stringField(%q) = %q, %v; want %q, %v", raw, got, ok, want, wantOK)
		}
	})
}

// referenceField reads key from the top level of the JSON object raw with
// encoding/json's tokens.
func referenceField(raw, key string) (string, bool) {
	if !json.Valid([]byte(raw)) {
		return "", false
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return "", false
	}
	var value string
	n, isString := 0, false
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		if k == key {
			n++
			isString = json.Unmarshal(v, &value) == nil && len(v) > 0 && v[0] == '"'
		}
	}
	if n != 1 || !isString {
		return "", false
	}
	return value, true
}

// FuzzMatcherExplainAgreesWithMatch checks that Explain gives Match's
// verdict on any matcher, key, tool input, capability and cwd, with a
// reason of bounded length, and never panics.
func FuzzMatcherExplainAgreesWithMatch(f *testing.F) {
	for _, s := range [][5]string{
		{"", "bash", "", "", ""}, {"bash|sh", "python", "", "", ""}, {"@shell", "x", "", "shell", ""},
		{"bash|@shell", "exec", "", "net", ""}, {"mcp__.*", "mcp__a__b", "", "", ""},
		{"Bash(git push:*)", "Bash", `{"command":"cd x && git push"}`, "", "/p"},
		{"Bash(git push:*)", "Bash", `{"command":1}`, "", "/p"}, {"exec_command(ls *)", "exec_command", `{"cmd":"ls -l"}`, "", ""},
		{"Edit(src/**)", "Edit", `{"file_path":"../src/a"}`, "", "/p/q"}, {"Edit(src/**)", "Edit", `{"file_path":"/x/src/a"}`, "", "rel"},
		{"Read(//etc/**)", "Read", `{"file_path":"etc/x"}`, "", ""}, {"Read(*.pem)", "Read", `{"file_path":"/a/K.PEM"}`, "", "/"},
		{"Grep(src/)", "Grep", `{"pattern":"x"}`, "", "/p/src"}, {"WebFetch(domain:a.b)", "WebFetch", `{"url":"https://x.a.b."}`, "", ""},
		{"WebFetch(domain:a.b)", "WebFetch", `{"url":"::"}`, "", ""}, {"WebFetch(https://*)", "web_fetch", `{"url":"https://x"}`, "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, matcher, key, input, capability, cwd string) {
		m, err := ParseMatcher(luahook.PreToolUse, matcher)
		if err != nil {
			return
		}
		in := &luahook.Input{Event: luahook.PreToolUse, ToolName: key, ToolInput: []byte(input), Cwd: cwd}
		if capability != "" {
			in.ToolCapabilities = []string{capability, "x"}
		}
		ok, why := m.Explain(key, in)
		if want := m.Match(key, in); ok != want || why == "" {
			t.Fatalf("%q on %q %q (cwd %q): Explain %v %q, Match %v", matcher, key, input, cwd, ok, why, want)
		}
		if n := utf8.RuneCountInString(why); n > 8*MaxShownChars+400 {
			t.Fatalf("%q: a reason of %d characters", matcher, n)
		}
		if ok, _ := m.Explain(key, nil); ok != m.Match(key, nil) {
			t.Fatalf("%q on %q without a payload: Explain %v, Match the opposite", matcher, key, ok)
		}
	})
}
