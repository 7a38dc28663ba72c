package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/jsonschema"
)

func validate(t *testing.T, sch *jsonschema.Schema, input string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v)
}

func TestCompileSchemasBuildsAValidatorPerTool(t *testing.T) {
	c, err := Load("testdata/full.toml")
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := c.CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, input string
		valid       bool
	}{
		{"bash", `{"command": "ls", "timeout_ms": 30000}`, true}, // schema_file
		{"bash", `{"command": ""}`, false},
		{"bash", `{"command": "ls", "shell": true}`, false},
		{"write", `{"path": "a.txt", "content": "x"}`, true}, // inline string
		{"write", `{"content": "x"}`, false},
		{"edit", `{"path": "a", "old": "x", "new": "y"}`, true}, // inline table
		{"edit", `{"path": "", "old": "x", "new": "y"}`, false},
	}
	for _, tt := range tests {
		sch := schemas[tt.tool]
		if sch == nil {
			t.Fatalf("no schema for %s (have %v)", tt.tool, schemas)
		}
		if err := validate(t, sch, tt.input); (err == nil) != tt.valid {
			t.Errorf("%s %s: valid = %v, want %v (%v)", tt.tool, tt.input, err == nil, tt.valid, err)
		}
	}
}

// writeTree writes files below a fresh folder and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSchemaRefsResolveAgainstFilesNeverTheNetwork(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"luahook.toml": `[tools.inline]
schema = '{"$ref": "defs/command.json"}'
[tools.file]
schema_file = "schemas/bash.json"
`,
		"defs/command.json":    `{"type": "object", "required": ["command"]}`,
		"schemas/bash.json":    `{"$ref": "common.json"}`,
		"schemas/common.json":  `{"type": "object", "required": ["path"]}`,
		"schemas/unused.json":  `{}`,
		"defs/placeholder.txt": ``,
	})
	c, err := Load(filepath.Join(dir, "luahook.toml"))
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := c.CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	if validate(t, schemas["inline"], `{"command": "ls"}`) != nil || validate(t, schemas["inline"], `{}`) == nil {
		t.Error("an inline schema's relative $ref should resolve against the configuration's folder")
	}
	if validate(t, schemas["file"], `{"path": "a"}`) != nil || validate(t, schemas["file"], `{}`) == nil {
		t.Error("a schema file's relative $ref should resolve against the schema file's folder")
	}

	// A remote $ref is an error, not a download.
	remote := mustParse(t, filepath.Join(dir, "remote.toml"), "[tools.r]\nschema = '{\"$ref\": \"https://schemas.example.invalid/r.json\"}'\n")
	if _, err := remote.CompileSchemas(); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "remote.toml")+":1: tools.r: schema: ") {
		t.Errorf("remote $ref: err = %v, want an error naming the file, line and tool", err)
	}
}

func TestCompileSchemasErrorsNameTheFileLineToolAndSchemaFile(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"bad.json": `{"type": 5}`,
		"luahook.toml": `[tools.zeta]
schema_file = "missing.json"

[tools.alpha]
schema = '{"minLength": "three"}'

[tools.ok]
schema = '{}'

[tools.beta]
schema_file = "bad.json"
`,
	})
	path := filepath.Join(dir, "luahook.toml")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := c.CompileSchemas()
	if err == nil {
		t.Fatalf("CompileSchemas accepted bad schemas: %v", schemas)
	}
	errs := Errors(err)
	wantPrefixes := []string{
		path + ":1: tools.zeta: schema file " + filepath.Join(dir, "missing.json") + ": ",
		path + ":4: tools.alpha: schema: ",
		path + ":10: tools.beta: schema file " + filepath.Join(dir, "bad.json") + ": ",
	}
	if len(errs) != len(wantPrefixes) {
		t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(wantPrefixes), err)
	}
	for i, want := range wantPrefixes {
		if got := errs[i].Error(); !strings.HasPrefix(got, want) {
			t.Errorf("error %d:\n got %s\nwant prefix %s", i, got, want)
		}
		if errs[i].Err == nil {
			t.Errorf("error %d carries no cause", i)
		}
	}
	if msg := errs[1].Error(); strings.Contains(msg, ".luahook-tool-") || !strings.Contains(msg, "the inline schema") {
		t.Errorf("an inline schema's error should not name a made-up file: %s", msg)
	}
}

func BenchmarkCompileSchemas(b *testing.B) {
	c := mustParse(b, "testdata/full.toml", readFile(b, "testdata/full.toml"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CompileSchemas(); err != nil {
			b.Fatal(err)
		}
	}
}
