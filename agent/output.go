package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// The output firewall's side of the adapters: on PostToolUse, a decision
// whose Output is set (the hooks redacted or replaced the tool's output)
// becomes the strongest answer the agent's protocol has that makes the
// model read the rewritten output and never the original, and, where the
// protocol has none, the strongest fallback (a block whose reason carries
// the rewritten output, or context that tells the model what was taken
// out and not to bring it back).

// OutputMode is how an agent's hook answer makes the model read a
// rewritten tool output.
type OutputMode string

const (
	// OutputReplaces: the answer replaces the tool's result, for built-in
	// and MCP tools alike.
	OutputReplaces OutputMode = "replaces"
	// OutputMCPOnly: the answer replaces the results of MCP tools only; a
	// built-in tool's original output reaches the model, with the
	// fallback.
	OutputMCPOnly OutputMode = "mcp-only"
	// OutputBlockReason: the answer blocks the tool's result, and the
	// block's reason, which the model reads in its place, carries the
	// rewritten output.
	OutputBlockReason OutputMode = "block-reason"
)

// OutputDelivery is what an agent does with a rewritten tool output: what
// luahook doctor and luahook install check an installed agent against.
type OutputDelivery struct {
	// Mode is how the rewritten output reaches the model.
	Mode OutputMode
	// Fields names the answer's fields that carry it.
	Fields string
	// Fallback is what the model gets where Mode does not reach (a failed
	// tool's output, a built-in tool under OutputMCPOnly, a release older
	// than MinVersion): the original output then reaches the model.
	Fallback string
	// MinVersion is the agent's first release known to apply Fields ("":
	// every release with the event, or none known: see Note).
	MinVersion string
	// Note says what is known to go wrong, and on which releases.
	Note string
}

// outputSupport is OutputSupport's table: one entry per adapter (the
// research notes' and the agents' issue trackers' word, release by
// release).
var outputSupport = map[Name]OutputDelivery{
	Claude: {
		Mode:   OutputReplaces,
		Fields: "hookSpecificOutput.updatedToolOutput (built-in tools), hookSpecificOutput.updatedMCPToolOutput (MCP tools), in the tool's own output shape",
		Fallback: "hookSpecificOutput.additionalContext saying what was taken out and not to repeat it " +
			"(PostToolUseFailure, and an output whose shape luahook cannot rebuild)",
		MinVersion: "2.1.121",
		Note: "updatedToolOutput must have the tool's own shape (Bash: {stdout, stderr, interrupted}): " +
			"a plain string is dropped for built-in tools (anthropics/claude-code#65403, #68951; applied on 2.1.233 in the right shape); " +
			"releases before 2.1.121 replace MCP tools' output only",
	},
	Codex: {
		Mode:     OutputBlockReason,
		Fields:   `"decision":"block" with "reason": the rewritten output (cut to 10000 characters), then what was taken out`,
		Fallback: "none needed: every release with PostToolUse hooks replaces the result with the block's reason",
		Note: "updatedToolOutput and updatedMCPToolOutput are never written: Codex marks a hook that returns a field it does not accept " +
			"failed, and keeps the original output; 0.142.5 rejects updatedToolOutput (openai/codex#31015) and no release is known " +
			"to accept it. Codex's own transcript still shows the original output (the model reads the reason)",
	},
	Copilot: {
		Mode:     OutputReplaces,
		Fields:   "modifiedResult {resultType, textResultForLlm}, and additionalContext saying what was taken out",
		Fallback: "additionalContext saying what was taken out and not to repeat it (postToolUseFailure)",
		Note: "an extension's modifiedResult was reported shown in the terminal but not given to the model " +
			"(github/copilot-cli#3361, open); not checked for command hooks",
	},
	Cursor: {
		Mode:   OutputMCPOnly,
		Fields: "updated_mcp_tool_output (MCP tools: the MCP result, or the rewritten text), and additional_context saying what was taken out",
		Fallback: "additional_context saying what was taken out and not to repeat it: Cursor has no way to replace a built-in " +
			"tool's output, so the model reads the original (postToolUse of Shell, Read, Grep...; postToolUseFailure)",
	},
	Gemini: {
		Mode:     OutputBlockReason,
		Fields:   `"decision":"deny" with "reason": the rewritten output; hookSpecificOutput.additionalContext saying what was taken out`,
		Fallback: "none needed: AfterTool's deny replaces the result of every tool, a failed one's too",
	},
}

// OutputSupport returns how the agent named name delivers a rewritten tool
// output to its model, and false for an agent with no adapter.
func OutputSupport(name Name) (OutputDelivery, bool) {
	o, ok := outputSupport[name]
	return o, ok
}

// maxOutputReasonChars bounds a reason that carries a rewritten output
// (Codex's block), in characters: what Claude Code keeps of a hook's
// output string, and Cursor of its context.
const maxOutputReasonChars = 10000

// outputContext is the context that goes with a rewritten output: what
// was taken out and not to bring it back (OutputRewrite.Summary), then the
// hooks' own context, within maxOutputReasonChars characters (Cursor drops
// a longer context whole).
func outputContext(d *Decision) string {
	s := d.Output.Summary()
	if d.Context != "" {
		s += "\n" + d.Context
	}
	return luahook.TruncateChars(s, maxOutputReasonChars)
}

// outputReason is the reason of a block that carries a rewritten output in
// place of the tool's: the output, cut to what fits with a line that says
// how much was cut, then what was taken out.
func outputReason(w *luahook.OutputRewrite) string {
	summary := w.Summary()
	budget := maxOutputReasonChars - utf8.RuneCountInString(summary) - 2
	content := w.Content
	if n := utf8.RuneCountInString(content); n > budget {
		note := "\n[luahook: the rest of this output (" + strconv.Itoa(n) + " characters in all) was cut to fit the hook's answer]"
		content = luahook.TruncateChars(content, max(budget-utf8.RuneCountInString(note), 0)) + note
	}
	if content == "" {
		return summary
	}
	return content + "\n\n" + summary
}

// nativeValue returns the value of key in req's native payload (nil when
// absent or unreadable). It shares nothing with the payload.
func nativeValue(req *Request, key string) json.RawMessage {
	n, err := parseNative(req.Native)
	if err != nil {
		return nil
	}
	defer n.release()
	v := n.get(key)
	if v == nil {
		return nil
	}
	return bytes.Clone(v)
}

// isMCP reports whether req is a call of an MCP tool.
func isMCP(req *Request) bool {
	return req.Input != nil && hasCapability(req.Input.ToolCapabilities, CapMCP)
}

// inShape returns the rewritten output w in the shape of native, the
// tool's result as the agent sent it, for an agent that takes back only
// that shape; false when no answer in that shape can carry it.
//
//   - A hook's replacement value (w.Value) is the hooks' own answer in the
//     tool's shape: it is given as it is when it fits that shape
//     (fitsShape); one that does not (the agent would drop it, and the
//     model read the tool's own output) is its JSON text in the shape,
//     below.
//   - A result that is a string (or absent) is w.Content.
//   - A result that was only redacted (or cut) is the result with
//     every redaction applied to its strings (shape kept), as long as that
//     reads as w.Content does. The hooks read the result as compact JSON
//     text: where a redaction reads differently in the text than in the
//     strings (one across an escape), the answer is w.Content itself when
//     it still has the result's shape, else w.Content in the shape, below.
//   - Otherwise (a replaced or withheld output) w.Content takes the
//     place of the result's text: see textInShape.
func inShape(native json.RawMessage, w *luahook.OutputRewrite) (json.RawMessage, bool) {
	switch {
	case w.Value != nil && (len(native) == 0 || fitsShape(native, w.Value)):
		return w.Value, true
	case len(native) == 0 || native[0] == '"':
		return jsonString(w.Content), true
	case !w.Replaced:
		// A cut result qualifies too: the door cut the native result's
		// strings as it cut the output the hooks read, and the check
		// below holds the two to one text.
		if v, err := w.ApplyJSON(native); err == nil && sameValue(v, []byte(w.Content)) {
			return v, true
		}
		if text := []byte(w.Content); sameShape(native, text) {
			if v, err := w.ApplyJSON(text); err == nil {
				return v, true
			}
		}
	}
	return textInShape(native, w.Content, w.Apply)
}

// textInShape returns a value of native's shape whose text is content, for
// a tool's result replaced as a whole (or withheld, or cut):
//
//   - MCP content blocks ([{type, text}...], or an object with such a
//     "content", as a CallToolResult): one text block, content (with the
//     object's isError kept, and nothing else of it);
//   - a shell's result (an object with a string "stdout", Claude Code's
//     Bash): stdout is content, stderr empty, interrupted and isImage kept
//     (false when absent);
//   - any other object or array: its longest string, at any depth (the
//     output's text: a file's content, a fetched page), is content; its
//     other strings (paths, a status line) keep their text, with apply
//     (the redactions) applied to them.
//
// It reports false for a result with no string to carry content.
func textInShape(native json.RawMessage, content string, apply func(string) string) (json.RawMessage, bool) {
	v, err := decodeValue(native)
	if err != nil {
		return nil, false
	}
	block := []any{map[string]any{"type": "text", "text": content}}
	switch x := v.(type) {
	case string:
		return jsonString(content), true
	case []any:
		if contentBlocks(x) {
			return encodeValue(block)
		}
	case map[string]any:
		if c, ok := x["content"].([]any); ok && contentBlocks(c) {
			out := map[string]any{"content": block}
			if e, ok := x["isError"].(bool); ok {
				out["isError"] = e
			}
			return encodeValue(out)
		}
		if _, ok := x["stdout"].(string); ok {
			out := map[string]any{"stdout": content, "stderr": "", "interrupted": false}
			for _, k := range [...]string{"interrupted", "isImage"} {
				if b, ok := x[k].(bool); ok {
					out[k] = b
				}
			}
			return encodeValue(out)
		}
	}
	longest, n := -1, 0
	i := 0
	walkStrings(v, func(s string) string {
		if len(s) > n || longest < 0 {
			longest, n = i, len(s)
		}
		i++
		return s
	})
	if longest < 0 {
		return nil, false
	}
	i = 0
	v = walkStrings(v, func(s string) string {
		defer func() { i++ }()
		if i == longest {
			return content
		}
		return apply(s)
	})
	return encodeValue(v)
}

// contentBlocks reports whether blocks is a list of MCP content blocks:
// objects with a string "type", at least one.
func contentBlocks(blocks []any) bool {
	for _, b := range blocks {
		m, ok := b.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["type"].(string); !ok {
			return false
		}
	}
	return len(blocks) > 0
}

// walkStrings replaces every string value (keys excluded) of v with f's
// result, in a fixed order (object members by key), and returns v.
func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkStrings(x[i], f)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			x[k] = walkStrings(x[k], f)
		}
	}
	return v
}

// decodeValue decodes one JSON value, numbers kept as written.
func decodeValue(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	// one value and nothing after it: a text that starts with a value
	// and goes on is not that value
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

// encodeValue encodes v as compact JSON, HTML characters unescaped.
func encodeValue(v any) (json.RawMessage, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, false
	}
	return bytes.TrimRight(b.Bytes(), "\n"), true
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	v, _ := encodeValue(s)
	return v
}

// fitsShape reports whether the JSON value v can stand for the tool's
// result native: both objects, each of v's members one of native's with a
// value of the same kind, and at least one of them; both arrays; or both
// strings.
func fitsShape(native, v []byte) bool {
	x, err := decodeValue(native)
	if err != nil {
		return false
	}
	y, err := decodeValue(v)
	if err != nil {
		return false
	}
	switch a := x.(type) {
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok || len(b) == 0 {
			return false
		}
		for k, e := range b {
			n, ok := a[k]
			if !ok || kindOf(n) != kindOf(e) {
				return false
			}
		}
		return true
	case []any:
		_, ok := y.([]any)
		return ok
	case string:
		_, ok := y.(string)
		return ok
	}
	return false
}

// kindOf is a decoded JSON value's kind: its shape without what it holds.
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return shapeOf(v)
}

// sameShape reports whether the JSON texts a and b are values of the same
// shape (shapeOf).
func sameShape(a, b []byte) bool {
	x, err := decodeValue(a)
	if err != nil {
		return false
	}
	y, err := decodeValue(b)
	return err == nil && shapeOf(x) == shapeOf(y)
}

// shapeOf describes the shape of a decoded JSON value: its kind, an
// object's keys with their values' shapes, every element's shape of an
// array (each distinct one once, in order).
func shapeOf(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k, e := range x {
			keys = append(keys, strconv.Quote(k)+":"+shapeOf(e))
		}
		slices.Sort(keys)
		return "{" + strings.Join(keys, ",") + "}"
	case []any:
		var elems []string
		for _, e := range x {
			if s := shapeOf(e); !slices.Contains(elems, s) {
				elems = append(elems, s)
			}
		}
		return "[" + strings.Join(elems, ",") + "]"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}

// sameValue reports whether the JSON texts a and b hold the same value
// (object members in any order, numbers as written).
func sameValue(a, b []byte) bool {
	x, err := decodeValue(a)
	if err != nil {
		return false
	}
	y, err := decodeValue(b)
	if err != nil {
		return false
	}
	xa, _ := encodeValue(x)
	yb, _ := encodeValue(y)
	return bytes.Equal(xa, yb)
}
