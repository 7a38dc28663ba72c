package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// Hook is one configured command or HTTP hook (an entry of [[hooks.EVENT]]).
// A Hook from Load or Parse is valid and has its defaults applied.
//
// Its Spec holds the keys every hook has: Source is the "file:line" of the
// entry and Event the event it is configured under; Kind (type) is
// luahook.KindCommand (the default) or luahook.KindHTTP; Name (name)
// defaults to the command or the URL; Matcher (matcher) defaults to "*"
// (every tool); Stage (stage) applies to PreToolUse only, where it defaults
// to validate, and is "" on the other events; Timeout (timeout_ms, 1 to
// 600000 ms) is 0 when not given, for the registry's default (5 s, 60 s for
// background hooks); FailurePolicy (failure_policy) defaults to open; Policy
// (policy) keeps the hook running when only policy hooks may; Background and
// RunWhenToolSkipped (background, run_when_tool_skipped) apply to
// PostToolUse only; Mode (mode) is "" (live, the default) or "shadow": the
// hook runs on the events it matches and its outcome is traced and counted,
// never enforced, and its failure never denies whatever its failure_policy.
// Owner and Hook are not configured: the engine registers
// the hook, with its transport, under its own owner.
type Hook struct {
	luahook.Spec
	// Command (command) is the command line of a command hook.
	Command string
	// URL (url) is the endpoint of an HTTP hook: https://, or http:// to
	// localhost, 127.0.0.1 or [::1]; no credentials.
	URL string
	// Headers (headers) are sent by an HTTP hook; values may use ${NAME}
	// for names listed in AllowedEnv.
	Headers map[string]string
	// AllowedEnv (allowed_env) lists the environment variables header
	// values may expand.
	AllowedEnv []string
	// AllowPrivateNetwork (allow_private_network) lets an HTTPS hook reach
	// private, loopback and link-local addresses.
	AllowPrivateNetwork bool
}

// Validate reports what is wrong with a hook built in Go, with the same rules
// and messages Parse applies to the file, each message prefixed with the
// TOML key it concerns. The zero values of Kind, Stage, FailurePolicy,
// Matcher, Name and Timeout stand for their defaults.
func (h *Hook) Validate() error {
	var errs []error
	if _, err := luahook.ParseEvent(string(h.Event)); err != nil {
		errs = append(errs, err)
	} else {
		for _, p := range h.problems(func(k string) string { return k }) {
			key := p.field
			switch {
			case p.index >= 0:
				key = fmt.Sprintf("%s[%d]", key, p.index)
			case p.key != "":
				key = joinKey(key, p.key)
			}
			errs = append(errs, fmt.Errorf("%s: %s", key, p.msg))
		}
	}
	return errors.Join(errs...)
}

// A problem is one rule a hook breaks: the canonical key it concerns, and
// the array index or table key below it when the problem is that deep.
type problem struct {
	field string
	index int    // -1 when the problem is not an array entry
	key   string // a key below field (a header name), or ""
	msg   string
}

// problems checks the rules that span keys or need the event. spell turns a
// canonical key into the file's spelling, for messages that name a key.
func (h *Hook) problems(spell func(string) string) []problem {
	var ps []problem
	add := func(field, format string, args ...any) {
		ps = append(ps, problem{field: field, index: -1, msg: fmt.Sprintf(format, args...)})
	}
	isHTTP := false
	switch h.Kind {
	case "", luahook.KindCommand:
	case luahook.KindHTTP:
		isHTTP = true
	default:
		add("type", "%q is not a hook type (want command or http)", string(h.Kind))
		return ps // the remaining rules depend on the type
	}
	switch {
	case h.Stage == "":
	case h.Event != luahook.PreToolUse:
		add("stage", "%s applies to PreToolUse only", spell("stage"))
	case !h.Stage.Valid():
		add("stage", "%q is not a stage (want mutate or validate)", string(h.Stage))
	}
	if _, err := registry.ParseMatcher(h.Event, h.Matcher); err != nil {
		var me *registry.MatcherError
		if errors.As(err, &me) {
			add("matcher", "%s; %s", me.Reason, registry.MatcherForms)
		} else {
			add("matcher", "%v", err)
		}
	}
	if h.FailurePolicy != "" && !h.FailurePolicy.Valid() {
		add("failure_policy", "%q is not a failure policy (want open or closed)", string(h.FailurePolicy))
	}
	if !h.Mode.Valid() {
		add("mode", "%q is not a mode (want \"shadow\", or leave it out for a live hook)", string(h.Mode))
	}
	switch t := h.Timeout; {
	case t == 0:
	case t%time.Millisecond != 0:
		add("timeout_ms", "must be a whole number of milliseconds, not %v", t)
	case t < time.Millisecond || t > luahook.MaxTimeout:
		add("timeout_ms", "must be between 1 and %d, not %d", MaxTimeoutMs, t.Milliseconds())
	}
	if h.Background && h.Event != luahook.PostToolUse {
		add("background", "%s applies to PostToolUse only", spell("background"))
	}
	if h.RunWhenToolSkipped && h.Event != luahook.PostToolUse {
		add("run_when_tool_skipped", "%s applies to PostToolUse only", spell("run_when_tool_skipped"))
	}
	if !isHTTP {
		if strings.TrimSpace(h.Command) == "" {
			add("command", "a command hook needs a command")
		}
		if h.URL != "" {
			add("url", "only http hooks take this key (this hook's type is command)")
		}
		if h.Headers != nil {
			add("headers", "only http hooks take this key (this hook's type is command)")
		}
		if h.AllowedEnv != nil {
			add("allowed_env", "only http hooks take this key (this hook's type is command)")
		}
		if h.AllowPrivateNetwork {
			add("allow_private_network", "only http hooks take this key (this hook's type is command)")
		}
		return ps
	}
	if h.Command != "" {
		add("command", "only command hooks take this key (this hook's type is http)")
	}
	if h.URL == "" {
		add("url", "an http hook needs a url")
	} else if msg := checkURL(h.URL); msg != "" {
		add("url", "%s", msg)
	}
	for _, lp := range checkList(h.AllowedEnv, checkEnvName) {
		ps = append(ps, problem{field: "allowed_env", index: lp.index, msg: lp.msg})
	}
	for _, name := range slices.Sorted(maps.Keys(h.Headers)) {
		if msg := checkHeader(name, h.Headers[name], h.AllowedEnv, spell); msg != "" {
			ps = append(ps, problem{field: "headers", index: -1, key: name, msg: msg})
		}
	}
	return ps
}

// normalize applies the defaults; h must be valid.
func (h *Hook) normalize() {
	if h.Kind == "" {
		h.Kind = luahook.KindCommand
	}
	if h.Matcher == "" {
		h.Matcher = "*"
	}
	if h.Event == luahook.PreToolUse && h.Stage == "" {
		h.Stage = luahook.DefaultStage(h.Kind)
	}
	if h.FailurePolicy == "" {
		h.FailurePolicy = luahook.FailOpen
	}
	h.Name = strings.TrimSpace(h.Name)
	if h.Name == "" {
		h.Name = h.Command
		if h.Kind == luahook.KindHTTP {
			h.Name = h.URL
		}
	}
}

func checkURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("%q is not an http:// or https:// URL", raw)
	}
	if u.User != nil {
		return "must not carry credentials (send them in a header that expands ${NAME})"
	}
	if u.Scheme == "http" {
		switch strings.ToLower(u.Hostname()) {
		case "localhost", "127.0.0.1", "::1":
		default:
			return "cleartext http:// is allowed only to localhost, 127.0.0.1 and [::1]; use https://"
		}
	}
	return ""
}

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}`) }) // compiled on first use, not at start-up

func checkHeader(name, value string, allowed []string, spell func(string) string) string {
	if !isToken(name) {
		return fmt.Sprintf("%q is not a valid header name", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return "header value must not contain line breaks or NUL"
	}
	for _, m := range envRef().FindAllStringSubmatch(value, -1) {
		if !slices.Contains(allowed, m[1]) {
			return fmt.Sprintf("uses ${%s}, which %s does not list", m[1], spell("allowed_env"))
		}
	}
	return ""
}

// isToken reports whether s is an HTTP token (RFC 9110), as header names are.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func checkEnvName(s string) string {
	ok := s != ""
	for i := 0; i < len(s) && ok; i++ {
		c := s[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || i > 0 && '0' <= c && c <= '9'
	}
	if !ok {
		return fmt.Sprintf("%q is not an environment variable name", s)
	}
	return ""
}

func checkCommandName(s string) string {
	if s == "" || strings.ContainsAny(s, "/\\ \t\r\n") {
		return fmt.Sprintf("%q is not a command name (a first word, without path or spaces)", s)
	}
	return ""
}

func checkLib(s string) string {
	if !slices.Contains(GrantableLibs(), s) {
		return fmt.Sprintf("%q is not a library that can be granted (want one of %s)", s, strings.Join(GrantableLibs(), ", "))
	}
	return ""
}

type listProblem struct {
	index int
	msg   string
}

// checkList checks every entry of a list of names and reports duplicates.
func checkList(list []string, check func(string) string) []listProblem {
	var out []listProblem
	for i, s := range list {
		if msg := check(s); msg != "" {
			out = append(out, listProblem{i, msg})
		} else if slices.Contains(list[:i], s) {
			out = append(out, listProblem{i, fmt.Sprintf("%q is listed twice", s)})
		}
	}
	return out
}
