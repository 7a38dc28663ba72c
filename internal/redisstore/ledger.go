package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/luahook/luahook/internal/store"
)

// The session ledger's operations (store.LedgerBackend), each a script the
// server runs whole: one round trip for what the ledger's generic code does
// in two to five calls, and atomic, so that two replicas marking a session
// at once cannot both take its last slot. The scripts keep values as Get,
// Set and Incr do (a tag, then the text) and numbers as incrScript does,
// so that the generic code reads what they wrote and the other way round.
// They name the session's keys in ARGV rather than KEYS: every key of one
// call shares the session's prefix, on the one server the store speaks to.

var _ store.LedgerBackend = (*Store)(nil)

// ledgerLib is the scripts' common part: incr is incrScript's body (nil
// for a value that is not a number, false for a sum that is not finite).
const ledgerLib = `
local function incr(k, d, ttl)
  local v = redis.call('GET', k)
  if not v then
    redis.call('SET', k, 'n' .. string.format('%.17g', d), 'PX', ttl)
    return d
  end
  if string.sub(v, 1, 1) ~= 'n' then return nil end
  local r = tonumber(string.sub(v, 2))
  if r == nil then return nil end
  r = r + d
  if r ~= r or r == math.huge or r == -math.huge then return false end
  redis.call('SET', k, 'n' .. string.format('%.17g', r), 'KEEPTTL')
  return r
end
`

// markScript: ARGV prefix, label, head, detailLen, maxMarks, maxBytes,
// ttl (ms). Answers {"ok", slot}, {"limit", "bytes"|"marks"} or
// {"type", key}.
var markScript = redis.NewScript(ledgerLib + `
local p, label, head = ARGV[1], ARGV[2], ARGV[3]
local dlen, maxMarks, maxBytes, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local mkey = p .. 'l' .. label
local old = redis.call('GET', mkey)
local held, oldlen, slot = false, 0, 0
if old and string.sub(old, 1, 1) == 't' then
  local ok, m = pcall(cjson.decode, string.sub(old, 2))
  if ok and type(m) == 'table' then
    held = true
    if type(m.slot) == 'number' then slot = m.slot end
    if type(m.detail) == 'string' then oldlen = string.len(m.detail) end
  end
end
local delta = string.len(label) + dlen
if held then delta = dlen - oldlen end
if delta > 0 then
  local t = incr(p .. 'mb', delta, ttl)
  if not t then return {'type', p .. 'mb'} end
  if t > maxBytes then
    incr(p .. 'mb', -delta, ttl)
    return {'limit', 'bytes'}
  end
end
if not held then
  local n = incr(p .. 'mn', 1, ttl)
  if not n then
    if delta > 0 then incr(p .. 'mb', -delta, ttl) end
    return {'type', p .. 'mn'}
  end
  if n > maxMarks then
    incr(p .. 'mn', -1, ttl)
    if delta > 0 then incr(p .. 'mb', -delta, ttl) end
    return {'limit', 'marks'}
  end
  slot = n
elseif delta < 0 then
  incr(p .. 'mb', delta, ttl)
end
local s = string.format('%d', slot)
local v = 't' .. head .. s .. '}'
redis.call('SET', p .. 'ms' .. s, v, 'PX', ttl)
redis.call('SET', mkey, v, 'PX', ttl)
return {'ok', s}
`)

// countScript: ARGV idx, key, counters, delta, window (ms), maxCounters,
// ttl (ms). Answers {"ok", total}, {"limit"}, {"type", key} or {"inf", key}.
var countScript = redis.NewScript(ledgerLib + `
local idx, key, counters, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[7]
if redis.call('EXISTS', idx) == 0 then
  local n = incr(counters, 1, ttl)
  if not n then return {'type', counters} end
  if n > tonumber(ARGV[6]) then
    incr(counters, -1, ttl)
    return {'limit'}
  end
  redis.call('SET', idx, 'b1', 'PX', ttl)
end
local r = incr(key, tonumber(ARGV[4]), ARGV[5])
if r == nil then return {'type', key} end
if r == false then return {'inf', key} end
return {'ok', string.format('%.17g', r)}
`)

// recordScript: ARGV seqKey, slotPrefix, head, ring, ttl (ms). Answers
// {"ok", seq} or {"type", seqKey}.
var recordScript = redis.NewScript(ledgerLib + `
local ttl = ARGV[5]
local seq = incr(ARGV[1], 1, ttl)
if not seq then return {'type', ARGV[1]} end
local s = string.format('%d', seq)
redis.call('SET', ARGV[2] .. string.format('%d', (seq - 1) % tonumber(ARGV[4])), 't' .. ARGV[3] .. s .. '}', 'PX', ttl)
return {'ok', s}
`)

// rangeScript: ARGV countKey, slotPrefix, ring, from, n, max, maxEntry,
// budget. Answers {} when there is no count, else {count, first,
// entries...}, an entry false when absent or past maxEntry bytes; it stops
// before the entry that would take the entries past budget bytes (after
// the first).
var rangeScript = redis.NewScript(`
local v = redis.call('GET', ARGV[1])
if not v or string.sub(v, 1, 1) ~= 'n' then return {} end
local count = tonumber(string.sub(v, 2))
if count == nil then return {} end
local ring, from, n, max, maxEntry = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local last = math.floor(count)
local first = 1
if ring > 0 then first = math.max(last - n + 1, 1) end
if from > 0 then first = from end
local stop = math.min(last, first + max - 1)
if ring == 0 then stop = math.min(stop, n) end
local budget, used = tonumber(ARGV[8]), 0
local out = {string.format('%.17g', count), string.format('%d', first)}
for i = first, stop do
  local slot = i
  if ring > 0 then slot = (i - 1) % ring end
  local e = redis.call('GET', ARGV[2] .. string.format('%d', slot))
  if e and string.len(e) <= maxEntry + 1 then
    used = used + string.len(e)
    if used > budget and #out > 2 then break end
    out[#out + 1] = e
  else
    out[#out + 1] = false
  end
end
return out
`)

// maxRangeEntries bounds the entries of one LedgerRange reply, below the
// values a reply may hold (maxReplyValues).
const maxRangeEntries = maxReplyValues - 8

// LedgerMark is store.LedgerBackend's, in one round trip.
func (s *Store) LedgerMark(ctx context.Context, prefix, label string, head []byte, detailLen, maxMarks, maxBytes int, ttl time.Duration) (int64, string, error) {
	key := prefix + "l" + label
	if err := s.checkLedger(key, len(head)+24, ttl); err != nil {
		return 0, "", err
	}
	res, err := s.runLedger(ctx, markScript, s.key(prefix), label, head, detailLen, maxMarks, maxBytes, millis(ttl).Milliseconds())
	if err != nil {
		return 0, "", err
	}
	what, arg, err := s.ledgerReply(res, "mark", key)
	if err != nil {
		return 0, "", err
	}
	if what == "limit" {
		return 0, arg, nil
	}
	slot, perr := strconv.ParseInt(arg, 10, 64)
	if perr != nil {
		return 0, "", fmt.Errorf("store: redis at %s answered %q to a mark of %q", s.addr, arg, store.ShortKey(key))
	}
	return slot, "", nil
}

// LedgerCount is store.LedgerBackend's, in one round trip.
func (s *Store) LedgerCount(ctx context.Context, idx, key, counters string, delta float64, window time.Duration, maxCounters int, ttl time.Duration) (float64, bool, error) {
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return 0, false, store.BadDelta(key, delta)
	}
	if err := s.checkLedger(idx, store.NumberBytes, ttl); err != nil {
		return 0, false, err
	}
	if err := s.checkLedger(key, store.NumberBytes, window); err != nil {
		return 0, false, err
	}
	res, err := s.runLedger(ctx, countScript, s.key(idx), s.key(key), s.key(counters),
		strconv.FormatFloat(delta, 'g', -1, 64), millis(window).Milliseconds(), maxCounters, millis(ttl).Milliseconds())
	if err != nil {
		return 0, false, err
	}
	what, arg, err := s.ledgerReply(res, "count", key)
	if err != nil {
		return 0, false, err
	}
	if what == "limit" {
		return 0, true, nil
	}
	total, perr := strconv.ParseFloat(arg, 64)
	if perr != nil {
		return 0, false, fmt.Errorf("store: redis at %s answered %q to a count of %q", s.addr, arg, store.ShortKey(key))
	}
	return total, false, nil
}

// LedgerRecord is store.LedgerBackend's, in one round trip.
func (s *Store) LedgerRecord(ctx context.Context, seqKey, slotPrefix string, head []byte, ring int, ttl time.Duration) (int64, error) {
	if ring <= 0 {
		return 0, fmt.Errorf("store: a ring of %d calls", ring)
	}
	if err := s.checkLedger(slotPrefix+strconv.Itoa(ring), len(head)+24, ttl); err != nil {
		return 0, err
	}
	res, err := s.runLedger(ctx, recordScript, s.key(seqKey), s.key(slotPrefix), head, ring, millis(ttl).Milliseconds())
	if err != nil {
		return 0, err
	}
	_, arg, err := s.ledgerReply(res, "record", seqKey)
	if err != nil {
		return 0, err
	}
	seq, perr := strconv.ParseInt(arg, 10, 64)
	if perr != nil {
		return 0, fmt.Errorf("store: redis at %s answered %q to a record under %q", s.addr, arg, store.ShortKey(seqKey))
	}
	return seq, nil
}

// LedgerRange is store.LedgerBackend's, in one round trip. What one reply
// holds is bounded as every reply of the store is (respguard.go): at most
// maxRangeEntries entries, of at most MaxValueBytes bytes together (an
// entry's tag and framing fit in the reply's floor), so a long list takes
// a round trip a page.
func (s *Store) LedgerRange(ctx context.Context, countKey, slotPrefix string, ring, from, n, max, maxEntry int) (float64, bool, int64, []json.RawMessage, error) {
	budget := s.Limits().MaxValueBytes
	maxEntry = min(maxEntry, budget)
	if maxEntry <= 0 || n <= 0 {
		return 0, false, 0, nil, fmt.Errorf("store: a range of %d entries of at most %d bytes", n, maxEntry)
	}
	max = maxInt(min(max, maxRangeEntries), 1)
	res, err := s.runLedger(ctx, rangeScript, s.key(countKey), s.key(slotPrefix), ring, from, n, max, maxEntry, budget)
	if err != nil {
		return 0, false, 0, nil, err
	}
	vals, ok := res.([]any)
	if !ok {
		return 0, false, 0, nil, fmt.Errorf("store: redis at %s answered %v to a read of %q", s.addr, res, store.ShortKey(countKey))
	}
	if len(vals) == 0 {
		return 0, false, 0, nil, nil
	}
	if len(vals) < 2 {
		return 0, false, 0, nil, fmt.Errorf("store: redis at %s answered %v to a read of %q", s.addr, res, store.ShortKey(countKey))
	}
	cs, _ := vals[0].(string)
	fs, _ := vals[1].(string)
	count, err1 := strconv.ParseFloat(cs, 64)
	first, err2 := strconv.ParseInt(fs, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false, 0, nil, fmt.Errorf("store: redis at %s answered %q, %q to a read of %q", s.addr, cs, fs, store.ShortKey(countKey))
	}
	entries := make([]json.RawMessage, len(vals)-2)
	for i, v := range vals[2:] {
		text, _ := v.(string)
		if len(text) > 1 && text[0] == tagTable {
			entries[i] = json.RawMessage(text[1:])
		}
	}
	return count, true, first, entries, nil
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// checkLedger refuses a key or a value past the limits, or a TTL out of
// range, as Set does.
func (s *Store) checkLedger(key string, size int, ttl time.Duration) error {
	if err := store.CheckTTL(ttl); err != nil {
		return err
	}
	if ttl <= 0 {
		return fmt.Errorf("store: the ledger's keys need a TTL, %q has %v", store.ShortKey(key), ttl)
	}
	return s.Limits().Check(key, size)
}

// runLedger runs one of the ledger's scripts as one call of the store
// (counted as op "ledger", under the breaker and the call's timeout).
func (s *Store) runLedger(ctx context.Context, script *redis.Script, args ...any) (any, error) {
	ctx, done, err := s.begin(ctx, opLedger)
	if err != nil {
		return nil, err
	}
	res, err := script.Run(ctx, s.c, nil, args...).Result()
	if err = done(err); err != nil {
		return nil, err
	}
	return res, nil
}

// ledgerReply reads a script's {what, arg} answer: an "ok" or a "limit",
// else the error it stands for.
func (s *Store) ledgerReply(res any, op, key string) (string, string, error) {
	r, _ := res.([]any)
	if len(r) == 0 || len(r) > 2 {
		return "", "", fmt.Errorf("store: redis at %s answered %v to a %s of %q", s.addr, res, op, store.ShortKey(key))
	}
	what, _ := r[0].(string)
	arg := ""
	if len(r) == 2 {
		arg, _ = r[1].(string)
	}
	switch what {
	case "ok", "limit":
		return what, arg, nil
	case "type":
		return "", "", fmt.Errorf("store: the value of %q is not a number", store.ShortKey(stripPrefix(arg, s.prefix)))
	case "inf":
		return "", "", fmt.Errorf("store: the count under %q is no longer a finite number", store.ShortKey(stripPrefix(arg, s.prefix)))
	}
	return "", "", fmt.Errorf("store: redis at %s answered %v to a %s of %q", s.addr, res, op, store.ShortKey(key))
}

func stripPrefix(key, prefix string) string {
	if len(key) >= len(prefix) && key[:len(prefix)] == prefix {
		return key[len(prefix):]
	}
	return key
}
