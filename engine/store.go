package engine

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/filestore"
	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/luabind"
)

// maxCAFileBytes bounds the [store] tls_ca file read.
const maxCAFileBytes = 1 << 20

// openStore makes the store backend that cfg's [store] asks for the engine's
// store, in place of the in-process one newEngine made. It runs once, on
// Open: the backend is shared by every file's states, so it stays for the
// engine's life (storeConfigured).
func (e *Engine) openStore(cfg *config.Config) error {
	s := cfg.Store
	s.StoreBackend = e.storeBackend(s.StoreBackend)
	switch s.Backend {
	case config.StoreFile:
		fs := filestore.New(filestore.Options{Path: s.Path, LockTimeout: time.Duration(s.LockTimeoutMs) * time.Millisecond,
			Limits: storeLimits(s)})
		e.store.Close()
		e.store = fs
		e.ledger = ledger.New(fs, ledgerLimits(cfg.Store))
		e.logger.Debug("luahook: store in a file", "path", fs.Path(), "lock_timeout_ms", s.LockTimeoutMs)
		return nil
	case config.StoreRedis:
	default:
		return nil
	}
	o := redisstore.Options{Address: s.Address, Username: s.Username, DB: s.DB, KeyPrefix: s.KeyPrefix,
		DialTimeout: time.Duration(s.DialTimeoutMs) * time.Millisecond,
		Timeout:     time.Duration(s.TimeoutMs) * time.Millisecond, PoolSize: s.PoolSize,
		Limits: storeLimits(s)}
	if s.PasswordEnv != "" {
		lookup := e.opts.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
		pw, ok := lookup(s.PasswordEnv)
		if !ok {
			return fmt.Errorf("%s: store.password_env: the environment variable %s is not set", s.Source, s.PasswordEnv)
		}
		o.Password = pw
	}
	if s.TLS {
		tc, err := storeTLS(s)
		if err != nil {
			return err
		}
		o.TLS = tc
	}
	rs, err := redisstore.New(o)
	if err != nil {
		return fmt.Errorf("%s: store: %w", s.Source, err)
	}
	e.store.Close()
	e.store = rs
	e.ledger = ledger.New(rs, ledgerLimits(cfg.Store))
	e.logger.Info("luahook: store in redis", "address", s.Address, "db", s.DB, "key_prefix", s.KeyPrefix, "pool_size", s.PoolSize)
	return nil
}

// storeTLS is the TLS configuration of a [store] with tls = true.
func storeTLS(s config.Store) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.TLSServerName}
	if tc.ServerName == "" {
		tc.ServerName, _, _ = net.SplitHostPort(s.Address)
	}
	if s.TLSCA != "" {
		pem, err := readCA(s.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("%s: store.tls_ca: %w", s.Source, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: store.tls_ca: %s holds no PEM certificate", s.Source, s.TLSCA)
		}
		tc.RootCAs = pool
	}
	return tc, nil
}

// storeConfigured applies cfg's [store] to the store in force: its bounds at
// once; a change of backend or server is logged, and applies on the next
// start (the store is shared by every state of every file, and a counter
// moved to another server would restart from zero). e.mu is held.
func (e *Engine) storeConfigured(cfg *config.Config) {
	if l, ok := e.store.(interface{ SetLimits(luabind.StoreLimits) }); ok {
		l.SetLimits(storeLimits(cfg.Store))
	}
	e.ledger.SetLimits(ledgerLimits(cfg.Store))
	if e.cfg != nil && !e.storeBackend(cfg.Store.StoreBackend).SameServer(e.storeBackend(e.cfg.Store.StoreBackend)) {
		e.logger.Warn("luahook: [store] backend settings changed; they apply when luahook restarts (the store in force is kept)",
			"config", cfg.Store.Source, "backend", cfg.Store.Backend, "address", cfg.Store.Address)
		// Keep comparing against what is in force, so that the warning
		// repeats on each reload until a restart.
		cfg.Store.StoreBackend = e.cfg.Store.StoreBackend
	}
}

// storeBackend is where b keeps the entries for this engine: a [store]
// that names no backend is the in-process store, or with
// Options.KeepStore a file store.
func (e *Engine) storeBackend(b config.StoreBackend) config.StoreBackend {
	if !b.BackendSet && e.opts.KeepStore {
		b.Backend = config.StoreFile
	}
	// What is resolved compares by where the entries are: a backend line
	// written out, or a file's settings under another backend, change
	// nothing.
	b.BackendSet = false
	if b.Backend != config.StoreFile {
		b.Path, b.LockTimeoutMs = "", 0
	}
	return b
}

// readCA reads a PEM file of at most maxCAFileBytes, as regfile opens it.
func readCA(path string) ([]byte, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCAFileBytes+1))
	if err == nil && len(data) > maxCAFileBytes {
		err = &regfile.TooLargeError{Path: path, Limit: maxCAFileBytes}
	}
	return data, err
}

func storeLimits(s config.Store) luabind.StoreLimits {
	return luabind.StoreLimits{MaxKeyBytes: s.MaxKeyBytes, MaxValueBytes: s.MaxValueBytes, MaxKeys: s.MaxKeys, MaxBytes: s.MaxBytes}
}

// StoreMetrics returns what the store backend counted of its calls, and
// false for the in-process store, whose calls do not wait on anything.
func (e *Engine) StoreMetrics() (redisstore.Metrics, bool) {
	if rs, ok := e.store.(*redisstore.Store); ok {
		return rs.Metrics(), true
	}
	return redisstore.Metrics{}, false
}
