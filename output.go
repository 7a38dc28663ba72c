package luahook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The output actions of PostToolUse (Outcome.Redact, Outcome.Output).
const (
	// ActionRedact takes parts of a tool's output out before the model
	// reads it, each replaced by a marker that says what was there.
	ActionRedact Action = "redact"
	// ActionReplaceOutput replaces a tool's whole output.
	ActionReplaceOutput Action = "replace_output"
)

// Caps on one redact outcome, checked before anything is compiled or applied.
const (
	MaxRedactions         = 1024     // entries of one outcome's redact list
	MaxRedactPatternBytes = 4096     // one pattern (RE2)
	MaxRedactTextBytes    = 64 << 10 // one literal text or span
	MaxRedactLabelChars   = 200      // one label
)

// MaxScanBytes is how much of one string of a tool's output (the members of
// a payload that carry it) luahook reads: a longer string is cut to its first bytes
// followed by CutMarker, at most MaxScanBytes in all (as the payload
// encodes it), before any hook sees it, and the
// output the model reads is that cut one (ToolResult.Cut), so that what no
// hook could scan never reaches the model. 1 MiB (about 250,000 tokens,
// more than any agent gives a model of one tool result) keeps an agent's
// payload, which holds the output twice (native and toolResult.content)
// and in more than one string (stdout, stderr), within the default cap on
// a hook's input.
const MaxScanBytes = 1 << 20

// CutMarker ends an output string of which n bytes were withheld because
// they were past MaxScanBytes.
func CutMarker(n int64) string {
	return "\n[luahook: the rest of this output (" + strconv.FormatInt(n, 10) +
		" bytes) was withheld: too large to scan]"
}

// DefaultRedactLabel is the label of a redaction that gives none.
const DefaultRedactLabel = "a secret"

// RedactMarker is the text that takes the place of a redacted part of an
// output: it says what was there, never what it was.
func RedactMarker(label string) string { return "[redacted: " + label + "]" }

// Redaction is one part of a tool's output to take out (Outcome.Redact):
// exactly one of Pattern (an RE2 expression: every match), Text (every
// occurrence of a literal text) or Start and End (a span of the
// toolResult.content the hook was given, in bytes, End excluded: that text,
// wherever it occurs), with Label saying what it is ("a GitHub token"), for
// the marker that replaces it and for the reason the model is given.
type Redaction struct {
	Pattern string `json:"pattern,omitempty"`
	Text    string `json:"text,omitempty"`
	Start   *int   `json:"start,omitempty"`
	End     *int   `json:"end,omitempty"`
	Label   string `json:"label,omitempty"`
}

// check reports what is wrong with the i-th redaction of a list, or nil.
func (r *Redaction) check(i int) error {
	at := "redact[" + strconv.Itoa(i+1) + "]"
	kinds := 0
	if r.Pattern != "" {
		kinds++
	}
	if r.Text != "" {
		kinds++
	}
	if r.Start != nil || r.End != nil {
		kinds++
	}
	switch {
	case kinds == 0:
		return Failf(FailInvalidOutput, "%s: give one of pattern, text, or start and end", at)
	case kinds > 1:
		return Failf(FailInvalidOutput, "%s: give only one of pattern, text, or start and end", at)
	case len(r.Pattern) > MaxRedactPatternBytes:
		return Failf(FailInvalidOutput, "%s: pattern longer than %d bytes", at, MaxRedactPatternBytes)
	case len(r.Text) > MaxRedactTextBytes:
		return Failf(FailInvalidOutput, "%s: text longer than %d bytes", at, MaxRedactTextBytes)
	case (r.Start == nil) != (r.End == nil):
		return Failf(FailInvalidOutput, "%s: a span needs both start and end", at)
	case r.Start != nil && (*r.Start < 0 || *r.End <= *r.Start):
		return Failf(FailInvalidOutput, "%s: span [%d, %d) is empty or negative", at, *r.Start, *r.End)
	case r.Start != nil && *r.End-*r.Start > MaxRedactTextBytes:
		return Failf(FailInvalidOutput, "%s: span longer than %d bytes", at, MaxRedactTextBytes)
	case utf8.RuneCountInString(r.Label) > MaxRedactLabelChars:
		return Failf(FailInvalidOutput, "%s: label longer than %d characters", at, MaxRedactLabelChars)
	}
	if r.Pattern != "" {
		if _, err := compileRedaction(r.Pattern); err != nil {
			return Failf(FailInvalidOutput, "%s: pattern %q: %v", at, snippet([]byte(r.Pattern), outcomeSnippetChars), err)
		}
	}
	return nil
}

// checkOutputFields reports an outcome whose output fields do not go with
// its action.
func (o *Outcome) checkOutputFields() error {
	switch o.Action {
	case ActionRedact:
		if len(o.Redact) == 0 {
			return Failf(FailInvalidOutput, "redact outcome requires a non-empty redact list")
		}
		if len(o.Redact) > MaxRedactions {
			return Failf(FailInvalidOutput, "redact outcome lists %d redactions (at most %d)", len(o.Redact), MaxRedactions)
		}
		for i := range o.Redact {
			if err := o.Redact[i].check(i); err != nil {
				return err
			}
		}
		if o.Output != nil {
			return Failf(FailInvalidOutput, "output given without action \"replace_output\"")
		}
	case ActionReplaceOutput:
		if !present(o.Output) || !json.Valid(o.Output) {
			return Failf(FailInvalidOutput, "replace_output outcome requires an output (a string, or the tool's own JSON shape)")
		}
		if o.Redact != nil {
			return Failf(FailInvalidOutput, "redact given without action \"redact\"")
		}
	default:
		if o.Output != nil {
			return Failf(FailInvalidOutput, "output given without action \"replace_output\"")
		}
		if o.Redact != nil {
			return Failf(FailInvalidOutput, "redact given without action \"redact\"")
		}
	}
	if (o.Action == ActionRedact || o.Action == ActionReplaceOutput) && o.Input != nil {
		return Failf(FailInvalidOutput, "input given without action \"mutate\"")
	}
	return nil
}

// The compiled patterns of redactions, shared: policies give the same few
// patterns call after call. Bounded: past maxCompiled entries it starts over.
var compiled struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const maxCompiled = 1024

func compileRedaction(p string) (*regexp.Regexp, error) {
	compiled.Lock()
	re, ok := compiled.m[p]
	compiled.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	compiled.Lock()
	if compiled.m == nil || len(compiled.m) >= maxCompiled {
		compiled.m = make(map[string]*regexp.Regexp, 64)
	}
	compiled.m[p] = re
	compiled.Unlock()
	return re, nil
}

// Withheld is one kind of thing taken out of an output, and how many times.
type Withheld struct {
	Label string `json:"label"`
	Count int    `json:"count"`
}

// OutputRewrite is what the PostToolUse hooks did to a tool's output: the
// output the model is to read instead of the tool's.
type OutputRewrite struct {
	// Content is the output as text: toolResult.content with the hooks'
	// redactions and replacements applied.
	Content string `json:"content"`
	// Value is the output a hook replaced the whole output with when it
	// was not a string (an agent's own shape for the tool's result), with
	// every redaction applied to its strings; nil otherwise.
	Value json.RawMessage `json:"value,omitempty"`
	// Replaced says a hook replaced the whole output (or luahook withheld
	// it): an agent whose tool results have a shape of their own cannot be
	// given Content in that shape unless it is Value.
	Replaced bool `json:"replaced,omitempty"`
	// Withheld lists what was taken out, in the order first seen.
	Withheld []Withheld `json:"withheld,omitempty"`
	// Reasons joins the reasons the hooks gave, "\n" between them.
	Reasons string `json:"reasons,omitempty"`

	edits []outputEdit
}

type outputEdit struct {
	re     *regexp.Regexp
	lit    string
	marker string
	label  string
}

// Summary is what a model is told about a rewritten output, for the agents
// that read a reason or context with it: what was taken out, and that it
// must not be brought back.
func (w *OutputRewrite) Summary() string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("luahook changed this tool output before you read it")
	if len(w.Withheld) > 0 {
		b.WriteString(": it took out ")
		for i, x := range w.Withheld {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(x.Label)
			if x.Count > 1 {
				fmt.Fprintf(&b, " (%d times)", x.Count)
			}
		}
	}
	b.WriteString(". Do not try to read, print or reconstruct what was withheld.")
	if r := strings.TrimSpace(w.Reasons); r != "" {
		b.WriteString(" ")
		b.WriteString(r)
	}
	return TruncateReason(b.String())
}

// Apply applies every redaction of w to s (a string of an agent's own
// shape of the tool's result) and returns the result.
func (w *OutputRewrite) Apply(s string) string {
	if w == nil {
		return s
	}
	for i := range w.edits {
		s, _ = applyAround(&w.edits[i], s, w.edits)
	}
	return s
}

// ApplyJSON applies every redaction of w to every string (keys excluded)
// of the JSON value raw, an agent's own shape of the tool's result, and
// returns the value rewritten, its shape kept.
func (w *OutputRewrite) ApplyJSON(raw json.RawMessage) (json.RawMessage, error) {
	if w == nil || len(w.edits) == 0 {
		return raw, nil
	}
	return mapJSONStrings(raw, w.Apply)
}

// applyAround applies e to s outside the markers of edits (the markers
// the chain has written so far: a later redaction must not match inside
// one, and no marker is taken apart), and returns the result and how
// many parts it took out.
func applyAround(e *outputEdit, s string, edits []outputEdit) (string, int) {
	spans := markerSpans(s, edits)
	if len(spans) == 0 {
		return e.apply(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	total, last := 0, 0
	for _, sp := range spans {
		out, n := e.apply(s[last:sp[0]])
		b.WriteString(out)
		b.WriteString(s[sp[0]:sp[1]])
		total += n
		last = sp[1]
	}
	out, n := e.apply(s[last:])
	b.WriteString(out)
	return b.String(), total + n
}

// markerSpans returns where the distinct markers of edits occur in s, in
// order, overlaps merged: one scan of s per distinct marker.
func markerSpans(s string, edits []outputEdit) [][2]int {
	if len(edits) == 0 || !strings.Contains(s, "[redacted: ") {
		return nil
	}
	var spans [][2]int
	seen := make(map[string]bool, 8)
	for i := range edits {
		m := edits[i].marker
		if seen[m] {
			continue
		}
		seen[m] = true
		for off := 0; ; {
			j := strings.Index(s[off:], m)
			if j < 0 {
				break
			}
			spans = append(spans, [2]int{off + j, off + j + len(m)})
			off += j + len(m)
		}
	}
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if top := &merged[len(merged)-1]; sp[0] < top[1] {
			top[1] = max(top[1], sp[1])
		} else {
			merged = append(merged, sp)
		}
	}
	return merged
}

// cleanLabel makes a label fit in a marker: one line, no brackets.
func cleanLabel(l string) string {
	l = strings.Map(func(r rune) rune {
		switch {
		case r == '[' || r == ']':
			return -1
		case r < ' ' || r == 0x7f:
			return ' '
		}
		return r
	}, l)
	return strings.TrimSpace(l)
}

func (e *outputEdit) apply(s string) (string, int) {
	if e.re == nil {
		n := strings.Count(s, e.lit)
		if n == 0 {
			return s, 0
		}
		return strings.ReplaceAll(s, e.lit, e.marker), n
	}
	locs := e.re.FindAllStringIndex(s, -1)
	n := 0
	for _, l := range locs {
		if l[1] > l[0] {
			n++
		}
	}
	if n == 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, l := range locs {
		if l[1] == l[0] {
			continue
		}
		b.WriteString(s[last:l[0]])
		b.WriteString(e.marker)
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// OutputChain applies the output outcomes of a tool's PostToolUse hooks in
// a defined order (the runner's: the mutate stage in registration order,
// then the others in registration order), so that the result never depends
// on which hook finished first. A redaction stays in force to the end: it
// is applied again to the final output, so no later replacement can bring
// back what an earlier hook took out.
type OutputChain struct {
	cur      string
	value    json.RawMessage
	replaced bool
	changed  bool
	reapply  bool // a replacement came after a redaction: Finish applies them again
	edits    []outputEdit
	withheld []Withheld
	reasons  []string
}

// NewOutputChain starts a chain over a tool's output as text (its
// toolResult.content); cut is ToolResult.Cut: when bytes were withheld
// before the hooks saw it, the output changes whatever the hooks say.
func NewOutputChain(content string, cut int64) *OutputChain {
	c := new(OutputChain)
	c.Start(content, cut)
	return c
}

// Start starts c over again, as NewOutputChain does: for a chain held in
// a variable rather than allocated.
func (c *OutputChain) Start(content string, cut int64) {
	*c = OutputChain{cur: content}
	if cut > 0 {
		c.changed = true
		c.count("output past "+strconv.Itoa(MaxScanBytes)+" bytes (too large to scan)", 1)
	}
}

// Content is the output as the chain has left it: what the next hook of
// the mutate stage is given.
func (c *OutputChain) Content() string { return c.cur }

// Changed reports whether the output is no longer the tool's.
func (c *OutputChain) Changed() bool { return c.changed }

func (c *OutputChain) count(label string, n int) {
	for i := range c.withheld {
		if c.withheld[i].Label == label {
			c.withheld[i].Count += n
			return
		}
	}
	c.withheld = append(c.withheld, Withheld{Label: label, Count: n})
}

// Apply applies one hook's outcome; seen is the toolResult.content that
// hook was given (its spans are read in it). An outcome without an output
// action changes nothing. ctx bounds the work: a chain whose context ends
// returns its error, and the caller withholds the output.
func (c *OutputChain) Apply(ctx context.Context, o *Outcome, seen string) error {
	if o == nil {
		return nil
	}
	switch o.Action {
	case ActionReplaceOutput:
		var s string
		if len(o.Output) > 0 && o.Output[0] == '"' {
			if err := json.Unmarshal(o.Output, &s); err != nil {
				return Failf(FailInvalidOutput, "replace_output: %v", err)
			}
			c.value = nil
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, o.Output); err != nil {
				return Failf(FailInvalidOutput, "replace_output: %v", err)
			}
			s = buf.String()
			c.value = json.RawMessage(buf.Bytes())
		}
		c.cur, c.replaced, c.changed = s, true, true
		c.reapply = c.reapply || len(c.edits) > 0
	case ActionRedact:
		start := len(c.edits)
		for i := range o.Redact {
			r := &o.Redact[i]
			e := outputEdit{label: cleanLabel(r.Label)}
			if e.label == "" {
				e.label = DefaultRedactLabel
			}
			e.marker = RedactMarker(e.label)
			switch {
			case r.Pattern != "":
				re, err := compileRedaction(r.Pattern)
				if err != nil {
					return Failf(FailInvalidOutput, "redact[%d]: pattern: %v", i+1, err)
				}
				e.re = re
			case r.Text != "":
				e.lit = r.Text
			default:
				if *r.End > len(seen) {
					return Failf(FailInvalidOutput, "redact[%d]: span [%d, %d) past the end of the output (%d bytes)", i+1, *r.Start, *r.End, len(seen))
				}
				e.lit = seen[*r.Start:*r.End]
			}
			c.edits = append(c.edits, e)
		}
		for i := start; i < len(c.edits); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			var n int
			c.cur, n = applyAround(&c.edits[i], c.cur, c.edits[:i])
			if n > 0 {
				c.changed = true
				c.count(c.edits[i].label, n)
			}
		}
	default:
		return nil
	}
	if r := strings.TrimSpace(o.Reason); r != "" {
		c.reasons = append(c.reasons, r)
	}
	return nil
}

// Withhold withholds the whole output, saying why (a hook that checks the
// output failed with a fail-closed policy).
func (c *OutputChain) Withhold(why string) {
	c.cur = "[luahook withheld this output: " + why + "]"
	c.value, c.replaced, c.changed = nil, true, true
	c.count("the whole output ("+why+")", 1)
}

// Finish applies every redaction once more to the final output (a
// replacement made after a redaction may have brought its text back) and
// returns the rewrite, nil when the output is the tool's own.
func (c *OutputChain) Finish(ctx context.Context) (*OutputRewrite, error) {
	if !c.changed {
		return nil, nil
	}
	w := &OutputRewrite{Replaced: c.replaced, edits: c.edits}
	for i := range c.edits {
		if !c.reapply {
			break // the text holds no part of the output the redactions have not seen
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var n int
		c.cur, n = applyAround(&c.edits[i], c.cur, c.edits)
		if n > 0 {
			c.count(c.edits[i].label, n)
		}
	}
	w.Content = c.cur
	if c.value != nil {
		v, err := w.ApplyJSON(c.value)
		if err != nil {
			return nil, err
		}
		w.Value = v
	}
	w.Withheld = c.withheld
	w.Reasons = strings.Join(c.reasons, "\n")
	return w, nil
}

// mapJSONStrings rewrites every string value (not keys) of raw with f.
func mapJSONStrings(raw json.RawMessage, f func(string) string) (json.RawMessage, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	v = mapStrings(v, f, 0)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func mapStrings(v any, f func(string) string, depth int) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = mapStrings(x[i], f, depth+1)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = mapStrings(e, f, depth+1)
		}
	}
	return v
}

// MaskSecret shows the start of a secret, never the secret: at most its
// first four bytes and a quarter of it, then "…".
func MaskSecret(s string) string {
	n := min(4, len(s)/4)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Masked returns o for a trace, a log or a terminal: a copy in which the
// literal texts of its redactions are masked (MaskSecret), since they are
// the secrets themselves. Anything else is shared with o; an outcome
// without such texts is o itself.
func (o *Outcome) Masked() *Outcome {
	if o == nil || len(o.Redact) == 0 {
		return o
	}
	c := *o
	c.Redact = make([]Redaction, len(o.Redact))
	for i, r := range o.Redact {
		if r.Text != "" {
			r.Text = MaskSecret(r.Text)
		}
		c.Redact[i] = r
	}
	return &c
}

// DescribeOutput says what a redact or replace_output outcome takes out,
// for a person, without the secrets: "redact: a GitHub token (bytes 5-45),
// an AWS access key id (pattern …)"; "" for any other outcome.
func DescribeOutput(o *Outcome) string {
	if o == nil {
		return ""
	}
	switch o.Action {
	case ActionReplaceOutput:
		return "replace_output: " + strconv.Itoa(len(o.Output)) + " bytes of JSON"
	case ActionRedact:
		var b strings.Builder
		b.WriteString("redact: ")
		for i, r := range o.Redact {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == 8 {
				fmt.Fprintf(&b, "and %d more", len(o.Redact)-i)
				break
			}
			label := r.Label
			if label == "" {
				label = DefaultRedactLabel
			}
			b.WriteString(label)
			switch {
			case r.Pattern != "":
				b.WriteString(" (pattern " + strconv.Quote(TruncateChars(r.Pattern, 60)) + ")")
			case r.Text != "":
				b.WriteString(" (text " + MaskSecret(r.Text) + ")")
			case r.Start != nil && r.End != nil:
				fmt.Fprintf(&b, " (bytes %d-%d)", *r.Start, *r.End)
			}
		}
		return b.String()
	}
	return ""
}
