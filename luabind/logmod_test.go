package luabind

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/luabind/internal/modules"
)

// A payload-sized string referenced many times: joining or formatting every
// reference is the bomb.
const manyRefs = `local s = ("x"):rep(2^20) local t = {} for i = 1, 200 do t[i] = s end `

func TestPrintChecksTheLevelBeforeJoining(t *testing.T) {
	var buf lockedBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r := runBounded(t, manyRefs+`print(unpack(t)) log.info(s, t)`, Options{Logger: logger}, 10*time.Second)
	if r.err != nil {
		t.Fatal(r.err)
	}
	// The hook itself allocates its 1 MiB string; 200 joined references are 200 MiB.
	if r.alloc > 16<<20 {
		t.Errorf("print and log.info at a disabled level allocated %d MiB, want nothing built", r.alloc>>20)
	}
	if buf.b.Len() != 0 {
		t.Errorf("records at a disabled level were written: %d bytes", buf.b.Len())
	}
}

func TestLogRecordsAreBounded(t *testing.T) {
	var buf lockedBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	code := manyRefs + `
print(unpack(t))
log.error(s)
local fields = {}
for i = 1, 100 do fields["f" .. i] = s end
log.error("many fields", fields)
local nested = {}
for i = 1, 100 do nested["f" .. i] = t end
log.warn("tables", nested)
`
	r := runBounded(t, code, Options{Logger: logger}, 10*time.Second)
	if r.err != nil {
		t.Fatal(r.err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d records, want 4", len(lines))
	}
	for i, line := range lines {
		if len(line) > modules.MaxLogRecordBytes+4<<10 {
			t.Errorf("record %d is %d bytes, want at most the %d-byte record limit and the attributes' quoting", i, len(line), modules.MaxLogRecordBytes)
		}
		if !strings.Contains(line, "cut") {
			t.Errorf("record %d does not say it was cut: %.200s", i, line)
		}
	}
	if n := strings.Count(lines[2], " f"); n > modules.MaxLogFields {
		t.Errorf("%d fields logged, want at most %d", n, modules.MaxLogFields)
	}
	// 200 + 1 + 100 + 100 * 200 MiB without bounds.
	if r.alloc > 64<<20 {
		t.Errorf("logging allocated %d MiB, want a few", r.alloc>>20)
	}
}

func TestLogRecordUnderTheLimitsIsWhole(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	code := `local s = ("y"):rep(` + strconv.Itoa(modules.MaxLogValueBytes) + `)
log.info(("m"):rep(` + strconv.Itoa(modules.MaxLogMessageBytes) + `), { v = s })`
	if r := runBounded(t, code, Options{Logger: logger}, 10*time.Second); r.err != nil {
		t.Fatal(r.err)
	}
	line := buf.String()
	if strings.Contains(line, "cut") || !strings.Contains(line, strings.Repeat("m", modules.MaxLogMessageBytes)+" ") ||
		!strings.Contains(line, "v="+strings.Repeat("y", modules.MaxLogValueBytes)+"\n") {
		t.Errorf("a record at the limits was cut: %.300s", line)
	}
}
