package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// parseCost parses data once and returns the error, how long it took and
// how many bytes it allocated.
func parseCost(t *testing.T, name string, data []byte) (error, time.Duration, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Parse(name, data)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return err, took, after.TotalAlloc - before.TotalAlloc
}

// nested returns open n times, then inner, then close n times.
func nested(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// The inputs are deep enough that the parsers of old (a key path built and
// spelled out per level, by the line scanner and by the TOML library)
// allocated hundreds of megabytes on them, and shallow enough that they did
// not take the machine down doing so (each cost grows with the square of the
// depth: 48 KB of nested inline tables allocated 7.6 GB).
func TestDeepNestingIsRefusedQuicklyWithLittleMemory(t *testing.T) {
	const deep = 8000
	dotted := func(n int) string { return strings.TrimSuffix(strings.Repeat("a.", n), ".") }
	tests := []struct {
		name, file, src string
		want            string // the error, in full
	}{
		{"TOML arrays", "luahook.toml", "x = " + nested("[", "", "]", deep) + "\n",
			"luahook.toml:1: x[0][0][0]…: nested more than 64 levels deep (arrays, inline tables and the parts of keys and table names count)"},
		{"TOML inline tables", "luahook.toml", "\nx = " + nested("{a = ", "1", "}", 1500) + "\n",
			"luahook.toml:2: x.a.a.a…: nested more than 64 levels deep (arrays, inline tables and the parts of keys and table names count)"},
		{"TOML arrays of inline tables", "luahook.toml", "x = " + nested("[{a = ", "1", "}]", 1500) + "\n",
			"luahook.toml:1: x[0].a[0]…: nested more than 64 levels deep (arrays, inline tables and the parts of keys and table names count)"},
		{"TOML dotted keys", "luahook.toml", "# c\n" + dotted(3000) + " = 1\n",
			"luahook.toml:2: a.a.a.a…: nested more than 64 levels deep (arrays, inline tables and the parts of keys and table names count)"},
		{"TOML table names", "luahook.toml", "[" + dotted(4000) + "]\n",
			"luahook.toml:1: a.a.a.a…: nested more than 64 levels deep (arrays, inline tables and the parts of keys and table names count)"},
		{"TOML unclosed arrays", "luahook.toml", "x = " + strings.Repeat("[", deep),
			"luahook.toml:1: x[0][0][0]…: nested more than 64 levels deep (arrays, inline tables and the parts of keys and table names count)"},
		{"JSON arrays", "luahook.json", "{\"tools\": " + nested("[", "", "]", deep) + "}",
			"luahook.json:1: invalid JSON: nested more than 64 levels deep"},
		{"JSON objects", "luahook.json", "{\n" + nested(`"a": {`, "", "}", deep) + "}",
			"luahook.json:2: invalid JSON: nested more than 64 levels deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err, took, alloc := parseCost(t, tt.file, []byte(tt.src))
			if err == nil || err.Error() != tt.want {
				t.Errorf("Parse: %v\nwant %s", err, tt.want)
			}
			if took > time.Second || alloc > 4<<20 {
				t.Errorf("Parse of a %d-byte file took %v and allocated %d bytes; want under 1s and 4 MiB", len(tt.src), took, alloc)
			}
		})
	}
}

// TestNestingAtTheLimitIsAccepted: 64 levels are a configuration, 65 are
// refused.
func TestNestingAtTheLimitIsAccepted(t *testing.T) {
	// tools.t.schema is 3 levels; the schema holds the rest.
	atLimit := func(n int) string { return nested(`{"not": `, "true", "}", n) }
	for _, tt := range []struct {
		name, file string
		src        func(levels int) string
	}{
		{"TOML inline tables", "luahook.toml", func(n int) string {
			return "[tools.t]\nschema = " + nested("{not = ", "{}", "}", n-3) + "\n"
		}},
		{"TOML table name", "luahook.toml", func(n int) string {
			return "[tools.t.schema" + strings.Repeat(".not", n-3) + "]\n"
		}},
		{"JSON", "luahook.json", func(n int) string {
			return `{"tools": {"t": {"schema": ` + atLimit(n-3) + "}}}"
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse(tt.file, []byte(tt.src(MaxNesting))); err != nil {
				t.Errorf("%d levels: %v", MaxNesting, err)
			}
			_, err := Parse(tt.file, []byte(tt.src(MaxNesting+1)))
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("nested more than %d levels deep", MaxNesting)) {
				t.Errorf("%d levels: %v; want the nesting limit", MaxNesting+1, err)
			}
		})
	}
}

// TestLongKeysAreRefusedBeforeTheTOMLLibraryRepeatsThem: the TOML library
// spells out a key's whole path for every key below it, so a long table
// name over many keys costs their product.
func TestLongKeysAreRefusedBeforeTheTOMLLibraryRepeatsThem(t *testing.T) {
	// header(n) names a table whose schema key has a path of n bytes.
	header := func(n int) string { return "[tools." + strings.Repeat("k", n-len("tools..schema")) + "]\n" }
	if _, err := Parse("luahook.toml", []byte(header(MaxKeyBytes)+"schema = '{}'\n")); err != nil {
		t.Errorf("a key path of %d bytes: %v", MaxKeyBytes, err)
	}
	want := fmt.Sprintf("luahook.toml:2: tools.%s…: key path is longer than %d bytes", strings.Repeat("k", 32), MaxKeyBytes)
	if _, err := Parse("luahook.toml", []byte(header(MaxKeyBytes+1)+"schema = '{}'\n")); err == nil || err.Error() != want {
		t.Errorf("a key path of %d bytes: %v\nwant %s", MaxKeyBytes+1, err, want)
	}

	// 16 KiB of table name over 48 KiB of keys (a MiB of each would cost
	// the TOML library 40 GB).
	var b strings.Builder
	b.WriteString(header(16 << 10))
	for b.Len() < 64<<10 {
		fmt.Fprintf(&b, "k%d=1\n", b.Len())
	}
	err, took, alloc := parseCost(t, "luahook.toml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "key path is longer than") {
		t.Errorf("Parse: %v; want the key length limit", err)
	}
	if took > time.Second || alloc > 16<<20 {
		t.Errorf("Parse took %v and allocated %d bytes; want under 1s and 16 MiB", took, alloc)
	}
}

func TestConfigFilesLargerThanMaxFileBytesAreRefusedBeforeParsing(t *testing.T) {
	dir := t.TempDir()
	fill := func(name string, size int) string {
		head := "hooks_dir = \"h\"\n"
		if strings.HasSuffix(name, ".json") {
			head = "{\"hooksDir\": \"h\"}\n"
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(head+strings.Repeat("\n", size-len(head))), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, name := range []string{"luahook.toml", "luahook.json"} {
		at := fill("at-"+name, MaxFileBytes)
		if _, err := Load(at); err != nil {
			t.Errorf("%s of exactly %d bytes: %v", name, MaxFileBytes, err)
		}
		past := fill(name, MaxFileBytes+1)
		want := past + ": file is larger than 1 MiB"
		if _, err := Load(past); err == nil || err.Error() != want {
			t.Errorf("Load of %d bytes: %v\nwant %s", MaxFileBytes+1, err, want)
		}
		data, _ := os.ReadFile(past)
		if _, err := Parse(name, data); err == nil || err.Error() != name+": file is larger than 1 MiB" {
			t.Errorf("Parse of %d bytes: %v", MaxFileBytes+1, err)
		}
	}
}

// TestSchemaFilesHaveTheConfigLimits: a schema file or an inline schema is
// held to the same size and nesting limits as the configuration, checked
// before the schema library reads it.
func TestSchemaFilesHaveTheConfigLimits(t *testing.T) {
	deepJSON := "{\n" + nested(`"not": {`, "", "}", 1000) + "}"
	dir := writeTree(t, map[string]string{
		"deep.json":  deepJSON,
		"big.json":   "{}" + strings.Repeat(" ", MaxFileBytes-1),
		"limit.json": "{}" + strings.Repeat(" ", MaxFileBytes-2),
		"ref.json":   `{"$ref": "deep.json"}`,
		"luahook.toml": `[tools.deep]
schema_file = "deep.json"
[tools.big]
schema_file = "big.json"
[tools.limit]
schema_file = "limit.json"
[tools.ref]
schema_file = "ref.json"
`,
	})
	path := filepath.Join(dir, "luahook.toml")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CompileSchemas()
	errs := Errors(err)
	deep, big := filepath.Join(dir, "deep.json"), filepath.Join(dir, "big.json")
	want := []struct{ prefix, says string }{
		{path + ":1: tools.deep: schema file " + deep + ": ", deep + ":2: JSON nested more than 64 levels deep"},
		{path + ":3: tools.big: schema file " + big + ": ", big + ": file is larger than 1 MiB"},
		{path + ":7: tools.ref: schema file " + filepath.Join(dir, "ref.json") + ": ", deep + ":2: JSON nested more than 64 levels deep"},
	}
	if len(errs) != len(want) {
		t.Fatalf("CompileSchemas: %d errors, want %d:\n%v", len(errs), len(want), err)
	}
	for i, w := range want {
		if got := errs[i].Error(); !strings.HasPrefix(got, w.prefix) || !strings.HasSuffix(got, w.says) {
			t.Errorf("error %d:\n got %s\nwant %s...%s", i, got, w.prefix, w.says)
		}
	}

	// An inline schema written as a string of JSON.
	_, err = Parse("luahook.toml", []byte("[tools.t]\n\nschema = '''"+deepJSON+"'''\n"))
	if want := "luahook.toml:3: tools.t.schema: not valid JSON: nested more than 64 levels deep (line 2 of the string)"; err == nil || err.Error() != want {
		t.Errorf("inline schema: %v\nwant %s", err, want)
	}
}

// TestKeyPathsAreSpelledOnlyForErrors: a node's key path is spelled out
// when an error names it, not stored per node, so a long key over many keys
// costs their sum, not their product (a JSON configuration has no key
// length limit; it needs none).
func TestKeyPathsAreSpelledOnlyForErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tools": {"t": {"schema": {"` + strings.Repeat("k", 16<<10) + `": {`)
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, `"k%d": 1, `, i)
	}
	b.WriteString(`"z": 1}}}}}`)
	err, took, alloc := parseCost(t, "luahook.json", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if took > time.Second || alloc > 8<<20 {
		t.Errorf("Parse took %v and allocated %d bytes; want under 1s and 8 MiB", took, alloc)
	}
}
