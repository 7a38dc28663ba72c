package transports

import (
	"encoding/json"
	"os"

	"github.com/luahook/luahook"
)

// benchPayload is a typical PreToolUse payload for the benchmarks.
var benchPayload = &luahook.Input{
	Event:     luahook.PreToolUse,
	ToolName:  "bash",
	ToolInput: json.RawMessage(`{"command":"go test ./...","description":"run the tests","timeout":120000}`),
	Cwd:       os.TempDir(),
	SessionID: "bench-session",
}
