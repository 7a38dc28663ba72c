package redisstore

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// scanChunked scans stream in the chunks cuts makes (offsets where a read
// ends) with a fresh scanner whose replies may hold max bytes, and returns
// the first error and the scanner.
func scanChunked(max int64, stream string, cuts []int) (*replyScanner, error) {
	var limit atomic.Int64
	limit.Store(max)
	s := &replyScanner{limit: &limit}
	from := 0
	for _, to := range append(cuts, len(stream)) {
		if err := s.scan([]byte(stream[from:to])); err != nil {
			return s, err
		}
		from = to
	}
	return s, nil
}

// chunkings are the ways the tests cut a stream into reads: whole, one
// byte per read, and in two at every offset (at most 300 of them, spread
// over the stream).
func chunkings(stream string) map[string][]int {
	out := map[string][]int{"whole": nil}
	bytewise := make([]int, 0, len(stream))
	for i := 1; i < len(stream); i++ {
		bytewise = append(bytewise, i)
	}
	out["bytewise"] = bytewise
	step := max(1, len(stream)/300)
	for i := 1; i < len(stream); i += step {
		out[fmt.Sprintf("cut at %d", i)] = []int{i}
	}
	return out
}

// helloReply is HELLO's answer in RESP2 from a server with one module
// (whose arguments nest 4 deep), the largest reply the store reads.
const helloReply = "*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n8.0.2\r\n$5\r\nproto\r\n:2\r\n" +
	"$2\r\nid\r\n:7\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n" +
	"*1\r\n*8\r\n$4\r\nname\r\n$6\r\nsearch\r\n$3\r\nver\r\n:80002\r\n$4\r\npath\r\n$36\r\n/usr/lib/redis/modules/redisearch.so\r\n" +
	"$4\r\nargs\r\n*2\r\n$7\r\nTIMEOUT\r\n$3\r\n500\r\n"

// Every reply the store can be sent passes, in one read or cut anywhere,
// and the scanner ends each reply where it ends.
func TestValidRepliesPassCutAnywhere(t *testing.T) {
	const max = 10 + 2 + replyFloor // replyBytes(10)
	valid := []string{
		"+OK\r\n", "+\r\n", "-ERR unknown command 'HELLO'\r\n", ":1\r\n", "_\r\n", "#t\r\n", ",1.5\r\n", "(12345678901234567890\r\n",
		"+a\rb\r\n", // a CR inside a line, as go-redis reads it
		"$3\r\nabc\r\n", "$0\r\n\r\n", "$-1\r\n", "*-1\r\n", "%-1\r\n", "*0\r\n", "%0\r\n",
		"*2\r\n$4\r\ntype\r\n$1\r\ns\r\n", "%1\r\n+a\r\n:1\r\n", "~2\r\n+a\r\n+b\r\n", ">2\r\n+a\r\n+b\r\n",
		"=8\r\ntxt:abcd\r\n", "!3\r\nERR\r\n",
		"|1\r\n+key\r\n+val\r\n$1\r\nx\r\n", "*2\r\n|1\r\n+k\r\n+v\r\n:1\r\n:2\r\n", "|0\r\n+OK\r\n", "|-1\r\n+OK\r\n",
		helloReply,
		"$" + fmt.Sprint(max-3) + "\r\n" + strings.Repeat("v", max-3) + "\r\n", // the largest string
		"*1023\r\n" + strings.Repeat(":1\r\n", 1023),                           // the most values
		strings.Repeat("*1\r\n", maxReplyDepth) + ":1\r\n",                     // the deepest nesting
	}
	stream := strings.Join(valid, "")
	for _, v := range append(valid, stream) {
		for how, cuts := range chunkings(v) {
			if len(v) > 4096 && how != "whole" && how != "bytewise" && !strings.HasSuffix(how, "0") {
				continue // long replies: a tenth of the cuts
			}
			s, err := scanChunked(max, v, cuts)
			if err != nil {
				t.Fatalf("%.60q read %s: %v", v, how, err)
			}
			if s.inReply || s.state != scanType || s.depth != 0 {
				t.Fatalf("%.60q read %s: the scanner is inside a reply (state %d, depth %d) after it ended", v, how, s.state, s.depth)
			}
		}
	}
}

// A reply that announces more than a reply may hold, nests deeper, or is
// not RESP is refused where it says so, whichever way reads cut it.
func TestRepliesPastTheBoundsAreRefusedCutAnywhere(t *testing.T) {
	const max = 1<<20 + 2 + replyFloor // replyBytes(1 MiB)
	tib := "1099511627776"
	for _, c := range []struct{ name, stream, want string }{
		{"1 TiB string", "$" + tib + "\r\n", "at byte 0, a string of 1099511627776 bytes, more than the 1114114 bytes a reply may hold (max_value_bytes and 64 KiB)"},
		{"string one byte past the reply", fmt.Sprintf("$%d\r\n", max-2), fmt.Sprintf("a string of %d bytes, more than", max-2)},
		{"strings past the reply together", fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$%d\r\n", 1<<20, strings.Repeat("x", 1<<20), replyFloor), "at byte 1048592, a string of 65536 bytes, more than the 1114114 bytes a reply may hold (max_value_bytes and 64 KiB)"},
		{"1 TiB verbatim string", "=" + tib + "\r\n", "a verbatim string of 1099511627776 bytes"},
		{"1 TiB error", "!" + tib + "\r\n", "an error of 1099511627776 bytes"},
		{"array of 2^40", "*" + tib + "\r\n", "at byte 0, an array of 1099511627776 elements, more than the 1024 values a reply may hold"},
		{"set of 2^40", "~" + tib + "\r\n", "a set of 1099511627776 elements"},
		{"push of 2^40", ">" + tib + "\r\n", "a push message of 1099511627776 elements"},
		{"map of 2^40 pairs", "%" + tib + "\r\n", "a map of 1099511627776 pairs"},
		{"map of 512 pairs", "%512\r\n", "a map of 512 pairs, more than the 1024 values"},
		{"map of 2^62+1 pairs", "%4611686018427387905\r\n", "a map of 4611686018427387905 pairs"}, // doubled, it overflows
		{"attribute of 2^62+1 pairs", "|4611686018427387905\r\n", "an attribute of 4611686018427387905 pairs"},
		{"attribute of 2^40 pairs", "|" + tib + "\r\n", "an attribute of 1099511627776 pairs"},
		{"values past the reply", "*2\r\n*600\r\n" + strings.Repeat(":1\r\n", 600) + "*600\r\n", "at byte 2410, an array of 600 elements, more than the 1024 values a reply may hold"},
		{"deep nesting", strings.Repeat("*1\r\n", 100_000), "at byte 32, aggregates nested more than 8 deep"},
		{"attribute in an attribute", "|1\r\n|1\r\n+a\r\n+b\r\n+c\r\n+d\r\n+e\r\n", "at byte 4, an attribute inside an attribute"},
		{"endless big number", "(" + strings.Repeat("9", max+10), "at byte 0, a line longer than the 1114114 bytes a reply may hold"},
		{"endless error line", "-ERR " + strings.Repeat("x", max+10), "a line longer than the 1114114 bytes"},
		{"endless length", "$" + strings.Repeat("9", 30), "a length of more than 18 digits"},
		{"unknown type", "+OK\r\n?x\r\n", `at byte 0, '?' is no RESP type`},
		{"length not a number", "$abc\r\n", `a length holding 'a'`},
		{"empty length", "*\r\n", `a length holding '\r'`},
		{"negative length", "$-2\r\n", "a negative length other than -1"},
		{"length without LF", "$3\rX", "a length that does not end in CRLF"},
		{"string longer than its length", "$1\r\nab\r\n", "a string longer than its length"},
		{"line without CR", "+OK\n", "a line that does not end in CRLF"},
	} {
		for how, cuts := range chunkings(c.stream) {
			if len(c.stream) > 4096 && how != "whole" && how != "bytewise" && !strings.HasSuffix(how, "00") {
				continue
			}
			_, err := scanChunked(max, c.stream, cuts)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "refused the server's reply: ") {
				t.Fatalf("%s, read %s: %v; want an error holding %q", c.name, how, err, c.want)
			}
		}
	}
}

// The bound is read as each reply starts: a reload that raises the value
// limit lets the next reply on an open connection hold more.
func TestTheReplyBoundIsReadAsEachReplyStarts(t *testing.T) {
	var limit atomic.Int64
	limit.Store(replyBytes(10))
	s := &replyScanner{limit: &limit}
	big := fmt.Sprintf("$%d\r\n%s\r\n", replyFloor+100, strings.Repeat("x", replyFloor+100))
	if err := s.scan([]byte(big)); err == nil {
		t.Fatal("a string past the limit of 10 bytes and 64 KiB was let through")
	}
	s = &replyScanner{limit: &limit}
	if err := s.scan([]byte("$1\r\nx")); err != nil {
		t.Fatal(err)
	}
	limit.Store(replyBytes(1 << 20))
	if err := s.scan([]byte("\r\n" + big)); err != nil {
		t.Fatalf("after the limit rose to 1 MiB: %v", err)
	}
}

// Every connection the store's dialer makes reads through a guard: over
// TCP (with the descriptor go-redis's pool peeks at), and over TLS, where
// the guard reads what TLS decrypted.
func TestEveryConnectionIsGuarded(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	var limit atomic.Int64
	for _, o := range []Options{
		{Address: addr, DialTimeout: 5 * time.Second},
		{Address: addr, DialTimeout: 5 * time.Second, TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig},
	} {
		c, err := dialer(o, &limit)(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatalf("TLS %v: %v", o.TLS != nil, err)
		}
		var inner net.Conn
		switch g := c.(type) {
		case sysReplyGuard:
			inner = g.Conn
		case *replyGuard:
			inner = g.Conn
		default:
			t.Fatalf("TLS %v: the dialer made a %T, not a guarded connection", o.TLS != nil, c)
		}
		if _, isTLS := inner.(*tls.Conn); isTLS != (o.TLS != nil) {
			t.Errorf("TLS %v: the guard reads a %T", o.TLS != nil, inner)
		}
		c.Close()
	}
}

// guardCheckedAgainst is the go-redis release whose reply reader
// (internal/proto/reader.go) the guard was checked against.
const guardCheckedAgainst = "v9.23.0"

// The guard is right only as long as it frames replies as go-redis reads
// them and covers each of its allocations: a new release must be read
// again before it is linked.
func TestGoRedisIsTheReleaseTheGuardWasCheckedAgainst(t *testing.T) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to list the modules: %v", err) // go test puts its own first on PATH
	}
	out, err := exec.Command(gocmd, "list", "-m", "-f", "{{.Version}}{{if .Replace}} replaced{{end}}", "github.com/redis/go-redis/v9").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/redis/go-redis/v9: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != guardCheckedAgainst {
		t.Errorf("go-redis is %s, the guard was checked against %s: read its internal/proto/reader.go again "+
			"against respguard.go (every make from an announced length: readStringReply, readSlice, readMap, readLine's "+
			"ReadBytes; how Discard skips attributes; which types ReadReply knows), then update guardCheckedAgainst",
			got, guardCheckedAgainst)
	}
}
