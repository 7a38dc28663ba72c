package luabind

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Store is a goroutine-safe key/value store with expiry and atomic counters:
// the store module of every Lua state built with it, and the only sanctioned
// way for hooks to keep state between calls. Values are strings, float64
// numbers, booleans or JSON documents (json.RawMessage, what Lua tables are
// stored as). Expired entries vanish on access and are swept as the store
// grows. The zero Store is an empty store ready to use.
type Store struct {
	mu    sync.Mutex // guards m and sweep
	m     map[string]storeEntry
	now   func() time.Time // nil: time.Now (tests set a fake clock)
	sweep int              // sweep expired entries when len(m) reaches it
}

type storeEntry struct {
	value   any
	expires time.Time // zero: never
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{} }

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

func (s *Store) live(key string, now time.Time) (storeEntry, bool) {
	e, ok := s.m[key]
	if ok && !e.expires.IsZero() && !now.Before(e.expires) {
		delete(s.m, key)
		return storeEntry{}, false
	}
	return e, ok
}

// Get returns the value of key, and whether it is present and not expired.
func (s *Store) Get(key string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.live(key, s.clock())
	return e.value, ok
}

// Set stores value under key; ttl > 0 makes it expire after ttl. The value
// must be a string, a float64, a bool or a json.RawMessage.
func (s *Store) Set(key string, value any, ttl time.Duration) error {
	switch value.(type) {
	case string, float64, bool, json.RawMessage:
	default:
		return fmt.Errorf("store: cannot store a %T (want string, float64, bool or json.RawMessage)", value)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	if s.m == nil {
		s.m = make(map[string]storeEntry)
	}
	s.m[key] = storeEntry{value: value, expires: expiry(now, ttl)}
	s.maybeSweep(now)
	return nil
}

// Incr adds delta to the number under key atomically and returns the new
// value. An absent or expired key counts from 0, and then ttl > 0 sets its
// expiry; incrementing an existing key keeps its expiry, so a counter with a
// TTL counts a fixed window. A value that is not a number is an error.
func (s *Store) Incr(key string, delta float64, ttl time.Duration) (float64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	e, ok := s.live(key, now)
	if !ok {
		e = storeEntry{value: 0.0, expires: expiry(now, ttl)}
	}
	n, isNum := e.value.(float64)
	if !isNum {
		return 0, fmt.Errorf("store: the value of %q is a %s, not a number", key, storeType(e.value))
	}
	e.value = n + delta
	if s.m == nil {
		s.m = make(map[string]storeEntry)
	}
	s.m[key] = e
	if !ok {
		s.maybeSweep(now)
	}
	return n + delta, nil
}

// Delete removes key.
func (s *Store) Delete(key string) {
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}

// Len returns the number of entries, expired ones not yet swept included.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

// maybeSweep drops expired entries when the map has doubled since the last
// sweep, so that keys with a TTL cannot pile up (amortised O(1) per insert).
func (s *Store) maybeSweep(now time.Time) {
	if len(s.m) < max(s.sweep, 1024) {
		return
	}
	for k, e := range s.m {
		if !e.expires.IsZero() && !now.Before(e.expires) {
			delete(s.m, k)
		}
	}
	s.sweep = max(1024, 2*len(s.m))
}

func storeType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.RawMessage:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// openStore opens the store module over Options.Store:
//
//	store.get(key) -> value | nil
//	store.set(key, value[, ttl_ms])    value nil deletes; tables are stored as JSON
//	store.incr(key[, delta[, ttl_ms]]) -> new value (atomic; ttl_ms applies when the key is created)
//	store.delete(key)
func (st *state) openStore() {
	L := st.L
	mod := L.CreateTable(0, 4)
	mod.RawSetString("get", L.NewFunction(st.storeGet))
	mod.RawSetString("set", L.NewFunction(st.storeSet))
	mod.RawSetString("incr", L.NewFunction(st.storeIncr))
	mod.RawSetString("delete", L.NewFunction(func(L *lua.LState) int {
		st.sh.store.Delete(L.CheckString(1))
		return 0
	}))
	L.G.Global.RawSetString("store", mod)
}

func (st *state) storeGet(L *lua.LState) int {
	v, ok := st.sh.store.Get(L.CheckString(1))
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	switch v := v.(type) {
	case string:
		L.Push(lua.LString(v))
	case float64:
		L.Push(lua.LNumber(v))
	case bool:
		L.Push(lua.LBool(v))
	case json.RawMessage:
		lv, err := st.dec.decode(v)
		if err != nil {
			L.RaiseError("store.get: the stored table is not valid JSON: %v", err)
		}
		L.Push(lv)
	}
	return 1
}

func ttlArg(L *lua.LState, n int) time.Duration {
	ms := L.OptNumber(n, 0)
	if math.IsNaN(float64(ms)) || ms < 0 {
		L.ArgError(n, "ttl_ms must be a non-negative number")
	}
	return time.Duration(float64(ms) * float64(time.Millisecond))
}

func (st *state) storeSet(L *lua.LState) int {
	key := L.CheckString(1)
	v := L.Get(2)
	ttl := ttlArg(L, 3)
	var value any
	switch v := v.(type) {
	case *lua.LNilType:
		st.sh.store.Delete(key)
		return 0
	case lua.LString:
		value = string(v)
	case lua.LNumber:
		value = float64(v)
	case lua.LBool:
		value = bool(v)
	case *lua.LTable:
		raw, err := st.enc.encode(v)
		if err != nil {
			L.RaiseError("store.set: %v", err)
		}
		value = json.RawMessage(append([]byte(nil), raw...))
	default:
		L.ArgError(2, "string, number, boolean, table or nil expected, got "+v.Type().String())
	}
	if err := st.sh.store.Set(key, value, ttl); err != nil {
		L.RaiseError("store.set: %v", err)
	}
	return 0
}

func (st *state) storeIncr(L *lua.LState) int {
	key := L.CheckString(1)
	delta := L.OptNumber(2, 1)
	ttl := ttlArg(L, 3)
	n, err := st.sh.store.Incr(key, float64(delta), ttl)
	if err != nil {
		L.RaiseError("store.incr: %v", err)
	}
	L.Push(lua.LNumber(n))
	return 1
}
