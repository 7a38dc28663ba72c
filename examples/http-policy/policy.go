package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/luahook/luahook"
)

// maxPayloadBytes caps a request body. Payloads carry whole tool inputs (a
// file being written), so the cap is generous; past it the answer is 413.
const maxPayloadBytes = luahook.DefaultMaxInputBytes

// handler serves the HTTP-hook protocol: POST /hook with a payload, answered
// by decide; GET /healthz for load balancers.
func handler(logger *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook", func(w http.ResponseWriter, r *http.Request) {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			http.Error(w, "send the payload as Content-Type: application/json", http.StatusUnsupportedMediaType)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPayloadBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, fmt.Sprintf("payload over %d bytes", maxPayloadBytes), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "reading the payload: "+err.Error(), http.StatusBadRequest)
			return
		}
		var in luahook.Input
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, "the payload is not JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
		out := decide(&in)
		if out == nil {
			w.WriteHeader(http.StatusNoContent) // no objection
			return
		}
		logger.Info("policy answered", "event", in.Event, "tool", in.ToolName,
			"action", out.Action, "reason", out.Reason, "session", in.SessionID)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok\n")
	})
	return mux
}

// decide is the policy: an outcome for the payload, or nil for no objection.
func decide(in *luahook.Input) *luahook.Outcome {
	switch in.Event {
	case luahook.PreToolUse:
		if !shellTool(in) {
			return nil
		}
		var ti struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(in.ToolInput, &ti) != nil {
			return nil
		}
		if forcedRecursiveRemove(ti.Command) {
			return luahook.Deny("http-policy: \"rm -rf\" is blocked: it deletes a whole tree without asking. " +
				"Remove the files you mean by name, or ask the user to run the command.")
		}
		if pipeToShell.MatchString(ti.Command) {
			return luahook.Deny("http-policy: piping a download into a shell (\"curl … | sh\") is blocked: it runs code nobody read. " +
				"Download the script to a file, show it to the user, and run it only if they agree.")
		}
	case luahook.PostToolUse:
		if !editTools[strings.ToLower(in.ToolName)] || in.ToolResult != nil && in.ToolResult.IsError {
			return nil
		}
		var ti struct {
			Path     string `json:"path"`
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(in.ToolInput, &ti)
		what := "A file"
		if p := cmp.Or(ti.Path, ti.FilePath); p != "" {
			what = fmt.Sprintf("%q", p)
		}
		return luahook.Context("http-policy: " + what + " was changed. Run the project's tests before you report the task done.")
	}
	return nil
}

// editTools are the tools after which the policy asks for a test run.
var editTools = map[string]bool{"edit": true, "write": true, "multiedit": true, "apply_patch": true}

// pipeToShell matches a download (curl, wget) piped into a shell, sudo or not.
var pipeToShell = regexp.MustCompile(`(?i)\b(?:curl|wget)\b[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:/usr)?(?:/bin/)?(?:ba|da|z|k|fi)?sh\b`)

// forcedRecursiveRemove reports whether a shell command runs rm with both a
// recursive and a force flag, however they are spelled or split:
// rm -rf, rm -fr, rm -Rf, rm -r -f, rm --recursive --force, rm dir -rf.
func forcedRecursiveRemove(command string) bool {
	commands := strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(";|&\n()`", r) })
	for _, c := range commands {
		words := strings.Fields(c)
		for i, w := range words {
			if w != "rm" && !strings.HasSuffix(w, "/rm") {
				continue
			}
			recursive, force := false, false
		flags:
			for _, f := range words[i+1:] {
				switch {
				case f == "--": // the rest are operands
					break flags
				case f == "--recursive":
					recursive = true
				case f == "--force":
					force = true
				case strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "--"):
					recursive = recursive || strings.ContainsAny(f, "rR")
					force = force || strings.Contains(f, "f")
				}
			}
			if recursive && force {
				return true
			}
		}
	}
	return false
}

// shellTool reports whether the call is to a shell tool, whatever the
// agent names it: by the capabilities the host declared or, when it
// declared none, by the agent's own tool names (bash, Bash, Shell,
// run_shell_command, ...), as a matcher's @shell selects it.
func shellTool(in *luahook.Input) bool {
	caps := in.ToolCapabilities
	if len(caps) == 0 {
		caps = luahook.KnownToolCapabilities(in.ToolName)
	}
	return slices.Contains(caps, "shell")
}
