package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/luahook/luahook/internal/regfile"
)

// The bounds of a token file and of what it holds.
const (
	// MinTokenBytes is the shortest token accepted: 16 bytes, 128 bits when
	// they are random (openssl rand -hex 32 makes 64).
	MinTokenBytes = 16
	// MaxTokenBytes is the longest token accepted.
	MaxTokenBytes = 4096
	// MaxClientNameBytes is the longest client name of a token file.
	MaxClientNameBytes = 64
	// MaxTokens is the most tokens one server accepts.
	MaxTokens = 4096
	// MaxTokenFileBytes is the largest token file read.
	MaxTokenFileBytes = 1 << 20
)

// Tokens are the bearer tokens a Handler accepts (Auth.Tokens), each with
// the name of the client it authenticates ("" for a token given without
// one). Only each token's SHA-256 digest is kept, and a presented token is
// compared with every one of them in constant time, so that neither the
// time of an answer nor a memory dump gives a token away. The zero value
// holds no token.
type Tokens struct {
	digests []digest
	names   []string
	where   []string // where each token was given ("tokens:3", "$VAR"), for errors

	keysMu   sync.Mutex
	keyIndex map[string]int // session key id -> token (SessionKey)
}

// Len returns the number of tokens.
func (t *Tokens) Len() int {
	if t == nil {
		return 0
	}
	return len(t.digests)
}

// Add adds token, authenticating the client name ("" for none); where says
// where it was given ("FILE:LINE", "$VAR") in errors. Errors never quote the
// token, nor the name (a token written where the name goes would show).
func (t *Tokens) Add(name, token, where string) error {
	switch {
	case len(token) == 0:
		return fmt.Errorf("%s: empty token", where)
	case len(token) < MinTokenBytes:
		return fmt.Errorf("%s: the token is %d bytes, shorter than %d (make one with: openssl rand -hex 32)", where, len(token), MinTokenBytes)
	case len(token) > MaxTokenBytes:
		return fmt.Errorf("%s: the token is %d bytes, longer than %d", where, len(token), MaxTokenBytes)
	case !visibleASCII(token):
		return fmt.Errorf("%s: the token has a character that is not visible ASCII (it goes in an HTTP header)", where)
	case len(name) > MaxClientNameBytes:
		return fmt.Errorf("%s: the client name is %d bytes, longer than %d", where, len(name), MaxClientNameBytes)
	case name != "" && !validClientName(name):
		return fmt.Errorf("%s: the client name may hold only ASCII letters, digits and . _ - @ : /", where)
	case len(t.digests) >= MaxTokens:
		return fmt.Errorf("%s: more than %d tokens", where, MaxTokens)
	}
	d := digestOf(token)
	for i := range t.digests {
		if t.digests[i] == d {
			return fmt.Errorf("%s: the same token as %s (each client needs its own)", where, t.where[i])
		}
		if name != "" && t.names[i] == name {
			return fmt.Errorf("%s: the client name of %s again (each name names one client)", where, t.where[i])
		}
	}
	t.digests = append(t.digests, d)
	t.names = append(t.names, name)
	t.where = append(t.where, where)
	return nil
}

// lookup returns the client name of token and whether token is one of
// t's. It compares token's digest with every digest held, whatever
// matches, without a branch on their bytes: its time says how many tokens
// there are, nothing of theirs.
func (t *Tokens) lookup(token string) (string, bool) {
	d := digestOf(token)
	found := -1
	for i := range t.digests {
		found = subtle.ConstantTimeSelect(d.equal(&t.digests[i]), i, found)
	}
	if found < 0 {
		return "", false
	}
	return t.names[found], true
}

// digest is a token's SHA-256, in words, so that comparing two costs four
// XORs rather than a loop over bytes: a server holding thousands of tokens
// compares a request's with all of them.
type digest [sha256.Size / 8]uint64

func digestOf(token string) digest {
	sum := sha256.Sum256([]byte(token))
	var d digest
	for i := range d {
		d[i] = binary.LittleEndian.Uint64(sum[8*i:])
	}
	return d
}

// equal returns 1 when d and e are equal, else 0, in constant time.
func (d *digest) equal(e *digest) int {
	var v uint64
	for i := range d {
		v |= d[i] ^ e[i]
	}
	// v|-v has its top bit set unless v is 0.
	return int(((v | -v) >> 63) ^ 1)
}

// ParseTokens reads a token file's text: each line that is not empty and
// does not start with # is TOKEN or NAME TOKEN (separated by spaces or
// tabs), NAME being the name of the client the token authenticates (what
// policies read as input.client). source names the file in errors, which
// name the line and never quote a token.
func ParseTokens(data []byte, source string) (*Tokens, error) {
	t := &Tokens{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		where := fmt.Sprintf("%s:%d", source, i+1)
		var name, token string
		switch f := strings.Fields(string(line)); len(f) {
		case 1:
			token = f[0]
		case 2:
			name, token = f[0], f[1]
		default:
			return nil, fmt.Errorf("%s: %d words; want TOKEN or NAME TOKEN", where, len(f))
		}
		if err := t.Add(name, token, where); err != nil {
			return nil, err
		}
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("%s: no token (each line is TOKEN or NAME TOKEN; # starts a comment)", source)
	}
	return t, nil
}

// ReadTokenFile reads the token file at path (ParseTokens). The file must
// be a regular file, not a symbolic link, owned by the user running the
// server, that neither its group nor others may read, write or run: a token
// another user can read authenticates them. The error says which rule the
// file breaks and how to fix it.
func ReadTokenFile(path string) (*Tokens, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file", path)
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s: a symbolic link; name the file itself (a link can be pointed at another file)", path)
	}
	f, fi, err := regfile.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := privateFile(path, fi); err != nil {
		return nil, err
	}
	data, err := regfile.ReadAll(f, fi, path, MaxTokenFileBytes)
	if err != nil {
		return nil, err
	}
	return ParseTokens(data, path)
}

// privateFile checks that fi (the opened token file's status) is the
// caller's own and closed to its group and to others.
func privateFile(path string, fi fs.FileInfo) error {
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s: owned by uid %d, not by the user running luahook serve (uid %d)", path, uid, os.Geteuid())
	}
	m := fi.Mode().Perm()
	if !permBits || m&0o077 == 0 {
		return nil
	}
	var who []string
	if g := m & 0o070; g != 0 {
		who = append(who, "its group can "+permWords(g>>3))
	}
	if o := m & 0o007; o != 0 {
		who = append(who, "others can "+permWords(o))
	}
	return fmt.Errorf("%s: mode %04o: %s; a token file must be the user's alone (chmod 600 %s)", path, m, strings.Join(who, " and "), path)
}

// permWords names the permissions of one rwx triple: "read and write".
func permWords(p fs.FileMode) string {
	var w []string
	for _, b := range []struct {
		bit  fs.FileMode
		word string
	}{{4, "read"}, {2, "write"}, {1, "run"}} {
		if p&b.bit != 0 {
			w = append(w, b.word)
		}
	}
	if len(w) == 1 {
		return w[0] + " it"
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1] + " it"
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func validClientName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == '-', c == '@', c == ':', c == '/':
		default:
			return false
		}
	}
	return true
}

// The web page's sessions (Tokens.Session, Tokens.SessionKey) are signed
// with a key derived from the token that logged in, so that any replica
// holding the same token file accepts them, and taking a token out of the
// file ends its sessions.
const (
	sessionKeyLabel = "luahook ui session key\x00"
	sessionIDLabel  = "luahook ui session key id\x00"
)

// Session checks token as the web page's login form sends it: the client
// name it authenticates, the id of the key its sessions are signed with
// (public: it names the key, it does not give it away) and the key.
func (t *Tokens) Session(token string) (name, keyID string, key []byte, ok bool) {
	if t.Len() == 0 {
		return "", "", nil, false
	}
	d := digestOf(token)
	found := -1
	for i := range t.digests {
		found = subtle.ConstantTimeSelect(d.equal(&t.digests[i]), i, found)
	}
	if found < 0 {
		return "", "", nil, false
	}
	keyID, key = sessionKeyOf(&t.digests[found])
	return t.names[found], keyID, key, true
}

// SessionKey returns the client name and the signing key of the token
// whose key id is keyID, while that token is one of t's.
func (t *Tokens) SessionKey(keyID string) (name string, key []byte, ok bool) {
	if t.Len() == 0 {
		return "", nil, false
	}
	t.keysMu.Lock()
	if len(t.keyIndex) != len(t.digests) {
		// Derived once per token (and again after Add), not per request.
		t.keyIndex = make(map[string]int, len(t.digests))
		for i := range t.digests {
			id, _ := sessionKeyOf(&t.digests[i])
			t.keyIndex[id] = i
		}
	}
	i, ok := t.keyIndex[keyID]
	t.keysMu.Unlock()
	if !ok {
		return "", nil, false
	}
	_, key = sessionKeyOf(&t.digests[i])
	return t.names[i], key, true
}

// sessionKeyOf derives a token's session key and its id from the token's
// digest.
func sessionKeyOf(d *digest) (id string, key []byte) {
	var raw [sha256.Size]byte
	for i := range d {
		binary.LittleEndian.PutUint64(raw[8*i:], d[i])
	}
	k := sha256.Sum256(append([]byte(sessionKeyLabel), raw[:]...))
	n := sha256.Sum256(append([]byte(sessionIDLabel), raw[:]...))
	return hex.EncodeToString(n[:12]), k[:]
}
