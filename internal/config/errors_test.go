package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseRejectsBadFilesWithExactErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		text string
		want string
	}{
		{"TOML syntax error names the line", "luahook.toml", "[lua]\nmax_string_bytes = \n",
			`luahook.toml:2: invalid TOML: expected value but found '\n' instead`},
		{"TOML duplicate key", "luahook.toml", "hooks_dir = \"a\"\nhooks_dir = \"b\"\n",
			`luahook.toml:2: invalid TOML: Key 'hooks_dir' has already been defined.`},
		{"unknown top-level key lists the known ones", "luahook.toml", "\nfoo = 1\n",
			`luahook.toml:2: foo: unknown key (known: hooks_dir, runner, lua, store, command, hooks, tools, decision_log, telemetry, packs)`},
		{"unknown key close to a known one", "luahook.toml", "hooksDir = \"x\"\n",
			`luahook.toml:1: hooksDir: unknown key; did you mean hooks_dir?`},
		{"unknown key in a section", "luahook.toml", "[runner]\nallow_non_policy = true\nstrict = true\n",
			`luahook.toml:3: runner.strict: unknown key (known: allow_non_policy, max_input_bytes, max_context_bytes, background_workers, background_queue, on_load_error, self_protect)`},
		{"on_load_error is deny, skip or fail", "luahook.toml", "[runner]\non_load_error = \"ignore\"\n",
			`luahook.toml:2: runner.on_load_error: "ignore" is not a choice (want deny, skip, fail)`},
		{"on_load_error is a string", "luahook.json", "{\"runner\": {\"onLoadError\": false}}",
			`luahook.json:1: runner.onLoadError: must be a string, not a boolean`},
		{"background_workers is bounded", "luahook.toml", "[runner]\nbackground_workers = 1000\n",
			`luahook.toml:2: runner.background_workers: must be between 1 and 256, not 1000`},
		{"background_queue is at least 1", "luahook.toml", "[runner]\nbackground_queue = 0\n",
			`luahook.toml:2: runner.background_queue: must be between 1 and 100000, not 0`},
		{"max_context_bytes is at least 1024", "luahook.toml", "[runner]\nmax_context_bytes = 100\n",
			`luahook.toml:2: runner.max_context_bytes: must be at least 1024, not 100`},
		{"max_input_values is at least 1", "luahook.toml", "[lua]\nmax_input_values = -5\n",
			`luahook.toml:2: lua.max_input_values: must be at least 1, not -5`},
		{"unknown key in an entry", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\ntimeoutMs = 5\n",
			`luahook.toml:3: hooks.Stop[0].timeoutMs: unknown key; did you mean timeout_ms?`},
		{"unknown event lists the known ones", "luahook.toml", "[[hooks.PreToolUs]]\ncommand = \"x\"\n",
			`luahook.toml:1: hooks.PreToolUs: unknown event "PreToolUs" (known: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification, SubagentStart, SubagentStop, PreCompact, PostCompact, Stop, SessionEnd)`},
		{"event names are case-sensitive", "luahook.toml", "[[hooks.pretooluse]]\ncommand = \"x\"\n",
			`luahook.toml:1: hooks.pretooluse: unknown event "pretooluse"; event names are case-sensitive: did you mean PreToolUse?`},
		{"stage must be mutate or validate", "luahook.toml", "[[hooks.PreToolUse]]\ncommand = \"x\"\n\n[[hooks.PreToolUse]]\ncommand = \"y\"\nstage = \"check\"\n",
			`luahook.toml:6: hooks.PreToolUse[1].stage: "check" is not a stage (want mutate or validate)`},
		{"stage applies to PreToolUse only", "luahook.toml", "[[hooks.PostToolUse]]\ncommand = \"x\"\nstage = \"validate\"\n",
			`luahook.toml:3: hooks.PostToolUse[0].stage: stage applies to PreToolUse only`},
		{"failure_policy must be open or closed", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\nfailure_policy = \"shut\"\n",
			`luahook.toml:3: hooks.Stop[0].failure_policy: "shut" is not a failure policy (want open or closed)`},
		{"mode must be shadow or left out", "luahook.toml", "[[hooks.PreToolUse]]\ncommand = \"x\"\nmode = \"dry-run\"\n",
			`luahook.toml:3: hooks.PreToolUse[0].mode: "dry-run" is not a mode (want "shadow", or leave it out for a live hook)`},
		{"type must be command or http", "luahook.toml", "[[hooks.Stop]]\ntype = \"grpc\"\ncommand = \"x\"\n",
			`luahook.toml:2: hooks.Stop[0].type: "grpc" is not a hook type (want command or http)`},
		{"timeout_ms below 1", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\ntimeout_ms = 0\n",
			`luahook.toml:3: hooks.Stop[0].timeout_ms: must be between 1 and 600000, not 0`},
		{"timeout_ms above 10 minutes", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\ntimeout_ms = 600001\n",
			`luahook.toml:3: hooks.Stop[0].timeout_ms: must be between 1 and 600000, not 600001`},
		{"timeout_ms must be an integer", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\ntimeout_ms = 1.5\n",
			`luahook.toml:3: hooks.Stop[0].timeout_ms: must be an integer, not a float`},
		{"timeout_ms as a string", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\ntimeout_ms = \"3000\"\n",
			`luahook.toml:3: hooks.Stop[0].timeout_ms: must be an integer, not a string`},
		{"negative max_string_bytes", "luahook.toml", "[lua]\nmax_string_bytes = -1\n",
			`luahook.toml:2: lua.max_string_bytes: must be at least 1, not -1`},
		{"zero max_string_bytes", "luahook.toml", "[lua]\nmax_string_bytes = 0\n",
			`luahook.toml:2: lua.max_string_bytes: must be at least 1, not 0`},
		{"load_timeout_ms range", "luahook.toml", "[lua]\nload_timeout_ms = 0\n",
			`luahook.toml:2: lua.load_timeout_ms: must be between 1 and 600000, not 0`},
		{"store max_key_bytes at least 1", "luahook.toml", "[store]\nmax_key_bytes = 0\n",
			`luahook.toml:2: store.max_key_bytes: must be at least 1, not 0`},
		{"store max_value_bytes at least 1", "luahook.toml", "[store]\nmax_value_bytes = -1\n",
			`luahook.toml:2: store.max_value_bytes: must be at least 1, not -1`},
		{"store max_keys at least 1", "luahook.toml", "[store]\nmax_keys = 0\n",
			`luahook.toml:2: store.max_keys: must be at least 1, not 0`},
		{"store max_bytes at least 1", "luahook.toml", "[store]\nmax_bytes = 0\n",
			`luahook.toml:2: store.max_bytes: must be at least 1, not 0`},
		{"store bounds are integers", "luahook.json", "{\"store\": {\"maxKeys\": 1.5}}",
			`luahook.json:1: store.maxKeys: must be an integer, not 1.5`},
		{"store keys are known", "luahook.toml", "[store]\nmax_entries = 5\n",
			`luahook.toml:2: store.max_entries: unknown key (known: max_key_bytes, max_value_bytes, max_keys, max_bytes, backend, address, username, password_env, db, key_prefix, dial_timeout_ms, timeout_ms, pool_size, tls, tls_ca, tls_server_name, path, lock_timeout_ms, ledger_max_marks, ledger_max_calls, ledger_max_bytes, ledger_max_age_ms)`},
		{"ledger bounds are bounded", "luahook.toml", "[store]\nledger_max_marks = 5000\n",
			`luahook.toml:2: store.ledger_max_marks: must be between 1 and 4096, not 5000`},
		{"ledger age is bounded", "luahook.toml", "[store]\nledger_max_age_ms = 0\n",
			`luahook.toml:2: store.ledger_max_age_ms: must be between 1 and 315360000000, not 0`},
		{"decision_log mask path names a payload key", "luahook.toml", "[decision_log]\nmask = [\"toolInput.env\", \"tool_input.env\"]\n",
			`luahook.toml:2: decision_log.mask[1]: path "tool_input.env": "tool_input" is not a payload key (want one of event, toolName, toolInput, toolCapabilities, toolMutating, toolResult, prompt, compaction, subagent, notification, cwd, sessionId, agent, native, client)`},
		{"decision_log drop path index", "luahook.toml", "[decision_log]\ndrop = [\"toolInput.args[x]\"]\n",
			`luahook.toml:2: decision_log.drop[0]: path "toolInput.args[x]": "[x]" is not an index (want [N] or [*])`},
		{"decision_log max_files range", "luahook.toml", "[decision_log]\nmax_files = 1001\n",
			`luahook.toml:2: decision_log.max_files: must be between 0 and 1000, not 1001`},
		{"decision_log enabled is a boolean", "luahook.toml", "[decision_log]\nenabled = \"yes\"\n",
			`luahook.toml:2: decision_log.enabled: must be a boolean, not a string`},
		{"decision_log keys are known", "luahook.toml", "[decision_log]\nfile = \"x\"\n",
			`luahook.toml:2: decision_log.file: unknown key (known: enabled, path, max_bytes, max_files, queue, max_input_bytes, drop, mask, mask_with, redact_secrets, max_age, signing_key, checkpoint_every)`},
		{"background applies to PostToolUse only", "luahook.toml", "[[hooks.PreToolUse]]\ncommand = \"x\"\nbackground = true\n",
			`luahook.toml:3: hooks.PreToolUse[0].background: background applies to PostToolUse only`},
		{"run_when_tool_skipped applies to PostToolUse only", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\nrun_when_tool_skipped = true\n",
			`luahook.toml:3: hooks.Stop[0].run_when_tool_skipped: run_when_tool_skipped applies to PostToolUse only`},
		{"http entry without url", "luahook.toml", "[[hooks.PostToolUse]]\ntype = \"http\"\n",
			`luahook.toml:1: hooks.PostToolUse[0].url: an http hook needs a url`},
		{"command entry without command", "luahook.toml", "[[hooks.Stop]]\nmatcher = \"*\"\n",
			`luahook.toml:1: hooks.Stop[0].command: a command hook needs a command`},
		{"blank command", "luahook.toml", "[[hooks.Stop]]\ncommand = \"  \"\n",
			`luahook.toml:2: hooks.Stop[0].command: a command hook needs a command`},
		{"command entry with url", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\nurl = \"https://example.com/h\"\n",
			`luahook.toml:3: hooks.Stop[0].url: only http hooks take this key (this hook's type is command)`},
		{"command entry with headers", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\n[hooks.Stop.headers]\nA = \"b\"\n",
			`luahook.toml:3: hooks.Stop[0].headers: only http hooks take this key (this hook's type is command)`},
		{"command entry with allow_private_network", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\nallow_private_network = true\n",
			`luahook.toml:3: hooks.Stop[0].allow_private_network: only http hooks take this key (this hook's type is command)`},
		{"http entry with command", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"https://example.com/h\"\ncommand = \"x\"\n",
			`luahook.toml:4: hooks.Stop[0].command: only command hooks take this key (this hook's type is http)`},
		{"string where a bool is expected", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\npolicy = \"yes\"\n",
			`luahook.toml:3: hooks.Stop[0].policy: must be a boolean, not a string`},
		{"table where a bool is expected", "luahook.toml", "[runner]\nallow_non_policy.x = 1\n",
			`luahook.toml:2: runner.allow_non_policy: must be a boolean, not a table`},
		{"datetime where a string is expected", "luahook.toml", "[[hooks.Stop]]\ncommand = \"x\"\nname = 1979-05-27\n",
			`luahook.toml:3: hooks.Stop[0].name: must be a string, not a datetime`},
		{"a command that is not a string is one error", "luahook.toml", "[[hooks.Stop]]\ncommand = [\"bash\", \"x\"]\n",
			`luahook.toml:2: hooks.Stop[0].command: must be a string, not an array`},
		{"an allowed_env of the wrong type is one error", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"https://e.com\"\nallowed_env = \"T\"\nheaders = { A = \"${T}\" }\n",
			`luahook.toml:4: hooks.Stop[0].allowed_env: must be an array of strings, not a string`},
		{"hooks must be a table", "luahook.toml", "hooks = []\n",
			`luahook.toml:1: hooks: must be a table, not an array`},
		{"an event holds an array of tables", "luahook.toml", "[hooks]\nStop = \"x\"\n",
			`luahook.toml:2: hooks.Stop: must be an array of tables, not a string`},
		{"an entry is a table", "luahook.toml", "[hooks]\nStop = [\n  \"bash x\",\n]\n",
			`luahook.toml:3: hooks.Stop[0]: must be a table, not a string`},
		{"header value expands only allowed_env names", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"https://example.com/h\"\nallowed_env = [\"A\"]\nheaders = { Authorization = \"Bearer ${POLICY_TOKEN}\" }\n",
			`luahook.toml:5: hooks.Stop[0].headers.Authorization: uses ${POLICY_TOKEN}, which allowed_env does not list`},
		{"header name must be a token", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"https://example.com/h\"\n[hooks.Stop.headers]\n\"X Team\" = \"a\"\n",
			`luahook.toml:5: hooks.Stop[0].headers."X Team": "X Team" is not a valid header name`},
		{"header values are strings", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"https://example.com/h\"\nheaders = { X-N = 1 }\n",
			`luahook.toml:4: hooks.Stop[0].headers.X-N: must be a string, not an integer`},
		{"cleartext http only to loopback", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"http://example.com/h\"\n",
			`luahook.toml:3: hooks.Stop[0].url: cleartext http:// is allowed only to localhost, 127.0.0.1 and [::1]; use https://`},
		{"url scheme", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"ftp://example.com/h\"\n",
			`luahook.toml:3: hooks.Stop[0].url: "ftp://example.com/h" is not an http:// or https:// URL`},
		{"url without credentials", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"https://u:p@example.com/h\"\n",
			`luahook.toml:3: hooks.Stop[0].url: must not carry credentials (send them in a header that expands ${NAME})`},
		{"allowed_env names", "luahook.toml", "[[hooks.Stop]]\ntype = \"http\"\nurl = \"https://example.com/h\"\nallowed_env = [\n  \"A\",\n  \"1B\",\n]\n",
			`luahook.toml:6: hooks.Stop[0].allowed_env[1]: "1B" is not an environment variable name`},
		{"allow_libs lists grantable libraries", "luahook.toml", "[lua]\nallow_libs = [\"os\", \"net\"]\n",
			`luahook.toml:2: lua.allow_libs[1]: "net" is not a library that can be granted (want one of io, os)`},
		{"allow_libs without duplicates", "luahook.toml", "[lua]\nallow_libs = [\"os\", \"os\"]\n",
			`luahook.toml:2: lua.allow_libs[1]: "os" is listed twice`},
		{"allow_libs holds strings", "luahook.toml", "[lua]\nallow_libs = \"os\"\n",
			`luahook.toml:2: lua.allow_libs: must be an array of strings, not a string`},
		{"allow_env names", "luahook.toml", "[lua]\nallow_env = [\"HOME\", \"A-B\"]\n",
			`luahook.toml:2: lua.allow_env[1]: "A-B" is not an environment variable name`},
		{"command.allow takes first words", "luahook.toml", "[command]\nallow = [\"./deploy.sh\"]\n",
			`luahook.toml:2: command.allow[0]: "./deploy.sh" is not a command name (a first word, without path or spaces)`},
		{"command.pass_env names", "luahook.toml", "[command]\npass_env = [\"\"]\n",
			`luahook.toml:2: command.pass_env[0]: "" is not an environment variable name`},
		{"hooks_dir not empty", "luahook.toml", "hooks_dir = \"\"\n",
			`luahook.toml:1: hooks_dir: must not be empty`},
		{"tool needs a schema", "luahook.toml", "[tools.bash]\n",
			`luahook.toml:1: tools.bash: needs schema or schema_file`},
		{"schema and schema_file exclude each other", "luahook.toml", "[tools.bash]\nschema = '{}'\nschema_file = \"s.json\"\n",
			`luahook.toml:3: tools.bash.schema_file: schema and schema_file exclude each other; keep one`},
		{"inline schema must be JSON", "luahook.toml", "[tools.bash]\nschema = '{\"type\": }'\n",
			`luahook.toml:2: tools.bash.schema: not valid JSON: invalid character '}' looking for beginning of value`},
		{"inline schema must be an object", "luahook.toml", "[tools.bash]\nschema = '[1]'\n",
			`luahook.toml:2: tools.bash.schema: must hold a JSON object (or true or false), not [1]`},
		{"schema of the wrong type", "luahook.toml", "[tools.bash]\nschema = 5\n",
			`luahook.toml:2: tools.bash.schema: must be a table or a string of JSON, not an integer`},
		{"schema table without JSON equivalent", "luahook.toml", "[tools.bash.schema]\ntype = \"object\"\nexamples = [1979-05-27]\n",
			`luahook.toml:3: tools.bash.schema.examples[0]: a datetime has no JSON equivalent`},
		{"schema table with a non-finite float", "luahook.toml", "[tools.bash.schema]\nmaximum = inf\n",
			`luahook.toml:2: tools.bash.schema.maximum: a float has no JSON equivalent`},
		{"unknown key of a tool", "luahook.toml", "[tools.bash]\nschema = '{}'\nschemaFile = \"x\"\n",
			`luahook.toml:3: tools.bash.schemaFile: unknown key; did you mean schema_file?`},

		{"JSON syntax error names the line", "luahook.json", "{\n  \"hooksDir\": \"x\",\n}\n",
			`luahook.json:3: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"JSON unexpected end", "luahook.json", "{\n  \"hooks\": {\n",
			`luahook.json:2: invalid JSON: unexpected end of file`},
		{"empty JSON file", "luahook.json", "",
			`luahook.json:1: invalid JSON: unexpected end of file`},
		{"JSON data after the object", "luahook.json", "{}\n{}\n",
			`luahook.json:2: invalid JSON: unexpected data after the top-level value`},
		{"JSON duplicate key", "luahook.json", "{\n  \"lua\": {},\n  \"lua\": {}\n}",
			`luahook.json:3: lua: duplicate key`},
		{"JSON nesting depth", "luahook.json", "{\"tools\": {\"t\": {\"schema\": " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "}}}",
			`luahook.json:1: invalid JSON: nested more than 64 levels deep`},
		{"JSON top level is an object", "luahook.json", "[]",
			`luahook.json:1: must be an object, not an array`},
		{"JSON keys are camelCase", "luahook.json", "{\"hooks\": {\"Stop\": [\n  {\"command\": \"x\", \"timeout_ms\": 5}\n]}}",
			`luahook.json:2: hooks.Stop[0].timeout_ms: unknown key; did you mean timeoutMs?`},
		{"JSON integer", "luahook.json", "{\"hooks\": {\"Stop\": [\n  {\"command\": \"x\",\n   \"timeoutMs\": 1.5}\n]}}",
			`luahook.json:3: hooks.Stop[0].timeoutMs: must be an integer, not 1.5`},
		{"JSON null is not a boolean", "luahook.json", "{\"runner\": {\"allowNonPolicy\": null}}",
			`luahook.json:1: runner.allowNonPolicy: must be a boolean, not null`},
		{"JSON number is not a string", "luahook.json", "{\"hooks\": {\"Stop\": [\n  {\n    \"command\": 5\n  }\n]}}",
			`luahook.json:3: hooks.Stop[0].command: must be a string, not a number`},
		{"JSON entry is an object", "luahook.json", "{\"hooks\": {\"Stop\": [\"x\"]}}",
			`luahook.json:1: hooks.Stop[0]: must be an object, not a string`},
		{"JSON event holds an array of objects", "luahook.json", "{\"hooks\": {\"Stop\": {}}}",
			`luahook.json:1: hooks.Stop: must be an array of objects, not an object`},
		{"JSON messages spell keys camelCase", "luahook.json", "{\"hooks\": {\"Stop\": [{\"type\": \"http\", \"url\": \"https://e.com\", \"headers\": {\"A\": \"${T}\"}}]}}",
			`luahook.json:1: hooks.Stop[0].headers.A: uses ${T}, which allowedEnv does not list`},
		{"JSON messages spell keys camelCase (2)", "luahook.json", "{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"runWhenToolSkipped\": true}]}}",
			`luahook.json:1: hooks.Stop[0].runWhenToolSkipped: runWhenToolSkipped applies to PostToolUse only`},
		{"JSON tool schema types", "luahook.json", "{\"tools\": {\"t\": {\"schema\": 1}}}",
			`luahook.json:1: tools.t.schema: must be an object or a string of JSON, not a number`},
		{"JSON tool exclusive keys", "luahook.json", "{\"tools\": {\"t\": {\"schema\": {}, \"schemaFile\": \"x\"}}}",
			`luahook.json:1: tools.t.schemaFile: schema and schemaFile exclude each other; keep one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.file, []byte(tt.text))
			if err == nil {
				t.Fatalf("Parse accepted the file: %+v", c)
			}
			if c != nil {
				t.Errorf("Parse returned a Config with an error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			if errs := Errors(err); len(errs) != 1 {
				t.Errorf("Errors() = %d errors, want 1", len(errs))
			}
		})
	}
}

func TestParseReportsEveryProblemInFileOrder(t *testing.T) {
	text := `hooks_dir = 5

[[hooks.Stop]]
stage = "mutate"
command = "x"

[[hooks.PreToolUse]]
command = "x"
failure_policy = "maybe"
stage = "late"

[lua]
max_string_bytes = -3
nope = true

[[hooks.PostToolUse]]
type = "http"
`
	want := []string{
		`luahook.toml:1: hooks_dir: must be a string, not an integer`,
		`luahook.toml:4: hooks.Stop[0].stage: stage applies to PreToolUse only`,
		`luahook.toml:9: hooks.PreToolUse[0].failure_policy: "maybe" is not a failure policy (want open or closed)`,
		`luahook.toml:10: hooks.PreToolUse[0].stage: "late" is not a stage (want mutate or validate)`,
		`luahook.toml:13: lua.max_string_bytes: must be at least 1, not -3`,
		`luahook.toml:14: lua.nope: unknown key (known: allow_libs, max_string_bytes, allow_env, load_timeout_ms, allow_loose_permissions, max_input_values)`,
		`luahook.toml:16: hooks.PostToolUse[0].url: an http hook needs a url`,
	}
	_, err := Parse("luahook.toml", []byte(text))
	if err == nil {
		t.Fatal("Parse accepted the file")
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	errs := Errors(err)
	if len(errs) != len(want) {
		t.Fatalf("Errors() = %d, want %d", len(errs), len(want))
	}
	if e := errs[2]; e.File != "luahook.toml" || e.Line != 9 || e.Key != "hooks.PreToolUse[0].failure_policy" {
		t.Errorf("Errors()[2] = %+v: want its file, line and key as fields", e)
	}
	if wrapped := Errors(fmt.Errorf("reload: %w", err)); len(wrapped) != len(want) {
		t.Errorf("Errors() of a wrapped error = %d, want %d", len(wrapped), len(want))
	}
	var first *Error
	if !errors.As(err, &first) || first.Line != 1 {
		t.Errorf("errors.As finds %+v, want the first problem", first)
	}
}

// The position scanner must not be fooled by text that looks like headers or
// keys inside strings, by comments inside arrays, or by the order of tables.
func TestErrorLinesPointAtTheKeyWhateverTheLayout(t *testing.T) {
	text := `# 1
hooks_dir = """
[[hooks.PreToolUse]]
stage = "check"
"""
[lua]
allow_env = [
  "HOME",   # a comment with ] and "quotes" and [[x]]
  "1BAD",
]
[[hooks.PreToolUse]]
command = 'bash -c "echo [x] = y"'
[[hooks.PreToolUse]]
command = "x"
headers.Authorization = "Bearer"
[hooks.PreToolUse.other]
x = 1
[[hooks.Stop]]
command = '''
a ''' # trailing comment
  stage = "validate"
[hooks]
PostToolUse = [
  { command = "a" },
  { command = "b", background = "yes" },
]
`
	want := []string{
		`luahook.toml:9: lua.allow_env[1]: "1BAD" is not an environment variable name`,
		`luahook.toml:15: hooks.PreToolUse[1].headers: only http hooks take this key (this hook's type is command)`,
		`luahook.toml:16: hooks.PreToolUse[1].other: unknown key (known: name, matcher, stage, type, command, url, headers, allowed_env, allow_private_network, timeout_ms, failure_policy, policy, background, run_when_tool_skipped, mode)`,
		`luahook.toml:21: hooks.Stop[0].stage: stage applies to PreToolUse only`,
		`luahook.toml:25: hooks.PostToolUse[1].background: must be a boolean, not a string`,
	}
	_, err := Parse("luahook.toml", []byte(text))
	if got := errString(err); got != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// ParsePartial keeps what decoded of a broken file, so that a one-shot run
// goes on with every valid setting and hook: the defaults where a value is
// wrong, a broken hook entry left out, and every problem returned.
func TestParsePartialKeepsWhatDecoded(t *testing.T) {
	text := `hooks_dir = "policies"

[runner]
allow_non_policy = "yes"
on_load_error = "skip"

[[hooks.PreToolUse]]
name = "guard"
command = "sh -c 'exit 2'"
failure_policy = "closed"

[[hooks.PreToolUse]]
name = "broken"
command = "sh -c 'exit 0'"
timeout_ms = "soon"
`
	c, err := ParsePartial("conf/luahook.toml", []byte(text))
	if want := "conf/luahook.toml:4: runner.allow_non_policy: must be a boolean, not a string\n" +
		"conf/luahook.toml:15: hooks.PreToolUse[1].timeout_ms: must be an integer, not a string"; err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if c == nil || c.HooksDir != "conf/policies" || c.Runner.OnLoadError != "skip" || !c.Runner.AllowNonPolicy {
		t.Fatalf("partial config = %+v, want hooks_dir, on_load_error kept and allow_non_policy at its default", c)
	}
	if hs := c.Hooks["PreToolUse"]; len(hs) != 1 || hs[0].Name != "guard" {
		t.Fatalf("hooks = %+v, want the valid entry only", hs)
	}
	if c, err := Parse("conf/luahook.toml", []byte(text)); c != nil || err == nil {
		t.Fatalf("Parse = %v, %v; want no config and the errors", c, err)
	}
	// Not TOML at all: the defaults, hooks_dir next to the file.
	c, err = ParsePartial("conf/luahook.toml", []byte("[runner\n"))
	if err == nil || c == nil || c.HooksDir != "conf/hooks.d" || c.Runner.OnLoadError != OnLoadErrorDeny {
		t.Fatalf("ParsePartial of a syntax error = %+v, %v", c, err)
	}
}
