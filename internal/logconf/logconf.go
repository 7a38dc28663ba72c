// Package logconf holds what the decision log's settings may say: their
// defaults and bounds, and the syntax of the payload paths its drop and mask
// rules name. luahook.toml's [decision_log] section (internal/config) checks
// a file against them and the decision log (internal/decisionlog) applies
// them, so that reading a configuration does not link the log itself. It
// imports only the contract (luahook) and the standard library.
package logconf

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/luahook/luahook"
)

// Defaults and bounds of the log's file.
const (
	// DefaultMaxBytes is the size past which the file is rotated (16 MiB).
	DefaultMaxBytes = 16 << 20
	// DefaultMaxFiles is how many rotated files are kept (5).
	DefaultMaxFiles = 5
	// MaxMaxFiles bounds how many rotated files may be kept (1000).
	MaxMaxFiles = 1000
)

// Defaults and bounds of the log's queue and records.
const (
	// DefaultQueue is how many records may wait for the writer (1024).
	DefaultQueue = 1024
	// MaxQueue bounds the queue (1,000,000).
	MaxQueue = 1_000_000
	// DefaultMaxInputBytes is the largest payload a record carries (64
	// KiB, as luahook.Input.Size counts it); a larger one is logged as its
	// digest and size, marked truncated.
	DefaultMaxInputBytes = 64 << 10
	// DefaultMaskWith is what a masked value, or a string that held a
	// secret, is replaced with when nothing else is given.
	DefaultMaskWith = "[masked]"
)

// maxPathSegments bounds the segments of a configured path.
const maxPathSegments = 64

// ParsePath checks and splits a configured path: keys separated by dots
// ("toolInput.headers.Authorization"), "*" for any key, "[N]" or "[*]" after
// a key for an array's elements ("toolInput.args[*]"). Its first key must be
// one of the payload's (luahook.InputKeys). The segments are the keys, "*",
// and each index as written between its brackets ("[3]", "[*]"). The error
// says what is wrong.
func ParsePath(s string) ([]string, error) {
	if s == "" {
		return nil, errors.New("empty path")
	}
	var p []string
	for _, part := range strings.Split(s, ".") {
		key, idx := part, ""
		if i := strings.IndexByte(part, '['); i >= 0 {
			key, idx = part[:i], part[i:]
		}
		if key == "" {
			return nil, fmt.Errorf("path %q: empty key (write keys separated by single dots)", s)
		}
		p = append(p, key)
		for idx != "" {
			j := strings.IndexByte(idx, ']')
			if idx[0] != '[' || j < 0 {
				return nil, fmt.Errorf("path %q: %q: want [N] or [*] after a key", s, part)
			}
			n := idx[1:j]
			if _, err := strconv.ParseUint(n, 10, 31); n != "*" && err != nil {
				return nil, fmt.Errorf("path %q: %q is not an index (want [N] or [*])", s, idx[:j+1])
			}
			p, idx = append(p, "["+n+"]"), idx[j+1:]
		}
	}
	if len(p) > maxPathSegments {
		return nil, fmt.Errorf("path %q: more than %d segments", s, maxPathSegments)
	}
	if !slices.Contains(luahook.InputKeys(), p[0]) {
		return nil, fmt.Errorf("path %q: %q is not a payload key (want one of %s)", s, p[0], strings.Join(luahook.InputKeys(), ", "))
	}
	return p, nil
}
