package decisionfeed

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
)

// benchRecord is a record of the usual size: a 1 KiB command, three hooks
// of two files.
func benchRecord(i int) *decisionlog.Record {
	r := record("claude", fmt.Sprint("session-", i%50), luahook.ActionDeny, fmt.Sprint("rule-", i%40))
	r.Input = json.RawMessage(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"` + strings.Repeat("x", 1024) +
		`"},"cwd":"/w","sessionId":"` + r.SessionID + `","agent":"claude","client":"ci"}`)
	r.Hooks = append(r.Hooks, decisionlog.Hook{Name: "audit", Source: "20-audit.lua:3", Kind: "lua"},
		decisionlog.Hook{Name: "context", Source: "20-audit.lua:9", Kind: "lua"})
	r.Files["20-audit.lua"] = "sha256:ef"
	if i%3 != 0 {
		r.Decision.Action, r.Hooks[0].Outcome = "", nil
	}
	return r
}

// full returns a feed whose window of DefaultWindow entries is full, of
// decisions spread over the last hour; every 100th is of session "hit".
func full(b *testing.B, now time.Time) *Feed {
	f := New(Options{Now: func() time.Time { return now }})
	for i := range DefaultWindow {
		r := benchRecord(i)
		r.Time = now.Add(-time.Hour + time.Duration(i)*time.Hour/DefaultWindow)
		if i%100 == 0 {
			r.SessionID = "hit"
		}
		write(b, f, r)
	}
	return f
}

func BenchmarkWrite(b *testing.B) {
	f := full(b, t0)
	s := f.Sink()
	rec := benchRecord(1)
	b.ReportAllocs()
	for b.Loop() {
		s.Write(rec)
	}
}

func BenchmarkQueryFiltered(b *testing.B) {
	f := full(b, t0)
	b.ReportAllocs()
	for b.Loop() {
		got, _ := f.Query(Filter{Session: "hit"}, 0, 100)
		if len(got) != 100 {
			b.Fatalf("%d entries, want 100", len(got))
		}
	}
}

func BenchmarkCounts(b *testing.B) {
	f := full(b, t0)
	for _, minutes := range []int{60, MaxCountMinutes} {
		b.Run(fmt.Sprint(minutes, "min"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := f.Counts(minutes, 10)
				if len(c.TopRules) != 10 {
					b.Fatalf("%d rules, want 10", len(c.TopRules))
				}
			}
		})
	}
}
