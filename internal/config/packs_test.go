package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestPackSettingsAreCheckedAgainstThePacksDeclaration: [packs.NAME] is
// checked against what the shipped pack declares: an unknown pack or key
// is an error naming the file, the line and the key, with the nearest
// name; a value of the wrong type names what the key wants and what it
// got; nested records are checked too. Every problem of a file is told.
func TestPackSettingsAreCheckedAgainstThePacksDeclaration(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		want             []string
	}{
		{"unknown key", "luahook.toml", "[packs.git]\nprotected_branch = [\"main\"]\n",
			[]string{`luahook.toml:2: packs.git.protected_branch: unknown key; did you mean protected_branches?`}},
		{"unknown key, nothing near", "luahook.toml", "[packs.cloud]\nzzzzzzzzzzzz = 1\n",
			[]string{`luahook.toml:2: packs.cloud.zzzzzzzzzzzz: unknown key (known: protected_contexts, unknown_context, live_stops, destroy_plan, object_deletes, grants)`}},
		{"unknown pack", "luahook.toml", "[packs.gti]\ndiscard = \"ask\"\n",
			[]string{`luahook.toml:1: packs.gti: unknown pack "gti"; did you mean git? (see: luahook add --list)`}},
		{"wrong type", "luahook.toml", "[packs.git]\ndiscard = true\nprotected_branches = \"main\"\n",
			[]string{`luahook.toml:2: packs.git.discard: must be a string, not a boolean`,
				`luahook.toml:3: packs.git.protected_branches: must be an array of strings, not a string`}},
		{"wrong element type", "luahook.toml", "[packs.network]\ndata_ports = [9200, \"x\"]\n",
			[]string{`luahook.toml:2: packs.network.data_ports[1]: must be a number, not a string`}},
		{"nested record", "luahook.toml", "[packs.budget]\nloop = { repeat = 5 }\n",
			[]string{`luahook.toml:2: packs.budget.loop.repeat: unknown key; did you mean repeats?`}},
		{"map values", "luahook.toml", "[packs.files.lockfiles]\n\"deno.lock\" = 1\n",
			[]string{`luahook.toml:2: packs.files.lockfiles."deno.lock": must be a string, not an integer`}},
		{"not a table", "luahook.toml", "packs = 1\n",
			[]string{`luahook.toml:1: packs: must be a table, not an integer`}},
		{"JSON", "luahook.json", "{\"packs\": {\"git\": {\"discard\": 1}}}",
			[]string{`luahook.json:1: packs.git.discard: must be a string, not a number`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.file, []byte(c.text))
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.Split(err.Error(), "\n")
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestPackSettingsDecodeForHookSettings: the values of [packs.NAME] as
// hook.settings gets them, numbers as written (integers or floats),
// records and maps as maps, arrays as slices; a key whose default is nil
// takes any type.
func TestPackSettingsDecodeForHookSettings(t *testing.T) {
	c, err := Parse("luahook.toml", []byte(`
[packs.budget]
max_tool_calls = 50
warn_at = 0.5
max_tokens = 1000
loop = { repeats = 4 }

[packs.files]
lockfiles = { "deno.lock" = "deno install" }
secret_files = [".vault-token"]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{
		"budget": {"max_tool_calls": int64(50), "warn_at": 0.5, "max_tokens": int64(1000),
			"loop": map[string]any{"repeats": int64(4)}},
		"files": {"lockfiles": map[string]any{"deno.lock": "deno install"}, "secret_files": []any{".vault-token"}},
	}
	if !reflect.DeepEqual(c.Packs, want) {
		t.Errorf("Packs = %#v\nwant %#v", c.Packs, want)
	}
	if d := Default(); d.Packs != nil {
		t.Errorf("Default().Packs = %v, want none", d.Packs)
	}
}
