package transports

import (
	"path/filepath"
	"strings"

	"github.com/luahook/luahook"
)

// Variables luahook sets in every command hook's environment, besides the
// payload's.
const (
	// configDirVar names the folder of the configuration file that defined
	// the hook (CommandSpec.Dir), so that a script can find its siblings.
	configDirVar = "LUAHOOK_CONFIG_DIR"
	// callVar carries a marker unique to one call; see reap.
	callVar = "LUAHOOK_CALL"
)

// ChildEnv returns the environment a command hook runs with, built from the
// parent environment ("NAME=value" entries, as os.Environ returns them).
// It is an allowlist: what is not known to be harmless is dropped.
//
// An inherited variable is kept only when both of these hold:
//   - its name is known to be harmless: PATH HOME USER USERNAME LOGNAME
//     SHELL LANG LANGUAGE LC_* TERM COLORTERM NO_COLOR TZ TMPDIR TEMP TMP
//     CI EDITOR VISUAL PAGER XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME
//     XDG_STATE_HOME GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME
//     GIT_COMMITTER_EMAIL, or it starts with LUAHOOK_ and does not look
//     secret (see looksSecret);
//   - its value carries no credential (see carriesCredentials): URL user
//     info, a query-string credential (?token=, &sig=, ...), authentication
//     header text (Authorization:, X-Api-Key:, PRIVATE-TOKEN:, Cookie:,
//     Bearer ...), a private key or a well-known token shape (ghp_, glpat-,
//     sk-, AKIA, xox?-, ...).
//
// Everything else is dropped: tokens and passwords, but also what hands out
// or reaches credentials without being one (GIT_ASKPASS, GIT_SSH_COMMAND,
// GIT_CONFIG_*, SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, KUBECONFIG,
// proxies) and what loads code into a child (LD_PRELOAD, NODE_OPTIONS,
// BASH_ENV).
//
// The names in pass are the operator's explicit consent: each is copied
// from the parent as it is, secret-looking name or credential-bearing value
// alike. Finally PWD is set to the payload's working directory (when it has
// one), LUAHOOK_EVENT, LUAHOOK_TOOL_NAME and LUAHOOK_SESSION_ID from the
// payload, and the variables of extra (NAME=value entries luahook itself
// sets, LUAHOOK_CONFIG_DIR and LUAHOOK_CALL) are added; all of these replace
// any inherited or passed value.
func ChildEnv(parent []string, pass []string, in *luahook.Input, extra ...string) []string {
	if in == nil {
		in = &luahook.Input{}
	}
	out := make([]string, 0, 16+len(pass)+len(extra))
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || setByLuahook(name, extra) || contains(pass, name) || (name == "PWD" && in.Cwd != "") {
			continue
		}
		if keepInherited(name, value) {
			out = append(out, kv)
		}
	}
	for _, name := range pass {
		if setByLuahook(name, extra) {
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
	out = append(out,
		"LUAHOOK_EVENT="+string(in.Event),
		"LUAHOOK_TOOL_NAME="+in.ToolName,
		"LUAHOOK_SESSION_ID="+in.SessionID,
	)
	return append(out, extra...)
}

// setByLuahook reports whether luahook sets name itself: a payload variable
// or one of extra.
func setByLuahook(name string, extra []string) bool {
	if name == "LUAHOOK_EVENT" || name == "LUAHOOK_TOOL_NAME" || name == "LUAHOOK_SESSION_ID" ||
		name == configDirVar || name == callVar {
		return true
	}
	for _, kv := range extra {
		if len(kv) > len(name) && kv[len(name)] == '=' && strings.HasPrefix(kv, name) {
			return true
		}
	}
	return false
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
	if !harmlessName(name) {
		return false
	}
	return !carriesCredentials(value)
}

// harmlessName reports whether an inherited variable may reach a command
// hook by its name alone (its value is checked apart).
func harmlessName(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "USERNAME", "LOGNAME", "SHELL", "LANG", "LANGUAGE",
		"TERM", "COLORTERM", "NO_COLOR", "TZ", "TMPDIR", "TEMP", "TMP", "PWD",
		"CI", "EDITOR", "VISUAL", "PAGER",
		"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL":
		return true
	}
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	return strings.HasPrefix(name, "LUAHOOK_") && !looksSecret(strings.ToUpper(name))
}
