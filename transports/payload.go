package transports

import (
	"context"
	"encoding/json"
	"time"

	"github.com/luahook/luahook"
)

// encodePayload is how a command or HTTP hook call starts: no input is
// luahook.NoInput, a context already done is its failure (contextFailure),
// and otherwise in is encoded as the JSON the hook receives. who names the
// hook in the failure's message.
func encodePayload(ctx context.Context, in *luahook.Input, who string, start time.Time) ([]byte, error) {
	if in == nil {
		return nil, luahook.NoInput()
	}
	if ctx.Err() != nil {
		return nil, contextFailure(ctx, who, start)
	}
	payload, err := json.Marshal(in)
	if err != nil {
		return nil, &luahook.Failure{Kind: luahook.FailError, Message: who + ": encoding the payload: " + err.Error(), Err: err}
	}
	return payload, nil
}
