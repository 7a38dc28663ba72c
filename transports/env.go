package transports

import (
	"path/filepath"
	"strings"

	"github.com/luahook/luahook"
)

// ChildEnv returns the environment a command hook runs with, built from the
// parent environment ("NAME=value" entries, as os.Environ returns them).
//
// An inherited variable is kept only when all of these hold:
//   - its value carries no credentials: no URL user info with a password
//     (scheme://user:pass@), no user info at all in an http(s) URL (a token
//     used as the user name), no "Authorization:" header text;
//   - its name is a system name (PATH HOME USER USERNAME LOGNAME SHELL LANG
//     LANGUAGE LC_* TERM TZ TMPDIR TEMP TMP PWD), or it does not look secret
//     and has a kept prefix: GIT_, XDG_, LUAHOOK_, NODE_, NPM_, PNPM_, YARN_,
//     CI_ (or is CI, EDITOR, VISUAL, PAGER);
//   - it is not NODE_OPTIONS, whose --require and --import flags would load
//     code into every node hook.
//
// A name looks secret when, upper-cased, it contains TOKEN, SECRET, PASSWORD,
// PASSWD, PASSPHRASE, AUTH (but not AUTHOR: GIT_AUTHOR_NAME passes), CRED,
// BEARER, COOKIE, PRIVATE or JWT; has PAT, PASS, KEY or KEYS as an
// underscore-separated word, or ends in _PWD; contains APIKEY, API_KEY,
// ACCESSKEY or ACCESS_KEY; or contains SESSION without SESSION_ID.
// Everything else is dropped.
//
// The names in pass are the operator's explicit choice: each is copied from
// the parent as it is, secret-looking name or credential-bearing value alike.
// Finally PWD is set to the payload's working directory (when it has one) and
// LUAHOOK_EVENT, LUAHOOK_TOOL_NAME and LUAHOOK_SESSION_ID are set from the
// payload, always, replacing any inherited value.
func ChildEnv(parent []string, pass []string, in *luahook.Input) []string {
	if in == nil {
		in = &luahook.Input{}
	}
	out := make([]string, 0, 16+len(pass))
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || payloadVar(name) || contains(pass, name) || (name == "PWD" && in.Cwd != "") {
			continue
		}
		if keepInherited(name, value) {
			out = append(out, kv)
		}
	}
	for _, name := range pass {
		if payloadVar(name) {
			continue
		}
		if v, ok := lookup(parent, name); ok {
			out = append(out, name+"="+v)
		}
	}
	if in.Cwd != "" {
		if abs, err := filepath.Abs(in.Cwd); err == nil {
			out = append(out, "PWD="+abs)
		}
	}
	return append(out,
		"LUAHOOK_EVENT="+string(in.Event),
		"LUAHOOK_TOOL_NAME="+in.ToolName,
		"LUAHOOK_SESSION_ID="+in.SessionID,
	)
}

func payloadVar(name string) bool {
	return name == "LUAHOOK_EVENT" || name == "LUAHOOK_TOOL_NAME" || name == "LUAHOOK_SESSION_ID"
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// lookup returns the last value of name in env, as exec does for duplicates.
func lookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name); ok && strings.HasPrefix(v, "=") {
			return v[1:], true
		}
	}
	return "", false
}

func keepInherited(name, value string) bool {
	if carriesCredentials(value) {
		return false
	}
	u := strings.ToUpper(name)
	if systemName(u) {
		return true
	}
	if u == "NODE_OPTIONS" || looksSecret(u) {
		return false
	}
	return keptName(u)
}

func systemName(u string) bool {
	switch u {
	case "PATH", "HOME", "USER", "USERNAME", "LOGNAME", "SHELL", "LANG", "LANGUAGE",
		"TERM", "TZ", "TMPDIR", "TEMP", "TMP", "PWD":
		return true
	}
	return strings.HasPrefix(u, "LC_")
}

func keptName(u string) bool {
	switch u {
	case "CI", "EDITOR", "VISUAL", "PAGER":
		return true
	}
	for _, p := range [...]string{"GIT_", "XDG_", "LUAHOOK_", "NODE_", "NPM_", "PNPM_", "YARN_", "CI_"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// looksSecret reports whether an upper-cased variable name suggests a secret.
func looksSecret(u string) bool {
	for _, s := range [...]string{
		"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CRED",
		"BEARER", "COOKIE", "PRIVATE", "JWT",
		"APIKEY", "API_KEY", "API-KEY", "ACCESSKEY", "ACCESS_KEY", "ACCESS-KEY",
	} {
		if strings.Contains(u, s) {
			return true
		}
	}
	if hasAuth(u) || hasWord(u, "PAT", false) || hasWord(u, "PASS", false) || hasWord(u, "KEY", true) ||
		strings.HasSuffix(u, "_PWD") {
		return true
	}
	return strings.Contains(u, "SESSION") &&
		!strings.Contains(u, "SESSION_ID") && !strings.Contains(u, "SESSIONID") && !strings.Contains(u, "SESSION-ID")
}

// hasAuth reports whether u contains AUTH other than in AUTHOR, so that
// GIT_AUTHOR_NAME passes while OAUTH_CLIENT and AUTHORIZATION do not.
func hasAuth(u string) bool {
	for from := 0; ; {
		i := strings.Index(u[from:], "AUTH")
		if i < 0 {
			return false
		}
		rest := u[from+i+4:]
		if !strings.HasPrefix(rest, "OR") || strings.HasPrefix(rest, "ORI") {
			return true
		}
		from += i + 4
	}
}

// hasWord reports whether w occurs in u as a whole underscore-separated word;
// with plural, a trailing "S" at the very end of u is accepted too (KEYS).
func hasWord(u, w string, plural bool) bool {
	for from := 0; ; {
		i := strings.Index(u[from:], w)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		before := i == 0 || u[i-1] == '_'
		after := end == len(u) || u[end] == '_' || (plural && end == len(u)-1 && u[end] == 'S')
		if before && after {
			return true
		}
		from = i + 1
	}
}

// carriesCredentials reports whether an environment value holds URL user
// info that is a credential, or HTTP authorization header text.
func carriesCredentials(v string) bool {
	if strings.IndexByte(v, ':') < 0 {
		return false
	}
	for from := 0; ; {
		i := strings.Index(v[from:], "://")
		if i < 0 {
			break
		}
		i += from
		rest := v[i+3:]
		if end := strings.IndexAny(rest, "/?# \t\r\n"); end >= 0 {
			rest = rest[:end]
		}
		if at := strings.LastIndexByte(rest, '@'); at > 0 {
			userinfo := rest[:at]
			if strings.IndexByte(userinfo, ':') >= 0 || httpScheme(v[:i]) {
				return true
			}
		}
		from = i + 3
	}
	return authHeaderText(v)
}

// httpScheme reports whether the text before "://" ends in http or https.
func httpScheme(prefix string) bool {
	j := len(prefix)
	for j > 0 && isSchemeChar(prefix[j-1]) {
		j--
	}
	s := prefix[j:]
	return strings.EqualFold(s, "http") || strings.EqualFold(s, "https")
}

func isSchemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// authHeaderText reports whether v contains "authorization:" (any case,
// which covers proxy-authorization) followed by a credential.
func authHeaderText(v string) bool {
	const h = "authorization:"
	for i := 0; i+len(h) <= len(v); i++ {
		if (v[i] == 'a' || v[i] == 'A') && strings.EqualFold(v[i:i+len(h)], h) {
			if strings.TrimSpace(v[i+len(h):]) != "" {
				return true
			}
		}
	}
	return false
}
