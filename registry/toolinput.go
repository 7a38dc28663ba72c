package registry

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// stringField returns the string value of the first of fields that the JSON
// object raw has at its top level. Keys compare exactly (after unescaping).
// ok is false when raw is not a JSON object, or has none of fields, or the
// first one it has is not a string or is given twice (agents disagree on
// which of two values counts, and the transports refuse such a payload).
func stringField(raw json.RawMessage, fields []string) (value string, ok bool) {
	if !json.Valid(raw) {
		return "", false
	}
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return "", false
	}
	best := len(fields) // index in fields of the value found so far
	var found []byte    // its raw token; nil: not a string
	for i = skipSpace(raw, i+1); i < len(raw) && raw[i] != '}'; {
		kEnd := stringEnd(raw, i)
		key := raw[i:kEnd]
		i = skipSpace(raw, skipSpace(raw, kEnd)+1) // past ':'
		vEnd := valueEnd(raw, i)
		if k := fieldIndex(key, fields); k <= best && k < len(fields) {
			if k == best {
				return "", false // given twice
			}
			best, found = k, nil
			if raw[i] == '"' {
				found = raw[i:vEnd]
			}
		}
		i = skipSpace(raw, vEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	if found == nil {
		return "", false
	}
	if bytes.IndexByte(found, '\\') < 0 && utf8.Valid(found) {
		return string(found[1 : len(found)-1]), true
	}
	if json.Unmarshal(found, &value) != nil {
		return "", false
	}
	return value, true
}

// fieldIndex returns the index in fields of the JSON string token key, or
// len(fields).
func fieldIndex(key []byte, fields []string) int {
	if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
		var s string
		if json.Unmarshal(key, &s) != nil {
			return len(fields)
		}
		key = []byte(s)
	} else {
		key = key[1 : len(key)-1]
	}
	for k, f := range fields {
		if string(key) == f {
			return k
		}
	}
	return len(fields)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index past the string token starting at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index past the value starting at b[i]; b is valid JSON.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
