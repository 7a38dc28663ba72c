package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/luahook/luahook/internal/store"
)

// How a value is kept in Redis: a one-byte tag saying its type, then its
// text. "1" the string is "s1", 1 the number "n1", so they stay apart.
const (
	tagString = 's' // then the string
	tagNumber = 'n' // then the number, as text that parses back to the same float64
	tagBool   = 'b' // then "1" or "0"
	tagTable  = 't' // then the table's JSON
)

// maxRedisValue is the largest string Redis keeps (512 MiB): no read asks
// for more.
const maxRedisValue = 512 << 20

func (s *Store) key(k string) string { return s.prefix + k }

// Get returns the value of key. It reads at most the value limit (and its
// tag) from the server: a longer value, which luahook would not have
// written under the limits in force, is an error, as is a value without
// luahook's type tag.
func (s *Store) Get(ctx context.Context, key string) (any, bool, error) {
	max := min(s.Limits().MaxValueBytes, maxRedisValue)
	ctx, done, err := s.begin(ctx, opGet)
	if err != nil {
		return nil, false, err
	}
	// GETRANGE reads no more than asked; an absent key reads "", which no
	// value is (each has its tag).
	raw, err := s.c.GetRange(ctx, s.key(key), 0, int64(max)+1).Result()
	if err = done(err); err != nil {
		return nil, false, err
	}
	if raw == "" {
		return nil, false, nil
	}
	if len(raw) > max+1 {
		return nil, false, fmt.Errorf("store: the value of %q in redis at %s is over the limit of %d bytes on a value", store.ShortKey(key), s.addr, max)
	}
	v, err := decode(raw)
	if err != nil {
		return nil, false, fmt.Errorf("store: the value of %q in redis at %s %v", store.ShortKey(key), s.addr, err)
	}
	return v, true, nil
}

// Set stores value under key; ttl > 0 makes it expire after ttl, rounded up
// to a millisecond. Limits are checked before anything is sent.
func (s *Store) Set(ctx context.Context, key string, value any, ttl time.Duration) error {
	size, err := store.ValueSize(value)
	if err != nil {
		return err
	}
	if err := store.CheckTTL(ttl); err != nil {
		return err
	}
	if err := s.Limits().Check(key, size); err != nil {
		return err
	}
	text := encode(value)
	ctx, done, err := s.begin(ctx, opSet)
	if err != nil {
		return err
	}
	return done(s.c.Set(ctx, s.key(key), text, millis(ttl)).Err())
}

// Delete removes key.
func (s *Store) Delete(ctx context.Context, key string) error {
	ctx, done, err := s.begin(ctx, opDelete)
	if err != nil {
		return err
	}
	return done(s.c.Del(ctx, s.key(key)).Err())
}

// incrScript is Incr in one round trip: an absent key is created with the
// delta and the TTL (ARGV[2] milliseconds, "0" for none), an existing number
// is added to and keeps its TTL (a fixed window). A value of another type
// answers {"type", tag}; a sum that is not finite answers {"inf", value};
// neither changes anything.
var incrScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  if ARGV[2] ~= '0' then
    redis.call('SET', KEYS[1], 'n' .. ARGV[1], 'PX', ARGV[2])
  else
    redis.call('SET', KEYS[1], 'n' .. ARGV[1])
  end
  return ARGV[1]
end
local tag = string.sub(v, 1, 1)
if tag ~= 'n' then
  return {'type', tag}
end
local r = tonumber(string.sub(v, 2)) + tonumber(ARGV[1])
if r ~= r or r == math.huge or r == -math.huge then
  return {'inf', string.sub(v, 2)}
end
local text = string.format('%.17g', r)
redis.call('SET', KEYS[1], 'n' .. text, 'KEEPTTL')
return text
`)

// Incr adds delta to the number under key atomically, in one round trip
// (a server-side script, sent by its digest once the server knows it), and
// returns the new value.
func (s *Store) Incr(ctx context.Context, key string, delta float64, ttl time.Duration) (float64, error) {
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return 0, store.BadDelta(key, delta)
	}
	if err := store.CheckTTL(ttl); err != nil {
		return 0, err
	}
	if err := s.Limits().Check(key, store.NumberBytes); err != nil {
		return 0, err
	}
	d := strconv.FormatFloat(delta, 'g', -1, 64)
	ms := strconv.FormatInt(millis(ttl).Milliseconds(), 10)
	ctx, done, err := s.begin(ctx, opIncr)
	if err != nil {
		return 0, err
	}
	res, err := incrScript.Run(ctx, s.c, []string{s.key(key)}, d, ms).Result()
	if err = done(err); err != nil {
		return 0, err
	}
	switch r := res.(type) {
	case string:
		n, err := strconv.ParseFloat(r, 64)
		if err != nil {
			return 0, fmt.Errorf("store: redis at %s answered %q to an incr of %q", s.addr, r, store.ShortKey(key))
		}
		return n, nil
	case []any:
		if len(r) == 2 {
			what, _ := r[0].(string)
			arg, _ := r[1].(string)
			switch what {
			case "type":
				return 0, store.NotNumber(key, typeName(arg))
			case "inf":
				v, _ := strconv.ParseFloat(arg, 64)
				return 0, store.NotFinite(key, v, delta)
			}
		}
	}
	return 0, fmt.Errorf("store: redis at %s answered %v to an incr of %q", s.addr, res, store.ShortKey(key))
}

// millis rounds a TTL up to a whole millisecond, Redis's finest.
func millis(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return 0
	}
	return (ttl + time.Millisecond - 1).Truncate(time.Millisecond)
}

// encode returns value as it is kept in Redis: its tag, then its text.
func encode(value any) string {
	switch v := value.(type) {
	case string:
		return string(tagString) + v
	case float64:
		return string(tagNumber) + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		if v {
			return string(tagBool) + "1"
		}
		return string(tagBool) + "0"
	case json.RawMessage:
		return string(tagTable) + string(v)
	}
	panic(fmt.Sprintf("redisstore: encode %T", value)) // store.ValueSize refused it
}

var errNoTag = errors.New("was not written by luahook (it has no type tag)")

// decode reads a value kept by encode.
func decode(raw string) (any, error) {
	text := raw[1:]
	switch raw[0] {
	case tagString:
		return text, nil
	case tagNumber:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, errNoTag
		}
		return n, nil
	case tagBool:
		return text == "1", nil
	case tagTable:
		return json.RawMessage(text), nil
	}
	return nil, errNoTag
}

// typeName is the Lua type of a value with tag.
func typeName(tag string) string {
	switch tag {
	case string(tagString):
		return "string"
	case string(tagBool):
		return "boolean"
	case string(tagTable):
		return "table"
	}
	return "value not written by luahook"
}
