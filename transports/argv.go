package transports

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnterminatedQuote is wrapped by SplitArgv's error when a quote is never closed.
var ErrUnterminatedQuote = errors.New("unterminated quote")

// SplitArgv splits a command string into arguments the way the command-hook
// contract defines it; there is no shell. White space separates arguments.
// Inside single quotes every character is literal. Inside double quotes a
// backslash escapes only `"` and `\`; any other backslash is kept. Outside
// quotes a backslash is literal. Adjacent quoted and unquoted pieces join
// into one argument, and an empty pair of quotes is an empty argument. Shell
// operators such as &&, |, ;, > and $(…) are ordinary characters. An
// unterminated quote is an error wrapping ErrUnterminatedQuote.
func SplitArgv(s string) ([]string, error) {
	var (
		args    []string
		cur     []byte
		inToken bool // a token has started, even if it is still empty ("")
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isSpace(c):
			if inToken {
				args = append(args, string(cur))
				cur, inToken = cur[:0], false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: single quote at byte %d is never closed", ErrUnterminatedQuote, i)
			}
			end += i + 1
			cur = append(cur, s[i+1:end]...)
			inToken, i = true, end
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				cur = append(cur, s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("%w: double quote at byte %d is never closed", ErrUnterminatedQuote, i)
			}
			inToken, i = true, j
		default:
			cur = append(cur, c)
			inToken = true
		}
	}
	if inToken {
		args = append(args, string(cur))
	}
	return args, nil
}

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}
