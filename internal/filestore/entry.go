package filestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/luahook/luahook/internal/store"
)

// The file's layout: three buckets.
//
//   - entries: "k" + key -> kind (1 byte), expiry (8 bytes, big-endian Unix
//     nanoseconds, 0: never), the value (a string's or a JSON document's
//     bytes, a number's IEEE 754 bits, nothing for a boolean). The "k" lets
//     the empty key be stored: bbolt refuses an empty key.
//   - expiry: expiry (8 bytes, big-endian) + key -> nothing, for each entry
//     that has one: the entries in the order they expire, soonest first.
//   - meta: "version" (formatVersion), "keys" and "bytes": what the store
//     holds, as store.Limits counts it, kept with every write so that a
//     write is checked against MaxKeys and MaxBytes without a scan.
var (
	bucketEntries = []byte("entries")
	bucketExpiry  = []byte("expiry")
	bucketMeta    = []byte("meta")
	metaVersion   = []byte("version")
	metaKeys      = []byte("keys")
	metaBytes     = []byte("bytes")
)

// formatVersion is the layout above; a file of another version is refused
// rather than misread.
const formatVersion = 1

// writeSweep is how many expired entries each write drops (as the
// in-process store does): bounded work per write, and a store that writes
// drops its expired entries sooner or later.
const writeSweep = 16

// The kinds of value.
const (
	kindString byte = 's'
	kindNumber byte = 'n'
	kindTrue   byte = 't'
	kindFalse  byte = 'f'
	kindJSON   byte = 'j'
)

const headerBytes = 9 // kind and expiry

// entry is one decoded value. Its data points into the file's memory map:
// it is valid only within the transaction that read it.
type entry struct {
	kind    byte
	data    []byte // a string's or a JSON document's bytes
	num     float64
	expires int64 // Unix nanoseconds; 0: never
}

func entryOf(value any, expires int64) entry {
	switch v := value.(type) {
	case string:
		return entry{kind: kindString, data: []byte(v), expires: expires}
	case json.RawMessage:
		return entry{kind: kindJSON, data: v, expires: expires}
	case float64:
		return entry{kind: kindNumber, num: v, expires: expires}
	case bool:
		if v {
			return entry{kind: kindTrue, expires: expires}
		}
		return entry{kind: kindFalse, expires: expires}
	}
	panic(fmt.Sprintf("filestore: a %T reached entryOf past store.ValueSize", value))
}

// size is what the value counts for against the limits (store.ValueSize).
func (e *entry) size() int {
	if e.kind == kindString || e.kind == kindJSON {
		return len(e.data)
	}
	return store.NumberBytes
}

// get returns the value as Store.Get does: copied out of the file.
func (e *entry) get() any {
	switch e.kind {
	case kindString:
		return string(e.data)
	case kindJSON:
		return json.RawMessage(bytes.Clone(e.data))
	case kindNumber:
		return e.num
	}
	return e.kind == kindTrue
}

// luaType names the value's type as store.NotNumber words it.
func (e *entry) luaType() string {
	switch e.kind {
	case kindString:
		return "string"
	case kindJSON:
		return "table"
	case kindNumber:
		return "number"
	}
	return "boolean"
}

func (e *entry) encode() []byte {
	b := make([]byte, headerBytes, headerBytes+len(e.data)+8)
	b[0] = e.kind
	binary.BigEndian.PutUint64(b[1:], uint64(e.expires))
	switch e.kind {
	case kindNumber:
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(e.num))
	case kindString, kindJSON:
		b = append(b, e.data...)
	}
	return b
}

// decode reads an entry as encode wrote it; anything else is an error.
func decode(b []byte) (*entry, bool) {
	if len(b) < headerBytes {
		return nil, false
	}
	e := &entry{kind: b[0], expires: int64(binary.BigEndian.Uint64(b[1:]))}
	rest := b[headerBytes:]
	switch e.kind {
	case kindString, kindJSON:
		e.data = rest
	case kindNumber:
		if len(rest) != 8 {
			return nil, false
		}
		e.num = math.Float64frombits(binary.BigEndian.Uint64(rest))
	case kindTrue, kindFalse:
		if len(rest) != 0 {
			return nil, false
		}
	default:
		return nil, false
	}
	return e, e.expires >= 0
}

// txn is one store call's transaction.
type txn struct {
	tx   *bolt.Tx
	path string
	now  int64           // Unix nanoseconds, read once per call
	ctx  context.Context // the call's: a long sweep stops when it ends
}

// bucket returns the bucket name, made in a write transaction; nil when a
// read finds none (an empty store).
func (t *txn) bucket(name []byte) (*bolt.Bucket, error) {
	if b := t.tx.Bucket(name); b != nil || !t.tx.Writable() {
		return b, nil
	}
	if err := t.checkVersion(); err != nil {
		return nil, err
	}
	return t.tx.CreateBucket(name)
}

// checkVersion refuses a file of another layout, and marks a new one with
// formatVersion. It runs in a write transaction, before a bucket is made.
func (t *txn) checkVersion() error {
	meta, err := t.tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	v := meta.Get(metaVersion)
	switch {
	case v == nil:
		return meta.Put(metaVersion, binary.BigEndian.AppendUint64(nil, formatVersion))
	case len(v) != 8 || binary.BigEndian.Uint64(v) != formatVersion:
		return fmt.Errorf("store: %s holds a store of another format (version %x): move it away, or point [store] path elsewhere", t.path, v)
	}
	return nil
}

func entryKey(key string) []byte { return append([]byte{'k'}, key...) }

func expiryKey(expires int64, key string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(expires)), key...)
}

// entry returns key's entry, expired or not; nil when there is none.
func (t *txn) entry(key string) (*entry, error) {
	b, err := t.bucket(bucketEntries)
	if err != nil || b == nil {
		return nil, err
	}
	raw := b.Get(entryKey(key))
	if raw == nil {
		return nil, nil
	}
	e, ok := decode(raw)
	if !ok {
		return nil, fmt.Errorf("store: %s: the entry of %q is damaged: move the file away, and luahook starts a new one", t.path, store.ShortKey(key))
	}
	return e, nil
}

func (e *entry) expired(now int64) bool { return e.expires != 0 && now >= e.expires }

// live returns key's entry unless it is absent or expired; in a write
// transaction an expired one is removed, as the in-process store does.
func (t *txn) live(key string) (*entry, error) {
	e, err := t.entry(key)
	if err != nil || e == nil || !e.expired(t.now) {
		return e, err
	}
	if t.tx.Writable() {
		return nil, t.remove(key, e)
	}
	return nil, nil
}

// expiry is the expiry of an entry written now with ttl (0: never).
func (t *txn) expiry(ttl time.Duration) int64 {
	if ttl > 0 {
		return t.now + int64(ttl)
	}
	return 0
}

// counts returns the number of entries and their bytes.
func (t *txn) counts() (keys, size int, err error) {
	meta, err := t.bucket(bucketMeta)
	if err != nil || meta == nil {
		return 0, 0, err
	}
	read := func(k []byte) int {
		v := meta.Get(k)
		if len(v) != 8 {
			return 0
		}
		return int(min(binary.BigEndian.Uint64(v), math.MaxInt32))
	}
	return read(metaKeys), read(metaBytes), nil
}

// addCounts adds dk entries and db bytes to the counts.
func (t *txn) addCounts(dk, db int) error {
	keys, size, err := t.counts()
	if err != nil {
		return err
	}
	meta, err := t.bucket(bucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(metaKeys, binary.BigEndian.AppendUint64(nil, uint64(max(keys+dk, 0)))); err != nil {
		return err
	}
	return meta.Put(metaBytes, binary.BigEndian.AppendUint64(nil, uint64(max(size+db, 0))))
}

// reserve checks that key may hold a value of size bytes, and returns its
// live entry (nil: a new key). It first drops a few expired entries; when
// the write would pass MaxKeys or MaxBytes it drops every expired entry,
// and if that is not enough it refuses the write with a *store.LimitError.
// These are the in-process store's rules, word for word.
func (t *txn) reserve(lim store.Limits, key string, size int) (*entry, error) {
	if err := t.sweep(writeSweep); err != nil {
		return nil, err
	}
	e, err := t.live(key)
	if err != nil {
		return nil, err
	}
	over := func() error {
		keys, total, err := t.counts()
		if err != nil {
			return err
		}
		if e == nil && keys+1 > lim.MaxKeys {
			return &store.LimitError{Key: store.ShortKey(key), Limit: "MaxKeys", Max: lim.MaxKeys, Size: keys + 1}
		}
		total += size
		if e != nil {
			total -= e.size()
		} else {
			total += len(key)
		}
		if total > lim.MaxBytes && (e == nil || size > e.size()) {
			return &store.LimitError{Key: store.ShortKey(key), Limit: "MaxBytes", Max: lim.MaxBytes, Size: total}
		}
		return nil
	}
	if err := over(); err != nil {
		var le *store.LimitError
		if !errors.As(err, &le) {
			return nil, err
		}
		if err := t.sweep(math.MaxInt); err != nil {
			return nil, err
		}
		if e, err = t.live(key); err != nil {
			return nil, err
		}
		if err := over(); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// put writes key's entry next in place of old (nil: a new key), keeping the
// expiry index and the counts in step.
func (t *txn) put(key string, old *entry, next entry) error {
	entries, err := t.bucket(bucketEntries)
	if err != nil {
		return err
	}
	exp, err := t.bucket(bucketExpiry)
	if err != nil {
		return err
	}
	dk, db := 1, len(key)+next.size()
	if old != nil {
		dk, db = 0, next.size()-old.size()
		if old.expires != 0 && old.expires != next.expires {
			if err := exp.Delete(expiryKey(old.expires, key)); err != nil {
				return err
			}
		}
	}
	if err := entries.Put(entryKey(key), next.encode()); err != nil {
		return err
	}
	if next.expires != 0 && (old == nil || old.expires != next.expires) {
		if err := exp.Put(expiryKey(next.expires, key), nil); err != nil {
			return err
		}
	}
	return t.addCounts(dk, db)
}

// remove drops key's entry e.
func (t *txn) remove(key string, e *entry) error {
	entries, err := t.bucket(bucketEntries)
	if err != nil {
		return err
	}
	if err := entries.Delete(entryKey(key)); err != nil {
		return err
	}
	if e.expires != 0 {
		exp, err := t.bucket(bucketExpiry)
		if err != nil {
			return err
		}
		if err := exp.Delete(expiryKey(e.expires, key)); err != nil {
			return err
		}
	}
	return t.addCounts(-1, -len(key)-e.size())
}

// sweepCheck is how many entries a sweep drops between two looks at the
// call's context.
const sweepCheck = 256

// sweep drops up to n expired entries, soonest first. A sweep of many (a
// full store making room) stops early when the call's context ends,
// keeping what it dropped: the call then finds the room it found, and the
// next call sweeps on.
func (t *txn) sweep(n int) error {
	exp, err := t.bucket(bucketExpiry)
	if err != nil {
		return err
	}
	for i := 0; n > 0; n, i = n-1, i+1 {
		if i%sweepCheck == sweepCheck-1 && t.ctx != nil && t.ctx.Err() != nil {
			return nil
		}
		k, _ := exp.Cursor().First()
		if k == nil {
			return nil
		}
		if len(k) < 8 {
			// Not a line this package wrote: drop it.
			if err := exp.Delete(bytes.Clone(k)); err != nil {
				return err
			}
			continue
		}
		if int64(binary.BigEndian.Uint64(k)) > t.now {
			return nil
		}
		at, key := int64(binary.BigEndian.Uint64(k)), string(k[8:])
		e, err := t.entry(key)
		if err != nil {
			return err
		}
		if e != nil && e.expires == at {
			err = t.remove(key, e)
		} else {
			// An index line whose entry changed: drop the line alone.
			err = exp.Delete(expiryKey(at, key))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
