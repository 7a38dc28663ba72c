package server

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/luahook/luahook/internal/regfile"
)

// maxPEMBytes bounds a certificate, key or CA file read by TLSConfig.
const maxPEMBytes = 1 << 20

// TLSConfig returns the TLS configuration of a server with the certificate
// and key in the PEM files certFile and keyFile. With clientCAFile (PEM,
// one or more CA certificates) it verifies the certificate a client
// presents against those CAs, for client authentication by mutual TLS
// (Auth.ClientCerts): the handshake of a client that presents one that
// does not verify fails, and one that presents none is let through the
// handshake, to be refused by the routes that need authentication, so that
// a load balancer's health check needs no certificate. Errors name the
// file at fault.
func TLSConfig(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	certPEM, err := regfile.Read(certFile, maxPEMBytes)
	if err != nil {
		return nil, err
	}
	keyPEM, err := regfile.Read(keyFile, maxPEMBytes)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", certFile, keyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	if clientCAFile == "" {
		return cfg, nil
	}
	caPEM, err := regfile.Read(clientCAFile, maxPEMBytes)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s: no PEM certificate in it", clientCAFile)
	}
	cfg.ClientCAs, cfg.ClientAuth = pool, tls.VerifyClientCertIfGiven
	return cfg, nil
}
