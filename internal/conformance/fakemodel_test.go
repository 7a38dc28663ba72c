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

// fakeModel speaks Anthropic's Messages API far enough for Claude Code: a
// request offering tools and holding no tool result is answered with one
// tool call (call); any other is answered with the text "done". Every
// request's body is recorded.
type fakeModel struct {
	URL  string
	call toolCall

	mu       sync.Mutex
	requests [][]byte
}

// toolCall is the tool use the model asks for.
type toolCall struct {
	Name  string
	Input map[string]any
}

// startFakeModel serves a fakeModel on 127.0.0.1 until the test ends.
func startFakeModel(t *testing.T, call toolCall) *fakeModel {
	t.Helper()
	m := &fakeModel{call: call}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: m}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	m.URL = "http://" + ln.Addr().String()
	return m
}

func (m *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, body)
	m.mu.Unlock()
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"fake model: not a messages request"}}`, http.StatusNotFound)
		return
	}
	start := `{"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":"fake","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`
	events := [][2]string{{"message_start", start}}
	if len(req.Tools) > 0 && !bytes.Contains(body, []byte(`"tool_result"`)) {
		input, err := json.Marshal(m.call.Input)
		if err != nil {
			panic(err)
		}
		partial, _ := json.Marshal(string(input))
		events = append(events,
			[2]string{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_fake","name":%q,"input":{}}}`, m.call.Name)},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":` + string(partial) + `}}`},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":1}}`})
	} else {
		events = append(events,
			[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}`},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`})
	}
	events = append(events, [2]string{"message_stop", `{"type":"message_stop"}`})
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e[0], e[1])
	}
}

// received reports whether any request the model got holds text.
func (m *fakeModel) received(text string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.requests {
		if bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

// count is the number of requests the model got.
func (m *fakeModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// fakeGemini speaks the Gemini API far enough for Gemini CLI: the first
// streamed request is answered with one function call (call), every later
// one with the text "done"; a request that is not streamed (the CLI's
// routing classifier) gets the JSON it asks for. Every request's body is
// recorded.
type fakeGemini struct {
	URL  string
	call toolCall

	mu       sync.Mutex
	requests [][]byte
	streams  int
}

func startFakeGemini(t *testing.T, call toolCall) *fakeGemini {
	t.Helper()
	m := &fakeGemini{call: call}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: m}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	m.URL = "http://" + ln.Addr().String()
	return m
}

func (m *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, body)
	first := false
	if strings.Contains(r.URL.Path, ":streamGenerateContent") {
		m.streams++
		first = m.streams == 1
	}
	m.mu.Unlock()
	if !strings.Contains(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"candidates":[{"content":{"parts":[{"text":"{\"complexity_reasoning\":\"simple\",\"complexity_score\":1}"}],"role":"model"},"finishReason":"STOP","index":0}]}`)
		return
	}
	part := `{"text":"done"}`
	if first {
		args, err := json.Marshal(m.call.Input)
		if err != nil {
			panic(err)
		}
		part = fmt.Sprintf(`{"functionCall":{"name":%q,"args":%s}}`, m.call.Name, args)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", `{"candidates":[{"content":{"parts":[`+part+`],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`)
}

// received reports whether any request the model got holds text.
func (m *fakeGemini) received(text string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.requests {
		if bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

// streamed is the number of streamed (conversation) requests the model got.
func (m *fakeGemini) streamed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.streams
}

// fakeResponses speaks OpenAI's Responses API (streamed, over HTTP) far
// enough for Codex: the first request is answered with one function call
// (call, its input as the call's JSON arguments), every later one with
// the text "done". Every request's body is recorded.
type fakeResponses struct {
	URL  string
	call toolCall

	mu       sync.Mutex
	requests [][]byte
}

func startFakeResponses(t *testing.T, call toolCall) *fakeResponses {
	t.Helper()
	m := &fakeResponses{call: call}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: m}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	m.URL = "http://" + ln.Addr().String() + "/v1"
	return m
}

func (m *fakeResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests = append(m.requests, body)
	first := len(m.requests) == 1
	m.mu.Unlock()
	item := `{"type":"message","role":"assistant","id":"msg_fake","content":[{"type":"output_text","text":"done"}]}`
	if first {
		args, err := json.Marshal(m.call.Input)
		if err != nil {
			panic(err)
		}
		quoted, _ := json.Marshal(string(args))
		item = fmt.Sprintf(`{"type":"function_call","id":"fc_fake","call_id":"call_fake","name":%q,"arguments":%s}`, m.call.Name, quoted)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "event: response.created\ndata: %s\n\n", `{"type":"response.created","response":{"id":"resp_fake"}}`)
	fmt.Fprintf(w, "event: response.output_item.done\ndata: %s\n\n", `{"type":"response.output_item.done","output_index":0,"item":`+item+`}`)
	fmt.Fprintf(w, "event: response.completed\ndata: %s\n\n", `{"type":"response.completed","response":{"id":"resp_fake","usage":{"input_tokens":1,"input_tokens_details":null,"output_tokens":1,"output_tokens_details":null,"total_tokens":2}}}`)
}

// received reports whether any request the model got holds text.
func (m *fakeResponses) received(text string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.requests {
		if bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

// count is the number of requests the model got.
func (m *fakeResponses) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}
