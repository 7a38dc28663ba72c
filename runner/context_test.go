package runner

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// allocated returns how many bytes f allocated on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestJoinedContextIsCappedBeforeItIsAllocated: many hooks that each return
// one shared huge string cannot make the runner allocate their join; each
// hook's context is cut with a marker, and the event's total is capped with a
// marker saying how much was left out.
func TestJoinedContextIsCappedBeforeItIsAllocated(t *testing.T) {
	const hooks = 32
	big := strings.Repeat("é", 4<<20) // 8 MiB, shared by every hook: 256 MiB joined uncapped
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.PostToolUse, luahook.UserPromptSubmit, luahook.SessionStart, luahook.Stop} {
		t.Run(string(ev), func(t *testing.T) {
			g := newRig(t, Options{})
			for range hooks {
				g.add(luahook.Spec{Event: ev, Hook: fixed(luahook.Context(big))})
			}
			var res Result
			n := allocated(func() {
				within(t, 30*time.Second, func() {
					res = g.r.Fire(t.Context(), &luahook.Input{Event: ev, ToolName: "bash", ToolInput: []byte(`{}`), SessionID: "s"})
				})
			})
			if n > 4<<20 {
				t.Errorf("firing %d hooks that share one 8 MiB context allocated %d MiB, want under 4 MiB", hooks, n>>20)
			}
			if len(res.AdditionalContext) > DefaultMaxContextBytes {
				t.Errorf("joined context is %d bytes, over the %d-byte cap", len(res.AdditionalContext), DefaultMaxContextBytes)
			}
			first := res.AdditionalContext[:min(len(res.AdditionalContext), len(luahook.TruncateContext(big)))]
			if want := luahook.TruncateContext(big); first != want || utf8.RuneCountInString(first) != luahook.MaxContextChars {
				t.Errorf("the first hook's context is %d characters ending %q, want %d characters then the cut marker",
					utf8.RuneCountInString(first), first[max(0, len(first)-40):], luahook.MaxContextChars)
			}
			if !strings.Contains(res.AdditionalContext, "left out") || !utf8.ValidString(res.AdditionalContext) {
				t.Errorf("joined context ends %q, want a marker saying how much was left out", tail(res.AdditionalContext))
			}
			t.Logf("%s: %d hooks × 8 MiB shared: %d bytes joined, %d KiB allocated; ends %q", ev, hooks, len(res.AdditionalContext), n>>10, tail(res.AdditionalContext))
		})
	}
}

func tail(s string) string { return s[max(0, len(s)-120):] }

// TestEachHooksContextIsCutAtTheCap: at the cap a hook's context is kept
// whole; one character past it, it is cut to the cap at a character boundary
// and marked.
func TestEachHooksContextIsCutAtTheCap(t *testing.T) {
	at := strings.Repeat("€", luahook.MaxContextChars)
	for _, tc := range []struct {
		name, text, want string
	}{
		{"at the cap", at, at},
		{"one past", at + "x", luahook.TruncateContext(at + "x")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t, Options{})
			g.add(luahook.Spec{Event: luahook.PostToolUse, Hook: fixed(luahook.Context(tc.text))})
			res := g.r.PostToolUse(t.Context(), &luahook.Input{ToolName: "bash"})
			if res.AdditionalContext != tc.want {
				t.Errorf("context of %d characters ends %q, want %d characters ending %q", utf8.RuneCountInString(res.AdditionalContext),
					tail(res.AdditionalContext), utf8.RuneCountInString(tc.want), tail(tc.want))
			}
		})
	}
}

// TestAnEventsContextIsCappedAtMaxContextBytes: parts that join to exactly
// the cap are delivered whole; one byte more and the part that crosses the
// cap is left out with a marker naming the limit.
func TestAnEventsContextIsCappedAtMaxContextBytes(t *testing.T) {
	const limit = 2000
	part := strings.Repeat("a", 1000)
	for _, tc := range []struct {
		name   string
		second string
		whole  bool
	}{
		{"at the cap", strings.Repeat("b", 999), true}, // 1000 + "\n" + 999 bytes
		{"one past", strings.Repeat("b", 1000), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t, Options{MaxContextBytes: limit})
			g.add(luahook.Spec{Event: luahook.SessionStart, Hook: fixed(luahook.Context(part))})
			g.add(luahook.Spec{Event: luahook.SessionStart, Hook: fixed(luahook.Context(tc.second))})
			res := g.r.SessionStart(t.Context(), &luahook.Input{})
			whole := part + "\n" + tc.second
			if tc.whole {
				if res.AdditionalContext != whole || len(whole) != limit {
					t.Errorf("context of %d bytes %q, want the whole %d bytes", len(res.AdditionalContext), tail(res.AdditionalContext), len(whole))
				}
				return
			}
			if len(res.AdditionalContext) > limit || !strings.HasPrefix(res.AdditionalContext, part+"\n") ||
				!strings.Contains(res.AdditionalContext, "1 more context part (1000 bytes) left out") || !strings.Contains(res.AdditionalContext, "2000-byte limit") {
				t.Errorf("context of %d bytes ends %q, want the first part and a marker naming the part left out and the limit", len(res.AdditionalContext), tail(res.AdditionalContext))
			}
		})
	}
}

// TestBackgroundContextBufferIsBoundedInBytes: a session's buffered
// background context keeps each part cut to luahook.MaxContextChars and at
// most MaxBufferedBytes in all, whatever the hooks return.
func TestBackgroundContextBufferIsBoundedInBytes(t *testing.T) {
	big := strings.Repeat("x", 8<<20)
	var b contextBuffer
	for range MaxBufferedParts {
		b.add("s", big)
	}
	parts := b.drain("s", math.MaxUint64)
	total := 0
	for _, p := range parts {
		total += len(p)
		if p != luahook.TruncateContext(big) {
			t.Fatalf("a buffered part of %d bytes, want it cut to %d characters", len(p), luahook.MaxContextChars)
		}
	}
	if total > MaxBufferedBytes || len(parts) == 0 {
		t.Errorf("%d parts of %d bytes in all buffered, want at most %d bytes", len(parts), total, MaxBufferedBytes)
	}
}
