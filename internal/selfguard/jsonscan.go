package selfguard

import (
	"bytes"
	"encoding/json"
)

// members calls fn with the key and the raw value of each member of the
// JSON object data, without decoding the values it is not asked for (a
// file's content is skipped at the speed of bytes.IndexByte). It reports
// false when data is not an object it can read; fn returning false stops
// the walk.
func members(data []byte, fn func(key string, val []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end, ok := skipValue(data, i)
		if !ok {
			return false
		}
		key, ok := jsonString(data[i:end])
		if !ok {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		end, ok = skipValue(data, i)
		if !ok {
			return false
		}
		if !fn(key, data[i:end]) {
			return true
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return false
		}
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at data[i].
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, ok := skipString(data, i)
				if !ok {
					return i, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	}
	start := i
	for i < len(data) && !endsLiteral(data[i]) {
		i++
	}
	return i, i > start
}

func endsLiteral(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// skipString returns the end of the JSON string starting at data[i].
func skipString(data []byte, i int) (int, bool) {
	i++
	for {
		j := bytes.IndexAny(data[i:], "\"\\")
		if j < 0 {
			return len(data), false
		}
		i += j
		if data[i] == '"' {
			return i + 1, true
		}
		i += 2 // an escape: the next byte is never the end
		if i > len(data) {
			return len(data), false
		}
	}
}

// jsonString decodes a raw JSON string value.
func jsonString(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(val, '\\') < 0 {
		return string(val[1 : len(val)-1]), true
	}
	var s string
	if err := json.Unmarshal(val, &s); err != nil {
		return "", false
	}
	return s, true
}

// jsonStrings returns the strings of a raw JSON array (its other items
// left out), or the one string of a raw JSON string.
func jsonStrings(val []byte) []string {
	if s, ok := jsonString(val); ok {
		return []string{s}
	}
	var items []json.RawMessage
	if len(val) == 0 || val[0] != '[' || json.Unmarshal(val, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if s, ok := jsonString(it); ok {
			out = append(out, s)
		}
	}
	return out
}
