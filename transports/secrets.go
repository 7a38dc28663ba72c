package transports

import "strings"

// looksSecret reports whether an upper-cased variable name (or query
// parameter or header name, with '-' and '.' read as '_') suggests a secret.
// It does when the name contains TOKEN, SECRET, PASS (PASSWORD, PASSWD,
// PASSPHRASE, ASKPASS), CRED, BEARER, COOKIE, PRIVATE, JWT, SIGNATURE,
// APIKEY, API_KEY, ACCESSKEY or ACCESS_KEY; contains AUTH other than in
// AUTHOR (OAUTH, AUTHORIZATION and SSH_AUTH_SOCK do, GIT_AUTHOR_NAME does
// not); has PAT, PW, SIG, KEY or KEYS as an underscore-separated word;
// contains PWD but is not PWD or OLDPWD; or contains SESSION without
// SESSION_ID.
func looksSecret(u string) bool {
	u = strings.NewReplacer("-", "_", ".", "_").Replace(u)
	for _, s := range [...]string{
		"TOKEN", "SECRET", "PASS", "CRED", "BEARER", "COOKIE", "PRIVATE", "JWT", "SIGNATURE",
		"APIKEY", "API_KEY", "ACCESSKEY", "ACCESS_KEY",
	} {
		if strings.Contains(u, s) {
			return true
		}
	}
	if hasAuth(u) || hasWord(u, "PAT", false) || hasWord(u, "PW", false) || hasWord(u, "SIG", false) ||
		hasWord(u, "KEY", true) {
		return true
	}
	if strings.Contains(u, "PWD") && u != "PWD" && u != "OLDPWD" {
		return true
	}
	return strings.Contains(u, "SESSION") && !strings.Contains(u, "SESSION_ID") && !strings.Contains(u, "SESSIONID")
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

// carriesCredentials reports whether an environment value holds a
// credential anywhere in it: URL user info with a password (or any user info
// in an http(s) URL, where the user name is often a token); a name=value
// pair whose name looks secret (a query string's ?token=, &sig=,
// X-Amz-Signature=, a --password=... flag); header text whose name looks
// secret (Authorization:, Proxy-Authorization:, X-Api-Key:, PRIVATE-TOKEN:,
// Cookie:); a Bearer credential; a PEM private key; or a token of a
// well-known shape (see knownTokenPrefixes).
func carriesCredentials(v string) bool {
	return urlUserInfo(v) || secretPair(v, '=') || secretPair(v, ':') || bearerText(v) ||
		strings.Contains(v, "PRIVATE KEY-----") || knownToken(v)
}

// urlUserInfo reports whether v holds a URL whose user info is a credential.
func urlUserInfo(v string) bool {
	for from := 0; ; {
		i := strings.Index(v[from:], "://")
		if i < 0 {
			return false
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

// secretPair reports whether v contains NAME<sep>value with a secret-looking
// NAME and a non-empty value. For ':' (header text) the name must start the
// value or follow a space, quote, '=', ',', ';' or a bracket, so that paths
// such as /home/op/keys:/bin in PATH are not read as headers.
func secretPair(v string, sep byte) bool {
	for i := 0; i < len(v); i++ {
		if v[i] != sep {
			continue
		}
		j := i
		for j > 0 && isNameChar(v[j-1]) {
			j--
		}
		name := strings.TrimLeft(v[j:i], "-.")
		if name == "" {
			continue
		}
		if sep == ':' && j > 0 && strings.IndexByte(" \t\r\n'\"=,;({[", v[j-1]) < 0 {
			continue
		}
		value := strings.TrimLeft(v[i+1:], " \t")
		if value == "" || strings.IndexByte("&;# \t\r\n", value[0]) >= 0 {
			continue
		}
		if looksSecret(strings.ToUpper(name)) {
			return true
		}
	}
	return false
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// bearerText reports whether v contains "bearer " (any case) followed by at
// least 8 characters of a token.
func bearerText(v string) bool {
	const b = "bearer "
	for i := 0; i+len(b) <= len(v); i++ {
		if (v[i] == 'b' || v[i] == 'B') && strings.EqualFold(v[i:i+len(b)], b) && tokenRun(v[i+len(b):]) >= 8 {
			return true
		}
	}
	return false
}

// knownTokenPrefixes are the prefixes of credentials issued by well-known
// services (GitHub, GitLab, Slack, OpenAI and Anthropic, Stripe, AWS,
// Google, Hugging Face, npm, PyPI, Vault, DigitalOcean, Shopify, SendGrid)
// and of JSON Web Tokens. One followed by at least 16 token characters, at
// the start of a word, marks a value as a credential.
var knownTokenPrefixes = [...]string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "glrt-", "glptt-",
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-", "sk-", "sk_live_", "sk_test_", "rk_live_",
	"AKIA", "ASIA", "AIza", "hf_", "npm_", "pypi-", "hvs.", "hvb.", "dop_v1_", "shpat_", "SG.", "eyJ",
}

func knownToken(v string) bool {
	for _, p := range knownTokenPrefixes {
		for from := 0; ; {
			i := strings.Index(v[from:], p)
			if i < 0 {
				break
			}
			i += from
			if (i == 0 || !isAlnum(v[i-1])) && tokenRun(v[i+len(p):]) >= 16 {
				return true
			}
			from = i + 1
		}
	}
	return false
}

// tokenRun returns how many leading bytes of s are token characters.
func tokenRun(s string) int {
	n := 0
	for n < len(s) && (isAlnum(s[n]) || strings.IndexByte("-_.~+/=", s[n]) >= 0) {
		n++
	}
	return n
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
