package security

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/runner"
)

// callSlack is how much later than its deadline a hook call may return,
// whatever the hook or the payload does: the longest single Go-side step a
// hook can start (one capped string operation, one sort comparison, one
// slice of a regular expression's work) plus the bounded conversion of the
// payload. docs/reliability.md documents the same figure.
const callSlack = 50 * time.Millisecond

// slack is what the tests allow: callSlack is measured on an otherwise idle
// machine, so they allow twice that for a machine shared with other work
// (the test packages run in parallel), and twenty times under the race
// detector, which makes each pass over a 16 MiB string up to ten times
// slower and, with the other packages' tests running beside it, twice that
// again (654 ms seen for the print bomb, 240-310 ms alone). The run without
// the race detector, which .ci/run makes too, holds the tight bound.
func slack() time.Duration {
	if raceEnabled {
		return 20 * callSlack
	}
	return 2 * callSlack
}

// bombs are hooks that try to hold a call past its deadline or to allocate
// far past the string cap, each in one step the VM cannot interrupt between
// instructions. want is a word of the failure expected, "" when the hook may
// end either on a cap or on the deadline.
var bombs = []struct{ name, code, want string }{
	{"print of 100,000 references to a 16 MiB string", `local s, t = ("x"):rep(2^24 - 64), {} for i = 1, 100000 do t[i] = s end print(unpack(t))`, ""},
	{"string.format repeating argument 1", `local s = ("x"):rep(2^23) return string.format(("%[1]s"):rep(19000), s)`, ""},
	{"one concatenation of 100 strings of 1 MiB", `local s = ("x"):rep(2^20) local t = s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s`, "exceeds"},
	{"string.gsub template of 2^20 captures", `local s = ("x"):rep(2^20) return s:gsub(".+", ("%0"):rep(2^20))`, ""},
	{"re.gsub template of 2^20 captures", `local s = ("x"):rep(2^24 - 64) return re.gsub(s, "x+", ("$0"):rep(2^20))`, ""},
	{"log fields all pointing to one 16 MiB string", `local s, f = ("x"):rep(2^24 - 64), {} for i = 1, 2000 do f["k" .. i] = s end log.error("m", f)`, ""},
	{"table.sort over substrings of 15 MiB", `local s, t = ("x"):rep(15 * 2^20), {} for i = 1, 500 do t[i] = s:sub(1, -i) end table.sort(t)`, ""},
	{"a 50 KB regular expression over 200 KB", `return re.match(("(a|b)"):rep(10000), ("a"):rep(200000))`, ""},
	{"a 4 MiB bracket class", `local class = "[" .. ("a"):rep(2^22) .. "]" return ("b"):rep(4096):find(class)`, ""},
	{"os.date with a 16 MiB format", `return os.date(("%Y"):rep(2^23 - 32))`, ""},
	{"the store filled with large values", `for i = 1, 1e9 do store.set("bomb" .. i, ("x"):rep(2^20)) end`, ""},
	{"an endless loop", `while true do end`, "timed out"},
}

// TestNoHookCallReturnsLaterThanItsDeadlinePlusTheSlack fires every bomb as
// a fail-closed PreToolUse hook with a 100 ms deadline: each call ends in a
// denial, within the deadline plus callSlack, with the heap bounded.
func TestNoHookCallReturnsLaterThanItsDeadlinePlusTheSlack(t *testing.T) {
	const deadline = 100 * time.Millisecond
	codes, timeouts := make([]string, len(bombs)), make([]int, len(bombs))
	for i, b := range bombs {
		codes[i], timeouts[i] = b.code, int(deadline/time.Millisecond)
	}
	e := open(t, engine.Options{Dir: hooksDir(t, map[string]string{"bombs.lua": policyFile(timeouts, codes)}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	for i, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			var took time.Duration
			_, growth := heapPeak(func() {
				start := time.Now()
				res := pre(e, fmt.Sprintf("case%d", i), `{}`)
				took = time.Since(start)
				if !res.Denied() || strings.Contains(res.Reason, "ESCAPED") && b.want != "" {
					t.Errorf("denied %v, reason %q, failures %q; want a denial", res.Denied(), res.Reason, failures(res))
				}
				if b.want != "" && !strings.Contains(failures(res), b.want) {
					t.Errorf("failures %q, want one saying %q", failures(res), b.want)
				}
			})
			t.Logf("the call returned after %v", took)
			if took > deadline+slack() {
				t.Errorf("the call returned after %v, later than its %v deadline plus %v", took, deadline, slack())
			}
			if growth > 256<<20 {
				t.Errorf("heap grew by %d MiB during the call, want under 256 MiB", growth>>20)
			}
		})
	}
	if res := pre(e, "case0", `{}`); !res.Denied() {
		t.Errorf("the engine stopped answering after the bombs: %+v", res)
	}
}

// TestAnUntrustedPayloadCannotMakeAGuardSkipItself sends an 8 MiB payload
// of millions of empty arrays next to "rm -rf /" to a fail-open guard with a
// 100 ms deadline: the payload's conversion does not use up the guard's
// deadline, and the call is denied within the deadline plus callSlack.
func TestAnUntrustedPayloadCannotMakeAGuardSkipItself(t *testing.T) {
	const deadline = 100 * time.Millisecond
	guard := `hook.register("PreToolUse", "bash", function(input)
  if (input.toolInput.command or ""):find("rm -rf /", 1, true) then return hook.deny("rm -rf / is not allowed") end
end, {name = "rm-guard", stage = "validate", timeout_ms = 100})`
	// The engine's self-protection reads the same tool input before any
	// hook (a bounded scan, ~60 ms for these 8 MiB, measured in
	// internal/selfguard): this test holds the Lua hook's own deadline.
	e := open(t, engine.Options{Dir: hooksDir(t, map[string]string{"guard.lua": guard}), NoSelfProtect: true})
	var b bytes.Buffer
	b.WriteString(`{"command":"rm -rf /","junk":[`)
	for b.Len() < 8<<20-16 {
		b.WriteString(`[],`)
	}
	b.WriteString(`[]]}`)
	var took time.Duration
	_, growth := heapPeak(func() {
		start := time.Now()
		res := e.Runner().Fire(t.Context(), &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: b.Bytes(), Cwd: "/"})
		took = time.Since(start)
		if !res.Denied() {
			t.Errorf("allowed: %+v (failures %q)", res, failures(res))
		}
	})
	t.Logf("the call returned after %v", took)
	if took > deadline+slack() {
		t.Errorf("the call returned after %v, later than its %v deadline plus %v", took, deadline, slack())
	}
	if growth > 256<<20 {
		t.Errorf("heap grew by %d MiB during the call, want under 256 MiB", growth>>20)
	}
}

// TestContextsOfManyHooksAreJoinedWithinTheCap has 500 PostToolUse hooks
// each add the same 16 MiB string as context: the event's joined context
// stays within its cap, and so does the heap.
func TestContextsOfManyHooksAreJoinedWithinTheCap(t *testing.T) {
	src := `local big = ("x"):rep(2^24 - 64)
for i = 1, 500 do
  hook.register("PostToolUse", nil, function() return hook.context(big) end, {name = "ctx" .. i})
end`
	e := open(t, engine.Options{Dir: hooksDir(t, map[string]string{"ctx.lua": src})})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	var res runner.Result
	_, growth := heapPeak(func() {
		res = e.Runner().Fire(t.Context(), &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash", ToolInput: []byte(`{}`), Cwd: "/"})
	})
	if n := len(res.AdditionalContext); n > runner.DefaultMaxContextBytes+1024 {
		t.Errorf("joined context of %d bytes, over the %d-byte cap", n, runner.DefaultMaxContextBytes)
	}
	if growth > 512<<20 {
		t.Errorf("heap grew by %d MiB while joining, want under 512 MiB", growth>>20)
	}
}
