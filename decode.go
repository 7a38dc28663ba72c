package luahook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxSharedText is the largest payload whose strings share one copy of its
// text (DecodeInput).
const maxSharedText = 4 << 10

// deepKeys are the top-level keys whose object values DecodeInput validates
// and checks for duplicate keys at every depth: the JSON documents of the
// payload, held as raw JSON.
var deepKeys = []string{"toolInput", "native"}

// maxNesting is how deep encoding/json lets JSON values nest.
const maxNesting = 10000

// payloadSnippetChars is how much of a payload's text an error quotes.
const payloadSnippetChars = 40

// DecodeInput parses a payload strictly, leaving the event to the caller: the
// data must be exactly one JSON object whose keys, and those of its nested
// objects, are the contract's, spelled exactly (encoding/json alone would
// take "TOOLINPUT" for "toolInput"), each at most once (so that a proxy that
// reads the first "toolInput" and luahook cannot see different
// payloads; inside toolInput too, at every depth, so that a policy and the
// tool that runs cannot read different values of one key), and whose
// toolInput and native, when present and not null, are objects (native is
// checked for duplicate keys as toolInput is). Identifiers over their
// limits (Input.CheckLimits) are errors naming the field.
// Unknown keys are errors: a typo must not turn into an empty payload that
// every policy lets through. A null value counts as absent. Errors name the
// key or the byte offset at fault.
func DecodeInput(data []byte) (*Input, error) {
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 {
		return nil, errors.New("payload: empty; want a JSON object")
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("payload: want a JSON object, got %s", snippet(data, payloadSnippetChars))
	}
	in := &Input{}
	var seen uint32
	// A small payload's text is copied into one string whose substrings
	// are the keys and the plain string values: one allocation for all of
	// them. A larger one allocates each string, so that a string kept
	// from it keeps no more than itself.
	var text string
	if len(data) <= maxSharedText {
		text = string(data)
	}
	// toolInput and native are validated and checked for duplicate keys
	// at every depth as the walk passes them (walker.object).
	w := walker{data: data, text: text, deep: deepKeys}
	err := w.object(func(key string, off int, value []byte) error {
		var valueText string
		if text != "" {
			valueText = text[off : off+len(value)]
		}
		i := slices.Index(inputKeys.list, key)
		switch {
		case i < 0:
			return unknownKey(key, inputKeys.list)
		case seen&(1<<i) != 0:
			return fmt.Errorf("duplicate key %q", key)
		}
		seen |= 1 << i
		if keys := inputKeys.nestedAt[i]; keys != nil && value[0] == '{' {
			var nested uint32
			err := walkObjectIn(value, valueText, func(k string, _ int, _ []byte) error {
				j := slices.Index(keys, k)
				switch {
				case j < 0:
					return fmt.Errorf("%s: %w", key, unknownKey(k, keys))
				case nested&(1<<j) != 0:
					return fmt.Errorf("%s: duplicate key %q", key, k)
				}
				nested |= 1 << j
				return nil
			})
			if err != nil {
				return err
			}
		}
		p := field(in, i)
		if w.checked != errUnchecked && w.checked != errInvalidJSON {
			// A deep key's object, validated as the walk passed it.
			if w.checked != nil {
				return w.checked // a duplicate key
			}
			raw := p.(*json.RawMessage)
			*raw = append((*raw)[:0], value...)
			return nil
		}
		// encoding/json says what is wrong with an invalid toolInput.
		if err := decodeField(value, valueText, p); err != nil {
			return valueError(key, off, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	switch {
	case string(in.ToolInput) == "null":
		in.ToolInput = nil
	case in.ToolInput != nil && in.ToolInput[0] != '{':
		return nil, fmt.Errorf("payload: toolInput must be an object, got %s", snippet(in.ToolInput, payloadSnippetChars))
	}
	switch {
	case string(in.Native) == "null":
		in.Native = nil
	case in.Native != nil && in.Native[0] != '{':
		return nil, fmt.Errorf("payload: native must be an object, got %s", snippet(in.Native, payloadSnippetChars))
	}
	if err := in.CheckLimits(); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	return in, nil
}

// UndecodedEvent reads, leniently, the event a payload that did not decode
// names, for the one answer such a payload can get: the blocking event among
// its top-level "event" keys (UserPromptSubmit when it names that one, else
// PreToolUse when it names that), "" when it names neither or cannot be read
// as far as an "event" key. A payload cut short (over its size cap) is read
// as far as it goes.
func UndecodedEvent(data []byte) Event {
	var pre, prompt bool
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		var name string
		if key == "event" && json.Unmarshal(v, &name) == nil {
			pre = pre || name == string(PreToolUse)
			prompt = prompt || name == string(UserPromptSubmit)
		}
	}
	switch {
	case prompt:
		return UserPromptSubmit
	case pre:
		return PreToolUse
	}
	return ""
}

// DecodePayload parses a hook-protocol request body: DecodeInput, and the
// event must be a known one.
func DecodePayload(data []byte) (*Input, error) {
	in, err := DecodeInput(data)
	if err != nil {
		return nil, err
	}
	if in.Event == "" {
		return nil, errors.New(`payload: no "event"`)
	}
	if _, err := ParseEvent(string(in.Event)); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	return in, nil
}

// decodeField decodes a member's value into the Input field p as
// json.Unmarshal does, without its reflection for the common values: a
// string without escapes into a string field, valid JSON into toolInput or
// native. Anything else, errors included, goes through json.Unmarshal.
func decodeField(value []byte, text string, p any) error {
	switch p := p.(type) {
	case *string:
		if s, ok := plainString(value, text); ok {
			*p = s
			return nil
		}
	case *Event:
		if s, ok := plainString(value, text); ok {
			*p = Event(s)
			return nil
		}
	case *[]string:
		if ss, ok := plainStrings(value, text); ok {
			*p = ss
			return nil
		}
	case *json.RawMessage:
		if json.Valid(value) {
			*p = append((*p)[:0], value...)
			return nil
		}
	}
	return json.Unmarshal(value, p)
}

// plainString returns the text of a JSON string literal that needs no
// decoding: no escape, no control character, valid UTF-8. text, when not
// empty, holds lit's bytes, and the result is its substring.
func plainString(lit []byte, text string) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	ascii := true
	for _, c := range body {
		switch {
		case c < 0x20, c == '\\', c == '"':
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(body) {
		return "", false
	}
	if text != "" {
		return text[1 : len(text)-1], true
	}
	return string(body), true
}

// plainStrings returns the strings of a JSON array of plain string
// literals (plainString), as json.Unmarshal would into a []string; false
// for anything else (an escape, another kind of element, a syntax error),
// which json.Unmarshal then decodes or refuses. It makes no slice longer
// than the longest list a payload may hold (MaxCapabilities): a longer
// array goes to json.Unmarshal too, and CheckLimits refuses it.
func plainStrings(lit []byte, text string) ([]string, bool) {
	if len(lit) < 2 || lit[0] != '[' || lit[len(lit)-1] != ']' {
		return nil, false
	}
	commas := bytes.Count(lit, []byte{','})
	if commas >= MaxCapabilities {
		return nil, false
	}
	space := func(i int) int {
		for i < len(lit) && (lit[i] == ' ' || lit[i] == '\t' || lit[i] == '\r' || lit[i] == '\n') {
			i++
		}
		return i
	}
	out := make([]string, 0, commas+1)
	i := space(1)
	if i == len(lit)-1 {
		return out, true
	}
	for {
		if lit[i] != '"' {
			return nil, false
		}
		j := bytes.IndexByte(lit[i+1:], '"')
		if j < 0 {
			return nil, false
		}
		end := i + 1 + j + 1
		var sub string
		if text != "" {
			sub = text[i:end]
		}
		s, ok := plainString(lit[i:end], sub)
		if !ok {
			return nil, false
		}
		out = append(out, s)
		i = space(end)
		switch {
		case i == len(lit)-1 && lit[i] == ']':
			return out, true
		case lit[i] == ',':
			i = space(i + 1)
			if i >= len(lit)-1 {
				return nil, false
			}
		default:
			return nil, false
		}
	}
}

// field returns a pointer to the Input field of the top-level key
// inputKeys.list[i], without reflection (TestFieldIsTheKeysField holds it to
// Input's json tags).
func field(in *Input, i int) any {
	switch i {
	case 0:
		return &in.Event
	case 1:
		return &in.ToolName
	case 2:
		return &in.ToolInput
	case 3:
		return &in.ToolCapabilities
	case 4:
		return &in.ToolMutating
	case 5:
		return &in.ToolResult
	case 6:
		return &in.Prompt
	case 7:
		return &in.Compaction
	case 8:
		return &in.Subagent
	case 9:
		return &in.Notification
	case 10:
		return &in.Cwd
	case 11:
		return &in.SessionID
	case 12:
		return &in.Agent
	case 13:
		return &in.Native
	case 14:
		return &in.Client
	}
	return reflect.ValueOf(in).Elem().Field(inputKeys.fields[i]).Addr().Interface()
}

func unknownKey(key string, keys []string) error {
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return fmt.Errorf("unknown key %q (did you mean %q?)", keyName(key), k)
		}
	}
	return fmt.Errorf("unknown key %q (known: %s)", keyName(key), strings.Join(keys, ", "))
}

// maxKeyInError is how much of a key an error quotes: a key is the client's
// text, and an error goes back to the client and into the log.
const maxKeyInError = 64

// keyName returns key, cut to maxKeyInError bytes (and marked so) when longer.
func keyName(key string) string {
	if len(key) <= maxKeyInError {
		return key
	}
	return TruncateChars(key, maxKeyInError) + "…"
}

func valueError(key string, off int, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := key
		if te.Field != "" {
			where = key + "." + te.Field
		}
		return fmt.Errorf("%s must be %s, got %s: %w", where, jsonKind(te.Type.Kind()), te.Value, err)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// se.Offset counts the bytes read, the bad one included.
		at := off + max(int(se.Offset)-1, 0)
		if strings.HasSuffix(se.Error(), "exceeded max depth") {
			return fmt.Errorf("%s: nested more than %d levels deep at byte %d", key, maxNesting, at)
		}
		return fmt.Errorf("invalid JSON at byte %d: %w", at, err)
	}
	return fmt.Errorf("%s: %w", key, err)
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	}
	return "a number"
}
