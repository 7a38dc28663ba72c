package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

func TestDefaultIsTheConfigurationWithoutAFile(t *testing.T) {
	want := &Config{
		HooksDir: "hooks.d",
		Runner:   Runner{AllowNonPolicy: true, MaxInputBytes: 8 << 20, MaxContextBytes: 64 << 10, BackgroundWorkers: 4, BackgroundQueue: 256, OnLoadError: "deny", SelfProtect: true},
		Lua:      Lua{MaxStringBytes: 16 << 20, LoadTimeoutMs: 2000, MaxInputValues: 100_000},
		Store: Store{MaxKeyBytes: 1 << 10, MaxValueBytes: 1 << 20, MaxKeys: 100_000, MaxBytes: 64 << 20,
			LedgerMaxMarks: 64, LedgerMaxCalls: 32, LedgerMaxBytes: 64 << 10, LedgerMaxAgeMs: 24 * 3600 * 1000,
			StoreBackend: StoreBackend{Backend: "memory", KeyPrefix: "luahook:", DialTimeoutMs: 1000, TimeoutMs: 1000, PoolSize: 32, LockTimeoutMs: 500}},
		DecisionLog: DecisionLog{Path: "stdout", MaxBytes: 16 << 20, MaxFiles: 5, Queue: 1024, MaxInputBytes: 64 << 10,
			MaskWith: "[masked]", RedactSecrets: true},
	}
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Default() = %+v, want %+v", got, want)
	}
	// An empty file of either format is the same configuration.
	for _, f := range []struct{ name, text string }{{"luahook.toml", ""}, {"luahook.toml", "# nothing\n\n"}, {"luahook.json", "{}"}} {
		c, err := Parse(f.name, []byte(f.text))
		if err != nil {
			t.Fatalf("Parse(%s, %q): %v", f.name, f.text, err)
		}
		want.Path = f.name
		if !reflect.DeepEqual(c, want) {
			t.Errorf("Parse(%s, %q) = %+v, want %+v", f.name, f.text, c, want)
		}
	}
}

// hook is a valid, normalised hook for the good-file table.
func hook(src string, ev luahook.Event, edit func(*Hook)) Hook {
	h := Hook{Spec: luahook.Spec{Source: src, Event: ev, Kind: luahook.KindCommand, Matcher: "*", FailurePolicy: luahook.FailOpen}}
	if ev == luahook.PreToolUse {
		h.Stage = luahook.StageValidate
	}
	edit(&h)
	if h.Name == "" {
		h.Name = h.Command + h.URL
	}
	return h
}

func TestParseAcceptsGoodFiles(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		text  string
		hooks map[luahook.Event][]Hook
	}{
		{
			name: "seed JSON example",
			file: "config.json",
			text: `{
  "hooks": {
    "PreToolUse": [
      {
        "name": "bash-safety",
        "matcher": "bash",
        "stage": "validate",
        "command": "bash ./scripts/guard-bash.sh",
        "timeoutMs": 3000,
        "failurePolicy": "closed",
        "policy": true
      },
      { "matcher": "edit|write", "command": "bash ./scripts/audit-edit.sh" }
    ],
    "SessionStart": [
      { "command": "bash ./scripts/on-start.sh" }
    ],
    "Stop": [
      { "command": "bash ./scripts/on-stop.sh" }
    ]
  }
}`,
			hooks: map[luahook.Event][]Hook{
				luahook.PreToolUse: {
					hook("config.json:4", luahook.PreToolUse, func(h *Hook) {
						h.Name, h.Matcher, h.Command, h.Timeout = "bash-safety", "bash", "bash ./scripts/guard-bash.sh", 3000*time.Millisecond
						h.FailurePolicy, h.Policy = luahook.FailClosed, true
					}),
					hook("config.json:13", luahook.PreToolUse, func(h *Hook) { h.Matcher, h.Command = "edit|write", "bash ./scripts/audit-edit.sh" }),
				},
				luahook.SessionStart: {hook("config.json:16", luahook.SessionStart, func(h *Hook) { h.Command = "bash ./scripts/on-start.sh" })},
				luahook.Stop:         {hook("config.json:19", luahook.Stop, func(h *Hook) { h.Command = "bash ./scripts/on-stop.sh" })},
			},
		},
		{
			name: "array of inline tables, quoted event key, dotted keys",
			file: "luahook.toml",
			text: `[hooks]
"PostToolUse" = [
  { command = "a" },

  { type = "http", url = "http://127.0.0.1:8080/h", headers.X-Id = "1", background = true },
]
`,
			hooks: map[luahook.Event][]Hook{luahook.PostToolUse: {
				hook("luahook.toml:3", luahook.PostToolUse, func(h *Hook) { h.Command = "a" }),
				hook("luahook.toml:5", luahook.PostToolUse, func(h *Hook) {
					h.Kind, h.URL, h.Headers, h.Background = luahook.KindHTTP, "http://127.0.0.1:8080/h", map[string]string{"X-Id": "1"}, true
				}),
			}},
		},
		{
			name: "sub-table of the latest array entry, CRLF line ends",
			file: "luahook.toml",
			text: "[[hooks.Notification]]\r\ntype = \"http\"\r\nurl = \"https://[::1]/x\"\r\nallowed_env = [\"TOK\"]\r\n" +
				"[hooks.Notification.headers]\r\nAuthorization = \"Bearer ${TOK}\"\r\n[[hooks.Notification]]\r\ncommand = \"jq .\"\r\nmatcher = \"permission\"\r\n",
			hooks: map[luahook.Event][]Hook{luahook.Notification: {
				hook("luahook.toml:1", luahook.Notification, func(h *Hook) {
					h.Kind, h.URL, h.AllowedEnv = luahook.KindHTTP, "https://[::1]/x", []string{"TOK"}
					h.Headers = map[string]string{"Authorization": "Bearer ${TOK}"}
				}),
				hook("luahook.toml:7", luahook.Notification, func(h *Hook) { h.Command, h.Matcher = "jq .", "permission" }),
			}},
		},
		{
			name: "name falls back to the command; whitespace name counts as none",
			file: "luahook.toml",
			text: "\ufeff[[hooks.UserPromptSubmit]]\nname = \"  \"\ncommand = \"luahook fire\"\n[[hooks.UserPromptSubmit]]\nname = \" gate \"\ncommand = \"sh -c 'exit 0'\"\nstage = \"\"\n",
			hooks: map[luahook.Event][]Hook{luahook.UserPromptSubmit: {
				hook("luahook.toml:1", luahook.UserPromptSubmit, func(h *Hook) { h.Command = "luahook fire" }),
				hook("luahook.toml:4", luahook.UserPromptSubmit, func(h *Hook) { h.Name, h.Command = "gate", "sh -c 'exit 0'" }),
			}},
		},
		{
			name: "background = false and run_when_tool_skipped = false are fine anywhere",
			file: "hooks", // no extension: sniffed as TOML
			text: "[[hooks.Stop]]\ncommand = \"x\"\nbackground = false\nrun_when_tool_skipped = false\n",
			hooks: map[luahook.Event][]Hook{luahook.Stop: {
				hook("hooks:1", luahook.Stop, func(h *Hook) { h.Command = "x" }),
			}},
		},
		{
			name: "mode = shadow on a command hook",
			file: "luahook.toml",
			text: "[[hooks.PreToolUse]]\ncommand = \"x\"\nmode = \"shadow\"\n",
			hooks: map[luahook.Event][]Hook{luahook.PreToolUse: {
				hook("luahook.toml:1", luahook.PreToolUse, func(h *Hook) { h.Command, h.Mode = "x", luahook.ModeShadow }),
			}},
		},
		{
			name: "sniffed JSON, empty event list",
			file: "hooks.conf",
			text: "  \n{\"hooks\": {\"Stop\": [], \"SessionEnd\": [{\"command\": \"x\", \"timeoutMs\": 600000}]}}",
			hooks: map[luahook.Event][]Hook{luahook.SessionEnd: {
				hook("hooks.conf:2", luahook.SessionEnd, func(h *Hook) { h.Command, h.Timeout = "x", 600000*time.Millisecond }),
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.file, []byte(tt.text))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(c.Hooks, tt.hooks) {
				t.Errorf("hooks:\n got %+v\nwant %+v", c.Hooks, tt.hooks)
			}
			for ev, hs := range c.Hooks {
				for i := range hs {
					if err := hs[i].Validate(); err != nil {
						t.Errorf("%s[%d] does not validate after defaults: %v", ev, i, err)
					}
				}
			}
		})
	}
}

func TestEveryHookCarriesTheSourceLineOfItsEntry(t *testing.T) {
	text := `[lua]
allow_env = ["A",
  "B"]

[[hooks.PreToolUse]]   # 5
command = """
multi
line"""

[[hooks.PostToolUse]]  # 10
command = "x"

[[hooks.PreToolUse]]   # 13
command = "y"
[hooks]
Stop = [{ command = "s1" }, { command = "s2" },
  { command = "s3" }]  # 17
`
	c, err := Parse("dir/luahook.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for ev, hs := range c.Hooks {
		for i, h := range hs {
			got[joinIndex(string(ev), i)] = h.Source
		}
	}
	want := map[string]string{
		"PreToolUse[0]":  "dir/luahook.toml:5",
		"PreToolUse[1]":  "dir/luahook.toml:13",
		"PostToolUse[0]": "dir/luahook.toml:10",
		"Stop[0]":        "dir/luahook.toml:16",
		"Stop[1]":        "dir/luahook.toml:16",
		"Stop[2]":        "dir/luahook.toml:17",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sources:\n got %v\nwant %v", got, want)
	}
}

func TestTOMLAndJSONFormsLoadToEqualConfigs(t *testing.T) {
	ct, err := Load("testdata/full.toml")
	if err != nil {
		t.Fatal(err)
	}
	cj, err := Load("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	if ct.NumHooks() != 5 || len(ct.Tools) != 3 {
		t.Fatalf("full.toml loaded %d hooks and %d tools, want 5 and 3", ct.NumHooks(), len(ct.Tools))
	}
	got := ct.Store
	got.Source = ""
	if want := (Store{MaxKeyBytes: 512, MaxValueBytes: 65536, MaxKeys: 10000, MaxBytes: 16 << 20,
		LedgerMaxMarks: 64, LedgerMaxCalls: 8, LedgerMaxBytes: 64 << 10, LedgerMaxAgeMs: 3600000, StoreBackend: defaultStoreBackend()}); got != want {
		t.Errorf("full.toml [store] = %+v, want %+v", got, want)
	}
	for _, c := range []*Config{ct, cj} {
		c.Path = ""
		c.Store.Source = ""
		for _, hs := range c.Hooks {
			for i := range hs {
				hs[i].Source = ""
			}
		}
		for name, tool := range c.Tools {
			tool.Source = ""
			c.Tools[name] = tool
		}
	}
	if !reflect.DeepEqual(ct, cj) {
		t.Errorf("TOML and JSON differ:\nTOML %+v\nJSON %+v", ct, cj)
	}
}

func TestRelativePathsResolveAgainstTheConfigFolder(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "schemas", "a.json")
	text := "hooks_dir = \"policies\"\n[tools.a]\nschema_file = \"s/a.json\"\n[tools.b]\nschema_file = " + quoteTOML(abs) + "\n"
	c, err := Parse(filepath.Join("etc", "luahook", "luahook.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("etc", "luahook", "policies"); c.HooksDir != want {
		t.Errorf("HooksDir = %q, want %q", c.HooksDir, want)
	}
	if want := filepath.Join("etc", "luahook", "s", "a.json"); c.Tools["a"].SchemaFile != want {
		t.Errorf("tools.a SchemaFile = %q, want %q", c.Tools["a"].SchemaFile, want)
	}
	if c.Tools["b"].SchemaFile != abs {
		t.Errorf("tools.b SchemaFile = %q, want the absolute path %q unchanged", c.Tools["b"].SchemaFile, abs)
	}
	// Without a folder (Default, or a bare file name) paths stay as written.
	c, err = Parse("luahook.toml", []byte("hooks_dir = \"/srv/hooks\"\n"))
	if err != nil || c.HooksDir != "/srv/hooks" {
		t.Errorf("absolute hooks_dir = %q, %v; want it unchanged", c.HooksDir, err)
	}
	if c := Default(); c.HooksDir != "hooks.d" {
		t.Errorf("Default().HooksDir = %q", c.HooksDir)
	}
}

func quoteTOML(s string) string { return "'" + s + "'" }

func TestLoadChoosesTheFormatAndReportsMissingFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, text string
		wantErr    string // "" = loads
	}{
		{"a.toml", "[runner]\nallow_non_policy = false\n", ""},
		{"b.JSON", `{"runner": {"allowNonPolicy": false}}`, ""},
		{"c.conf", `{"runner": {"allowNonPolicy": false}}`, ""},                      // sniffed JSON
		{"d", "[runner]\nallow_non_policy = false\n", ""},                            // sniffed TOML
		{"e.json", "[runner]\nallow_non_policy = false\n", "e.json:1: invalid JSON"}, // extension wins
		{"f.toml", `{"runner": {"allowNonPolicy": false}}`, "f.toml:1: invalid TOML"},
	}
	for _, tt := range tests {
		p := write(tt.name, tt.text)
		c, err := Load(p)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("Load(%s): %v", tt.name, err)
		case tt.wantErr == "" && (c.Runner.AllowNonPolicy || c.Path != p):
			t.Errorf("Load(%s) = %+v, want allow_non_policy false and Path %s", tt.name, c, p)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Load(%s) error = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want fs.ErrNotExist", err)
	}
	big := write("big.toml", "# "+strings.Repeat("x", MaxFileBytes)+"\n")
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load(big) = %v, want a size error", err)
	}
}

func TestHookValidateAppliesTheFileRulesToGoValues(t *testing.T) {
	tests := []struct {
		name string
		hook Hook
		want string
	}{
		{"valid command hook with zero defaults", Hook{Spec: luahook.Spec{Event: luahook.PreToolUse}, Command: "jq ."}, ""},
		{"valid http hook", Hook{Spec: luahook.Spec{Event: luahook.PostToolUse, Kind: luahook.KindHTTP, Background: true}, URL: "https://example.com/h",
			Headers: map[string]string{"A": "${T}"}, AllowedEnv: []string{"T"}}, ""},
		{"unknown event", Hook{Spec: luahook.Spec{Event: "Later"}, Command: "x"}, `unknown event "Later"`},
		{"several problems", Hook{Spec: luahook.Spec{Event: luahook.Stop, Stage: luahook.StageMutate, Timeout: -time.Millisecond}, Command: "x", URL: "https://e.com"},
			"stage: stage applies to PreToolUse only\ntimeout_ms: must be between 1 and 600000, not -1\nurl: only http hooks take this key (this hook's type is command)"},
		{"list entries are named by index", Hook{Spec: luahook.Spec{Event: luahook.Stop, Kind: luahook.KindHTTP}, URL: "https://e.com", AllowedEnv: []string{"A", "A"}},
			`allowed_env[1]: "A" is listed twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.hook.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

func BenchmarkParseTOML(b *testing.B) {
	data, err := os.ReadFile("testdata/full.toml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("testdata/full.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseJSON(b *testing.B) {
	data, err := os.ReadFile("testdata/full.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("testdata/full.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecisionLogSectionIsReadWithItsPathResolved(t *testing.T) {
	c, err := Parse("/etc/luahook/luahook.toml", []byte(`[decision_log]
enabled = true
path = "logs/decisions.jsonl"
max_bytes = 1048576
max_files = 0
queue = 64
max_input_bytes = 4096
drop = ["toolInput.env"]
mask = ["toolInput.headers.Authorization", "native.*.token", "toolInput.args[*]"]
mask_with = "***"
redact_secrets = false
`))
	if err != nil {
		t.Fatal(err)
	}
	on := true
	want := DecisionLog{Enabled: &on, Path: "/etc/luahook/logs/decisions.jsonl", MaxBytes: 1 << 20, MaxFiles: 0, Queue: 64,
		MaxInputBytes: 4096, Drop: []string{"toolInput.env"},
		Mask:     []string{"toolInput.headers.Authorization", "native.*.token", "toolInput.args[*]"},
		MaskWith: "***", RedactSecrets: false}
	if !reflect.DeepEqual(c.DecisionLog, want) {
		t.Errorf("[decision_log] = %+v, want %+v", c.DecisionLog, want)
	}
	c, err = Parse("luahook.toml", []byte("[decision_log]\nenabled = false\npath = \"stderr\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.DecisionLog.Enabled == nil || *c.DecisionLog.Enabled || c.DecisionLog.Path != "stderr" {
		t.Errorf("enabled = false, path = stderr read as %+v", c.DecisionLog)
	}
}
