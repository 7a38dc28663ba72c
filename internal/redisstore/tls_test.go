package redisstore_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/redisstore"
	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// With TLS, the store's own dialer makes the TLS connection (naming the
// server by its address when the config names none; the guard reads what
// it decrypts, TestEveryConnectionIsGuarded): a real redis-server on a TLS
// port answers, and a server whose certificate another CA signed is
// refused at the handshake.
func TestTLSStoreMakesItsOwnTLSConnections(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCert(t, nil, nil, "luahook test CA", dir, "ca")
	newCert(t, ca, caKey, "127.0.0.1", dir, "server")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	redistest.Start(t, "--tls-port", strconv.Itoa(port), "--tls-auth-clients", "no",
		"--tls-cert-file", filepath.Join(dir, "server.pem"), "--tls-key-file", filepath.Join(dir, "server.key"),
		"--tls-ca-cert-file", filepath.Join(dir, "ca.pem"))
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	roots := x509.NewCertPool()
	roots.AddCert(ca)
	s, err := redisstore.New(redisstore.Options{Address: addr, TLS: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.Set(ctx, "k", "over tls", 0); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get(ctx, "k"); err != nil || !ok || v != "over tls" {
		t.Fatalf("Get over TLS = %v, %v, %v", v, ok, err)
	}

	other, _ := newCert(t, nil, nil, "another CA", dir, "other")
	strangers := x509.NewCertPool()
	strangers.AddCert(other)
	s2, err := redisstore.New(redisstore.Options{Address: addr, TLS: &tls.Config{RootCAs: strangers, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.Ping(ctx); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Errorf("Ping of a server whose certificate another CA signed: %v", err)
	}
}

// newCert makes a certificate for name, signed by parent (self-signed, a
// CA, when nil), and writes it and its key as dir/file.pem and dir/file.key.
func newCert(t *testing.T, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name, dir, file string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		parent, parentKey = tmpl, key
	} else {
		tmpl.IPAddresses = []net.IP{net.ParseIP(name)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, typ string, b []byte) {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, file+".pem"), "CERTIFICATE", der)
	write(filepath.Join(dir, file+".key"), "EC PRIVATE KEY", keyDER)
	return cert, key
}
