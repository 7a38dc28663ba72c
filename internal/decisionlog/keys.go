package decisionlog

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"runtime"
)

// maxKeyFile bounds a key file read (a PEM Ed25519 key takes ~120 bytes).
const maxKeyFile = 64 << 10

// LoadSigningKey reads the Ed25519 private key that signs a log's
// checkpoints from path: a PEM "PRIVATE KEY" block in PKCS #8, as
// `openssl genpkey -algorithm ed25519` writes it. On Unix the file must be
// readable by its owner alone (mode 0600 or 0400): whoever reads it can
// sign a rewritten log.
func LoadSigningKey(path string) (ed25519.PrivateKey, error) {
	data, fi, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("signing key %s: mode %04o lets others read it; chmod 600 it", path, fi.Mode().Perm())
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("signing key %s: not a PEM \"PRIVATE KEY\" block (make one with: openssl genpkey -algorithm ed25519 -out %s)", path, path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key %s: a %T, not an Ed25519 key", path, k)
	}
	return key, nil
}

// LoadPublicKey reads the Ed25519 public key that checks a log's
// checkpoints from path: a PEM "PUBLIC KEY" block (PKIX), as
// `openssl pkey -in KEY -pubout` writes it.
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	data, _, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("public key %s: not a PEM \"PUBLIC KEY\" block (make one with: openssl pkey -in PRIVATE.pem -pubout)", path)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("public key %s: %w", path, err)
	}
	key, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("public key %s: a %T, not an Ed25519 key", path, k)
	}
	return key, nil
}

// readKeyFile reads a key file of at most maxKeyFile bytes.
func readKeyFile(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("key: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("key %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, nil, fmt.Errorf("key %s: %w", path, err)
	}
	if len(data) > maxKeyFile {
		return nil, nil, fmt.Errorf("key %s: larger than %d bytes, not a key", path, maxKeyFile)
	}
	return data, fi, nil
}
