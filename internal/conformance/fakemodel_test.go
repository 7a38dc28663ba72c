//go:build conformance

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// toolCall is the tool use a fake model asks for.
type toolCall struct {
	Name  string
	Input map[string]any
}

// recorder is what every fake model shares: a server on 127.0.0.1 for the
// test's life and the body of every request it got. answer writes the
// reply to a request, given its body and how many requests came before.
type recorder struct {
	URL string

	mu       sync.Mutex
	requests [][]byte
	lines    []string // each request's method and path, in order
	answer   func(w http.ResponseWriter, r *http.Request, body []byte, before int)
}

// start serves rec until the test ends; URL is its address plus path.
func (rec *recorder) start(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rec}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	rec.URL = "http://" + ln.Addr().String() + path
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec.mu.Lock()
	before := len(rec.requests)
	rec.requests = append(rec.requests, body)
	rec.lines = append(rec.lines, r.Method+" "+r.URL.Path)
	rec.mu.Unlock()
	rec.answer(w, r, body, before)
}

// received reports whether any request the model got holds text.
func (rec *recorder) received(text string) bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, b := range rec.requests {
		if bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

// count is the number of requests the model got.
func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.requests)
}

// posts is the number of POST requests the model got: a request that can
// carry a prompt (Claude Code 2.1.197 sends a HEAD / first, which holds
// none).
func (rec *recorder) posts() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := 0
	for _, l := range rec.lines {
		if strings.HasPrefix(l, "POST ") {
			n++
		}
	}
	return n
}

// arguments is call's input as JSON.
func (call toolCall) arguments() []byte {
	b, err := json.Marshal(call.Input)
	if err != nil {
		panic(err)
	}
	return b
}

// sse writes events ({name, data}) as a server-sent event stream; an
// event without a name is written as data alone.
func sse(w http.ResponseWriter, events ...[2]string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		if e[0] != "" {
			fmt.Fprintf(w, "event: %s\n", e[0])
		}
		fmt.Fprintf(w, "data: %s\n\n", e[1])
	}
}

// fakeModel speaks Anthropic's Messages API far enough for Claude Code: a
// request offering tools and holding no tool result is answered with one
// tool call; any other is answered with the text "done".
type fakeModel struct{ recorder }

func startFakeModel(t *testing.T, call toolCall) *fakeModel {
	t.Helper()
	m := &fakeModel{}
	m.answer = func(w http.ResponseWriter, r *http.Request, body []byte, _ int) {
		var req struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
			http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"fake model: not a messages request"}}`, http.StatusNotFound)
			return
		}
		start := [2]string{"message_start", `{"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":"fake","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`}
		block := `{"type":"text","text":""}`
		delta := `{"type":"text_delta","text":"done"}`
		stop := "end_turn"
		if len(req.Tools) > 0 && !bytes.Contains(body, []byte(`"tool_result"`)) {
			partial, _ := json.Marshal(string(call.arguments()))
			block = fmt.Sprintf(`{"type":"tool_use","id":"toolu_fake","name":%q,"input":{}}`, call.Name)
			delta = `{"type":"input_json_delta","partial_json":` + string(partial) + `}`
			stop = "tool_use"
		}
		sse(w, start,
			[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":` + block + `}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":` + delta + `}`},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"` + stop + `","stop_sequence":null},"usage":{"output_tokens":1}}`},
			[2]string{"message_stop", `{"type":"message_stop"}`})
	}
	m.start(t, "")
	return m
}

// fakeGemini speaks the Gemini API far enough for Gemini CLI: the first
// streamed request is answered with one function call, every later one
// with the text "done"; a request that is not streamed (the CLI's routing
// classifier) gets the JSON it asks for.
type fakeGemini struct {
	recorder
	streams int // streamed requests so far, under mu
}

func startFakeGemini(t *testing.T, call toolCall) *fakeGemini {
	t.Helper()
	m := &fakeGemini{}
	m.answer = func(w http.ResponseWriter, r *http.Request, _ []byte, _ int) {
		if !strings.Contains(r.URL.Path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"candidates":[{"content":{"parts":[{"text":"{\"complexity_reasoning\":\"simple\",\"complexity_score\":1}"}],"role":"model"},"finishReason":"STOP","index":0}]}`)
			return
		}
		m.mu.Lock()
		m.streams++
		first := m.streams == 1
		m.mu.Unlock()
		part := `{"text":"done"}`
		if first {
			part = fmt.Sprintf(`{"functionCall":{"name":%q,"args":%s}}`, call.Name, call.arguments())
		}
		sse(w, [2]string{"", `{"candidates":[{"content":{"parts":[` + part + `],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`})
	}
	m.start(t, "")
	return m
}

// streamed is the number of streamed (conversation) requests the model got.
func (m *fakeGemini) streamed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.streams
}

// fakeResponses speaks OpenAI's Responses API (streamed, over HTTP) far
// enough for Codex: the first request is answered with one function call
// (the input as its JSON arguments), every later one with the text "done".
type fakeResponses struct{ recorder }

func startFakeResponses(t *testing.T, call toolCall) *fakeResponses {
	t.Helper()
	m := &fakeResponses{}
	m.answer = func(w http.ResponseWriter, _ *http.Request, _ []byte, before int) {
		item := `{"type":"message","role":"assistant","id":"msg_fake","content":[{"type":"output_text","text":"done"}]}`
		if before == 0 {
			quoted, _ := json.Marshal(string(call.arguments()))
			item = fmt.Sprintf(`{"type":"function_call","id":"fc_fake","call_id":"call_fake","name":%q,"arguments":%s}`, call.Name, quoted)
		}
		sse(w,
			[2]string{"response.created", `{"type":"response.created","response":{"id":"resp_fake"}}`},
			[2]string{"response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":` + item + `}`},
			[2]string{"response.completed", `{"type":"response.completed","response":{"id":"resp_fake","usage":{"input_tokens":1,"input_tokens_details":null,"output_tokens":1,"output_tokens_details":null,"total_tokens":2}}}`})
	}
	m.start(t, "/v1")
	return m
}
