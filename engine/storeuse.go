package engine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/luabind"
)

// OneShotStoreWarning returns a warning when the Lua files of the hooks
// folder dir use the store module and cfg's [store] says backend =
// "memory": a one-shot luahook fire, one process per call, then starts
// every call with an empty store, and what the hooks count never adds up.
// It returns "" otherwise. The files are read, not run (StoreUsers).
func OneShotStoreWarning(cfg *config.Config, dir string) string {
	if cfg == nil || !cfg.Store.BackendSet || cfg.Store.Backend != config.StoreMemory {
		return ""
	}
	users := StoreUsers(dir)
	if len(users) == 0 {
		return ""
	}
	more := ""
	if len(users) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(users)-1)
	}
	return fmt.Sprintf(`%s%s uses the store, which [store] backend = "memory" (%s) keeps in the process, so a one-shot "luahook fire" forgets it between calls: remove that backend line (fire then keeps the store in a file) or set backend = "file" or "redis"`,
		users[0], more, cfg.Store.Source)
}

// OneShotStoreWarningAt is OneShotStoreWarning for the config file
// cfgPath and the hooks folder it names (its hooks_dir, else hooks.d next
// to it): what luahook install says of the policies it wires a one-shot
// luahook fire to. A config that does not load gets no warning here (fire
// and check report it).
func OneShotStoreWarningAt(cfgPath string) string {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return ""
	}
	dir := hooksDirOr("", cfg)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(cfgPath), dir)
	}
	return OneShotStoreWarning(cfg, dir)
}

// StoreUsers returns the Lua files of the hooks folder dir, hook files and
// lib modules, whose code names the store module (store.get, store["incr"],
// a local s = store, ...) or the session module, whose ledger the store
// keeps, sorted. It reads them (each up to
// luabind.DefaultMaxSourceBytes; a larger or unreadable file is passed
// over) and runs nothing: what names the global store outside comments and
// strings counts.
func StoreUsers(dir string) []string {
	var users []string
	check := func(path string) {
		if src, err := regfile.Read(path, luabind.DefaultMaxSourceBytes); err == nil && namesStore(src) {
			users = append(users, path)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".lua") && !strings.HasSuffix(n, "_test.lua") {
			check(filepath.Join(dir, n))
		}
	}
	filepath.WalkDir(filepath.Join(dir, "lib"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(path, ".lua") && !strings.HasSuffix(path, "_test.lua") {
			check(path)
		}
		return nil
	})
	slices.Sort(users)
	return users
}

// namesStore reports whether Lua source src names the global store, or
// session (the session ledger, which the store keeps): the word, outside
// comments and strings, not a field (x.store, x:store) nor a local's
// declaration or a table key.
func namesStore(src []byte) bool {
	s := string(src)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case strings.HasPrefix(s[i:], "--"):
			i += 2
			if n := longBracket(s[i:]); n > 0 {
				i += closeLong(s[i:], n)
			} else if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(s)
			}
		case c == '"' || c == '\'':
			for i++; i < len(s) && s[i] != c && s[i] != '\n'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i++
		case c == '[' && longBracket(s[i:]) > 0:
			i += closeLong(s[i:], longBracket(s[i:]))
		case isWord(c):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			if w := s[i:j]; (w == "store" || w == "session") && !after(s, i, ".:") && !before(s, j, "=") && !afterWord(s, i, "local") {
				return true
			}
			i = j
		default:
			i++
		}
	}
	return false
}

// longBracket returns the length of the long bracket s opens ([[, [=[,
// ...), or 0.
func longBracket(s string) int {
	if len(s) == 0 || s[0] != '[' {
		return 0
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n + 1
	}
	return 0
}

// closeLong returns how far past the end of the long string or comment s
// starts (its opening bracket n bytes long) the text goes on.
func closeLong(s string, n int) int {
	end := "]" + strings.Repeat("=", n-2) + "]"
	if j := strings.Index(s[n:], end); j >= 0 {
		return n + j + len(end)
	}
	return len(s)
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// after reports whether the last byte before s[i] other than a space is
// one of set.
func after(s string, i int, set string) bool {
	t := strings.TrimRight(s[:i], " \t")
	return t != "" && strings.ContainsRune(set, rune(t[len(t)-1]))
}

// before reports whether s, from j, goes on (past spaces) with a single
// one of set (an "=", not "==").
func before(s string, j int, set string) bool {
	t := strings.TrimLeft(s[j:], " \t")
	return t != "" && strings.ContainsRune(set, rune(t[0])) && !strings.HasPrefix(t, "==")
}

// afterWord reports whether the word before s[i] is w.
func afterWord(s string, i int, w string) bool {
	t := strings.TrimRight(s[:i], " \t")
	return strings.HasSuffix(t, w) && (len(t) == len(w) || !isWord(t[len(t)-len(w)-1]))
}
