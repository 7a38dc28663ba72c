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
	err := walkObject(data, func(key string, off int, value []byte) error {
		i := slices.Index(inputKeys.list, key)
		switch {
		case i < 0:
			return unknownKey(key, inputKeys.list)
		case seen&(1<<i) != 0:
			return fmt.Errorf("duplicate key %q", key)
		}
		seen |= 1 << i
		if keys, ok := inputKeys.nested[key]; ok && value[0] == '{' {
			var nested uint32
			err := walkObject(value, func(k string, _ int, _ []byte) error {
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
		if err := decodeField(value, field(in, i)); err != nil {
			return valueError(key, off, err)
		}
		if (key == "toolInput" || key == "native") && value[0] == '{' {
			return duplicateKey(key, value)
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
func decodeField(value []byte, p any) error {
	switch p := p.(type) {
	case *string:
		if s, ok := plainString(value); ok {
			*p = s
			return nil
		}
	case *Event:
		if s, ok := plainString(value); ok {
			*p = Event(s)
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
// decoding: no escape, no control character, valid UTF-8.
func plainString(lit []byte) (string, bool) {
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
	return string(body), true
}

// field returns a pointer to the Input field of the top-level key
// inputKeys.list[i].
func field(in *Input, i int) any {
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
