package engine

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// A schema of Options.Schemas that does not compile fails Open and New
// with a *SchemaError naming the tool and the problem, in the compiler's
// words without the location it made up for the schema.
func TestGoSchemaThatDoesNotCompileFailsOpen(t *testing.T) {
	for _, tt := range []struct {
		name, schema, want string
	}{
		{"empty", "", "empty: want a JSON Schema"},
		{"blank", " \n", "empty: want a JSON Schema"},
		{"not JSON", `{"type":`, "not valid JSON: "},
		{"trailing data", `{} {}`, "not valid JSON: "},
		{"a number", `5`, "the schema is not valid against metaschema"},
		{"unknown type", `{"type":"objet"}`, "value must be one of 'array', 'boolean'"},
		{"bad pattern", `{"properties":{"a":{"pattern":"("}}}`, "'(' is not valid regex"},
		{"missing $defs", `{"$ref":"#/$defs/cmd"}`, `json-pointer in "#/$defs/cmd" not found`},
		{"a file beside it", `{"$ref":"other.json"}`, `failing loading "other.json": a schema given in Options.Schemas is one document`},
		{"a file URL", `{"$ref":"file:///etc/passwd"}`, `failing loading "file:///etc/passwd": a schema given in Options.Schemas is one document`},
		{"the network", `{"$ref":"https://example.com/s.json"}`, `failing loading "https://example.com/s.json": a schema given`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Dir: t.TempDir(), NoWatch: true, Schemas: map[string]json.RawMessage{"bash": json.RawMessage(tt.schema)}}
			for name, open := range map[string]func() (*Engine, error){
				"Open": func() (*Engine, error) { return Open(context.Background(), opts) },
				"New":  func() (*Engine, error) { return New(opts) },
			} {
				e, err := open()
				if err == nil {
					e.Close()
					t.Fatalf("%s accepted the schema %q", name, tt.schema)
				}
				var se *SchemaError
				if !errors.As(err, &se) || se.Tool != "bash" {
					t.Errorf("%s: %T %v, want a *SchemaError of bash", name, err, err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, `engine: Options.Schemas["bash"]: `) || !strings.Contains(msg, tt.want) {
					t.Errorf("%s: %q, want it to start with the tool and hold %q", name, msg, tt.want)
				}
				if strings.Contains(msg, goSchemaBase) || strings.Contains(msg, "luahook-options:") {
					t.Errorf("%s: %q names the made-up location", name, msg)
				}
			}
		})
	}
}

func TestEveryGoSchemaThatDoesNotCompileIsReported(t *testing.T) {
	_, err := Open(context.Background(), Options{Dir: t.TempDir(), NoWatch: true, Schemas: map[string]json.RawMessage{
		"write": json.RawMessage(`{"type":1}`),
		"bash":  json.RawMessage(`{`),
		"read":  json.RawMessage(`{"type":"object"}`),
	}})
	if err == nil {
		t.Fatal("Open accepted two broken schemas")
	}
	msg := err.Error()
	b, w := strings.Index(msg, `Options.Schemas["bash"]`), strings.Index(msg, `Options.Schemas["write"]`)
	if b < 0 || w < 0 || b > w || strings.Contains(msg, `"read"`) {
		t.Errorf("error %q, want bash then write, not read", msg)
	}
}

// Schemas that compile: a $ref into the schema's own $defs, a draft named
// by $schema, the boolean schemas; each holds a rewritten input to it, on
// an engine made by New as on an opened one.
func TestGoSchemasHoldRewrittenInputs(t *testing.T) {
	schemas := map[string]json.RawMessage{
		"bash":  json.RawMessage(`{"$defs":{"cmd":{"type":"string","minLength":1}},"type":"object","required":["command"],"properties":{"command":{"$ref":"#/$defs/cmd"}}}`),
		"write": json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["path"]}`),
		"read":  json.RawMessage(`false`),
		"grep":  json.RawMessage(` true `),
	}
	e, err := New(Options{Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	scope := e.Registry().Scope("test", registry.ScopeOptions{})
	defer scope.Close()
	if _, err := scope.RegisterFunc(luahook.PreToolUse, "", func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		return luahook.Mutate(json.RawMessage(`{"command":""}`)), nil
	}, luahook.Spec{Name: "rewrite"}); err != nil {
		t.Fatal(err)
	}
	for tool, denied := range map[string]bool{"bash": true, "write": true, "read": true, "grep": false} {
		res := e.Runner().PreToolUse(context.Background(), &luahook.Input{Event: luahook.PreToolUse, ToolName: tool,
			ToolInput: json.RawMessage(`{"command":"ls","path":"a"}`)})
		if res.Denied() != denied {
			t.Errorf("%s: denied %v (%s), want %v", tool, res.Denied(), res.Reason, denied)
		}
	}
}

// A config reload keeps the Go schemas in force, over the config's.
func TestGoSchemasOutliveAConfigReload(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, "[tools.bash]\nschema = '{\"type\":\"object\",\"required\":[\"path\"]}'\n")
	dir := hooksDir(t, map[string]string{
		"10-rewrite.lua": `hook.register("PreToolUse", "bash", function() return hook.mutate({ other = "x" }) end)`,
	})
	e := openEngine(t, Options{Dir: dir, ConfigPath: cfg, NoWatch: true,
		Schemas: map[string]json.RawMessage{"bash": json.RawMessage(`{"type":"object","required":["cmd"]}`)}})
	check := func(when string) {
		t.Helper()
		res := e.Runner().PreToolUse(context.Background(), &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash",
			ToolInput: json.RawMessage(`{}`), Cwd: root})
		if !res.Denied() || !strings.Contains(res.Reason, "cmd") || strings.Contains(res.Reason, "path") {
			t.Errorf("%s: result %+v, want the Go schema's denial naming cmd", when, res)
		}
	}
	check("at Open")
	writeFile(t, cfg, "[tools.bash]\nschema = '{\"type\":\"object\",\"required\":[\"other\",\"path\"]}'\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	check("after a reload")
}
