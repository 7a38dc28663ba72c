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

// countsScript: ARGV counters, maxCounters, ttl (ms), n, then n times
// idx, key, delta, window (ms), then callsKey, callsPrefix, ring, calls,
// maxEntry, budget, max. Answers {"ok", total..., then "" when no calls
// were asked or there are none, else count, first, entries...},
// {"limit", index (1 up)}, {"type", key} or {"inf", key}.
var countsScript = redis.NewScript(ledgerLib + rangeLib + `
local counters, maxCounters, ttl, n = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local out = {'ok'}
for i = 0, n - 1 do
  local idx, key, delta, window = ARGV[5 + 4 * i], ARGV[6 + 4 * i], tonumber(ARGV[7 + 4 * i]), ARGV[8 + 4 * i]
  if delta == 0 then
    local v = redis.call('GET', key)
    local t = 0
    if v and string.sub(v, 1, 1) == 'n' then t = tonumber(string.sub(v, 2)) or 0 end
    out[#out + 1] = string.format('%.17g', t)
  else
    if redis.call('EXISTS', idx) == 0 then
      local c = incr(counters, 1, ttl)
      if not c then return {'type', counters} end
      if c > maxCounters then
        incr(counters, -1, ttl)
        return {'limit', tostring(i + 1)}
      end
      redis.call('SET', idx, 'b1', 'PX', ttl)
    end
    local r = incr(key, delta, window)
    if r == nil then return {'type', key} end
    if r == false then return {'inf', key} end
    out[#out + 1] = string.format('%.17g', r)
  end
end
local c = 5 + 4 * n
if tonumber(ARGV[c + 3]) > 0 then
  local got = range(ARGV[c], ARGV[c + 1], tonumber(ARGV[c + 2]), 0, tonumber(ARGV[c + 3]), tonumber(ARGV[c + 6]), tonumber(ARGV[c + 4]), tonumber(ARGV[c + 5]))
  if #got == 0 then
    out[#out + 1] = ''
  else
    for _, e in ipairs(got) do out[#out + 1] = e end
  end
else
  out[#out + 1] = ''
end
return out
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

// rangeLib is the body of LedgerRange: range(countKey, slotPrefix, ring,
// from, n, max, maxEntry, budget) returns {} when there is no count, else
// {count, first, entries...}, an entry false when absent or past maxEntry
// bytes; it stops before the entry that would take the entries past
// budget bytes (after the first).
const rangeLib = `
local function range(countKey, slotPrefix, ring, from, n, max, maxEntry, budget)
  local v = redis.call('GET', countKey)
  if not v or string.sub(v, 1, 1) ~= 'n' then return {} end
  local count = tonumber(string.sub(v, 2))
  if count == nil then return {} end
  local last = math.floor(count)
  local first = 1
  if ring > 0 then first = math.max(last - n + 1, 1) end
  if from > 0 then first = from end
  local stop = math.min(last, first + max - 1)
  if ring == 0 then stop = math.min(stop, n) end
  local used = 0
  local out = {string.format('%.17g', count), string.format('%d', first)}
  for i = first, stop do
    local slot = i
    if ring > 0 then slot = (i - 1) % ring end
    local e = redis.call('GET', slotPrefix .. string.format('%d', slot))
    if e and string.len(e) <= maxEntry + 1 then
      used = used + string.len(e)
      if used > budget and #out > 2 then break end
      out[#out + 1] = e
    else
      out[#out + 1] = false
    end
  end
  return out
end
`

// rangeScript: ARGV countKey, slotPrefix, ring, from, n, max, maxEntry,
// budget: range's answer.
var rangeScript = redis.NewScript(rangeLib + `
return range(ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]))
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

// LedgerCounts is store.LedgerBackend's, in one round trip.
func (s *Store) LedgerCounts(ctx context.Context, req store.LedgerCountsRequest) (store.LedgerCountsReply, error) {
	var reply store.LedgerCountsReply
	if len(req.Items) == 0 || len(req.Items) > maxRangeEntries/2 {
		return reply, fmt.Errorf("store: a count of %d counters", len(req.Items))
	}
	args := make([]any, 0, 4+4*len(req.Items)+7)
	args = append(args, s.key(req.Counters), req.MaxCounters, millis(req.TTL).Milliseconds(), len(req.Items))
	for _, it := range req.Items {
		if math.IsNaN(it.Delta) || math.IsInf(it.Delta, 0) {
			return reply, store.BadDelta(it.Key, it.Delta)
		}
		if err := s.checkLedger(it.Idx, store.NumberBytes, req.TTL); err != nil {
			return reply, err
		}
		if err := s.checkLedger(it.Key, store.NumberBytes, it.Window); err != nil {
			return reply, err
		}
		args = append(args, s.key(it.Idx), s.key(it.Key), strconv.FormatFloat(it.Delta, 'g', -1, 64), millis(it.Window).Milliseconds())
	}
	budget := s.Limits().MaxValueBytes
	maxEntry := max(min(req.MaxEntry, budget), 1)
	calls := max(req.Calls, 0)
	if calls > 0 && req.Ring <= 0 {
		return reply, fmt.Errorf("store: a ring of %d calls", req.Ring)
	}
	args = append(args, s.key(req.CallsKey), s.key(req.CallsPrefix), req.Ring, calls, maxEntry, budget,
		maxInt(min(calls, maxRangeEntries-len(req.Items)-4), 1))
	res, err := s.runLedger(ctx, countsScript, args...)
	if err != nil {
		return reply, err
	}
	key := req.Items[0].Key
	vals, _ := res.([]any)
	head, _ := firstString(vals)
	switch head {
	case "ok":
	case "limit":
		arg, _ := firstString(vals[1:])
		i, perr := strconv.Atoi(arg)
		if perr != nil || i < 1 || i > len(req.Items) {
			return reply, fmt.Errorf("store: redis at %s answered %v to a count of %q", s.addr, res, store.ShortKey(key))
		}
		reply.Refused = i - 1
		return reply, nil
	default:
		_, _, err := s.ledgerReply(res, "count", key)
		if err == nil {
			err = fmt.Errorf("store: redis at %s answered %v to a count of %q", s.addr, res, store.ShortKey(key))
		}
		return reply, err
	}
	reply.Refused = -1
	if len(vals) < 1+len(req.Items)+1 {
		return reply, fmt.Errorf("store: redis at %s answered %v to a count of %q", s.addr, res, store.ShortKey(key))
	}
	reply.Totals = make([]float64, len(req.Items))
	for i := range req.Items {
		text, _ := vals[1+i].(string)
		t, perr := strconv.ParseFloat(text, 64)
		if perr != nil {
			return reply, fmt.Errorf("store: redis at %s answered %q to a count of %q", s.addr, text, store.ShortKey(req.Items[i].Key))
		}
		reply.Totals[i] = t
	}
	rest := vals[1+len(req.Items):]
	if len(rest) == 1 {
		return reply, nil // no calls asked for, or none kept
	}
	reply.CallsCount, reply.CallsPresent, reply.First, reply.Entries, err = s.rangeReply(rest, req.CallsKey)
	return reply, err
}

// firstString is vals[0] as a string.
func firstString(vals []any) (string, bool) {
	if len(vals) == 0 {
		return "", false
	}
	s, ok := vals[0].(string)
	return s, ok
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
	return s.rangeReply(vals, countKey)
}

// rangeReply reads range's {count, first, entries...}.
func (s *Store) rangeReply(vals []any, countKey string) (float64, bool, int64, []json.RawMessage, error) {
	if len(vals) < 2 {
		return 0, false, 0, nil, fmt.Errorf("store: redis at %s answered %v to a read of %q", s.addr, vals, store.ShortKey(countKey))
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
