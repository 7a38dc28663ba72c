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
