package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// benchAuthHandler is a handler with one Go hook that authenticates 200
// named clients by token.
func benchAuthHandler(b *testing.B) (*Handler, []string) {
	reg := registry.New()
	run := runner.New(runner.Options{Registry: reg})
	b.Cleanup(run.Close)
	reg.Register(luahook.Spec{Event: luahook.PreToolUse, Kind: luahook.KindGo, Name: "guard", Stage: luahook.StageValidate,
		Hook: luahook.HookFunc(func(context.Context, *luahook.Input) (*luahook.Outcome, error) { return nil, nil })})
	var toks Tokens
	tokens := make([]string, 200)
	for i := range tokens {
		tokens[i] = fmt.Sprintf("bench-token-%04d-0123456789abcdef", i)
		if err := toks.Add(fmt.Sprintf("client-%d", i), tokens[i], "bench"); err != nil {
			b.Fatal(err)
		}
	}
	return New(run, Options{Auth: &Auth{Tokens: &toks}}), tokens
}

// BenchmarkServeHookAuthenticated is BenchmarkServeHook with a bearer token
// checked against 200: what authentication adds to a decision.
func BenchmarkServeHookAuthenticated(b *testing.B) {
	h, tokens := benchAuthHandler(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(benchPayload))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tokens[i%len(tokens)])
		i++
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}

// BenchmarkRefusal measures the handler's refusal of each kind of request
// that never reaches admission or a hook.
func BenchmarkRefusal(b *testing.B) {
	h, tokens := benchAuthHandler(b)
	for _, tc := range []struct {
		name   string
		header map[string]string
		code   int
	}{
		{"no token", map[string]string{"Content-Type": "application/json"}, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer not-a-token-0123456789"}, http.StatusUnauthorized},
		{"origin", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + tokens[0], "Origin": "https://evil.example"}, http.StatusForbidden},
		{"text/plain", map[string]string{"Content-Type": "text/plain", "Authorization": "Bearer " + tokens[0]}, http.StatusUnsupportedMediaType},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(benchPayload))
				for k, v := range tc.header {
					req.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != tc.code {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}
