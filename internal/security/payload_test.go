package security

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/runner"
)

// hugeInput is a tool input of about n bytes: one long string.
func hugeInput(n int) []byte {
	const head, tail = `{"command":"`, `"}`
	b := make([]byte, len(head)+n+len(tail))
	copy(b, head)
	fill := b[len(head) : len(head)+n]
	if n > 0 {
		fill[0] = 'a'
	}
	for done := 1; done < n; done *= 2 {
		copy(fill[done:], fill[:done])
	}
	copy(b[len(head)+n:], tail)
	return b
}

// deepInput is a tool input whose value nests depth arrays deep.
func deepInput(depth int) []byte {
	return []byte(`{"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
}

// capEngine opens an engine with two hooks of one transport that would deny
// if they ran, a fail-open one and a fail-closed one (in that order), and
// counts the requests of HTTP hooks.
func capEngine(t *testing.T, kind luahook.HookKind) (*engine.Engine, *atomic.Int64) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"action":"deny","reason":"the HTTP hook ran"}`)
	}))
	t.Cleanup(srv.Close)
	files := map[string]string{}
	var cfg strings.Builder
	for i, policy := range []string{"open", "closed"} {
		switch kind {
		case luahook.KindLua:
			files[fmt.Sprintf("%d-%s.lua", i, policy)] = fmt.Sprintf(`hook.register("PreToolUse", "*", function() return hook.deny("the Lua hook ran") end, {name = "lua-%s", failure_policy = %q})`, policy, policy)
		case luahook.KindCommand:
			fmt.Fprintf(&cfg, "[[hooks.PreToolUse]]\nname = \"command-%s\"\ncommand = \"sh -c 'cat >/dev/null; echo the command hook ran >&2; exit 2'\"\nfailure_policy = %q\n", policy, policy)
		case luahook.KindHTTP:
			fmt.Fprintf(&cfg, "[[hooks.PreToolUse]]\nname = \"http-%s\"\ntype = \"http\"\nurl = %q\nfailure_policy = %q\n", policy, srv.URL, policy)
		}
	}
	dir := hooksDir(t, files)
	e := open(t, engine.Options{Dir: dir, ConfigPath: writeConfig(t, dir, cfg.String())})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	return e, &requests
}

// transportKinds are the transports the engine runs for a host.
var transportKinds = []luahook.HookKind{luahook.KindLua, luahook.KindCommand, luahook.KindHTTP}

// checkRefused checks that the open hook was skipped and the closed one
// denied, both failing with the given kind and text, neither having run.
func checkRefused(t *testing.T, res runner.Result, kind luahook.FailureKind, want string) {
	t.Helper()
	if !res.Denied() || !strings.Contains(res.Reason, "-closed") || !strings.Contains(res.Reason, "fail-closed") {
		t.Errorf("denied %v, reason %q; want the fail-closed hook to deny", res.Denied(), res.Reason)
	}
	if len(res.Trace) != 2 {
		t.Fatalf("trace %+v, want both hooks", res.Trace)
	}
	for _, tr := range res.Trace {
		if tr.Outcome != nil || tr.Failure == nil || tr.Failure.Kind != kind || !strings.Contains(tr.Failure.Message, want) {
			t.Errorf("hook %s: outcome %+v, failure %v; want a failure of kind %s saying %q", tr.Name, tr.Outcome, tr.Failure, kind, want)
		}
	}
}

// checkUndecided checks that the first hook, fail-open, was rejected before
// it ran (its failure saying want) and that this denied the call, since no
// hook could judge it: the fail-closed hook after it was not reached.
func checkUndecided(t *testing.T, res runner.Result, want string) {
	t.Helper()
	if !res.Denied() || !strings.Contains(res.Reason, `-open" could not run (rejected: `) || !strings.Contains(res.Reason, "luahook could not decide") {
		t.Errorf("denied %v, reason %q; want the rejected fail-open hook to deny", res.Denied(), res.Reason)
	}
	if len(res.Trace) != 2 {
		t.Fatalf("trace %+v, want both hooks", res.Trace)
	}
	if tr := res.Trace[0]; tr.Outcome != nil || tr.Failure == nil || tr.Failure.Kind != luahook.FailRejected || !strings.Contains(tr.Failure.Message, want) {
		t.Errorf("hook %s: outcome %+v, failure %v; want a failure of kind rejected saying %q", tr.Name, tr.Outcome, tr.Failure, want)
	}
	if tr := res.Trace[1]; tr.Skipped != runner.SkipNotReached {
		t.Errorf("hook %s: %+v, want it not reached", tr.Name, tr)
	}
}

// An over-cap payload is refused before any hook runs; since no hook could
// judge it, the call is denied whatever the hooks' failure policy.
func TestOversizedPayloadsAreRefusedBeforeAnyHookRuns(t *testing.T) {
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: hugeInput(64 << 20), Cwd: t.TempDir()}
	for _, kind := range transportKinds {
		t.Run(string(kind), func(t *testing.T) {
			e, requests := capEngine(t, kind)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var res runner.Result
			_, growth := heapPeak(func() { res = e.Runner().Fire(ctx, in) })
			checkUndecided(t, res, "over the")
			if !strings.Contains(failures(res), "max_input_bytes") {
				t.Errorf("failures %q do not name max_input_bytes", failures(res))
			}
			if n := requests.Load(); n != 0 {
				t.Errorf("the HTTP hooks got %d requests", n)
			}
			// The payload is the caller's; refusing it copies nothing.
			if growth > 16<<20 {
				t.Errorf("the heap grew by %d MiB while a 64 MiB payload was refused, want under 16 MiB", growth>>20)
			}
			t.Logf("64 MiB payload refused; heap growth %d MiB", growth>>20)
		})
	}
}

func TestDeeplyNestedPayloadsFailCleanly(t *testing.T) {
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: deepInput(100_000), Cwd: t.TempDir()}
	for _, kind := range transportKinds {
		t.Run(string(kind), func(t *testing.T) {
			e, requests := capEngine(t, kind)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res := e.Runner().Fire(ctx, in)
			checkRefused(t, res, luahook.FailError, "")
			if n := requests.Load(); n != 0 {
				t.Errorf("the HTTP hooks got %d requests", n)
			}
			t.Logf("100,000-deep payload: %s", failures(res))
		})
	}
}

func TestTheInputCapIsConfigurable(t *testing.T) {
	dir := hooksDir(t, map[string]string{"deny.lua": `hook.register("PreToolUse", "*", function() return hook.deny("ran") end)`})
	in := hugeInput(2 << 20)
	tests := []struct {
		name string
		opts engine.Options
		cfg  string
		ran  bool
	}{
		{"default 8 MiB lets 2 MiB through", engine.Options{}, "", true},
		{"config max_input_bytes = 1 MiB", engine.Options{}, "[runner]\nmax_input_bytes = 1048576\n", false},
		{"option over config", engine.Options{MaxInputBytes: 4 << 20}, "[runner]\nmax_input_bytes = 1048576\n", true},
		{"negative option turns the cap off", engine.Options{MaxInputBytes: -1}, "[runner]\nmax_input_bytes = 1\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Dir = dir
			if tt.cfg != "" {
				opts.ConfigPath = writeConfig(t, dir, tt.cfg)
			}
			e := open(t, opts)
			res := pre(e, "bash", string(in))
			if ran := res.Reason == "ran"; ran != tt.ran {
				t.Errorf("hook ran: %v, want %v (%s)", ran, tt.ran, failures(res))
			}
		})
	}
}

func TestServeRefusesOversizedAndDeepBodiesWithClearAnswers(t *testing.T) {
	e, requests := capEngine(t, luahook.KindHTTP)
	srv := httptest.NewServer(server.New(e.Runner(), server.Options{}))
	t.Cleanup(srv.Close)
	payload := func(toolInput []byte) []byte {
		return append(append([]byte(`{"event":"PreToolUse","toolName":"bash","toolInput":`), toolInput...), '}')
	}
	huge := payload(hugeInput(64 << 20))
	tests := []struct {
		name    string
		body    []byte
		chunked bool
		code    int
		want    string
	}{
		// Over the cap, not decided: a PreToolUse is denied naming the cap
		// (as fire denies it), whether the length was announced or not.
		{"64 MiB with its length", huge, false, http.StatusOK, "body larger than 8388608 bytes"},
		{"64 MiB chunked", huge, true, http.StatusOK, "body larger than 8388608 bytes"},
		{"64 MiB Stop", append([]byte(`{"event":"Stop","prompt":`), hugeInput(64<<20)...), false, http.StatusRequestEntityTooLarge, "body larger than 8388608 bytes"},
		// A PreToolUse that does not decode is denied naming the fault (an
		// agent reads an error status as proceed).
		{"nested 100,000 deep", payload(deepInput(100_000)), false, http.StatusOK, "toolInput: nested more than 10000 levels deep at byte"},
		{"not JSON", []byte("\x00\x01"), false, http.StatusBadRequest, "want a JSON object"},
		{"truncated", []byte(`{"event":"Stop","toolInput":{"a":[1,2`), false, http.StatusBadRequest, "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader = bytes.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // no length: sent chunked
			}
			resp, err := http.Post(srv.URL, "application/json", body)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var answer struct{ Error, Action, Reason string }
			json.NewDecoder(resp.Body).Decode(&answer)
			said := answer.Error
			if resp.StatusCode == http.StatusOK {
				said = answer.Reason
				if answer.Action != "deny" {
					t.Errorf("200 with action %q, want a denial", answer.Action)
				}
			}
			if resp.StatusCode != tt.code || !strings.Contains(said, tt.want) {
				t.Errorf("%d %q, want %d saying %q", resp.StatusCode, said, tt.code, tt.want)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the HTTP hooks got %d requests", n)
	}
}
