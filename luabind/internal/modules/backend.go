package modules

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Backend is where the store module keeps its entries: the in-process Store,
// or a shared server (package store/redisstore) when several luahook
// processes must count together. Every implementation keeps the semantics
// the store module documents for Lua:
//
//   - a value is a string, a float64, a bool or a json.RawMessage (a Lua
//     table), and Get returns it with the type it was Set with;
//   - Set with ttl > 0 expires the entry after ttl; ttl 0 never expires;
//   - Incr is atomic: an absent or expired key counts from 0 and takes ttl
//     as its expiry, an existing key keeps its expiry (a fixed window); a
//     value that is not a number is an error with StoreNotNumber's text;
//   - a key or a value past Limits is a *StoreLimitError, refused before
//     anything is sent anywhere (StoreLimits.Check).
//
// Each call takes the context of the hook call that makes it, so that the
// hook's deadline bounds it; a call that fails returns an error whose text
// says what failed, starting with "store: ". Implementations are safe for
// concurrent use.
type Backend interface {
	// Get returns the value of key and whether it is present.
	Get(ctx context.Context, key string) (value any, ok bool, err error)
	// Set stores value under key (ttl > 0: for ttl).
	Set(ctx context.Context, key string, value any, ttl time.Duration) error
	// Incr adds delta to the number under key and returns the new value.
	Incr(ctx context.Context, key string, delta float64, ttl time.Duration) (float64, error)
	// Delete removes key.
	Delete(ctx context.Context, key string) error
	// Limits returns the limits in force, defaults applied.
	Limits() StoreLimits
	// Ping reports whether the backend answers, within ctx.
	Ping(ctx context.Context) error
	// Close releases what the backend holds; calls after it may fail.
	Close()
}

var _ Backend = (*Store)(nil)

// WithDefaults returns l with its zero fields set to their defaults.
func (l StoreLimits) WithDefaults() StoreLimits { return l.withDefaults() }

// Check refuses a key or a value of size bytes larger than its limit, with
// a *StoreLimitError; zero fields are their defaults. Every backend checks a
// write with it before doing anything else.
func (l StoreLimits) Check(key string, size int) error {
	return l.withDefaults().check(key, size)
}

func (l StoreLimits) check(key string, size int) error {
	if len(key) > l.MaxKeyBytes {
		return &StoreLimitError{Key: truncKey(key), Limit: "MaxKeyBytes", Max: l.MaxKeyBytes, Size: len(key)}
	}
	if size > l.MaxValueBytes {
		return &StoreLimitError{Key: truncKey(key), Limit: "MaxValueBytes", Max: l.MaxValueBytes, Size: size}
	}
	return nil
}

// StoreValueSize returns the size a value counts for against the limits: a
// string's or a JSON document's length, 8 bytes for a number or a boolean.
// A value of any other type is an error.
func StoreValueSize(value any) (int, error) {
	switch v := value.(type) {
	case string:
		return len(v), nil
	case json.RawMessage:
		return len(v), nil
	case float64, bool:
		return storeNumberBytes, nil
	}
	return 0, fmt.Errorf("store: cannot store a %T (want string, float64, bool or json.RawMessage)", value)
}

// CheckStoreTTL refuses a TTL longer than MaxStoreTTL.
func CheckStoreTTL(ttl time.Duration) error {
	if ttl > MaxStoreTTL {
		return fmt.Errorf("store: a TTL of %v exceeds the limit of %v", ttl, MaxStoreTTL)
	}
	return nil
}

// StoreNotNumber is the error of an Incr on a key whose value is not a
// number; typ is the Lua type of the value ("string", "boolean", "table").
func StoreNotNumber(key, typ string) error {
	return fmt.Errorf("store: the value of %q is a %s, not a number", truncKey(key), typ)
}

// StoreBadDelta is the error of an Incr whose delta is not a finite number.
func StoreBadDelta(key string, delta float64) error {
	return fmt.Errorf("store: cannot add %v to %q: not a finite number", delta, truncKey(key))
}

// StoreNotFinite is the error of an Incr whose result, v + delta, is not a
// finite number.
func StoreNotFinite(key string, v, delta float64) error {
	return fmt.Errorf("store: %v + %v under %q is not a finite number", v, delta, truncKey(key))
}
