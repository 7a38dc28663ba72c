package engine

import (
	"context"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/ledger"
)

// Ledger returns the session ledger the engine's hooks read and write (the
// session module), kept in the engine's store backend: for a Go hook or a
// host that judges a call by what its session did before.
// From the first call on, the engine records every PostToolUse call in
// it, as it does while a Lua file reads the session module.
func (e *Engine) Ledger() *ledger.Ledger {
	e.ledgerWanted.Store(true)
	return e.ledger
}

// ledgerLimits are the ledger bounds of a [store].
func ledgerLimits(s config.Store) ledger.Limits {
	return ledger.Limits{MaxMarks: s.LedgerMaxMarks, MaxCalls: s.LedgerMaxCalls, MaxBytes: s.LedgerMaxBytes,
		MaxAge: time.Duration(s.LedgerMaxAgeMs) * time.Millisecond}
}

// recordCall is the runner's ToolDone: every PostToolUse payload (an
// agent's PostToolUseFailure included, with toolResult.isError), through
// any door, is recorded in its session's ledger once its hooks have run. A
// payload without a session id has no ledger; a store that fails is
// logged, never the call's failure: the call has happened. Nothing is
// recorded, and nothing is paid, while no loaded file reads the session
// module and no Go code asked for the Ledger.
func (e *Engine) recordCall(ctx context.Context, in *luahook.Input) {
	if in.SessionID == "" || !(e.ledgerWanted.Load() || e.view.Load().ledger) {
		return
	}
	if err := e.ledger.Record(ctx, in.SessionID, ledger.CallOf(in)); err != nil {
		e.logger.Warn("luahook: the session ledger did not record the call", "tool", in.ToolName, "error", err)
	}
}
