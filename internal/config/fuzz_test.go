package config

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// checkParse is what both fuzz targets assert beyond "never panics": a
// result or errors, never both; every error names the file and a line that
// exists; a parse is deterministic; a loaded hook passes its own rules.
func checkParse(t *testing.T, name string, data []byte) {
	c, err := Parse(name, data)
	lines := bytes.Count(data, []byte("\n")) + 1
	if err != nil {
		if c != nil {
			t.Fatalf("Parse returned a Config and an error: %v", err)
		}
		errs := Errors(err)
		if len(errs) == 0 {
			t.Fatalf("error carries no *Error: %v", err)
		}
		for _, e := range errs {
			if e.File != name || e.Line < 0 || e.Line > lines {
				t.Fatalf("error %q names file %q line %d; the input is %q with %d lines", e, e.File, e.Line, name, lines)
			}
		}
		if _, again := Parse(name, data); again == nil || again.Error() != err.Error() {
			t.Fatalf("Parse is not deterministic:\n%v\n---\n%v", err, again)
		}
		return
	}
	if !c.HooksEqual(c) {
		t.Fatal("a Config is not HooksEqual to itself")
	}
	for ev, hs := range c.Hooks {
		for i := range hs {
			if err := hs[i].Validate(); err != nil {
				t.Fatalf("%s[%d] was loaded but does not validate: %v", ev, i, err)
			}
			if _, line := splitSource(hs[i].Source); line < 1 || line > lines {
				t.Fatalf("%s[%d] has source %q outside the input's %d lines", ev, i, hs[i].Source, lines)
			}
		}
	}
}

func addSeeds(f *testing.F, files ...string) {
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzParseTOML(f *testing.F) {
	addSeeds(f, "testdata/full.toml")
	f.Add([]byte("[[hooks.PreToolUse]]\ncommand = \"x\"\nstage = \"check\"\n"))
	f.Add([]byte("a = \"\"\"\n[[x]]\n\"\"\"\n[hooks]\nStop = [{command = 'a'}, {command = 5}]\n"))
	f.Add([]byte("[tools.t.schema]\nx = [1979-05-27, inf]\n"))
	f.Add([]byte("[[hooks.Stop]]\n[hooks.Stop.headers]\n\"a b\" = 1\n"))
	// Deep nesting, at and past MaxNesting, of every kind that counts.
	f.Add([]byte("x = " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n"))
	f.Add([]byte("x = " + strings.Repeat("[{a = ", 40) + "1" + strings.Repeat("}]", 40) + "\n"))
	f.Add([]byte("[tools.t]\nschema = " + strings.Repeat("{not = ", 61) + "{}" + strings.Repeat("}", 61) + "\n"))
	f.Add([]byte("[" + strings.Repeat("a.", 64) + "b]\n" + strings.Repeat("c.", 10) + "d = 1\n"))
	f.Add([]byte("[tools.t]\nschema = '" + strings.Repeat(`{"not":`, 70) + "{}" + strings.Repeat("}", 70) + "'\n"))
	f.Add([]byte("x = " + strings.Repeat("[", 5000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "luahook.toml", data)
		checkTOMLNesting(t, data)
	})
}

// checkTOMLNesting is the tripwire of the nesting count: text that scanTOML
// accepts decodes, by the TOML library, to values no deeper than
// MaxNesting. If it fails, the scanner no longer reads TOML as the library
// does (re-check it against the library's lexer, lex.go).
func checkTOMLNesting(t *testing.T, data []byte) {
	if _, err := scanTOML("luahook.toml", data); err != nil {
		return
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return
	}
	var depth func(v any) int
	depth = func(v any) int {
		d := 0
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				d = max(d, 1+depth(e))
			}
		case []map[string]any:
			for _, e := range v {
				d = max(d, 1+depth(e))
			}
		case []any:
			for _, e := range v {
				d = max(d, 1+depth(e))
			}
		}
		return d
	}
	if d := depth(m); d > MaxNesting {
		t.Fatalf("scanTOML accepted text the TOML library decodes %d levels deep (limit %d)", d, MaxNesting)
	}
}

func FuzzParseJSON(f *testing.F) {
	addSeeds(f, "testdata/full.json")
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"command": "x", "timeoutMs": 1.5}]}}`))
	f.Add([]byte("{\"a\": 1,\n \"a\": 2}"))
	f.Add([]byte(`{"tools": {"t": {"schema": "{\"$ref\": 1}"}}}`))
	f.Add([]byte(`[[[[{}]]]]`))
	f.Add([]byte(`{"tools": ` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "}"))
	f.Add([]byte(`{"tools": {"t": {"schema": ` + strings.Repeat(`{"not": `, 61) + "{}" + strings.Repeat("}", 61) + "}}}"))
	f.Add([]byte(`{"tools": {"t": {"schema": "` + strings.Repeat(`[`, 70) + `"}}}`))
	f.Add([]byte(strings.Repeat(`{"a": `, 5000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "luahook.json", data)
	})
}
