package main

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

func TestZZProfFire(t *testing.T) {
	runtime.MemProfileRate = 1
	t.Setenv("LUAHOOK_CACHE_DIR", "/tmp/chunks")
	var out, errb bytes.Buffer
	st := &streams{in: bytes.NewReader([]byte(`{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"ls -la src"}}`)), out: &out, err: &errb}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	code := runStreams(context.Background(), []string{"--dir", "../../hooks.d", "fire", "PreToolUse"}, st)
	runtime.ReadMemStats(&ms1)
	t.Logf("code %d out %s err %s; alloc %d bytes %d objs", code, out.String(), errb.String(), ms1.TotalAlloc-ms0.TotalAlloc, ms1.Mallocs-ms0.Mallocs)
	f, _ := os.Create("/tmp/mem.prof")
	pprof.Lookup("allocs").WriteTo(f, 0)
	f.Close()
}
