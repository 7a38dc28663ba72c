package luabind

import (
	"strings"
	"testing"
	"time"
)

// TestJSONEncodeChecksQuotedSizeBeforeAppending: quoting writes up to 6 bytes
// for one ("\u0001"); the encoder refuses a string whose quoted form passes
// the cap before it writes it.
func TestJSONEncodeChecksQuotedSizeBeforeAppending(t *testing.T) {
	const capBytes = 1 << 20
	r := runBounded(t, `local s = ("\1"):rep(2^20 - 16) return json.encode({s})`, Options{MaxStringBytes: capBytes}, 10*time.Second)
	if r.err == nil || !strings.Contains(failure(t, r.err).Message, "json.encode: JSON text exceeds the 1 MiB limit") {
		t.Errorf("error %v, want the cap error", r.err)
	}
	if r.alloc > 4*capBytes {
		t.Errorf("allocated %d MiB before refusing, want little more than the 1 MiB string", r.alloc>>20)
	}
	if _, err := runHook(t, `local s = ("\1"):rep((2^20 - 4) / 6) assert(#json.encode({s}) == 2^20)`, Options{MaxStringBytes: capBytes}); err != nil {
		t.Errorf("a JSON text at the cap: %v", err)
	}
}
