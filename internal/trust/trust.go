// Package trust records which project folders the operator trusted, and
// with what content. Hooks and config found by default in the current
// folder (./luahook.toml, ./hooks.d) are code chosen by whoever wrote the
// repository an agent works in; they load only when their content is the
// content the operator trusted, as direnv allow and mise trust do. A record
// holds the folder's absolute path and the digest of everything luahook
// would read and run from it (engine.ReadContent): any change makes the
// folder untrusted again until it is trusted anew.
//
// Folders named explicitly (--dir, --config, LUAHOOK_DIR, LUAHOOK_CONFIG,
// an embedding host's engine.Options) and the user's own config folder are
// the operator's choice and need no record: trust is the CLI's concern, the
// engine never consults it.
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

// Record is what the operator trusted: a folder and its content.
type Record struct {
	Path    string    `json:"path"`   // the folder, absolute
	Sum     string    `json:"sha256"` // engine.Content.Sum, in hex
	Config  string    `json:"config,omitempty"`
	Dir     string    `json:"hooksDir"`
	Files   []string  `json:"files"`
	Trusted time.Time `json:"trusted"`
}

// NewRecord returns the record that trusts folder with content c.
func NewRecord(folder string, c *engine.Content) Record {
	return Record{Path: folder, Sum: hex.EncodeToString(c.Sum[:]), Config: c.Config, Dir: c.Dir,
		Files: c.Files, Trusted: time.Now().UTC().Truncate(time.Second)}
}

// Matches reports whether c is the content r trusted.
func (r *Record) Matches(c *engine.Content) bool {
	return r != nil && r.Sum == hex.EncodeToString(c.Sum[:])
}

// UntrustedError refuses the hooks and config found by default in a folder
// that the operator has not trusted with its current content.
type UntrustedError struct {
	Folder string   // absolute
	Found  []string // what was found there, e.g. "luahook.toml", "hooks.d (3 files)"
	// Since is when the folder was trusted with other content (zero when it
	// never was).
	Since time.Time
}

// Error says what was found, why it is not loaded and how to trust it.
func (e *UntrustedError) Error() string {
	why := "not trusted"
	if !e.Since.IsZero() {
		why = "changed since you trusted it on " + e.Since.Format("2006-01-02 15:04 MST")
	}
	return fmt.Sprintf("%s (in %s) not loaded: the folder is %s, and hooks and config found in the current folder "+
		"are the repository's code, run on this machine; review them, then run: luahook trust %s "+
		"(or name the folder you mean with --dir or --config)",
		strings.Join(e.Found, " and "), e.Folder, why, shellQuote(e.Folder))
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
