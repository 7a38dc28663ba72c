package config

import (
	"errors"
	"strconv"
)

// Error is one problem in a configuration file. Parse and Load return every
// problem they find, joined with errors.Join in file order; Errors takes them
// apart again.
type Error struct {
	File string // the file as named to Parse or Load
	Line int    // 1-based; 0 when the problem has no line (an empty file, a read error)
	Key  string // the key path as spelled in the file, e.g. hooks.PreToolUse[1].failure_policy; "" for the file as a whole
	Msg  string // what is wrong, and what would be right
	Err  error  // the underlying cause, if any (a TOML or JSON syntax error, a schema compiler error)
}

// Error returns "file:line: key: msg", leaving out the parts that are empty.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Msg
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errors returns the configuration problems carried by err (one *Error, or
// several joined with errors.Join, possibly wrapped with %w), in the order
// they were reported. It returns nil when err carries none.
func Errors(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *Error:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		default:
			walk(errors.Unwrap(err))
		}
	}
	walk(err)
	return out
}
