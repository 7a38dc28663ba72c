package redisstore_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeRedis is a server on 127.0.0.1 that speaks RESP as far as a go-redis
// client needs to get past its handshake and make the store's calls, and
// answers each command as its test says, lies included. A lie is sent and
// the connection left open, so that the client's error comes from what it
// read, not from the connection closing.
type fakeRedis struct {
	ln     net.Listener
	answer func(cmd []string) []string
	cmds   atomic.Int64 // commands received, HELLO included

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// chunkPause separates the chunks of an answer, so that the client reads
// them apart.
const chunkPause = 20 * time.Millisecond

// startFake starts a fake server and stops it when t ends. answer returns
// the bytes to send for a command (its name upper-cased, then its
// arguments), in chunks sent chunkPause apart; nil gives the answer of a
// real server with no keys (HELLO refused, as by a server without RESP3).
func startFake(t testing.TB, answer func(cmd []string) []string) *fakeRedis {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, answer: answer, conns: map[net.Conn]bool{}}
	f.wg.Go(f.accept)
	t.Cleanup(f.stop)
	return f
}

func (f *fakeRedis) addr() string { return f.ln.Addr().String() }

func (f *fakeRedis) stop() {
	f.ln.Close()
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

func (f *fakeRedis) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns[c] = true
		f.mu.Unlock()
		f.wg.Go(func() { f.serve(c) })
	}
}

func (f *fakeRedis) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		cmd, err := readCommand(r)
		if err != nil {
			return
		}
		f.cmds.Add(1)
		chunks := f.answer(cmd)
		if chunks == nil {
			chunks = []string{defaultAnswer(cmd)}
		}
		for i, ch := range chunks {
			if i > 0 {
				time.Sleep(chunkPause)
			}
			if _, err := io.WriteString(c, ch); err != nil {
				return
			}
		}
	}
}

// defaultAnswer is a real server's answer to the store's commands on an
// empty database.
func defaultAnswer(cmd []string) string {
	switch cmd[0] {
	case "HELLO":
		return "-ERR unknown command 'HELLO'\r\n"
	case "PING":
		return "+PONG\r\n"
	case "GETRANGE":
		return "$0\r\n\r\n"
	case "EVALSHA", "EVAL":
		return "$1\r\n1\r\n"
	case "SET":
		return "+OK\r\n"
	case "DEL":
		return ":0\r\n"
	}
	return "-ERR unknown command '" + cmd[0] + "'\r\n"
}

// readCommand reads one command the client sent: an array of strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	n, err := readLen(r, '*')
	if err != nil {
		return nil, err
	}
	if n < 1 || n > 64 {
		return nil, fmt.Errorf("a command of %d arguments", n)
	}
	cmd := make([]string, n)
	for i := range cmd {
		size, err := readLen(r, '$')
		if err != nil {
			return nil, err
		}
		if size < 0 || size > 4<<20 {
			return nil, fmt.Errorf("an argument of %d bytes", size)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		cmd[i] = string(b[:size])
	}
	cmd[0] = strings.ToUpper(cmd[0])
	return cmd, nil
}

func readLen(r *bufio.Reader, typ byte) (int, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 4 || line[0] != typ || !strings.HasSuffix(line, "\r\n") {
		return 0, fmt.Errorf("not a %c length: %q", typ, line)
	}
	return strconv.Atoi(line[1 : len(line)-2])
}
