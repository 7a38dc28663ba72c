package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestStoreRedisBackendReadsEveryKey(t *testing.T) {
	dir := t.TempDir()
	c := mustParse(t, filepath.Join(dir, "luahook.toml"), `
[store]
max_key_bytes = 100
backend = "redis"
address = "redis.internal:6380"
username = "luahook"
password_env = "LUAHOOK_REDIS_PASSWORD"
db = 3
key_prefix = "team-a:"
dial_timeout_ms = 250
timeout_ms = 40
pool_size = 8
tls = true
tls_ca = "ca.pem"
tls_server_name = "redis.example"
`)
	want := StoreBackend{Source: filepath.Join(dir, "luahook.toml") + ":2", Backend: StoreRedis, BackendSet: true, LockTimeoutMs: 500, Address: "redis.internal:6380",
		Username: "luahook", PasswordEnv: "LUAHOOK_REDIS_PASSWORD", DB: 3, KeyPrefix: "team-a:", DialTimeoutMs: 250,
		TimeoutMs: 40, PoolSize: 8, TLS: true, TLSCA: filepath.Join(dir, "ca.pem"), TLSServerName: "redis.example"}
	if c.Store.StoreBackend != want {
		t.Errorf("[store] = %+v\nwant %+v", c.Store.StoreBackend, want)
	}
	if c.Store.MaxKeyBytes != 100 {
		t.Errorf("max_key_bytes = %d beside the backend's keys", c.Store.MaxKeyBytes)
	}
}

func TestStoreDefaultsToTheInProcessBackend(t *testing.T) {
	c := mustParse(t, "luahook.toml", "[store]\nmax_keys = 5\n")
	if b := c.Store.StoreBackend; b.Backend != StoreMemory || b.BackendSet || b.KeyPrefix != "luahook:" || b.TimeoutMs != 1000 || b.PoolSize != 32 || b.LockTimeoutMs != 500 {
		t.Errorf("[store] without backend = %+v", b)
	}
	c = mustParse(t, "luahook.json", `{"store": {"backend": "redis", "address": "127.0.0.1:6379", "keyPrefix": "x:", "timeoutMs": 5}}`)
	if b := c.Store.StoreBackend; b.Backend != StoreRedis || b.KeyPrefix != "x:" || b.TimeoutMs != 5 {
		t.Errorf("JSON [store] = %+v", b)
	}
}

func TestStoreBackendErrorsNameTheLineAndKey(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"backend is a choice", "[store]\nbackend = \"etcd\"\n",
			`luahook.toml:2: store.backend: "etcd" is not a choice (want memory, redis, file)`},
		{"redis needs an address", "[store]\nbackend = \"redis\"\n",
			`luahook.toml:1: store: backend = "redis" needs an address (host:port)`},
		{"an address is host:port", "[store]\nbackend = \"redis\"\naddress = \"localhost\"\n",
			`luahook.toml:3: store.address: "localhost" is not a host:port address (e.g. "127.0.0.1:6379")`},
		{"redis keys need the redis backend", "[store]\nmax_keys = 3\naddress = \"127.0.0.1:6379\"\n",
			`luahook.toml:3: store.address: applies to backend = "redis" only (this [store] keeps its entries in the process)`},
		{"password_env is a variable name, not a password", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\npassword_env = \"hunter2!\"\n",
			`luahook.toml:4: store.password_env: "hunter2!" is not an environment variable name (password_env names the variable that holds the password)`},
		{"pool_size is bounded", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\npool_size = 0\n",
			`luahook.toml:4: store.pool_size: must be between 1 and 1024, not 0`},
		{"timeout_ms is bounded", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\ntimeout_ms = 600001\n",
			`luahook.toml:4: store.timeout_ms: must be between 1 and 600000, not 600001`},
		{"tls_ca needs tls", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\ntls_ca = \"ca.pem\"\n",
			`luahook.toml:4: store.tls_ca: needs tls = true`},
		{"tls_server_name needs tls", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\ntls_server_name = \"x\"\n",
			`luahook.toml:4: store.tls_server_name: needs tls = true`},
		{"file keys need the file backend (or none)", "[store]\nbackend = \"memory\"\npath = \"s.db\"\n",
			`luahook.toml:3: store.path: applies to backend = "file" only, or with no backend (luahook fire's store); this [store] says backend = "memory"`},
		{"file keys are not redis's", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\nlock_timeout_ms = 5\n",
			`luahook.toml:4: store.lock_timeout_ms: applies to backend = "file" only, or with no backend (luahook fire's store); this [store] says backend = "redis"`},
		{"redis keys are not the file's", "[store]\nbackend = \"file\"\naddress = \"h:1\"\n",
			`luahook.toml:3: store.address: applies to backend = "redis" only (this [store] keeps its entries in a file)`},
		{"lock_timeout_ms is bounded", "[store]\nbackend = \"file\"\nlock_timeout_ms = 0\n",
			`luahook.toml:3: store.lock_timeout_ms: must be between 1 and 600000, not 0`},
		{"path is not empty", "[store]\nbackend = \"file\"\npath = \" \"\n",
			`luahook.toml:3: store.path: must not be empty (leave it out for the default, $XDG_STATE_HOME/luahook/store.db)`},
		{"key_prefix is bounded", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\nkey_prefix = \"" + strings.Repeat("p", 257) + "\"\n",
			`luahook.toml:4: store.key_prefix: is 257 bytes, over the limit of 256`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("luahook.toml", []byte(tt.text))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestStoreFileBackendReadsItsKeys(t *testing.T) {
	dir := t.TempDir()
	c := mustParse(t, filepath.Join(dir, "luahook.toml"), "[store]\nbackend = \"file\"\npath = \"state/s.db\"\nlock_timeout_ms = 250\nmax_keys = 9\n")
	b := c.Store.StoreBackend
	if b.Backend != StoreFile || !b.BackendSet || b.Path != filepath.Join(dir, "state", "s.db") || b.LockTimeoutMs != 250 || c.Store.MaxKeys != 9 {
		t.Errorf("[store] = %+v", b)
	}
	// With no backend line the file keys configure luahook fire's file
	// store; the backend stays the in-process one for everything else.
	c = mustParse(t, filepath.Join(dir, "luahook.toml"), "[store]\npath = \"/var/lib/x.db\"\n")
	if b := c.Store.StoreBackend; b.Backend != StoreMemory || b.BackendSet || b.Path != "/var/lib/x.db" || b.LockTimeoutMs != 500 {
		t.Errorf("[store] without backend = %+v", b)
	}
	c = mustParse(t, "luahook.json", `{"store": {"backend": "file", "lockTimeoutMs": 7}}`)
	if b := c.Store.StoreBackend; b.Backend != StoreFile || b.LockTimeoutMs != 7 || b.Path != "" {
		t.Errorf("JSON [store] = %+v", b)
	}
}

func TestStoreSameServerIgnoresWhereItIsWritten(t *testing.T) {
	a := mustParse(t, "a.toml", "[store]\nbackend = \"redis\"\naddress = \"h:1\"\n").Store.StoreBackend
	b := mustParse(t, "b.toml", "\n\n[store]\nbackend = \"redis\"\naddress = \"h:1\"\n").Store.StoreBackend
	if !a.SameServer(b) {
		t.Errorf("%+v and %+v differ only in Source", a, b)
	}
	b.DB = 1
	if a.SameServer(b) {
		t.Error("another db is the same server")
	}
}
