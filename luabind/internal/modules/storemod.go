package modules

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/luabind/internal/codec"
)

// OpenStore opens the store module over Config.Store, its store.Backend:
//
//	store.get(key) -> value | nil
//	store.set(key, value[, ttl_ms])    value nil deletes; tables are stored as JSON
//	store.incr(key[, delta[, ttl_ms]]) -> new value (atomic; ttl_ms applies when the key is created)
//	store.delete(key)
//
// A write that would pass one of the store's limits (store.Limits) raises an
// error naming it, as do a TTL or a delta that is not a finite number in
// range, and so does a backend that fails (a Redis server that does not
// answer): the hook fails, and its failure policy decides. Each call runs
// under the hook call's context, so the hook's deadline bounds it.
func (m *Modules) OpenStore() {
	L := m.L
	mod := L.CreateTable(0, 4)
	mod.RawSetString("get", L.NewFunction(m.storeGet))
	mod.RawSetString("set", L.NewFunction(m.storeSet))
	mod.RawSetString("incr", L.NewFunction(m.storeIncr))
	mod.RawSetString("delete", L.NewFunction(func(L *lua.LState) int {
		if err := m.cfg.Store.Delete(m.storeContext(), L.CheckString(1)); err != nil {
			raiseStoreError(L, "store.delete", err)
		}
		return 0
	}))
	L.G.Global.RawSetString("store", mod)
}

// storeContext is the context a store call runs under: the hook call's,
// else the state's (the load timeout's, while the file loads), else none.
func (m *Modules) storeContext() context.Context {
	if ctx := m.host.CallContext(); ctx != nil {
		return ctx
	}
	if ctx := m.L.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

func (m *Modules) storeGet(L *lua.LState) int {
	v, ok, err := m.cfg.Store.Get(m.storeContext(), L.CheckString(1))
	if err != nil {
		raiseStoreError(L, "store.get", err)
	}
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	switch v := v.(type) {
	case string:
		L.Push(lua.LString(v))
	case float64:
		L.Push(numberValue(v))
	case bool:
		L.Push(lua.LBool(v))
	case json.RawMessage:
		lv, err := m.codec.Dec.Decode(v)
		if err != nil {
			L.RaiseError("store.get: the stored table is not valid JSON: %v", err)
		}
		L.Push(lv)
	}
	return 1
}

// maxTTLms is store.MaxTTL in milliseconds, the largest ttl_ms.
var maxTTLms = float64(store.MaxTTL / time.Millisecond)

func ttlArg(L *lua.LState, n int) time.Duration {
	ms := float64(L.OptNumber(n, 0))
	if !(ms >= 0 && ms <= maxTTLms) { // NaN fails both
		L.ArgError(n, "ttl_ms must be a number of milliseconds from 0 (never expires) to "+
			strconv.FormatFloat(maxTTLms, 'f', -1, 64)+" (10 years), got "+strconv.FormatFloat(ms, 'g', -1, 64))
	}
	return time.Duration(ms * float64(time.Millisecond))
}

func (m *Modules) storeSet(L *lua.LState) int {
	key := L.CheckString(1)
	v := L.Get(2)
	ttl := ttlArg(L, 3)
	var value any
	switch v := v.(type) {
	case *lua.LNilType:
		if err := m.cfg.Store.Delete(m.storeContext(), key); err != nil {
			raiseStoreError(L, "store.set", err)
		}
		return 0
	case lua.LString:
		value = string(v)
	case lua.LNumber:
		value = float64(v)
	case lua.LBool:
		value = bool(v)
	case *lua.LTable:
		// The encoding stops at the value limit, so that a huge table costs
		// no more than the limit; the copy is made once it fits.
		limit := m.cfg.Store.Limits().MaxValueBytes
		raw, err := m.codec.Enc.EncodeAtMost(v, limit)
		if err != nil {
			L.RaiseError("store.set: cannot store the table under %q: %v", store.ShortKey(key), err)
		}
		value = json.RawMessage(append([]byte(nil), raw...))
	default:
		L.ArgError(2, "string, number, boolean, table or nil expected, got "+v.Type().String())
	}
	if err := m.cfg.Store.Set(m.storeContext(), key, value, ttl); err != nil {
		raiseStoreError(L, "store.set", err)
	}
	return 0
}

func (m *Modules) storeIncr(L *lua.LState) int {
	key := L.CheckString(1)
	delta := float64(L.OptNumber(2, 1))
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		L.ArgError(2, "delta must be a finite number, got "+strconv.FormatFloat(delta, 'g', -1, 64))
	}
	ttl := ttlArg(L, 3)
	n, err := m.cfg.Store.Incr(m.storeContext(), key, delta, ttl)
	if err != nil {
		raiseStoreError(L, "store.incr", err)
	}
	L.Push(numberValue(n))
	return 1
}

// numberValue is f as a Lua number, boxed once when it is a small
// non-negative integer (codec.Number): what counters hold.
func numberValue(f float64) lua.LValue {
	if i := int(f); float64(i) == f && !math.Signbit(f) {
		return codec.Number(i)
	}
	return lua.LNumber(f)
}

// raiseStoreError raises a Store error as the error of the Lua function fn:
// "store.set: the value for ...".
func raiseStoreError(L *lua.LState, fn string, err error) {
	L.RaiseError("%s: %s", fn, strings.TrimPrefix(err.Error(), "store: "))
}
