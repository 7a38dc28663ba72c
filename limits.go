package luahook

import "fmt"

// DefaultMaxInputBytes is the default cap on a payload, as Input.Size counts
// it: the largest request body luahook serve accepts, the most luahook fire
// reads, and the largest payload the runner calls a hook with
// (max_input_bytes).
const DefaultMaxInputBytes = 8 << 20 // 8 MiB

// The limits on a payload's identifiers: names, ids and paths that hooks use
// as keys (a rate limiter's "calls:" .. sessionId) or show in one line. Text
// fields (prompt, toolResult.content, subagent.task, ...) and the toolInput
// are bounded by the payload's overall size cap instead.
const (
	MaxIDBytes           = 256  // event, toolName, sessionId, and the observational events' ids and kinds
	MaxCwdBytes          = 4096 // cwd: PATH_MAX
	MaxCapabilities      = 64   // entries of toolCapabilities
	MaxCapabilityBytes   = 64   // one toolCapabilities entry
	maxIdentifierMessage = "%s is %d bytes, over the limit of %d"
)

// CheckLimits reports the first identifier of the payload that is over its
// limit (MaxIDBytes, MaxCwdBytes, MaxCapabilities, MaxCapabilityBytes), as an
// error naming the field. It allocates nothing when every field is within
// its limit.
func (in *Input) CheckLimits() error {
	if max(len(in.Event), len(in.ToolName), len(in.SessionID)) <= MaxIDBytes && len(in.Cwd) <= MaxCwdBytes &&
		in.ToolCapabilities == nil && in.Compaction == nil && in.Subagent == nil && in.Notification == nil {
		return nil // the usual payload, checked in a few comparisons the caller inlines
	}
	return in.checkAllLimits()
}

func (in *Input) checkAllLimits() error {
	if err := idLimit("event", len(in.Event), MaxIDBytes); err != nil {
		return err
	}
	if err := idLimit("toolName", len(in.ToolName), MaxIDBytes); err != nil {
		return err
	}
	if err := idLimit("sessionId", len(in.SessionID), MaxIDBytes); err != nil {
		return err
	}
	if err := idLimit("cwd", len(in.Cwd), MaxCwdBytes); err != nil {
		return err
	}
	if n := len(in.ToolCapabilities); n > MaxCapabilities {
		return fmt.Errorf("toolCapabilities has %d entries, over the limit of %d", n, MaxCapabilities)
	}
	for i, c := range in.ToolCapabilities {
		if len(c) > MaxCapabilityBytes {
			return idLimit(fmt.Sprintf("toolCapabilities[%d]", i), len(c), MaxCapabilityBytes)
		}
	}
	if c := in.Compaction; c != nil {
		if err := idLimit("compaction.trigger", len(c.Trigger), MaxIDBytes); err != nil {
			return err
		}
	}
	if s := in.Subagent; s != nil {
		for _, f := range [...]struct {
			name string
			n    int
		}{{"subagent.target", len(s.Target)}, {"subagent.subagentId", len(s.SubagentID)},
			{"subagent.delegationId", len(s.DelegationID)}, {"subagent.mode", len(s.Mode)}, {"subagent.status", len(s.Status)}} {
			if err := idLimit(f.name, f.n, MaxIDBytes); err != nil {
				return err
			}
		}
	}
	if m := in.Notification; m != nil {
		if err := idLimit("notification.kind", len(m.Kind), MaxIDBytes); err != nil {
			return err
		}
		if err := idLimit("notification.toolName", len(m.ToolName), MaxIDBytes); err != nil {
			return err
		}
	}
	return nil
}

func idLimit(field string, n, limit int) error {
	if n > limit {
		return fmt.Errorf(maxIdentifierMessage, field, n, limit)
	}
	return nil
}
