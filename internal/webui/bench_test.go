package webui

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkSessionCheck measures what reading a session cookie costs each
// request of the page: the key looked up by its id among 4,096 tokens,
// the MAC checked, the CSRF token derived and compared.
func BenchmarkSessionCheck(b *testing.B) {
	var file []byte
	for i := range 4096 {
		file = append(file, []byte("client"+strconv.Itoa(i)+" token-"+strconv.Itoa(i)+"-0123456789abcdef\n")...)
	}
	keys := tokens(b, string(file))
	_, id, key, ok := keys.Session("token-4095-0123456789abcdef")
	if !ok {
		b.Fatal("no such token")
	}
	now := time.Now()
	value := sign(id, key, nonce(), now.Add(time.Hour))
	s, err := verify(keys, value, now)
	if err != nil {
		b.Fatal(err)
	}
	csrf := s.csrf()
	b.ReportAllocs()
	for b.Loop() {
		s, err := verify(keys, value, now)
		if err != nil || !s.checkCSRF(csrf) {
			b.Fatal("refused")
		}
	}
}
