package config

import (
	"math"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/luahook/luahook/internal/store"
	"github.com/luahook/luahook/ledger"
)

// The choices of [store] backend.
const (
	StoreMemory = "memory" // the in-process store (the default)
	StoreRedis  = "redis"  // a Redis server shared by several luahook processes
	StoreFile   = "file"   // a file on this machine, shared by its luahook processes
)

// Defaults and bounds of a Redis store backend.
const (
	DefaultStoreKeyPrefix     = "luahook:"
	DefaultStoreDialTimeoutMs = 1000
	DefaultStoreTimeoutMs     = 1000
	DefaultStorePoolSize      = 32
	MaxStorePoolSize          = 1024
	MaxStoreKeyPrefixBytes    = 256
	DefaultStoreLockTimeoutMs = 500
)

// StoreBackend is the part of [store] that says where the entries are kept.
// Address and the keys after it apply to backend = "redis" only, Path and
// LockTimeoutMs to backend = "file" (or to no backend: luahook fire's
// default store); setting one with another backend is an error. The engine
// reads them when it opens: a change on reload is logged and applies on the
// next start, while the bounds (max_*) apply on reload.
type StoreBackend struct {
	// Source is "file:line" of the [store] table ("" without one).
	Source string
	// Backend (backend, "memory", "redis" or "file", default "memory").
	Backend string
	// BackendSet reports whether the file names a backend. Without one,
	// the in-process store is the default, except for a one-shot luahook
	// fire, whose process ends with each call: it keeps a file store
	// (engine.Options.KeepStore). A backend = "memory" written out is kept
	// by fire too (and luahook check warns when hooks use the store).
	BackendSet bool
	// Path (path) is the file store's database file, resolved against the
	// folder of the configuration file; "" is the default,
	// $XDG_STATE_HOME/luahook/store.db (filestore.DefaultPath).
	Path string
	// LockTimeoutMs (lock_timeout_ms, default 500) bounds a file store
	// call's wait for the file's lock, which another luahook process may
	// hold; past it the call fails (a fail-closed hook denies).
	LockTimeoutMs int
	// Address (address) is the Redis server's host:port; required for
	// "redis".
	Address string
	// Username (username) is the Redis ACL user ("" for the default user).
	Username string
	// PasswordEnv (password_env) names the environment variable that holds
	// the password: a password is never written in the file.
	PasswordEnv string
	// DB (db, default 0) is the Redis database number.
	DB int
	// KeyPrefix (key_prefix, default "luahook:", at most 256 bytes) is put
	// before every key, so that luahook's keys stay apart from others'.
	KeyPrefix string
	// DialTimeoutMs (dial_timeout_ms, default 1000) bounds opening a
	// connection.
	DialTimeoutMs int
	// TimeoutMs (timeout_ms, default 1000) bounds one store call; the hook's
	// own deadline applies too, whichever is sooner.
	TimeoutMs int
	// PoolSize (pool_size, default 32, at most 1024) caps the open
	// connections; a call that gets none before its deadline fails.
	PoolSize int
	// TLS (tls) speaks TLS to the server; TLSCA (tls_ca, a PEM file,
	// resolved against the folder of the configuration file) replaces the
	// system's roots, and TLSServerName (tls_server_name) the name the
	// server's certificate must carry (default: the address's host).
	TLS           bool
	TLSCA         string
	TLSServerName string
}

func defaultStoreBackend() StoreBackend {
	return StoreBackend{Backend: StoreMemory, KeyPrefix: DefaultStoreKeyPrefix,
		DialTimeoutMs: DefaultStoreDialTimeoutMs, TimeoutMs: DefaultStoreTimeoutMs, PoolSize: DefaultStorePoolSize,
		LockTimeoutMs: DefaultStoreLockTimeoutMs}
}

// StoreBackendChoices lists the values of [store] backend.
func StoreBackendChoices() []string { return []string{StoreMemory, StoreRedis, StoreFile} }

// storeFileKeys are the [store] keys that only a file backend reads.
var storeFileKeys = []string{"path", "lock_timeout_ms"}

// storeLedgerKeys are the [store] keys of the session ledger's bounds,
// whatever the backend.
var storeLedgerKeys = []string{"ledger_max_marks", "ledger_max_calls", "ledger_max_bytes", "ledger_max_age_ms"}

// storeRedisKeys are the [store] keys that only a Redis backend reads.
var storeRedisKeys = []string{"address", "username", "password_env", "db", "key_prefix",
	"dial_timeout_ms", "timeout_ms", "pool_size", "tls", "tls_ca", "tls_server_name"}

func (d *decoder) store(n *node, c *Config) {
	s := &c.Store
	limits := map[string]*int{"max_key_bytes": &s.MaxKeyBytes, "max_value_bytes": &s.MaxValueBytes,
		"max_keys": &s.MaxKeys, "max_bytes": &s.MaxBytes}
	ints := map[string]struct {
		dst      *int
		min, max int64
	}{
		"db":                {&s.DB, 0, math.MaxInt32},
		"dial_timeout_ms":   {&s.DialTimeoutMs, 1, MaxTimeoutMs},
		"timeout_ms":        {&s.TimeoutMs, 1, MaxTimeoutMs},
		"pool_size":         {&s.PoolSize, 1, MaxStorePoolSize},
		"lock_timeout_ms":   {&s.LockTimeoutMs, 1, MaxTimeoutMs},
		"ledger_max_marks":  {&s.LedgerMaxMarks, 1, ledger.MaxLimitEntries},
		"ledger_max_calls":  {&s.LedgerMaxCalls, 1, ledger.MaxLimitEntries},
		"ledger_max_bytes":  {&s.LedgerMaxBytes, 1, ledger.MaxLimitBytes},
		"ledger_max_age_ms": {&s.LedgerMaxAgeMs, 1, store.MaxTTL.Milliseconds()},
	}
	known := append([]string{"max_key_bytes", "max_value_bytes", "max_keys", "max_bytes", "backend"}, storeRedisKeys...)
	known = append(known, storeFileKeys...)
	known = append(known, storeLedgerKeys...)
	s.Source = d.file + ":" + strconv.Itoa(n.line)
	var redisOnly, fileOnly *node // the first key that needs backend = "redis", "file"
	var tlsCA, serverName, address *node
	ok := d.table(n, known, func(key string, v *node) {
		switch {
		case key == "backend" || limits[key] != nil || slices.Contains(storeLedgerKeys, key):
		case slices.Contains(storeFileKeys, key):
			if fileOnly == nil {
				fileOnly = v
			}
		case redisOnly == nil:
			redisOnly = v
		}
		switch key {
		case "backend":
			if b, ok := d.str(v); ok {
				if !slices.Contains(StoreBackendChoices(), b) {
					d.errorf(v.line, v.path(), "%q is not a choice (want %s)", b, strings.Join(StoreBackendChoices(), ", "))
				} else {
					s.Backend, s.BackendSet = b, true
				}
			}
		case "path":
			if p, ok := d.str(v); ok {
				if strings.TrimSpace(p) == "" {
					d.errorf(v.line, v.path(), "must not be empty (leave it out for the default, $XDG_STATE_HOME/luahook/store.db)")
				} else {
					s.Path = c.resolve(p)
				}
			}
		case "address":
			address = v
			if a, ok := d.str(v); ok {
				if host, port, err := net.SplitHostPort(a); err != nil || host == "" || port == "" {
					d.errorf(v.line, v.path(), "%q is not a host:port address (e.g. \"127.0.0.1:6379\")", a)
				} else {
					s.Address = a
				}
			}
		case "username":
			s.Username, _ = d.str(v)
		case "password_env":
			if name, ok := d.str(v); ok {
				if msg := checkEnvName(name); msg != "" {
					d.errorf(v.line, v.path(), "%s (password_env names the variable that holds the password)", msg)
				} else {
					s.PasswordEnv = name
				}
			}
		case "key_prefix":
			if p, ok := d.str(v); ok {
				if len(p) > MaxStoreKeyPrefixBytes {
					d.errorf(v.line, v.path(), "is %d bytes, over the limit of %d", len(p), MaxStoreKeyPrefixBytes)
				} else {
					s.KeyPrefix = p
				}
			}
		case "tls":
			s.TLS, _ = d.boolean(v)
		case "tls_ca":
			if p, ok := d.str(v); ok {
				if strings.TrimSpace(p) == "" {
					d.errorf(v.line, v.path(), "must not be empty")
				} else {
					s.TLSCA, tlsCA = c.resolve(p), v
				}
			}
		case "tls_server_name":
			s.TLSServerName, _ = d.str(v)
			serverName = v
		default:
			if dst := limits[key]; dst != nil {
				if i, ok := d.integer(v, 1, math.MaxInt); ok {
					*dst = i
				}
			} else if f := ints[key]; f.dst != nil {
				if i, ok := d.integer(v, f.min, f.max); ok {
					*f.dst = i
				}
			}
		}
	})
	if !ok {
		return
	}
	where := "in the process"
	if s.Backend == StoreFile {
		where = "in a file"
	}
	switch {
	case s.Backend != StoreRedis && redisOnly != nil:
		d.errorf(redisOnly.line, redisOnly.path(), `applies to backend = "redis" only (this [store] keeps its entries %s)`, where)
	case s.BackendSet && s.Backend != StoreFile && fileOnly != nil:
		d.errorf(fileOnly.line, fileOnly.path(), `applies to backend = "file" only, or with no backend (luahook fire's store); this [store] says backend = %q`, s.Backend)
	case s.Backend == StoreRedis && address == nil:
		d.errorf(n.line, n.path(), `backend = "redis" needs an address (host:port)`)
	case tlsCA != nil && !s.TLS:
		d.errorf(tlsCA.line, tlsCA.path(), "needs tls = true")
	case serverName != nil && !s.TLS:
		d.errorf(serverName.line, serverName.path(), "needs tls = true")
	}
}

// SameServer reports whether b and o keep the entries in the same place, the
// same way: every field but Source is equal.
func (b StoreBackend) SameServer(o StoreBackend) bool {
	b.Source, o.Source = "", ""
	return b == o
}
