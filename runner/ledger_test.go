package runner

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind"
)

// ledgerRig is a rig with a real ledger (the in-process store) and two Go
// PreToolUse hooks: "reader", which names itself and reads the session's
// mark, and an anonymous writer, which marks the session without naming
// itself. journaled counts the calls whose context carried a journal.
type ledgerRig struct {
	*rig
	lg        *ledger.Ledger
	journaled atomic.Int32
}

func newLedgerRig(t *testing.T, opts Options) *ledgerRig {
	s := luabind.NewStore()
	t.Cleanup(s.Close)
	g := &ledgerRig{rig: newRig(t, opts), lg: ledger.New(s, ledger.Limits{})}
	g.add(luahook.Spec{Name: "reader", Event: luahook.PreToolUse, Source: "reader.go:1", Hook: luahook.HookFunc(func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		if ledger.JournalOf(ctx) != nil {
			g.journaled.Add(1)
		}
		if _, ok, err := g.lg.Has(ledger.WithHook(ctx, "reader", ""), in.SessionID, "private-data"); err != nil || ok {
			return luahook.Ask("marked"), err
		}
		return nil, nil
	})})
	g.add(luahook.Spec{Name: "writer", Event: luahook.PreToolUse, Hook: luahook.HookFunc(func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		_, err := g.lg.Mark(ctx, in.SessionID, "untrusted-content", "fetched https://example.com")
		return nil, err
	})})
	return g
}

func ledgerInput() *luahook.Input {
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: []byte(`{}`), SessionID: "s1"}
}

// A decision that is observed keeps a journal of its hooks' ledger calls
// and hands it to the observer (Result.Ledger), whichever method fired it;
// one that is not observed keeps none: its hooks' context carries no
// journal.
func TestAnObservedDecisionCarriesItsHooksLedgerCalls(t *testing.T) {
	var seen [][]ledger.Entry
	g := newLedgerRig(t, Options{})
	ctx := context.Background()
	var res Result
	g.r.Fire(ctx, ledgerInput())
	g.r.FireInto(ctx, ledgerInput(), &res)
	g.r.PreToolUse(ctx, ledgerInput())
	if n := g.journaled.Load(); n != 0 {
		t.Errorf("%d calls kept a journal with no observer", n)
	}
	g.r.SetOnDecision(func(_ *luahook.Input, res *Result) { seen = append(seen, res.Ledger) })
	g.r.Fire(ctx, ledgerInput())
	g.r.FireInto(ctx, ledgerInput(), &res)
	g.r.PreToolUse(ctx, ledgerInput())
	if len(seen) != 3 {
		t.Fatalf("observed %d decisions, want 3", len(seen))
	}
	for i, entries := range seen {
		if len(entries) != 2 {
			t.Fatalf("decision %d: ledger %+v, want a has and a mark", i, entries)
		}
		has, mark := entries[0], entries[1]
		if has.Hook != "reader" || has.Op != ledger.OpHas || has.Name != "private-data" || has.Found {
			t.Errorf("decision %d: first entry %+v, want reader's has of private-data, not found", i, has)
		}
		if mark.Hook != "" || mark.Op != ledger.OpMark || mark.Name != "untrusted-content" || mark.Detail != "fetched https://example.com" || mark.AtMs == 0 {
			t.Errorf("decision %d: second entry %+v, want the writer's mark", i, mark)
		}
	}
	g.r.SetOnDecision(nil)
	g.r.FireUnobserved(ctx, ledgerInput(), &res)
	if len(res.Ledger) != 2 {
		t.Errorf("FireUnobserved: ledger %+v, want the decision's two calls", res.Ledger)
	}
}

// Explain lists, under each hook, the ledger calls it made, and after the
// hooks those no hook of the list made (a Go hook that did not name
// itself).
func TestExplainShowsTheLedgerCallsOfEachHook(t *testing.T) {
	g := newLedgerRig(t, Options{})
	ctx := context.Background()
	if _, err := g.lg.Mark(ctx, "s1", "private-data", "read ~/.ssh/id_rsa"); err != nil {
		t.Fatal(err)
	}
	x := g.r.Explain(ctx, ledgerInput())
	if len(x.Hooks) != 2 {
		t.Fatalf("hooks %+v", x.Hooks)
	}
	reader := x.Hooks[0]
	if reader.Name != "reader" || len(reader.Ledger) != 1 || !reader.Ledger[0].Found || reader.Ledger[0].Detail != "read ~/.ssh/id_rsa" {
		t.Errorf("reader's ledger %+v, want its has, found", reader.Ledger)
	}
	if len(x.Hooks[1].Ledger) != 0 {
		t.Errorf("the writer, which did not name itself, was given %+v", x.Hooks[1].Ledger)
	}
	if len(x.Result.Ledger) != 2 {
		t.Errorf("Result.Ledger %+v, want both calls", x.Result.Ledger)
	}
	var b strings.Builder
	if err := x.Render(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  1. reader (go, mutate, reader.go:1)\n       matched      every payload (matcher *)\n",
		"<- decided\n       ledger       has private-data -> marked ",
		" (read ~/.ssh/id_rsa)\n  2. writer",
		"\nledger (a hook that did not name itself): mark untrusted-content (fetched https://example.com)\ndecision: ask: marked\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explanation lacks %q:\n%s", want, out)
		}
	}
}
