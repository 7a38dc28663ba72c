package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsonschema"
)

// schemaFor returns the schema of tool: an exact name first, then a
// case-insensitive match (matchers are case-insensitive too). Nil if none.
func (r *Runner) schemaFor(tool string) *jsonschema.Schema {
	m := *r.schemas.Load()
	if len(m) == 0 {
		return nil
	}
	if s, ok := m[tool]; ok {
		return s
	}
	for name, s := range m {
		if strings.EqualFold(name, tool) {
			return s
		}
	}
	return nil
}

// MaxRewriteValues bounds the JSON values of a tool input that the runner
// decodes, to compare a rewritten input with the original and to validate it
// against the tool's schema: decoding costs an object per value, and
// validating up to an error object per value (about 2 KiB each), so that an
// input of millions of small values would cost gigabytes. A rewrite over it
// counts as a change, and is denied when the tool has a schema.
const MaxRewriteValues = 10000

// sameJSON reports whether two JSON texts hold equal values. Numbers are
// compared by their text, so a doubtful case counts as a change, and so does
// a text of more than MaxRewriteValues values.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if provablyDifferent(a, b) {
		return false
	}
	if jsonValues(a) > MaxRewriteValues || jsonValues(b) > MaxRewriteValues {
		return false
	}
	va, errA := decodeJSON(a)
	vb, errB := decodeJSON(b)
	if errA != nil || errB != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func decodeJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// schemaViolation checks input against sch and returns "" when it is valid,
// or a denial reason that lists each schema error with its path, so that the
// model can correct its call.
func schemaViolation(sch *jsonschema.Schema, tool string, input json.RawMessage) string {
	if jsonValues(input) > MaxRewriteValues {
		return luahook.TruncateReason(`A PreToolUse hook rewrote the arguments for "` + tool + `" into an input of more than ` +
			strconv.Itoa(MaxRewriteValues) + " JSON values, over the limit of " + strconv.Itoa(MaxRewriteValues) +
			" that luahook validates against the tool's schema; the action was denied because luahook could not decide")
	}
	var lines []string
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err == nil {
		err = sch.Validate(v)
		if err == nil {
			return ""
		}
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			lines = schemaErrors(ve, nil)
		}
	}
	if len(lines) == 0 {
		lines = []string{"input: " + err.Error()}
	}
	slices.Sort(lines)
	var b strings.Builder
	b.WriteString(`A PreToolUse hook rewrote the arguments for "`)
	b.WriteString(tool)
	b.WriteString("\" into an invalid shape.\n\nValidation errors:")
	for _, l := range slices.Compact(lines) {
		if b.Len() > 4*luahook.MaxReasonChars {
			break // the rest would be cut anyway
		}
		b.WriteString("\n  - ")
		b.WriteString(l)
	}
	return luahook.TruncateReason(b.String())
}

// jsonValues counts the values of a JSON text (objects, arrays, strings
// other than keys, numbers, literals), up to MaxRewriteValues+1. It
// allocates nothing, and reads the text once.
func jsonValues(raw []byte) int {
	n := 0
	for i := 0; i < len(raw) && n <= MaxRewriteValues; i++ {
		switch c := raw[i]; {
		case c == '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			j := i + 1
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
				j++
			}
			if j >= len(raw) || raw[j] != ':' {
				n++
			}
		case c == '{' || c == '[':
			n++
		case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
			n++
			for i+1 < len(raw) && strings.IndexByte(",]}: \t\r\n", raw[i+1]) < 0 {
				i++
			}
		}
	}
	return n
}

// schemaErrors flattens the cause tree into "path: message" lines, one per
// leaf: the leaves are the concrete violations, the inner nodes only group.
func schemaErrors(e *jsonschema.ValidationError, lines []string) []string {
	if len(e.Causes) == 0 {
		msg := e.Error()
		if out := e.BasicOutput(); out != nil && out.Error != nil {
			msg = out.Error.String()
		}
		return append(lines, instancePath(e.InstanceLocation)+": "+msg)
	}
	for _, c := range e.Causes {
		lines = schemaErrors(c, lines)
	}
	return lines
}

// instancePath renders a location as a JSON Pointer, or "input" for the root.
func instancePath(loc []string) string {
	if len(loc) == 0 {
		return "input"
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
