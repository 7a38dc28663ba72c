package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/luahook/luahook"
	"github.com/santhosh-tekuri/jsonschema/v6"
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

// sameJSON reports whether two JSON texts hold equal values. Numbers are
// compared by their text, so a doubtful case counts as a change.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
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
		b.WriteString("\n  - ")
		b.WriteString(l)
	}
	return luahook.TruncateReason(b.String())
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
