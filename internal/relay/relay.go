// Package relay is the whole answer luahook serve gives a command hook that
// asks it (luahook fire --http or --socket, luahook-fire): the exit status,
// standard output and standard error the agent reads, asked for with the
// Header on a request to /agent/NAME. The server writes it (server.Relay is
// this type); its clients read it with Decode, and nothing else.
//
// It imports only the standard library, for luahook-fire.
package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Header, set to any value on a request to /agent/..., asks luahook serve
// for a Relay instead of the agent's body.
const Header = "Luahook-Relay"

// CutHeader, on a request to serve, says how many bytes of the payload's
// strings the client withheld before sending it (each cut at
// luahook.MaxScanBytes, with its marker): serve decides the payload as cut
// (ToolResult.Cut), as the client would have, so that the model reads the
// cut output rather than the tool's whole one. A payload is never cut
// twice: a cut string, its marker included, is within the limit.
const CutHeader = "Luahook-Cut"

// Max caps a relay: a relay of a rewrite carries a tool input up to
// luahook's input cap (8 MiB) escaped again as a JSON string (at most twice
// its length), with the reason and the envelope.
const Max = 2*(8<<20) + 64<<10

// Relay is the body of an agent answer asked for with Header: the command
// hook's standard output (the agent's JSON, "" for none), standard error
// and exit status. Its fields have no JSON options: each is always written,
// and Decode refuses an answer without one of them.
type Relay struct {
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// Decode reads a relay as strictly as a decision deserves: exactly one JSON object (at most Max bytes) with exactly
// the keys exitCode, stdout and stderr, each once and spelt exactly so
// (encoding/json would take "ExitCode", a repeated key's last value, a
// missing key as zero and null as an empty object); an exit status of 0
// or 2; a standard output that is empty or one JSON object.
func Decode(body []byte) (Relay, error) {
	var r Relay
	var err error
	r.ExitCode, r.Stdout, r.Stderr, err = decode(body)
	return r, err
}

func decode(body []byte) (exitCode int, stdout, stderr string, err error) {
	if len(body) > Max {
		return 0, "", "", fmt.Errorf("larger than %d bytes", Max)
	}
	if !json.Valid(body) {
		return 0, "", "", errors.New("not one JSON value")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, _ := dec.Token(); t != json.Delim('{') {
		return 0, "", "", errors.New("not a JSON object")
	}
	var seen [3]bool
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return 0, "", "", err
		}
		key, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return 0, "", "", err
		}
		k := slices.Index([]string{"exitCode", "stdout", "stderr"}, key)
		switch {
		case k < 0:
			return 0, "", "", fmt.Errorf("unknown key %q", key)
		case seen[k]:
			return 0, "", "", fmt.Errorf("key %q twice", key)
		}
		seen[k] = true
		if k == 0 {
			n, ok := vt.(json.Number)
			if !ok || (n != "0" && n != "2") {
				return 0, "", "", fmt.Errorf("exit status %v: want 0 or 2", vt)
			}
			exitCode = int(n[0] - '0')
			continue
		}
		v, ok := vt.(string)
		if !ok {
			return 0, "", "", fmt.Errorf("%s is not a string", key)
		}
		if k == 1 {
			stdout = v
		} else {
			stderr = v
		}
	}
	if seen != [3]bool{true, true, true} {
		return 0, "", "", errors.New("not every key of exitCode, stdout and stderr")
	}
	if stdout != "" {
		s := strings.TrimLeft(stdout, " \t\r\n")
		if !strings.HasPrefix(s, "{") || !json.Valid([]byte(stdout)) {
			return 0, "", "", errors.New("standard output is not one JSON object")
		}
	}
	return exitCode, stdout, stderr, nil
}
