package install

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
)

// TokenEnv names the variable whose token the hooks show luahook serve:
// Claude Code puts its value in its HTTP hooks' Authorization header, and
// luahook fire --http reads it when no --token-file is named.
const TokenEnv = "LUAHOOK_TOKEN"

// tokenHeader is what Claude Code's HTTP hooks carry so that they send
// serve's token: the header with the variable's name, which Claude Code
// replaces by its value when it sends the request, and the variable's name
// in allowedEnvVars, without which it replaces it by nothing. The token
// itself is never written in the file.
func tokenHeader() []field {
	return []field{
		{"headers", obj{{"Authorization", "Bearer $" + TokenEnv}}},
		{"allowedEnvVars", []any{TokenEnv}},
	}
}

// checkToken checks how the hooks o writes carry serve's token: never in
// clear to another machine (an http URL only to a loopback address, as
// luahook fire --http holds it), and with o.TokenFile and o.TokenName only
// naming the token file of a command that forwards to --http, in the
// user's own settings (a file the team commits names no file of this
// machine); agents whose hooks are HTTP hooks take the token from the
// environment alone.
func (o *Options) checkToken(t *target) error {
	if u, err := url.Parse(o.HTTP); o.HTTP != "" && err == nil && TokenInClear(u) {
		return fmt.Errorf("--http %s: the hooks send serve's token, which would cross the network in clear: use https (http only to a loopback address)", o.HTTP)
	}
	if o.TokenFile == "" && o.TokenName == "" {
		return nil
	}
	switch {
	case o.HTTP == "":
		return errors.New("--token-file is for --http URL (over --socket, the server's user is the check)")
	case t.http:
		return fmt.Errorf("--token-file: %s's HTTP hooks send the token of $%s (their headers take variables, not files): "+
			"set %s where %s starts, and leave --token-file out", t.agent, TokenEnv, TokenEnv, t.agent)
	case o.TokenFile == "":
		return errors.New("--token-name picks a line of --token-file: give the file")
	case !filepath.IsAbs(o.TokenFile) || strings.ContainsAny(o.TokenFile, "\n\r"):
		return fmt.Errorf("--token-file %q: want the file's absolute path", o.TokenFile)
	case strings.ContainsAny(o.TokenName, " \t\n\r"):
		return fmt.Errorf("--token-name %q: want one word", o.TokenName)
	case o.Scope == Project:
		return fmt.Errorf("--token-file names a file of this machine, and the project's settings are a file the team commits: "+
			"use --user, or leave it out and set %s", TokenEnv)
	}
	return nil
}

// TokenInClear reports whether a call to u would carry serve's token in
// clear to another machine: an http URL whose host is not this machine's
// loopback interface (localhost or a loopback address). luahook install
// writes no such URL, and luahook fire --http sends no token to one.
func TokenInClear(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}
