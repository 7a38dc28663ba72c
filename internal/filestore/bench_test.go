package filestore_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/filestore"
)

// BenchmarkOneShotIncr is what a one-shot luahook fire adds for a hook that
// counts: a store made, one Incr (the file opened, locked, one read-write
// transaction committed, closed), on a file that holds a few thousand
// entries.
func BenchmarkOneShotIncr(b *testing.B) {
	path := filepath.Join(b.TempDir(), "store.db")
	fill(b, path, 2000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s := filestore.New(filestore.Options{Path: path})
		if _, err := s.Incr(ctx, "bash-calls:\x00session-1", 1, time.Minute); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkCall is each call on one Store (which holds no file between
// calls: each opens, locks and closes it).
func BenchmarkCall(b *testing.B) {
	path := filepath.Join(b.TempDir(), "store.db")
	fill(b, path, 2000)
	s := filestore.New(filestore.Options{Path: path})
	ctx := context.Background()
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.Get(ctx, "k100"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Set", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Set(ctx, "k100", "a value of some length", time.Hour); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Incr", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Incr(ctx, "counter", 1, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fill writes n entries, half of them with a TTL.
func fill(b *testing.B, path string, n int) {
	b.Helper()
	s := filestore.New(filestore.Options{Path: path})
	for i := range n {
		ttl := time.Duration(0)
		if i%2 == 0 {
			ttl = time.Hour
		}
		if err := s.Set(context.Background(), "k"+strconv.Itoa(i), "value "+strconv.Itoa(i), ttl); err != nil {
			b.Fatal(err)
		}
	}
}
