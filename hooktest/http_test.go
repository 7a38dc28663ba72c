package hooktest_test

import (
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/hooktest"
	"github.com/luahook/luahook/transports"
)

// newBehaviourServer starts an HTTP-hook endpoint on 127.0.0.1 that acts on
// the request path: POST /deny denies, POST /hang never answers, POST /crash
// answers 500, and so on (hooktest.Behaviour.String names the paths).
func newBehaviourServer(tb testing.TB) *httptest.Server {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := hooktest.ParseBehaviour(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "HTTP hooks POST", http.StatusMethodNotAllowed)
			return
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			http.Error(w, "want Content-Type application/json", http.StatusUnsupportedMediaType)
			return
		}
		switch b {
		case hooktest.Hang:
			select {
			case <-r.Context().Done(): // the client gave up
			case <-release:
			}
			return
		case hooktest.Crash:
			http.Error(w, "hooktest: crash", http.StatusInternalServerError)
			return
		}
		payload, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, err := hooktest.Answer(b, payload)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	tb.Cleanup(srv.Close)
	tb.Cleanup(func() { close(release) }) // runs before srv.Close, which waits for handlers
	return srv
}

// httpFactory builds HTTP hooks that POST to srv, at the behaviour's path.
func httpFactory(srv *httptest.Server) hooktest.Factory {
	return func(tb testing.TB, b hooktest.Behaviour) luahook.Hook {
		h, err := transports.NewHTTP(transports.HTTPSpec{URL: srv.URL + "/" + b.String()})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(h.Close)
		return h
	}
}

func TestHTTPHooksKeepTheContract(t *testing.T) {
	srv := newBehaviourServer(t)
	hooktest.Run(t, httpFactory(srv), hooktest.Options{Kind: luahook.KindHTTP})
}

func BenchmarkHTTPHook(b *testing.B) {
	srv := newBehaviourServer(b)
	hooktest.Benchmark(b, httpFactory(srv), hooktest.Options{Kind: luahook.KindHTTP})
}
