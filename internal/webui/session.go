package webui

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The cookies of the page. Both are HttpOnly and SameSite=Strict, scoped to
// /ui/, and Secure when the page is served over TLS.
const (
	// sessionCookie holds a signed session: who logged in and until when.
	sessionCookie = "luahook_ui"
	// loginCookie holds the login form's CSRF nonce.
	loginCookie = "luahook_ui_login"
	// csrfHeader carries the session's CSRF token on the page's POSTs.
	csrfHeader = "X-CSRF-Token"
	// csrfField carries it in a form (logout, login).
	csrfField = "csrf"
	// maxCookieBytes bounds a session cookie read.
	maxCookieBytes = 512
	// loginLifetime is how long a login form may be sent after it was
	// served.
	loginLifetime = 10 * time.Minute
)

// DefaultSessionLifetime is how long a login lasts.
const DefaultSessionLifetime = 8 * time.Hour

// Keys is what logs a person in: the tokens of luahook serve's token file.
// A session is signed with a key derived from the token that logged in
// (server.Tokens implements it), so that every replica holding the same
// token file accepts it, and taking the token out of the file ends it.
type Keys interface {
	// Session checks a token: the client name it authenticates, the id
	// of its session key (public) and the key.
	Session(token string) (name, keyID string, key []byte, ok bool)
	// SessionKey returns the client name and key of the token whose key
	// id is keyID, while that token is accepted.
	SessionKey(keyID string) (name string, key []byte, ok bool)
}

// session is a logged-in person.
type session struct {
	Name    string // the token's client name ("" for a token without one)
	keyID   string
	key     []byte
	nonce   string
	expires time.Time
}

// csrf is the session's CSRF token: what every state-changing request of
// the page carries, in the X-CSRF-Token header or the csrf form field. A
// page of another site can neither read it nor compute it.
func (s *session) csrf() string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("csrf\x00" + s.nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF reports whether token is s's CSRF token.
func (s *session) checkCSRF(token string) bool {
	want := s.csrf()
	return len(token) == len(want) && subtle.ConstantTimeCompare([]byte(token), []byte(want)) == 1
}

// who is how the page names the person.
func (s *session) who() string {
	if s.Name == "" {
		return "(a token without a name)"
	}
	return s.Name
}

// sign returns the cookie value of a session: v1.KEYID.EXPIRES.NONCE.MAC.
func sign(keyID string, key []byte, nonce string, expires time.Time) string {
	body := "v1." + keyID + "." + strconv.FormatInt(expires.Unix(), 10) + "." + nonce
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// errSession is why a session cookie is not accepted (never shown in
// detail to the client: it is sent to the login page).
var errSession = errors.New("no valid session")

// verify reads a session cookie's value.
func verify(keys Keys, value string, now time.Time) (*session, error) {
	if len(value) > maxCookieBytes {
		return nil, errSession
	}
	parts := strings.Split(value, ".")
	if len(parts) != 5 || parts[0] != "v1" {
		return nil, errSession
	}
	name, key, ok := keys.SessionKey(parts[1])
	if !ok {
		return nil, errSession
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return nil, errSession
	}
	want := sign(parts[1], key, parts[3], time.Unix(exp, 0))
	if subtle.ConstantTimeCompare([]byte(want), []byte(value)) != 1 {
		return nil, errSession
	}
	expires := time.Unix(exp, 0)
	if !now.Before(expires) {
		return nil, errSession
	}
	return &session{Name: name, keyID: parts[1], key: key, nonce: parts[3], expires: expires}, nil
}

// nonce returns 128 random bits, URL-safe.
func nonce() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// cookie returns a cookie of the page: HttpOnly, SameSite=Strict, on /ui/,
// Secure over TLS.
func cookie(r *http.Request, name, value string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{Name: name, Value: value, Path: "/ui/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil, MaxAge: int(maxAge / time.Second)}
	if maxAge < 0 {
		c.MaxAge = -1
	}
	return c
}
