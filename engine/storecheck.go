package engine

import "context"

// StoreCheck reports whether the store behind the Lua store module
// answers: nil for the in-process store, which always does; for a remote
// backend, the error of a round trip made within ctx. serve's /readyz
// reports it.
func (e *Engine) StoreCheck(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return e.store.Ping(ctx)
}
