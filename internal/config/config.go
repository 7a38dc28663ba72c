// Package config loads luahook.toml (or a JSON file in the seed's camelCase
// shape) into one typed, validated configuration.
//
// Every problem is reported, not only the first: unknown keys, unknown
// events, values of the wrong type or out of range, hooks missing what their
// type needs. Each is an *Error naming the file, the line and the key path
// (hooks.PreToolUse[1].failure_policy), joined in file order. A file with any
// problem yields no Config, so an engine keeps the configuration it has.
//
// A loaded Config has its defaults applied: the hook type, matcher, stage,
// failure policy and name of every configured hook are filled in, and
// relative paths (hooks_dir, schema_file) are resolved against the folder of
// the configuration file.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/defaults"
	"github.com/luahook/luahook/internal/logconf"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/ledger"
)

// Defaults and bounds of the configuration.
const (
	DefaultHooksDir       = "hooks.d"
	DefaultMaxStringBytes = defaults.MaxStringBytes
	DefaultLoadTimeoutMs  = int(defaults.LoadTimeout / time.Millisecond)
	DefaultMaxInputBytes  = luahook.DefaultMaxInputBytes
	// MaxTimeoutMs bounds timeout_ms and load_timeout_ms: luahook.MaxTimeout
	// (10 min) in milliseconds.
	MaxTimeoutMs = int64(luahook.MaxTimeout / time.Millisecond)
	// The defaults of [runner]'s context and background bounds, of [lua]
	// max_input_values and of [store] are the runner's, luabind's and the
	// store module's own (internal/defaults, internal/store), which those
	// packages apply to their zero options.
	DefaultMaxContextBytes    = defaults.MaxContextBytes
	DefaultBackgroundWorkers  = defaults.BackgroundWorkers
	DefaultBackgroundQueue    = defaults.BackgroundQueue
	DefaultMaxInputValues     = defaults.MaxInputValues
	DefaultStoreMaxKeyBytes   = store.DefaultMaxKeyBytes
	DefaultStoreMaxValueBytes = store.DefaultMaxValueBytes
	DefaultStoreMaxKeys       = store.DefaultMaxKeys
	DefaultStoreMaxBytes      = store.DefaultMaxBytes
)

// Limits of what a configuration file, and a JSON Schema file it names, may
// hold. They are checked before the TOML or JSON library sees the text: the
// libraries recurse once per level of nesting, and the TOML library spells
// out a key's whole path for every key it reads, so what they cost grows
// with the product of these bounds.
const (
	// MaxFileBytes bounds the size of a configuration file and of a schema
	// file (1 MiB). A larger one is refused as it is read.
	MaxFileBytes = 1 << 20
	// MaxNesting bounds how deep values nest (64 levels). In TOML the parts
	// of table names and dotted keys count as levels too, as arrays and
	// inline tables do: [a.b] c.d = [[1]] is 6 levels deep.
	MaxNesting = 64
	// MaxKeyBytes bounds the full path of a TOML key, its table's name
	// included (1024 bytes).
	MaxKeyBytes = 1024
)

// Config is a loaded configuration. Start from Default, Load or Parse: the
// zero Config is empty rather than the defaults (its runner allows policy
// hooks only and its Lua string cap is unset).
type Config struct {
	// Path is the file the configuration came from ("" for Default). Relative
	// paths inside it have already been resolved against its folder.
	Path string
	// HooksDir is the folder of Lua hook files (hooks_dir, default
	// "hooks.d", relative to the folder of the configuration file).
	HooksDir string
	Runner   Runner
	Lua      Lua
	Store    Store
	Command  Command
	// Hooks lists the configured command and HTTP hooks of each event, in
	// file order. Events without hooks have no key.
	Hooks map[luahook.Event][]Hook
	// Tools holds the JSON Schemas of tool inputs, by tool name as written.
	Tools map[string]Tool
	// DecisionLog is the [decision_log] section.
	DecisionLog DecisionLog
	// Telemetry is the [telemetry] section: traces over OTLP.
	Telemetry Telemetry
	// Packs holds the [packs.NAME] tables: each guard pack's settings, by
	// pack name, checked against what the shipped pack declares (packs.go)
	// and merged over its defaults by hook.settings. Values are strings,
	// int64s, float64s, bools, []any and map[string]any. Packs without a
	// table have no key.
	Packs map[string]map[string]any
}

// DecisionLog is the [decision_log] section: one JSON line per fired event
// (decisionlog.Record), masked, written off the decision's path.
type DecisionLog struct {
	// Enabled (enabled) turns the log on or off; nil when the file does
	// not say, and then the host decides: off in the library, on in
	// luahook serve.
	Enabled *bool
	// Path (path, default "stdout") is the file the records are appended
	// to, relative to the folder of the configuration file, or "stdout" or
	// "stderr".
	Path string
	// MaxBytes (max_bytes, default 16 MiB, at least 4096) is the size at
	// which the file is rotated: PATH becomes PATH.1, PATH.1 PATH.2 and so on.
	MaxBytes int64
	// MaxFiles (max_files, default 5, 0 to 1000) is how many rotated files
	// are kept; 0 keeps none (the file is cut when full).
	MaxFiles int
	// MaxAge (max_age, a duration such as "24h", at least 1m; default 0:
	// by size only) rotates the file when a record comes MaxAge or more
	// after the file's first record.
	MaxAge time.Duration
	// SigningKey (signing_key) is the path, relative to the folder of the
	// configuration file, of the Ed25519 private key (PEM PKCS #8) that
	// signs the log's checkpoints; "" writes the hash chain without
	// checkpoints.
	SigningKey string
	// CheckpointEvery (checkpoint_every, default 1000, 1 to 1000000) is
	// how many records a signed checkpoint covers at most.
	CheckpointEvery int
	// Queue (queue, default 1024, 1 to 1000000) is how many records may wait
	// for the writer; past it records are dropped and counted, never
	// waited for.
	Queue int
	// MaxInputBytes (max_input_bytes, default 64 KiB, at least 1) is the
	// largest payload a record carries; a larger one is logged as its
	// digest and size, marked truncated.
	MaxInputBytes int
	// Drop (drop) lists payload paths left out of the records
	// ("toolInput.env"), Mask (mask) paths whose values are replaced by
	// MaskWith ("toolInput.headers.Authorization"); "*" is any key, [N] or
	// [*] an array's elements.
	Drop, Mask []string
	// MaskWith (mask_with, default "[masked]") replaces masked values and
	// strings that hold a secret.
	MaskWith string
	// RedactSecrets (redact_secrets, default true) replaces every string
	// that matches the built-in secret patterns (those of the shipped
	// prompt-secrets policy), in the payload, the outcomes and the failures.
	RedactSecrets bool
}

// Runner is the [runner] section.
type Runner struct {
	// AllowNonPolicy (allow_non_policy, default true) lets every hook run;
	// false runs only hooks marked policy = true, as --no-hooks does.
	AllowNonPolicy bool
	// MaxInputBytes (max_input_bytes, default 8 MiB, at least 1) caps the
	// payload that Lua, command and HTTP hooks are called with: a larger one
	// is refused before the hook runs, a failure of kind rejected that each
	// hook's failure policy handles (fail-closed hooks deny).
	MaxInputBytes int
	// MaxContextBytes (max_context_bytes, default 64 KiB, at least 1024)
	// caps the additionalContext one event delivers, every hook's context
	// and the buffered background context joined; each hook's own context is
	// cut at 10,000 characters first.
	MaxContextBytes int
	// BackgroundWorkers (background_workers, default 4, 1 to 256) is how many
	// background PostToolUse hooks run at once, whatever the sessions.
	BackgroundWorkers int
	// BackgroundQueue (background_queue, default 256, 1 to 100000) is how
	// many background payloads wait for a worker; past it new ones are
	// dropped, counted and logged.
	BackgroundQueue int
	// OnLoadError (on_load_error, default "deny") is what a one-shot
	// decision (luahook fire) does when a hook file, the config or the
	// payload cannot be loaded, or the folder is not trusted: "deny" runs
	// what loaded and denies an event that can block (PreToolUse,
	// UserPromptSubmit) naming each problem; "skip" runs what loaded and
	// warns; "fail" decides nothing and exits 1. Observational events never
	// deny. luahook check always fails on any error.
	OnLoadError string
	// SelfProtect (self_protect, default true) keeps the agent from changing
	// what steers it: on PreToolUse, the engine denies, before any hook and
	// whatever a hook answers, a write, edit, move or removal of the hooks
	// folder, the config file, luahook's trust records and the agent
	// settings files luahook install writes, and the luahook commands that
	// change which policies run (trust, untrust, install, add --force).
	// false turns it off (engine.Options.NoSelfProtect does for a Go host).
	SelfProtect bool
}

// The choices of [runner] on_load_error.
const (
	OnLoadErrorDeny = "deny"
	OnLoadErrorSkip = "skip"
	OnLoadErrorFail = "fail"
)

// OnLoadErrorChoices returns the values [runner] on_load_error accepts.
func OnLoadErrorChoices() []string {
	return []string{OnLoadErrorDeny, OnLoadErrorSkip, OnLoadErrorFail}
}

// Lua is the [lua] section: what Lua hook files may use.
type Lua struct {
	// AllowLibs (allow_libs) grants standard libraries beyond the sandbox,
	// for trusted files; GrantableLibs lists the names accepted.
	AllowLibs []string
	// MaxStringBytes (max_string_bytes, default 16 MiB, at least 1) caps the
	// strings that string.rep and the other size-multiplying functions build.
	MaxStringBytes int
	// AllowEnv (allow_env) lists the environment variables the Lua env
	// module may read.
	AllowEnv []string
	// LoadTimeoutMs (load_timeout_ms, default 2000, 1 to 600000) bounds the
	// first run of a file, when it registers its hooks.
	LoadTimeoutMs int
	// AllowLoosePermissions (allow_loose_permissions, default false) loads
	// hook files and lib modules, and the hooks folder, its lib folder and
	// the folders below it, even when they are writable by group or others or owned by another user than the
	// process (or root). By default such a file or folder is refused, as
	// sshd refuses a loose key file: whoever can write it can run code in
	// the host.
	AllowLoosePermissions bool
	// MaxInputValues (max_input_values, default 100000, at least 1) caps the
	// JSON values (scalars, arrays and objects) of a payload's toolInput, and
	// of any json.decode, that a Lua hook converts; a larger payload is
	// refused before the hook runs (rejected: blocking events deny).
	MaxInputValues int
}

// Store is the [store] section: the bounds of the process-wide store that
// Lua hooks keep state in (the store module). Every key and value a hook
// writes counts; a write past a bound fails the hook, and its failure policy
// decides (a fail-closed hook denies). Expired entries are dropped before a
// write is refused; live ones are never evicted.
type Store struct {
	// MaxKeyBytes (max_key_bytes, default 1 KiB, at least 1) caps a key.
	MaxKeyBytes int
	// MaxValueBytes (max_value_bytes, default 1 MiB, at least 1) caps a
	// value: a string's length, a table's JSON text.
	MaxValueBytes int
	// MaxKeys (max_keys, default 100000, at least 1) caps the number of keys.
	MaxKeys int
	// MaxBytes (max_bytes, default 64 MiB, at least 1) caps the store's
	// total: every key's length plus every value's size (8 bytes for a
	// number or a boolean).
	MaxBytes int

	// The session ledger's bounds, per session (package ledger): the
	// marks (ledger_max_marks, default 64, at most 4096; also the number
	// of counters), the last calls kept (ledger_max_calls, default 32, at
	// most 4096), the bytes of the marks' labels and details
	// (ledger_max_bytes, default 64 KiB, at most 16 MiB) and the age of
	// every entry (ledger_max_age_ms, default 24 h, at most 10 years).
	LedgerMaxMarks, LedgerMaxCalls, LedgerMaxBytes, LedgerMaxAgeMs int

	// Where the entries are kept (config/store.go): in the process, or in
	// a Redis server that several luahook processes share.
	StoreBackend
}

// Command is the [command] section: settings shared by command hooks.
type Command struct {
	// Allow (allow) adds command names to the first-word allowlist.
	Allow []string
	// PassEnv (pass_env) adds environment variables that command hooks
	// receive despite the sanitiser.
	PassEnv []string
}

// Tool is one [tools.NAME] entry: the JSON Schema that a rewritten tool
// input is re-validated against.
type Tool struct {
	Source string // "file:line" of the entry
	// Schema is the inline schema (schema: a string of JSON or a table), as
	// compact JSON with sorted keys; nil when SchemaFile is used.
	Schema json.RawMessage
	// SchemaFile (schema_file) is the path of a schema file, resolved
	// against the folder of the configuration file; "" when Schema is used.
	SchemaFile string
}

// GrantableLibs returns the names [lua] allow_libs accepts: the standard
// libraries the sandbox withholds or cuts down.
func GrantableLibs() []string { return []string{"io", "os"} }

// Default returns the configuration used when there is no file.
func Default() *Config {
	return &Config{
		HooksDir: DefaultHooksDir,
		Runner: Runner{AllowNonPolicy: true, MaxInputBytes: DefaultMaxInputBytes, MaxContextBytes: DefaultMaxContextBytes,
			BackgroundWorkers: DefaultBackgroundWorkers, BackgroundQueue: DefaultBackgroundQueue, OnLoadError: OnLoadErrorDeny,
			SelfProtect: true},
		Lua: Lua{MaxStringBytes: DefaultMaxStringBytes, LoadTimeoutMs: DefaultLoadTimeoutMs, MaxInputValues: DefaultMaxInputValues},
		Store: Store{MaxKeyBytes: DefaultStoreMaxKeyBytes, MaxValueBytes: DefaultStoreMaxValueBytes,
			MaxKeys: DefaultStoreMaxKeys, MaxBytes: DefaultStoreMaxBytes, StoreBackend: defaultStoreBackend(),
			LedgerMaxMarks: ledger.DefaultMaxMarks, LedgerMaxCalls: ledger.DefaultMaxCalls,
			LedgerMaxBytes: ledger.DefaultMaxBytes, LedgerMaxAgeMs: int(ledger.DefaultMaxAge.Milliseconds())},
		DecisionLog: DecisionLog{Path: "stdout", MaxBytes: logconf.DefaultMaxBytes, MaxFiles: logconf.DefaultMaxFiles,
			Queue: logconf.DefaultQueue, MaxInputBytes: logconf.DefaultMaxInputBytes,
			MaskWith: logconf.DefaultMaskWith, RedactSecrets: true},
	}
}

// Load reads and parses a configuration file. The format follows the
// extension (.toml or .json); any other name is JSON when its first
// non-blank byte is '{', TOML otherwise. A missing file is an error that
// matches fs.ErrNotExist. The file is read as readConfigFile reads it.
func Load(path string) (*Config, error) {
	data, err := readConfigFile(path)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, fmt.Errorf("load config: %w", err)
	}
	return Parse(path, data)
}

// readConfigFile reads a configuration or schema file: opened without blocking
// (a named pipe would block open(2) forever), refused unless the opened
// descriptor is a regular file, and refused, with the *Error Parse gives,
// when it holds more than MaxFileBytes, of which no more is read.
func readConfigFile(path string) ([]byte, error) {
	data, err := regfile.Read(path, MaxFileBytes)
	var tl *regfile.TooLargeError
	if errors.As(err, &tl) {
		return nil, checkSize(path, MaxFileBytes+1)
	}
	return data, err
}

// Parse parses configuration text. name is the file it came from: it names
// the file in errors and Sources, chooses the format as in Load, and its
// folder anchors relative paths. Parse does no I/O. Text larger than
// MaxFileBytes is refused; a caller reading a file need read no more than
// MaxFileBytes+1 bytes of it.
func Parse(name string, data []byte) (*Config, error) {
	c, err := ParsePartial(name, data)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ParsePartial parses configuration text as Parse does, and returns, with
// the problems, the configuration of everything that decoded: the defaults
// where a value is missing or wrong, every hook entry with a problem left
// out, hooks_dir resolved as Parse resolves it. Text that is not TOML or
// JSON at all decodes to the defaults. It is for a one-shot run that must
// go on with what is valid (luahook fire, luahook check); an engine that
// reloads keeps its last good configuration instead (Parse).
func ParsePartial(name string, data []byte) (*Config, error) {
	if err := checkSize(name, len(data)); err != nil {
		c, _ := decode(name, formatTOML, nil)
		return c, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	format := formatOf(name, data)
	var root *node
	var err error
	if format == formatJSON {
		root, err = parseJSON(name, data)
	} else {
		root, err = parseTOML(name, data)
	}
	if err != nil {
		c, _ := decode(name, format, nil)
		return c, err
	}
	return decode(name, format, root)
}

// checkSize refuses a file of size bytes larger than MaxFileBytes.
func checkSize(file string, size int) error {
	if size <= MaxFileBytes {
		return nil
	}
	return &Error{File: file, Msg: fmt.Sprintf("file is larger than %d MiB", MaxFileBytes>>20)}
}

type format uint8

const (
	formatTOML format = iota
	formatJSON
)

func formatOf(name string, data []byte) format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".toml":
		return formatTOML
	case ".json":
		return formatJSON
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return formatJSON
	}
	return formatTOML
}

// NumHooks returns how many hooks are configured, over all events.
func (c *Config) NumHooks() int {
	n := 0
	for _, hs := range c.Hooks {
		n += len(hs)
	}
	return n
}

// resolve anchors a relative path at the folder of the configuration file.
func (c *Config) resolve(p string) string {
	if c.Path == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(c.Path), p)
}
