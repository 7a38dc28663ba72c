package main

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/telemetry/otlptest"
	"github.com/luahook/luahook/runner"
)

// hookEndpoint is an HTTP hook's endpoint on 127.0.0.1: it answers no
// objection and keeps the traceparent of each request ("" when none).
type hookEndpoint struct {
	url string
	mu  sync.Mutex
	got []string
}

func newHookEndpoint(t *testing.T) *hookEndpoint {
	t.Helper()
	h := &hookEndpoint{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.got = append(h.got, r.Header.Get("Traceparent"))
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "{}")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	h.url = "http://" + ln.Addr().String() + "/check"
	return h
}

func (h *hookEndpoint) traceparents() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	servedSID   = "sess-7c1f-do-not-export"
)

// tracedServe starts serve on a hooks folder with one Lua hook and a
// config with an HTTP hook and [telemetry] as given.
func tracedServe(t *testing.T, telemetry string, hook *hookEndpoint) *served {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"hooks.d/10-guard.lua": "\nhook.register(\"PreToolUse\", \"bash\", function(input)\n  return nil\nend)\n",
		"luahook.toml":         telemetry + fmt.Sprintf("\n[[hooks.PreToolUse]]\nname = \"remote-check\"\ntype = \"http\"\nurl = %q\ntimeout_ms = 30000\n", hook.url),
	})
	return startServe(t, []string{"--dir", filepath.Join(dir, "hooks.d"), "--config", filepath.Join(dir, "luahook.toml")},
		"--instance-id", "replica-a")
}

// postTraced posts a PreToolUse payload to path with the caller's
// traceparent.
func postTraced(t *testing.T, s *served, path, body string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
}

// A decision through serve arrives at the collector, over OTLP/HTTP and
// OTLP/gRPC, as one span per decision in the caller's trace with a child
// per hook; the HTTP hook receives the trace; the session id is nowhere.
func TestServeExportsEachDecisionAsASpanTree(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(strings.ReplaceAll(protocol, "/", "-"), func(t *testing.T) {
			t.Parallel()
			rcv := otlptest.NewHTTP(t)
			if protocol == "grpc" {
				rcv = otlptest.NewGRPC(t)
			}
			hook := newHookEndpoint(t)
			s := tracedServe(t, fmt.Sprintf("[telemetry]\nenabled = true\nprotocol = %q\nendpoint = %q\n", protocol, rcv.Endpoint), hook)
			postTraced(t, s, "/", `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"cwd":"/w","sessionId":"`+servedSID+`"}`)
			postTraced(t, s, "/agent/claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/w","session_id":"`+servedSID+`"}`)
			if code := s.stop(); code != 0 { // stopping flushes the spans
				t.Fatalf("serve exited %d: %s", code, s.stderr)
			}
			spans := rcv.Wait(t, 6, 20*time.Second)
			if len(spans) != 6 {
				t.Fatalf("%d spans, want 2 decisions of 2 hooks each:\n%s", len(spans), otlptest.Tree(spans))
			}
			var decisions []otlptest.Span
			for _, sp := range spans {
				if sp.TraceID != callerTrace {
					t.Errorf("span %s is in trace %s, not the caller's", sp.Name, sp.TraceID)
				}
				if sp.ParentID == callerSpan {
					decisions = append(decisions, sp)
				}
				for k, v := range sp.Attrs {
					if str, ok := v.(string); ok && strings.Contains(str, "sess-7c1f") {
						t.Errorf("span %s: %s holds the session id", sp.Name, k)
					}
				}
			}
			if len(decisions) != 2 {
				t.Fatalf("%d spans are children of the caller's, want 2 decisions:\n%s", len(decisions), otlptest.Tree(spans))
			}
			agents := map[any]bool{}
			for _, d := range decisions {
				if d.Attrs[runner.AttrEvent] != "PreToolUse" || d.Attrs[runner.AttrVerdict] != "none" ||
					d.Attrs[runner.AttrSessionDigest] != runner.SessionDigest(servedSID) {
					t.Errorf("decision span %s: %v", d.Name, d.Attrs)
				}
				if d.Resource["service.instance.id"] != "replica-a" || d.Resource["service.name"] != "luahook" {
					t.Errorf("resource %v, want service luahook, instance replica-a", d.Resource)
				}
				agents[d.Attrs[runner.AttrAgent]] = true
				kids := map[string]otlptest.Span{}
				for _, sp := range spans {
					if sp.ParentID == d.SpanID {
						kids[sp.Attrs[runner.AttrHookKind].(string)] = sp
					}
				}
				lua, remote := kids["lua"], kids["http"]
				if len(kids) != 2 || remote.Name != "hook remote-check" {
					t.Fatalf("children of %s: %v", d.Name, kids)
				}
				if f, _ := lua.Attrs[runner.AttrCodeFilepath].(string); !strings.HasSuffix(f, "10-guard.lua") || lua.Attrs[runner.AttrCodeLineno] != int64(2) {
					t.Errorf("the Lua hook's span: %v, want code.filepath .../10-guard.lua, code.lineno 2", lua.Attrs)
				}
				if f, _ := remote.Attrs[runner.AttrCodeFilepath].(string); !strings.HasSuffix(f, "luahook.toml") {
					t.Errorf("the HTTP hook's span: %v, want code.filepath .../luahook.toml", remote.Attrs)
				}
				if remote.Attrs[runner.AttrHookVerdict] != runner.NoObjection {
					t.Errorf("the HTTP hook's verdict = %v", remote.Attrs[runner.AttrHookVerdict])
				}
				// The HTTP hook received its own span as the parent.
				want := "00-" + callerTrace + "-" + remote.SpanID + "-01"
				found := false
				for _, tp := range hook.traceparents() {
					found = found || tp == want
				}
				if !found {
					t.Errorf("the HTTP hook received traceparents %q, want %q", hook.traceparents(), want)
				}
			}
			if !agents[nil] || !agents["claude"] {
				t.Errorf("agents of the decisions: %v, want luahook's own format and claude", agents)
			}
			if t.Name() == "TestServeExportsEachDecisionAsASpanTree/http-protobuf" {
				t.Logf("the span tree of one decision:\n%s", otlptest.Tree(spans))
			}
		})
	}
}

// Off, serve exports nothing, never connects to the collector, and sends
// no traceparent on, though the request carried one.
func TestServeWithTracingOffExportsNothing(t *testing.T) {
	t.Parallel()
	rcv := otlptest.NewHTTP(t)
	hook := newHookEndpoint(t)
	s := tracedServe(t, fmt.Sprintf("[telemetry]\nenabled = false\nendpoint = %q\n", rcv.Endpoint), hook)
	postTraced(t, s, "/", `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"cwd":"/w","sessionId":"`+servedSID+`"}`)
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, s.stderr)
	}
	if n, c := rcv.Requests(), rcv.Connections(); n != 0 || c != 0 {
		t.Errorf("tracing off: %d export(s) over %d connection(s)", n, c)
	}
	if got := hook.traceparents(); len(got) != 1 || got[0] != "" {
		t.Errorf("tracing off, the HTTP hook received traceparents %q, want none", got)
	}
}

// A bad [telemetry] key is an error naming the file, the line and the key.
func TestServeRefusesABadTelemetryKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"luahook.toml": "[telemetry]\nenabled = true\nsample_ratio = 1.5\n"})
	var out, errs lockedBuffer
	code := run(t.Context(), []string{"check", "--config", filepath.Join(dir, "luahook.toml")}, nil, &out, &errs)
	if code == 0 || !strings.Contains(out.String()+errs.String(), "luahook.toml:3: telemetry.sample_ratio: must be from 0 to 1") {
		t.Errorf("check exited %d:\n%s%s", code, out.String(), errs.String())
	}
}

// luahook fire traces its decision when [telemetry] says so, as a child
// of the span $TRACEPARENT names, and has exported it when it exits.
func TestFireContinuesTheTraceOfTRACEPARENT(t *testing.T) {
	rcv := otlptest.NewHTTP(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"hooks.d/10-guard.lua": "hook.register(\"PreToolUse\", \"bash\", function(input)\n  return hook.deny(\"no\")\nend)\n",
		"luahook.toml":         fmt.Sprintf("[telemetry]\nenabled = true\nendpoint = %q\n", rcv.Endpoint),
	})
	t.Setenv("TRACEPARENT", "00-"+callerTrace+"-"+callerSpan+"-01")
	var out, errs lockedBuffer
	code := run(t.Context(), []string{"--dir", filepath.Join(dir, "hooks.d"), "--config", filepath.Join(dir, "luahook.toml"), "fire", "PreToolUse"},
		strings.NewReader(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls"},"cwd":"/w","sessionId":"`+servedSID+`"}`), &out, &errs)
	if !strings.Contains(out.String(), `"deny"`) {
		t.Fatalf("fire exited %d: %s%s", code, out.String(), errs.String())
	}
	spans := rcv.Spans() // exported before fire returned
	if len(spans) != 2 {
		t.Fatalf("%d spans when fire returned, want the decision and its hook: %v", len(spans), spans)
	}
	for _, sp := range spans {
		if sp.TraceID != callerTrace {
			t.Errorf("span %s is in trace %s, want $TRACEPARENT's", sp.Name, sp.TraceID)
		}
		if sp.Name == "PreToolUse bash" && (sp.ParentID != callerSpan || sp.Attrs[runner.AttrDecidedBy] != "10-guard.lua:PreToolUse") {
			t.Errorf("the decision's span: parent %s, %v", sp.ParentID, sp.Attrs)
		}
	}
}
