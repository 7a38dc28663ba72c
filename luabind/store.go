package luabind

import (
	"github.com/luahook/luahook/luabind/internal/modules"
)

// The store behind the store module lives with the module
// (luabind/internal/modules); these names are its public face.

// Store is a goroutine-safe key/value store with expiry and atomic counters,
// bounded by its StoreLimits: the store module of every Lua state given it
// in Options.Store, and the only sanctioned way for hooks to keep state
// between calls. The zero Store is an empty store with the default limits;
// Close stops its sweeper.
type Store = modules.Store

// StoreLimits bound what hooks can keep in a Store; a zero field means its
// default.
type StoreLimits = modules.StoreLimits

// StoreLimitError is a write refused because it would pass one of the
// store's limits.
type StoreLimitError = modules.StoreLimitError

// StoreStats counts what a store holds.
type StoreStats = modules.StoreStats

// Defaults of StoreLimits, applied to its zero fields.
const (
	DefaultStoreMaxKeyBytes   = modules.DefaultStoreMaxKeyBytes
	DefaultStoreMaxValueBytes = modules.DefaultStoreMaxValueBytes
	DefaultStoreMaxKeys       = modules.DefaultStoreMaxKeys
	DefaultStoreMaxBytes      = modules.DefaultStoreMaxBytes
)

// MaxStoreTTL is the longest expiry a store entry may be given (ten years).
const MaxStoreTTL = modules.MaxStoreTTL

// NewStore returns an empty store with the default limits.
func NewStore() *Store { return modules.NewStore() }
