package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

const benchPayload = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm install left-pad","timeout":120000},"cwd":"/home/dev/project","sessionId":"01J9ZX"}`

func BenchmarkDecodePayload(b *testing.B) {
	for _, bc := range []struct{ name, data string }{
		{"small", benchPayload},
		{"toolInput-64KiB", `{"event":"PreToolUse","toolName":"write","toolInput":{"path":"a.txt","content":"` +
			strings.Repeat("x", 64<<10) + `"},"cwd":"/w"}`},
		{"nested", `{"event":"PostToolUse","toolName":"bash","toolInput":{"command":"ls"},"toolResult":{"content":"a b c","isError":false},"cwd":"/w"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodePayload(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServeHook measures one hook-protocol request through the handler,
// without the network: read, decode, fire one Go hook, count, encode.
func BenchmarkServeHook(b *testing.B) {
	reg := registry.New()
	run := runner.New(runner.Options{Registry: reg})
	defer run.Close()
	reg.Register(luahook.Spec{Event: luahook.PreToolUse, Kind: luahook.KindGo, Name: "guard", Stage: luahook.StageValidate,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })})
	h := New(run, Options{})
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(benchPayload))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}

// BenchmarkDuplicateKey measures the scan of a tool input for duplicate keys
// at every depth, alone.
func BenchmarkDuplicateKey(b *testing.B) {
	for _, bc := range []struct{ name, data string }{
		{"small", `{"command":"npm install left-pad","timeout":120000}`},
		{"64KiB-string", `{"path":"a.txt","content":"` + strings.Repeat("x", 64<<10) + `"}`},
		{"1000-keys", `{` + manyKeys(1000) + `}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := duplicateKey("toolInput", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
