package redisstore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/luahook/luahook/internal/redisstore/redistest"
)

// replayConn is a connection whose reads deliver one reply over and over,
// at most one reply per read, as a server answering one call at a time.
type replayConn struct {
	net.Conn // nil: only Read is called
	reply    []byte
	off      int
}

func (c *replayConn) Read(p []byte) (int, error) {
	n := copy(p, c.reply[c.off:])
	c.off = (c.off + n) % len(c.reply)
	return n, nil
}

// BenchmarkReplyGuard compares reading replies from a connection with and
// without the guard, the reader being go-redis's (a 32 KiB bufio.Reader):
// what the guard adds to each reply, without the network.
//
//	go test -run '^$' -bench ReplyGuard -benchmem ./internal/redisstore
func BenchmarkReplyGuard(b *testing.B) {
	var limit atomic.Int64
	limit.Store(replyBytes(1 << 20))
	for _, r := range []struct{ name, reply string }{
		{"incr", "$1\r\n7\r\n"},
		{"incr-type-error", "*2\r\n$4\r\ntype\r\n$1\r\ns\r\n"},
		{"get-100B", fmt.Sprintf("$101\r\ns%s\r\n", strings.Repeat("v", 100))},
		{"get-64KiB", fmt.Sprintf("$%d\r\ns%s\r\n", 64<<10+1, strings.Repeat("v", 64<<10))},
		{"get-1MiB", fmt.Sprintf("$%d\r\ns%s\r\n", 1<<20+1, strings.Repeat("v", 1<<20))},
	} {
		for _, guarded := range []bool{false, true} {
			name := r.name + "/bare"
			if guarded {
				name = r.name + "/guarded"
			}
			b.Run(name, func(b *testing.B) {
				var c net.Conn = &replayConn{reply: []byte(r.reply)}
				if guarded {
					c = guardReplies(c, &limit)
				}
				br := bufio.NewReaderSize(c, 32<<10)
				buf := make([]byte, len(r.reply))
				b.SetBytes(int64(len(r.reply)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := io.ReadFull(br, buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStoreCallGuard compares the store's calls on a local
// redis-server through guarded connections (as the store makes them) and
// through go-redis's own dialer.
//
//	go test -run '^$' -bench StoreCallGuard -benchmem ./internal/redisstore
func BenchmarkStoreCallGuard(b *testing.B) {
	srv := redistest.Start(b)
	for _, guarded := range []bool{false, true} {
		s, err := New(Options{Address: srv.Addr()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Close)
		name := "guarded"
		if !guarded {
			name = "bare"
			bare := *s.c.Options()
			bare.Dialer = nil // go-redis's own
			s.c.Close()
			s.c = redis.NewClient(&bare)
		}
		ctx := context.Background()
		if err := s.Set(ctx, "v", strings.Repeat("v", 100), time.Hour); err != nil {
			b.Fatal(err)
		}
		b.Run("get-100B/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.Get(ctx, "v"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("incr/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Incr(ctx, "n", 1, time.Hour); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
