package luabind

import (
	"time"

	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// What the store module means, whatever the backend, is package
// internal/store's, and the in-process store lives with the module
// (luabind/internal/modules); these names are their public face.

// StoreBackend is where the store module keeps its entries (Options.Store):
// the in-process Store, or a server shared by several processes (Redis:
// luahook.toml's [store] backend = "redis"). Every backend keeps the semantics the store module
// documents for Lua; each call takes the hook call's context.
type StoreBackend = store.Backend

// Store is a goroutine-safe key/value store with expiry and atomic counters,
// kept in the process and bounded by its StoreLimits: the default
// StoreBackend. The zero Store is an empty store with the default limits;
// Close stops its sweeper.
type Store = modules.Store

// StoreLimits bound what hooks can keep in a Store; a zero field means its
// default.
type StoreLimits = store.Limits

// StoreLimitError is a write refused because it would pass one of the
// store's limits.
type StoreLimitError = store.LimitError

// StoreStats counts what a store holds.
type StoreStats = modules.StoreStats

// Defaults of StoreLimits, applied to its zero fields.
const (
	DefaultStoreMaxKeyBytes   = store.DefaultMaxKeyBytes   // 1 KiB
	DefaultStoreMaxValueBytes = store.DefaultMaxValueBytes // 1 MiB
	DefaultStoreMaxKeys       = store.DefaultMaxKeys       // 100,000
	DefaultStoreMaxBytes      = store.DefaultMaxBytes      // 64 MiB
)

// MaxStoreTTL is the longest expiry a store entry may be given (ten years).
const MaxStoreTTL = store.MaxTTL

// NewStore returns an empty store with the default limits.
func NewStore() *Store { return modules.NewStore() }

// StoreValueSize returns the size a store value counts for against
// StoreLimits.MaxValueBytes (8 bytes for a number or a boolean); a value
// that is not a string, float64, bool or json.RawMessage is an error.
func StoreValueSize(value any) (int, error) { return store.ValueSize(value) }

// CheckStoreTTL refuses a TTL longer than MaxStoreTTL.
func CheckStoreTTL(ttl time.Duration) error { return store.CheckTTL(ttl) }

// StoreNotNumber is the error of an incr on a key whose value is not a
// number; typ is the value's Lua type ("string", "boolean", "table").
func StoreNotNumber(key, typ string) error { return store.NotNumber(key, typ) }

// StoreBadDelta is the error of an incr whose delta is not a finite number.
func StoreBadDelta(key string, delta float64) error { return store.BadDelta(key, delta) }

// StoreNotFinite is the error of an incr whose result, v + delta, is not a
// finite number.
func StoreNotFinite(key string, v, delta float64) error { return store.NotFinite(key, v, delta) }
