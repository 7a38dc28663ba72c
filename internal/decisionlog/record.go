// Package decisionlog records what the policies decided: one JSON line per
// fired event, with the payload after masking, every hook's outcome and the
// final decision. `luahook replay` reads the lines back.
package decisionlog

import (
	"encoding/json"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/runner"
)

// Record is one line of a decision log: one fired event. Its JSON is the
// log's line format; Replay reads it back, so a field is only ever added.
type Record struct {
	// Seq is the record's place in its log (1, 2, 3... across rotations),
	// set by the File and Writer sinks, which chain their records; 0 in
	// records written before the chain existed and in a Func sink's.
	Seq uint64 `json:"seq,omitempty"`
	// LogID is the random id of the log the record belongs to (set with
	// Seq).
	LogID string `json:"logId,omitempty"`
	// Prev is "sha256:" and the hex SHA-256 of the exact bytes of the
	// line before this one in the log (without its newline), or
	// Genesis(LogID) for the log's first record (set with Seq).
	Prev string `json:"prev,omitempty"`
	// Time is when the event was decided (RFC 3339, nanoseconds, UTC).
	Time time.Time `json:"time"`
	// LuahookVersion is luahook.Version of the process that decided.
	LuahookVersion string `json:"luahookVersion"`
	// Instance names the replica that decided (luahook serve's
	// --instance-id, Options.Instance); empty outside a fleet, and in
	// records written before it existed.
	Instance  string        `json:"instance,omitempty"`
	Agent     string        `json:"agent,omitempty"`
	SessionID string        `json:"sessionId,omitempty"`
	Event     luahook.Event `json:"event"`
	ToolName  string        `json:"toolName,omitempty"`
	// InputDigest is "sha256:" and the hex SHA-256 of the payload's JSON
	// before masking: equal digests are equal payloads, even when the
	// logged Input had secrets taken out.
	InputDigest string `json:"inputDigest"`
	// Input is the payload (luahook.Input's JSON, the shape
	// luahook.DecodeInput reads) after masking.
	Input json.RawMessage `json:"input"`
	// Masked lists, each once, the JSON paths of what masking dropped or
	// replaced, so a reader knows the record is not the decision as it
	// was: the payload's own paths as the configured ones spell them
	// ("toolInput.env.API_KEY"), the record's others from its top
	// ("sessionId", "hooks[1].outcome.reason", "files.[masked]"). A masked
	// key is written, and listed, as the mask ("toolInput.[masked]"), or
	// as mask#2, mask#3... when its object has the mask as a key already.
	Masked []string `json:"masked,omitempty"`
	// Truncated is set when the payload was larger than the log keeps
	// (Options.MaxInputBytes): Input is null, InputDigest still the
	// digest of the whole payload and InputBytes its size. Such a record
	// cannot be replayed.
	Truncated bool `json:"truncated,omitempty"`
	// InputBytes is the payload's size as luahook.Input.Size counts it,
	// set when Truncated.
	InputBytes int `json:"inputBytes,omitempty"`
	// Hooks has one entry per hook in the event's trace, in trace order.
	Hooks []Hook `json:"hooks"`
	// Decision is the final decision.
	Decision Decision `json:"decision"`
	// Delivered is what the agent, or luahook's own caller, received: the
	// verdict as it reads the answer, which may differ from Decision's (an
	// ask on an agent without one), a fail-closed block no hook decided,
	// with its cause. Nil in records written before it existed, and in
	// those of a host's own calls to the runner, which render no answer.
	Delivered *Delivered `json:"delivered,omitempty"`
	// Approval is the web approval the call waited for (runner.Approval):
	// its id, the call's digest, who decided, when, the verdict and the
	// reason. Nil when no hook routed the call to a person.
	Approval *runner.Approval `json:"approval,omitempty"`
	// Ledger lists the calls the hooks made to their session's ledger
	// during the decision, in the order they returned: each with the hook
	// and its file, the operation ("mark", "count" write; "has", "marks",
	// "count", "calls" read), the label or counter name, and what was
	// found or written (a mark's detail, masked as every string of the
	// record is, and time; a count's total). Empty when no hook called
	// the ledger, and in records written before it existed.
	Ledger []ledger.Entry `json:"ledger,omitempty"`
	// Files maps each hook file (or config file) that took part, by the
	// name its hooks' sources use, to its content hash ("sha256:hex").
	Files map[string]string `json:"files,omitempty"`
}

// Hook is what one hook did during the event.
type Hook struct {
	Name   string           `json:"name"`
	Source string           `json:"source,omitempty"` // file:line
	Kind   luahook.HookKind `json:"kind"`
	// Version is the content hash of the file that registered the hook
	// ("sha256:hex"), empty for a Go hook.
	Version string `json:"version,omitempty"`
	// Mode is "shadow" for a hook whose outcome was logged, not enforced.
	Mode       string           `json:"mode,omitempty"`
	Outcome    *luahook.Outcome `json:"outcome,omitempty"`
	Failure    *luahook.Failure `json:"failure,omitempty"`
	Skipped    string           `json:"skipped,omitempty"`
	DurationMs float64          `json:"durationMs"`
}

// Decision is the event's final decision.
type Decision struct {
	// Action is the contract's action of the event's outcome ("deny", "ask",
	// "allow", "mutate", "continue") or "" when the event's outcome has none.
	Action luahook.Action `json:"action,omitempty"`
	Reason string         `json:"reason,omitempty"`
	// DecidedBy is the name of the hook that decided (the first deny, the
	// ask, the last rewrite, the explicit allow), "" when no hook did.
	DecidedBy string `json:"decidedBy,omitempty"`
	// Outcome is the event's outcome as `luahook fire` prints it.
	Outcome *luahook.Outcome `json:"outcome"`
}

// Delivered is what an answer carried to the agent (or luahook's own
// caller): small, not a copy of the answer.
type Delivered struct {
	// Verdict is the verdict as the agent reads the answer: "deny",
	// "block" (an exit status of 2, a prompt or a stop blocked), "ask",
	// "allow", "rewrite", "context", "none" (no objection), or "error"
	// (nothing was answered: luahook fire exited 1, serve answered 400 or
	// 503).
	Verdict string `json:"verdict"`
	// ExitCode is the answer's exit status.
	ExitCode int `json:"exitCode"`
	// Agent is the agent whose protocol the answer is in; "" for
	// luahook's own format.
	Agent string `json:"agent,omitempty"`
	// Cause says why the answer is not the policies' decision: "read"
	// (the payload was not read whole: a body serve did not take too),
	// "decode" (it did not decode), "load" (a policy has no version in
	// force: a broken or untrusted hooks folder), "interrupted", "server"
	// (the server fire --http or --socket asked did not answer, and fire
	// answered itself), "overloaded" (serve waited in vain for the
	// request's turn); "" when the policies decided.
	Cause string `json:"cause,omitempty"`
	// Reason is the reason the answer gave when it was not the policies'
	// decision (a fail-closed block's), or the error when nothing was
	// answered.
	Reason string `json:"reason,omitempty"`
	// Note says what of the policies' decision could not be delivered as
	// decided ("ask delivered as deny: codex has no ask on PreToolUse", a
	// rewrite's reason or added context the agent has no field for).
	Note string `json:"note,omitempty"`
}
