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

// CheckLimits reports the first identifier of the payload, in the order of
// its JSON form, that is over its limit (MaxIDBytes, MaxCwdBytes,
// MaxCapabilities, MaxCapabilityBytes: each field's Field.Limit and
// Field.MaxEntries), as an error naming the field. It allocates nothing
// when every field is within its limit.
//
// A payload within its limits is told apart by reading the fields directly
// (withinLimits), on every call; TestWithinLimitsIsCheckLimits holds that
// reading to the limits Fields lists.
func (in *Input) CheckLimits() error {
	if in.withinLimits() {
		return nil
	}
	return in.limitError()
}

// withinLimits reports whether every identifier of the payload is within its
// limit: CheckLimits() == nil, without the walk that finds and names the
// field at fault.
func (in *Input) withinLimits() bool {
	ok := len(in.Event) <= MaxIDBytes && len(in.ToolName) <= MaxIDBytes && len(in.Cwd) <= MaxCwdBytes &&
		len(in.SessionID) <= MaxIDBytes && len(in.Agent) <= MaxIDBytes && len(in.Client) <= MaxIDBytes &&
		len(in.ToolCapabilities) <= MaxCapabilities
	for _, c := range in.ToolCapabilities {
		ok = ok && len(c) <= MaxCapabilityBytes
	}
	if c := in.Compaction; c != nil {
		ok = ok && len(c.Trigger) <= MaxIDBytes
	}
	if s := in.Subagent; s != nil {
		ok = ok && len(s.Target) <= MaxIDBytes && len(s.SubagentID) <= MaxIDBytes && len(s.DelegationID) <= MaxIDBytes &&
			len(s.Mode) <= MaxIDBytes && len(s.Status) <= MaxIDBytes
	}
	if m := in.Notification; m != nil {
		ok = ok && len(m.Kind) <= MaxIDBytes && len(m.ToolName) <= MaxIDBytes
	}
	return ok
}

// limitError is CheckLimits as Fields lists the payload's limits: the first
// field over its limit, named, or nil.
func (in *Input) limitError() error {
	var err error
	parent := ""
	in.Fields(func(f Field) bool {
		switch f.Kind {
		case FieldObject:
			parent = f.Key
		case FieldEnd:
			parent = ""
		case FieldString:
			if f.Limit > 0 && len(f.Text) > int(f.Limit) {
				err = idLimit(fieldPath(parent, f.Key), len(f.Text), int(f.Limit))
			}
		case FieldStrings:
			if f.MaxEntries > 0 && len(f.List) > int(f.MaxEntries) {
				err = fmt.Errorf("%s has %d entries, over the limit of %d", fieldPath(parent, f.Key), len(f.List), f.MaxEntries)
				break
			}
			for i, s := range f.List {
				if f.Limit > 0 && len(s) > int(f.Limit) {
					err = idLimit(fmt.Sprintf("%s[%d]", fieldPath(parent, f.Key), i), len(s), int(f.Limit))
					break
				}
			}
		}
		return err == nil
	})
	return err
}

// fieldPath names the field key of the nested object parent ("" at the top
// level) as errors do: subagent.target.
func fieldPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func idLimit(field string, n, limit int) error {
	if n > limit {
		return fmt.Errorf(maxIdentifierMessage, field, n, limit)
	}
	return nil
}
