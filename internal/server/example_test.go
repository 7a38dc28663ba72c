package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/server"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// A Go hook behind the hook protocol. `luahook serve` does the same with an
// engine's runner: server.New(eng.Runner(), server.Options{Health: eng.Errors}).
func ExampleNew() {
	reg := registry.New()
	reg.Register(luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash", Kind: luahook.KindGo,
		Hook: luahook.HookFunc(func(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			if strings.Contains(string(in.ToolInput), "rm -rf") {
				return luahook.Deny("no rm -rf"), nil
			}
			return nil, nil
		})})
	run := runner.New(runner.Options{Registry: reg})
	defer run.Close()
	srv := httptest.NewServer(server.New(run, server.Options{}))
	defer srv.Close()

	for _, cmd := range []string{"rm -rf /", "ls"} {
		payload := fmt.Sprintf(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":%q}}`, cmd)
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(payload))
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Print(resp.StatusCode, " ", string(body))
	}
	// Output:
	// 200 {"action":"deny","reason":"no rm -rf"}
	// 200 {}
}
