package decisionfeed

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
)

// entry makes the Entry of rec (Seq not set), its strings cut and copied
// so that it holds none of rec's memory. f.enc is held.
func (f *Feed) entry(rec *decisionlog.Record) Entry {
	in := &f.enc.intern
	e := Entry{
		Time:      rec.Time,
		Instance:  in.field(rec.Instance),
		Agent:     in.field(rec.Agent),
		Session:   in.field(rec.SessionID),
		Event:     in.field(string(rec.Event)),
		Tool:      in.field(rec.ToolName),
		Action:    in.field(string(rec.Decision.Action)),
		DecidedBy: in.field(rec.Decision.DecidedBy),
		Client:    in.field(topLevelString(rec.Input, "client")),
	}
	if e.Time.IsZero() {
		e.Time = f.now()
	}
	reason := rec.Decision.Reason
	e.Verdict = verdictOf(&rec.Decision)
	if d := rec.Delivered; d != nil {
		if e.Agent == "" {
			e.Agent = in.field(d.Agent)
		}
		if d.Verdict != "" {
			e.Verdict = in.field(d.Verdict)
		}
		if d.Reason != "" {
			reason = d.Reason
		}
	}
	e.Denied = e.Verdict == "deny" || e.Verdict == "block"
	e.Reason = in.text(cutChars(reason, MaxReasonChars))
	if n := min(len(rec.Hooks), MaxNames); n > 0 {
		e.Hooks = make([]string, n)
		for i := range n {
			e.Hooks[i] = in.field(rec.Hooks[i].Name)
		}
	}
	if len(rec.Files) > 0 {
		names := make([]string, 0, len(rec.Files))
		for name := range rec.Files {
			names = append(names, name)
		}
		slices.Sort(names)
		names = names[:min(len(names), MaxNames)]
		for i, name := range names {
			names[i] = in.field(name)
		}
		e.Files = slices.Clip(names)
	}
	if a := rec.Approval; a != nil {
		s := a.Verdict
		if a.By != "" {
			s += " by " + a.By
		}
		e.Approval = in.field(s)
	}
	return e
}

// verdictOf is the verdict an agent reads from a decision that has no
// Delivered, as the pipeline names the policies' decision: a Stop's
// continue blocks, a mutate that rewrote the tool input rewrites, added
// context without objection is "context".
func verdictOf(d *decisionlog.Decision) string {
	switch d.Action {
	case luahook.ActionDeny:
		return "deny"
	case luahook.ActionAsk:
		return "ask"
	case luahook.ActionAllow:
		return "allow"
	case luahook.ActionContinue:
		return "block"
	}
	switch o := d.Outcome; {
	case o != nil && d.Action == luahook.ActionMutate && len(o.Input) > 0:
		return "rewrite"
	case o != nil && o.AdditionalContext != "":
		return "context"
	}
	return "none"
}

// cutChars is s cut to its first n characters (runes).
func cutChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// cutBytes is s cut to at most n bytes, at a character's boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// interner hands out copies of the strings entries hold, one copy for the
// strings that come again and again (agents, sessions, hooks, reasons):
// entries cost less, and Write allocates less. It holds at most
// maxInterned strings and internBytes bytes, and starts again when full.
type interner struct {
	m     map[string]string
	bytes int
}

const (
	maxInterned = 4096
	internBytes = 1 << 20
)

// field is s cut to MaxFieldBytes, as an interned copy.
func (t *interner) field(s string) string { return t.text(cutBytes(s, MaxFieldBytes)) }

// text is an interned copy of s, which is bounded already.
func (t *interner) text(s string) string {
	if s == "" {
		return ""
	}
	if c, ok := t.m[s]; ok {
		return c
	}
	if t.m == nil || len(t.m) >= maxInterned || t.bytes+len(s) > internBytes {
		t.m, t.bytes = make(map[string]string, 256), 0
	}
	c := strings.Clone(s)
	t.m[c] = c
	t.bytes += len(c)
	return c
}

// topLevelString returns the member key of the JSON object data when it
// is a string, "" otherwise (not an object, no such member, not a
// string, data not valid JSON as far as it was read). It reads data once,
// without allocating but for the string it returns.
func topLevelString(data []byte, key string) string {
	i := space(data, 0)
	if i >= len(data) || data[i] != '{' {
		return ""
	}
	i = space(data, i+1)
	for i < len(data) && data[i] == '"' {
		end := stringEnd(data, i)
		if end < 0 {
			return ""
		}
		k := data[i+1 : end-1]
		i = space(data, end)
		if i >= len(data) || data[i] != ':' {
			return ""
		}
		i = space(data, i+1)
		if string(k) == key {
			if i >= len(data) || data[i] != '"' {
				return ""
			}
			end := stringEnd(data, i)
			if end < 0 {
				return ""
			}
			return unquote(data[i:end])
		}
		if i = valueEnd(data, i); i < 0 {
			return ""
		}
		i = space(data, i)
		if i >= len(data) || data[i] != ',' {
			return ""
		}
		i = space(data, i+1)
	}
	return ""
}

// unquote is the JSON string literal lit as a string, "" when it does not
// decode.
func unquote(lit []byte) string {
	if !slices.Contains(lit, '\\') {
		s := lit[1 : len(lit)-1]
		if !utf8.Valid(s) {
			return ""
		}
		return string(s)
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return ""
	}
	return s
}

func space(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the string literal that starts at i, -1
// when it does not end.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd is the index after the JSON value that starts at i, -1 when it
// does not end. It checks no more than it must to find the end.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				if j = stringEnd(data, j); j < 0 {
					return -1
				}
				j-- // the loop's j++
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' && data[j] != ' ' &&
		data[j] != '\t' && data[j] != '\n' && data[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
