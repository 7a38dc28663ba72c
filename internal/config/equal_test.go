package config

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/luahook/luahook"
)

func mustParse(t testing.TB, name, text string) *Config {
	t.Helper()
	c, err := Parse(name, []byte(text))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return c
}

func TestHooksEqualComparesTheHookSetStructurally(t *testing.T) {
	const base = `[[hooks.PreToolUse]]
name = "guard"
matcher = "bash"
command = "bash guard.sh"
failure_policy = "closed"

[[hooks.PostToolUse]]
type = "http"
url = "https://example.com/h"
headers = { A = "1", B = "${T}" }
allowed_env = ["T", "U"]
`
	tests := []struct {
		name  string
		a, b  string
		bname string // file name of b; "" = luahook.toml
		want  bool
	}{
		{"identical", base, base, "", true},
		{"key order inside an entry does not count", base, `[[hooks.PreToolUse]]
failure_policy = "closed"
command = "bash guard.sh"
matcher = "bash"
name = "guard"

[[hooks.PostToolUse]]
allowed_env = ["U", "T"]
headers = { B = "${T}", A = "1" }
url = "https://example.com/h"
type = "http"
`, "", true},
		{"the same hooks in JSON", base, `{"hooks": {
  "PostToolUse": [{"type": "http", "url": "https://example.com/h", "headers": {"B": "${T}", "A": "1"}, "allowedEnv": ["T", "U"]}],
  "PreToolUse": [{"name": "guard", "matcher": "bash", "command": "bash guard.sh", "failurePolicy": "closed"}]
}}`, "luahook.json", true},
		{"lines moved by comments do not count", base, "# a comment\n\n" + base, "", true},
		{"entry order counts",
			"[[hooks.Stop]]\ncommand = \"a\"\n[[hooks.Stop]]\ncommand = \"b\"\n",
			"[[hooks.Stop]]\ncommand = \"b\"\n[[hooks.Stop]]\ncommand = \"a\"\n", "", false},
		{"defaults written out are equal to omitted keys",
			"[[hooks.PreToolUse]]\ncommand = \"x\"\n",
			"[[hooks.PreToolUse]]\ncommand = \"x\"\nmatcher = \"*\"\nstage = \"validate\"\ntype = \"command\"\nfailure_policy = \"open\"\nname = \"x\"\npolicy = false\n", "", true},
		{"an empty matcher is the wildcard",
			"[[hooks.Stop]]\ncommand = \"x\"\nmatcher = \"\"\n",
			"[[hooks.Stop]]\ncommand = \"x\"\n", "", true},
		{"a written-out default timeout counts as a change",
			"[[hooks.Stop]]\ncommand = \"x\"\n",
			"[[hooks.Stop]]\ncommand = \"x\"\ntimeout_ms = 5000\n", "", false},
		{"an empty event list is no list",
			"[hooks]\nStop = []\n", "", "", true},
		{"a hook moved to another event",
			"[[hooks.Stop]]\ncommand = \"x\"\n",
			"[[hooks.SessionStart]]\ncommand = \"x\"\n", "", false},
		{"an extra hook", base, base + "[[hooks.Stop]]\ncommand = \"x\"\n", "", false},
		{"a header value", base, `[[hooks.PreToolUse]]
name = "guard"
matcher = "bash"
command = "bash guard.sh"
failure_policy = "closed"

[[hooks.PostToolUse]]
type = "http"
url = "https://example.com/h"
headers = { A = "2", B = "${T}" }
allowed_env = ["T", "U"]
`, "", false},
		{"only [lua] max_string_bytes changed", base, base + "[lua]\nmax_string_bytes = 1024\n", "", true},
		{"only hooks_dir, [runner], [lua] and [tools] changed", base,
			"hooks_dir = \"elsewhere\"\n" + base + "[runner]\nallow_non_policy = false\n[lua]\nallow_libs = [\"os\"]\n[tools.t]\nschema = '{}'\n", "", true},
		{"command allow changed", base, base + "[command]\nallow = [\"deno\"]\n", "", false},
		{"command pass_env changed", base, base + "[command]\npass_env = [\"GOPATH\"]\n", "", false},
		{"order of command allow does not count",
			"[command]\nallow = [\"a\", \"b\"]\n", "[command]\nallow = [\"b\", \"a\"]\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bname := tt.bname
			if bname == "" {
				bname = "luahook.toml"
			}
			a, b := mustParse(t, "luahook.toml", tt.a), mustParse(t, bname, tt.b)
			if got := a.HooksEqual(b); got != tt.want {
				t.Errorf("a.HooksEqual(b) = %v, want %v", got, tt.want)
			}
			if got := b.HooksEqual(a); got != tt.want {
				t.Errorf("b.HooksEqual(a) = %v, want %v (not symmetric)", got, tt.want)
			}
		})
	}
}

func TestHooksEqualTreatsNilAsDefault(t *testing.T) {
	var none *Config
	if !none.HooksEqual(Default()) || !Default().HooksEqual(nil) || !none.HooksEqual(nil) {
		t.Error("a nil Config should equal Default()")
	}
	withHook := mustParse(t, "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\n")
	if none.HooksEqual(withHook) || withHook.HooksEqual(nil) {
		t.Error("a nil Config should differ from one with hooks")
	}
}

// Every field of Hook but Source must take part in the comparison, so that
// a field added later (to Hook or to its luahook.Spec) cannot be forgotten.
// The spec's Hook is the one exception: configuration never sets it.
func TestHooksEqualSeesEveryHookField(t *testing.T) {
	base := Hook{
		Spec: luahook.Spec{Source: "a:1", Event: luahook.PostToolUse, Kind: luahook.KindHTTP, Name: "n", Matcher: "*",
			FailurePolicy: luahook.FailOpen},
		URL: "https://e.com", Headers: map[string]string{"A": "1"}, AllowedEnv: []string{"T"},
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(base)) {
		if f.Anonymous {
			continue // its fields are visited one by one
		}
		other := base
		other.Headers = map[string]string{"A": "1"}
		v := reflect.ValueOf(&other).Elem().FieldByIndex(f.Index)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Map:
			v.Set(reflect.ValueOf(map[string]string{"A": "2"}))
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{"U"}))
		case reflect.Interface:
			v.Set(reflect.ValueOf(luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", f.Name, v.Kind())
		}
		a := &Config{Hooks: map[luahook.Event][]Hook{luahook.PostToolUse: {base}}}
		b := &Config{Hooks: map[luahook.Event][]Hook{luahook.PostToolUse: {other}}}
		if got, want := a.HooksEqual(b), f.Name == "Source" || f.Name == "Hook"; got != want {
			t.Errorf("changing %s: HooksEqual = %v, want %v", f.Name, got, want)
		}
	}
}

func BenchmarkHooksEqual(b *testing.B) {
	a := mustParse(b, "testdata/full.toml", readFile(b, "testdata/full.toml"))
	c := mustParse(b, "testdata/full.json", readFile(b, "testdata/full.json"))
	b.ReportAllocs()
	for b.Loop() {
		if !a.HooksEqual(c) {
			b.Fatal("not equal")
		}
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
