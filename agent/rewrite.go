package agent

import (
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// Where an agent cannot apply a rewrite as the hooks decided (Codex applies
// one only together with an approval; Cursor's preToolUse has no ask), the
// answer blocks the call instead, and its reason gives the rewritten call so
// that the model can make it: the next call goes through the hooks again,
// and through the agent's own permission rules.

// maxQuotedChars bounds the parts of a block's reason that come from the
// hooks (the ask's reason, the rewrite's reason), so that the rewritten
// call keeps most of luahook.MaxReasonChars.
const maxQuotedChars = 600

// minCallChars is the least room the rewritten call gets in a reason.
const minCallChars = 200

// cutNoteChars is the room kept for the note that says a call was cut.
const cutNoteChars = 64

// rewriteBlock returns the reason of a block standing for the rewrite d of
// req: lead (the hooks' own reason, "" for none) on its line, then that
// luahook rewrote the call, why (the rewrite's reason), what the agent
// cannot do (cannot), and the rewritten call: the command of a shell call,
// else the whole input as compact JSON, "to run instead" when instead is
// set. The call is quoted as a JSON string (a JSON text for an input) with
// every character that is not printable escaped, and the reason stays
// within luahook.MaxReasonChars characters: a call too long for it is cut,
// and the reason says so and how long it is.
func rewriteBlock(req *Request, d Decision, lead, cannot string, instead bool) string {
	var b []byte
	if lead != "" {
		b = append(b, clipChars(lead, maxQuotedChars)...)
		b = append(b, '\n')
	}
	b = append(b, rewroteThisCall...)
	if d.RewriteReason != "" {
		b = append(b, " ("...)
		b = append(b, clipChars(d.RewriteReason, maxQuotedChars)...)
		b = append(b, ')')
	}
	b = append(b, ". "...)
	b = append(b, cannot...)
	command, shell := shellCommand(req, d.Input)
	switch {
	case shell && instead:
		b = append(b, "; run the rewritten command instead: "...)
	case shell:
		b = append(b, "; the rewritten command: "...)
	case instead:
		b = append(b, "; make the call with the rewritten input instead: "...)
	default:
		b = append(b, "; the rewritten input: "...)
	}
	budget := max(luahook.MaxReasonChars-utf8.RuneCount(b)-cutNoteChars, minCallChars)
	if shell {
		var done bool
		if b, done = appendPrintable(b, command, true, budget); !done {
			b = append(b, "… (cut: the command has "...)
			b = strconv.AppendInt(b, int64(utf8.RuneCountInString(command)), 10)
			b = append(b, " characters)"...)
		}
	} else {
		var done bool
		if b, done = appendPrintable(b, string(d.Input), false, budget); !done {
			b = append(b, "… (cut: the input is "...)
			b = strconv.AppendInt(b, int64(len(d.Input)), 10)
			b = append(b, " bytes of JSON)"...)
		}
	}
	return string(b)
}

// shellCommand returns the string "command" of input when req's tool is a
// shell (its capabilities say so) and input has one.
func shellCommand(req *Request, input json.RawMessage) (string, bool) {
	if req.Input == nil || !hasCapability(Capabilities(req.Input.ToolName), CapShell) {
		return "", false
	}
	n, err := parseNative(input)
	if err != nil {
		return "", false
	}
	defer n.release()
	v := n.get("command")
	if v == nil || v[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

func hasCapability(caps []string, c string) bool {
	for _, x := range caps {
		if x == c {
			return true
		}
	}
	return false
}

// clipChars cuts s to n characters, marking the cut with "…".
func clipChars(s string, n int) string {
	if cut := luahook.TruncateChars(s, n); len(cut) < len(s) {
		return cut + "…"
	}
	return s
}

// appendPrintable appends s to b in at most budget characters, every
// character that is not printable escaped as JSON escapes it (\n, \t, \r,
// \uXXXX; a byte that is not UTF-8 becomes \ufffd): quoted, s is a string
// and is written as a JSON string; otherwise s is a JSON text, whose white
// space outside strings is left out. It stops before the unit that would
// pass budget (an escape is never split) and reports whether all of s was
// written, closing quote included.
func appendPrintable(b []byte, s string, quoted bool, budget int) ([]byte, bool) {
	b = appendGrow(b, s, budget)
	used := 0
	if quoted {
		b = append(b, '"')
		used++
	}
	inString := false
	var unit [12]byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		u := unit[:0]
		switch {
		case r == utf8.RuneError && size == 1:
			u = append(u, `\ufffd`...)
		case !quoted && !inString && (r == ' ' || r == '\t' || r == '\r' || r == '\n'):
			i += size
			continue
		case quoted && (r == '"' || r == '\\'):
			u = append(u, '\\', byte(r))
		case r == '\n':
			u = append(u, `\n`...)
		case r == '\t':
			u = append(u, `\t`...)
		case r == '\r':
			u = append(u, `\r`...)
		case r != ' ' && !unicode.IsPrint(r):
			u = appendUnicodeEscape(u, r)
		default:
			u = append(u, s[i:i+size]...)
		}
		if !quoted {
			switch {
			case inString && r == '\\' && i+1 < len(s):
				// An escape inside a JSON string is already printable:
				// copy it with the character it escapes.
				u = append(u, s[i+1])
				size++
			case r == '"':
				inString = !inString
			}
		}
		n := utf8.RuneCount(u)
		if used+n > budget {
			return b, false
		}
		b = append(b, u...)
		used += n
		i += size
	}
	if quoted {
		if used+1 > budget {
			return b, false
		}
		b = append(b, '"')
	}
	return b, true
}

// appendGrow makes room in b for s written in at most budget characters,
// without reserving more than that needs.
func appendGrow(b []byte, s string, budget int) []byte {
	n := min(len(s)+2, budget*utf8.UTFMax)
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b
}

// appendUnicodeEscape appends r as JSON's \uXXXX escape (a surrogate pair
// beyond the Basic Multilingual Plane).
func appendUnicodeEscape(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	one := func(b []byte, v rune) []byte {
		return append(b, '\\', 'u', hex[v>>12&0xf], hex[v>>8&0xf], hex[v>>4&0xf], hex[v&0xf])
	}
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return one(one(b, hi), lo)
	}
	return one(b, r)
}
