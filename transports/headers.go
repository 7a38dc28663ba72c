package transports

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/luahook/luahook"
)

// buildHeader returns the header every request of an HTTP hook carries: the
// configured headers with ${VAR} expanded, then Content-Type:
// application/json. Only names listed in allowed may be expanded; an unlisted
// or unset variable, a malformed header name or a value with a line break is
// a FailRejected failure naming the header (and the variable), never the value.
func buildHeader(headers map[string]string, allowed []string, lookup func(string) (string, bool)) (http.Header, error) {
	h := make(http.Header, len(headers)+1)
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		if !validHeaderName(name) {
			return nil, luahook.Failf(luahook.FailRejected, "header %q: not a valid header name", name)
		}
		switch http.CanonicalHeaderKey(name) {
		case "Host", "Content-Type", "Content-Length", "Transfer-Encoding", "Connection":
			return nil, luahook.Failf(luahook.FailRejected, "header %q: set by the transport, it cannot be configured", name)
		}
		value, err := expandVars(name, headers[name], allowed, lookup)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, luahook.Failf(luahook.FailRejected, "header %q: the value contains a line break or NUL", name)
		}
		h.Add(name, value)
	}
	h.Set("Content-Type", "application/json")
	return h, nil
}

// expandVars replaces each ${NAME} in value. A "$" not followed by "{" is kept.
func expandVars(header, value string, allowed []string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(value, "${") {
		return value, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(value, "${")
		if i < 0 {
			b.WriteString(value)
			return b.String(), nil
		}
		b.WriteString(value[:i])
		end := strings.IndexByte(value[i:], '}')
		if end < 0 {
			return "", luahook.Failf(luahook.FailRejected, "header %q: unterminated ${ in the value", header)
		}
		name := value[i+2 : i+end]
		if !validVarName(name) {
			return "", luahook.Failf(luahook.FailRejected, "header %q: ${%s} is not a valid variable name", header, name)
		}
		if !slices.Contains(allowed, name) {
			return "", luahook.Failf(luahook.FailRejected, "header %q: ${%s} is not listed in allowed_env", header, name)
		}
		v, ok := lookup(name)
		if !ok {
			return "", luahook.Failf(luahook.FailRejected, "header %q: ${%s} is not set in the environment", header, name)
		}
		b.WriteString(v)
		value = value[i+end+1:]
	}
}

func validVarName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}
