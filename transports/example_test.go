//go:build unix

package transports_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/transports"
)

func ExampleNewCommand() {
	hook, err := transports.NewCommand(transports.CommandSpec{
		Command: `sh -c 'grep -q "rm -rf" && { echo "no rm -rf, please" >&2; exit 2; }; exit 0'`,
	})
	if err != nil {
		panic(err)
	}
	out, err := hook.Call(context.Background(), &luahook.Input{
		Event:     luahook.PreToolUse,
		ToolName:  "bash",
		ToolInput: []byte(`{"command":"rm -rf /"}`),
	})
	fmt.Println(out.Action, out.Reason, err)
	// Output: deny no rm -rf, please <nil>
}

func ExampleNewCommand_rejected() {
	_, err := transports.NewCommand(transports.CommandSpec{Command: "./scripts/guard.sh"})
	var f *luahook.Failure
	fmt.Println(errors.As(err, &f), f.Kind)
	// Output: true rejected
}

func ExampleNewHTTP() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"additionalContext":"remember the style guide"}`)
	}))
	defer srv.Close()

	hook, err := transports.NewHTTP(transports.HTTPSpec{URL: srv.URL + "/hook"})
	if err != nil {
		panic(err)
	}
	defer hook.Close()
	out, err := hook.Call(context.Background(), &luahook.Input{Event: luahook.SessionStart})
	fmt.Println(out.AdditionalContext, err)
	// Output: remember the style guide <nil>
}

func ExampleAdmitURL() {
	fmt.Println(transports.AdmitURL("https://policy.example.com/hook", false) == nil)
	fmt.Println(transports.AdmitURL("http://127.0.0.1:8080/hook", false) == nil)
	fmt.Println(transports.AdmitURL("https://10.0.0.7/hook", false))
	fmt.Println(transports.AdmitURL("https://10.0.0.7/hook", true) == nil)
	// Output:
	// true
	// true
	// rejected: HTTP hook URL "https://10.0.0.7/hook": address 10.0.0.7 is private (RFC 1918); set allow_private_network = true for an internal policy service
	// true
}
