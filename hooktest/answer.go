package hooktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/luahook/luahook"
)

// Answer returns the output a hook with behaviour b gives for payload (the
// payload JSON as the hook received it), in the contract's wire shape: what a
// command hook prints on stdout and an HTTP hook sends as its body. It is the
// reference for transports whose hooks are written in Go, such as a test
// program run as a command hook or a test HTTP server.
//
// NoObjection answers nil. Hang and Crash have no answer (the transport must
// produce them itself) and return an error, as does a payload that the
// behaviour cannot read.
func Answer(b Behaviour, payload []byte) ([]byte, error) {
	switch b {
	case Allow:
		return []byte(`{"action":"allow"}`), nil
	case NoObjection:
		return nil, nil
	case Deny:
		return json.Marshal(luahook.Deny(DenyReason))
	case MutateEcho:
		var p struct {
			ToolInput json.RawMessage `json:"toolInput"`
		}
		if err := json.Unmarshal(payload, &p); err != nil {
			return nil, fmt.Errorf("hooktest: %s: reading the payload: %w", b, err)
		}
		if !luahook.IsJSONObject(p.ToolInput) {
			return nil, fmt.Errorf("hooktest: %s: the payload has no toolInput object", b)
		}
		out := make([]byte, 0, len(p.ToolInput)+32)
		out = append(out, `{"action":"mutate","input":`...)
		out = append(out, p.ToolInput...)
		return append(out, '}'), nil
	case AddContext:
		return json.Marshal(&luahook.Outcome{AdditionalContext: ContextText, ContextAs: luahook.ContextSeparate})
	case EchoPayload:
		return json.Marshal(luahook.Context(string(bytes.TrimSpace(payload))))
	case VerifyRepeat:
		var p struct {
			ToolInput RepeatInput `json:"toolInput"`
		}
		if err := json.Unmarshal(payload, &p); err != nil {
			return nil, fmt.Errorf("hooktest: %s: reading the payload: %w", b, err)
		}
		if why := p.ToolInput.Check(); why != "" {
			return json.Marshal(luahook.Deny(why))
		}
		return json.Marshal(luahook.Context(p.ToolInput.Block))
	case InvalidOutput:
		return []byte("hooktest: not json"), nil
	case UnknownAction:
		return []byte(`{"action":"block"}`), nil
	case DenyWithoutReason:
		return []byte(`{"action":"deny"}`), nil
	case ArrayOutput:
		return []byte(arrayAnswer), nil
	case Ask:
		return json.Marshal(luahook.Ask(AskReason))
	case Continue:
		return json.Marshal(luahook.Continue(ContinueReason))
	case RedactOutput:
		return json.Marshal(RedactOutcome())
	case ReplaceOutput:
		return json.Marshal(ReplaceOutcome())
	case Approve:
		return json.Marshal(ApproveOutcome())
	}
	return nil, fmt.Errorf("hooktest: %s has no answer: the transport must produce it itself", b)
}

// arrayAnswer is the answer of ArrayOutput.
const arrayAnswer = `[{"action":"deny","reason":"` + DenyReason + `"}]`

// RepeatInput is the toolInput the VerifyRepeat behaviour reads.
type RepeatInput struct {
	Block   string `json:"block"`
	Count   int    `json:"count"`
	Content string `json:"content"`
}

// Check returns "" when Content is Block repeated Count times, and otherwise
// says how it differs: the reason a VerifyRepeat hook denies with.
func (r *RepeatInput) Check() string {
	if r.Block == "" || r.Count <= 0 {
		return fmt.Sprintf("hooktest: no block to repeat (block of %d bytes, count %d)", len(r.Block), r.Count)
	}
	if want := len(r.Block) * r.Count; len(r.Content) != want {
		return fmt.Sprintf("hooktest: content has %d bytes, want %d (block of %d bytes repeated %d times)",
			len(r.Content), want, len(r.Block), r.Count)
	}
	for i := 0; i < r.Count; i++ {
		at := i * len(r.Block)
		if r.Content[at:at+len(r.Block)] != r.Block {
			return fmt.Sprintf("hooktest: content differs from the block in repetition %d (bytes %d to %d)",
				i+1, at, at+len(r.Block))
		}
	}
	return ""
}

// repeatInput builds a VerifyRepeat toolInput whose content is block
// repeated until it has at least size bytes.
func repeatInput(block string, size int) RepeatInput {
	n := (size + len(block) - 1) / len(block)
	return RepeatInput{Block: block, Count: n, Content: strings.Repeat(block, n)}
}

// RedactOutcome is the outcome of the RedactOutput behaviour.
func RedactOutcome() *luahook.Outcome {
	return luahook.Redact(luahook.Redaction{Pattern: RedactPattern, Label: RedactLabel}, luahook.Redaction{Text: RedactText})
}

// ReplaceOutcome is the outcome of the ReplaceOutput behaviour.
func ReplaceOutcome() *luahook.Outcome {
	return luahook.ReplaceOutput(json.RawMessage(`{"stdout":"` + ReplacedText + `"}`))
}
