package main

// Credentials for a throwaway cluster: a CA, serving certificates for 127.0.0.1 (the API server's
// and the fake nodes' kubelet endpoint, see podlogs.go), the service-account signing key, and one
// static admin token. Generated with Go's crypto so the testbed needs no openssl.

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

type credentials struct {
	caCertPEM []byte
	token     string
}

func writePEM(path, kind string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}

// makeCredentials writes pki/{ca.crt,apiserver.crt,apiserver.key,kubelet.crt,kubelet.key,sa.key}
// and token.csv under dir.
func makeCredentials(dir string) (*credentials, error) {
	pki := filepath.Join(dir, "pki")
	if err := os.MkdirAll(pki, 0o700); err != nil {
		return nil, err
	}
	now := time.Now()
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tephra-testbed-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	serverKey, serverDER, err := issue(caCert, caKey, 2, "kube-apiserver",
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1"))
	if err != nil {
		return nil, err
	}
	// The fake nodes' kubelet endpoint: the API server checks it against the CA
	// (--kubelet-certificate-authority) as it would a real kubelet's.
	kubeletKey, kubeletDER, err := issue(caCert, caKey, 3, "testbed-kubelet", []string{"localhost"}, net.ParseIP("127.0.0.1"))
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name, kind string
		der        []byte
	}{
		{"ca.crt", "CERTIFICATE", caDER},
		{"apiserver.crt", "CERTIFICATE", serverDER},
		{"apiserver.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(serverKey)},
		{"kubelet.crt", "CERTIFICATE", kubeletDER},
		{"kubelet.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(kubeletKey)},
		{"sa.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)},
	} {
		if err := writePEM(filepath.Join(pki, f.name), f.kind, f.der); err != nil {
			return nil, err
		}
	}
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	token := hex.EncodeToString(secret)
	line := fmt.Sprintf("%s,admin,admin-uid,\"system:masters\"\n", token)
	if err := os.WriteFile(filepath.Join(dir, "token.csv"), []byte(line), 0o600); err != nil {
		return nil, err
	}
	return &credentials{
		caCertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		token:     token,
	}, nil
}

// issue makes a key and a serving certificate for it, signed by the CA.
func issue(ca *x509.Certificate, caKey *rsa.PrivateKey, serial int64, name string, dns []string, ips ...net.IP) (*rsa.PrivateKey, []byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    ca.NotBefore,
		NotAfter:     ca.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  ips,
		DNSNames:     dns,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	return key, der, err
}
