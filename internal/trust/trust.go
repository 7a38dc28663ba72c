// Package trust records which project folders the operator trusted, and
// with what content. Hooks and config found by default in the current
// folder (./luahook.toml, ./hooks.d) are code chosen by whoever wrote the
// repository an agent works in; they load only with the content the
// operator trusted, as direnv allow and mise trust do. A record holds the
// folder's absolute path, the digest of everything luahook would read and
// run from it (engine.ReadContent) and the SHA-256 of each of those files.
//
// The engine checks every file it loads from such a folder against the
// record (engine.Options.Trust, given Files): the config, each hook file
// and each lib module, when it starts, on each reload and when a module is
// first required during a call, on the very bytes it then parses or
// compiles. A file whose content is not the content trusted does not load:
// its last trusted version stays in force, and with none an event that can
// block is denied, naming the file and how to trust it. A record from
// before per-file sums (the folder's digest alone) trusts each file as it
// is while the folder's content matches the digest.
//
// Folders named explicitly (--dir, --config, LUAHOOK_DIR, LUAHOOK_CONFIG,
// an embedding host's engine.Options) and the user's own config folder are
// the operator's choice and need no record.
package trust

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luahook/luahook/engine"
)

// ConfigFile is the config a project folder holds; its hooks folder is the
// config's hooks_dir, else engine.DefaultHooksDir.
const ConfigFile = "luahook.toml"

// Record is what the operator trusted: a folder and its content.
type Record struct {
	Path   string   `json:"path"`   // the folder, absolute
	Sum    string   `json:"sha256"` // engine.Content.Sum, in hex
	Config string   `json:"config,omitempty"`
	Dir    string   `json:"hooksDir"`
	Files  []string `json:"files"`
	// FileSums holds the SHA-256 (hex) of each regular file trusted, by
	// its name relative to the folder (engine.Content.Sums): what the
	// engine checks each file it loads against. A record written before
	// it existed has none.
	FileSums map[string]string `json:"fileSums,omitempty"`
	Trusted  time.Time         `json:"trusted"`
}

// NewRecord returns the record that trusts folder with content c.
func NewRecord(folder string, c *engine.Content) Record {
	sums := make(map[string]string, len(c.Sums))
	for name, sum := range c.Sums {
		sums[name] = hex.EncodeToString(sum[:])
	}
	return Record{Path: folder, Sum: hex.EncodeToString(c.Sum[:]), Config: c.Config, Dir: c.Dir,
		Files: c.Files, FileSums: sums, Trusted: time.Now().UTC().Truncate(time.Second)}
}

// Content digests what luahook reads and runs from folder by default: its
// luahook.toml and the hooks folder (the config's hooks_dir, else
// folder/hooks.d). luahook trust records it.
func Content(folder string) (*engine.Content, error) {
	cfg, dir := filepath.Join(folder, ConfigFile), ""
	if st, err := os.Stat(cfg); err != nil || st.IsDir() {
		cfg, dir = "", filepath.Join(folder, engine.DefaultHooksDir)
	}
	return engine.ReadContent(cfg, dir)
}

// Matches reports whether c is the content r trusted.
func (r *Record) Matches(c *engine.Content) bool {
	return r != nil && r.Sum == hex.EncodeToString(c.Sum[:])
}

// UntrustedError refuses the hooks and config found by default in a folder
// that the operator has not trusted with its current content, or one file
// of such a folder (File).
type UntrustedError struct {
	Folder string   // absolute
	Found  []string // what was found there, e.g. "./luahook.toml", "./hooks.d"
	// Since is when the folder was trusted with other content (zero when it
	// never was).
	Since time.Time
	// File, when set, is the one file refused, relative to Folder
	// (engine.Trust's name): its content is not the content trusted. New
	// says the record holds none for it.
	File string
	New  bool
}

// Error says what was found, why it is not loaded and how to trust it.
func (e *UntrustedError) Error() string {
	if e.File != "" && !e.Since.IsZero() {
		// Kept short: a denial quotes at most 400 characters of it.
		why := "it changed since you trusted the folder on "
		if e.New {
			why = "it is new since you trusted the folder on "
		}
		return fmt.Sprintf("%s (in %s) not loaded: %s%s; it is the repository's code, run on this machine: "+
			"review it, then run: luahook trust %s",
			displayName(e.File), e.Folder, why, e.Since.Format("2006-01-02 15:04 MST"), shellQuote(e.Folder))
	}
	found := e.Found
	if e.File != "" {
		found = []string{displayName(e.File)}
	}
	why := "not trusted"
	if !e.Since.IsZero() {
		why = "changed since you trusted it on " + e.Since.Format("2006-01-02 15:04 MST")
	}
	return fmt.Sprintf("%s (in %s) not loaded: the folder is %s, and hooks and config found in the current folder "+
		"are the repository's code, run on this machine; review them, then run: luahook trust %s "+
		"(or name the folder you mean with --dir or --config)",
		strings.Join(found, " and "), e.Folder, why, shellQuote(e.Folder))
}

// displayName shows a file named relative to its folder as "./name".
func displayName(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return "./" + name
}

// WholeReason marks the error's message as a whole reason that says what
// to do (engine.WholeReason): a denial names it as it is.
func (*UntrustedError) WholeReason() {}

// Check returns nil when folder is trusted with content c, else an
// *UntrustedError naming found.
func (s *Store) Check(folder string, c *engine.Content, found []string) error {
	r, err := s.Get(folder)
	if err != nil {
		return err
	}
	if r.Matches(c) {
		return nil
	}
	e := &UntrustedError{Folder: folder, Found: found}
	if r != nil {
		e.Since = r.Trusted
	}
	return e
}

// DefaultDir returns where records live: the luahook/trust folder of the
// user's config folder ($XDG_CONFIG_HOME, else ~/.config on Unix).
func DefaultDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("trust records: %w", err)
	}
	return filepath.Join(dir, "luahook", "trust"), nil
}

// shellQuote quotes a path for a command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == '@' || r == ':' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
