package decisionlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/jsontext"
	"github.com/luahook/luahook/ledger"
	"github.com/luahook/luahook/runner"
)

// pending is what the decision's path copies of one decision for the writer:
// the payload, with every byte the caller may reuse copied (the caller may
// fire its next event with the same Input and Result: FireInto), and the
// result with its trace. Strings are immutable and shared; the hooks'
// failures, and the outcomes not held in the trace's entries (copied with
// them: runner.AppendTrace), are the runner's, never changed after it
// returns.
type pending struct {
	at   time.Time
	in   luahook.Input
	tr   luahook.ToolResult
	co   luahook.Compaction
	sa   luahook.Subagent
	no   luahook.NotificationInfo
	caps []string
	raw  []byte // the copies of toolInput and native
	res  runner.Result
	hook []runner.HookTrace
	lg   []ledger.Entry // the decision's ledger calls (runner.Result.Ledger)

	noInput      bool      // the payload was not read or decoded: no input
	hasDelivered bool      // the answer is known (Logger.Deliver)
	delivered    Delivered // what the answer carried

	size      int    // the payload's size (luahook.Input.Size)
	truncated bool   // larger than the log keeps: only the digest is kept
	digest    string // set when truncated
	cost      int64  // what it holds in the queue, in bytes
}

// recordOverhead is what a queued record costs besides its payload.
const recordOverhead = 512

// entryOverhead is what a ledger entry costs besides its detail.
const entryOverhead = 256

var pendings = sync.Pool{New: func() any { return new(pending) }}

// capture copies what the record of (in, res) needs.
func capture(in *luahook.Input, res *runner.Result, maxInput int) *pending {
	p := pendings.Get().(*pending)
	p.at = time.Now()
	p.size = in.Size()
	p.res = *res
	p.res.Trace = nil
	p.hook = runner.AppendTrace(p.hook[:0], res.Trace...)
	p.cost = recordOverhead + int64(len(p.hook))*recordOverhead
	p.lg = append(p.lg[:0], res.Ledger...)
	p.res.Ledger = nil
	for i := range p.lg {
		p.cost += entryOverhead + int64(len(p.lg[i].Detail))
	}
	if p.size > maxInput {
		// Only the identity of the payload is kept; its digest is taken
		// now, as the payload may change once the decision returns.
		p.truncated = true
		if data, err := payloadJSON(in); err == nil {
			p.digest = digest(data)
		}
		p.in = luahook.Input{Event: in.Event, ToolName: in.ToolName, Cwd: in.Cwd, SessionID: in.SessionID, Agent: in.Agent}
		return p
	}
	p.truncated, p.digest = false, ""
	p.cost += int64(p.size)
	p.in = *in
	p.raw = append(p.raw[:0], in.ToolInput...)
	p.raw = append(p.raw, in.Native...)
	if in.ToolInput != nil {
		p.in.ToolInput = p.raw[:len(in.ToolInput):len(in.ToolInput)]
	}
	if in.Native != nil {
		p.in.Native = p.raw[len(in.ToolInput):]
	}
	if in.ToolCapabilities != nil {
		p.caps = append(p.caps[:0], in.ToolCapabilities...)
		p.in.ToolCapabilities = p.caps
	}
	if in.ToolResult != nil {
		p.tr, p.in.ToolResult = *in.ToolResult, &p.tr
	}
	if in.Compaction != nil {
		p.co, p.in.Compaction = *in.Compaction, &p.co
	}
	if in.Subagent != nil {
		p.sa, p.in.Subagent = *in.Subagent, &p.sa
	}
	if in.Notification != nil {
		p.no, p.in.Notification = *in.Notification, &p.no
	}
	return p
}

// release returns p to the pool, unless it grew large.
func (p *pending) release() {
	if cap(p.raw) > 64<<10 || cap(p.hook) > 256 || cap(p.lg) > 2*ledger.MaxJournalEntries {
		return
	}
	clear(p.hook)
	clear(p.lg)
	clear(p.caps)
	p.in, p.res = luahook.Input{}, runner.Result{}
	pendings.Put(p)
}

// maxKeptBuffer bounds the buffers the builder and the masker keep for
// the next record: one huge payload does not pin its buffer forever.
const maxKeptBuffer = 1 << 20

// builder turns pendings into Records on the writer goroutine. It reuses
// its buffers (the payload's JSON, the hooks, the outcomes, the files)
// record after record, so that the writer makes little garbage for the GC
// to chase while decisions run: a sink must not keep a Record it is given
// (Func hands the host a copy).
type builder struct {
	instance  string // every record's Instance
	rec       Record
	lg        []ledger.Entry
	delivered Delivered
	payload   bytes.Buffer
	enc       *json.Encoder
	hooks     []Hook
	outcomes  []luahook.Outcome
	files     map[string]string
}

// payloadJSON writes in's JSON (as json.Marshal writes it, which the digest
// covers) into the builder's buffer and returns it, valid until the next call.
func (b *builder) payloadJSON(in *luahook.Input) ([]byte, error) {
	if b.payload.Cap() > maxKeptBuffer {
		b.payload = bytes.Buffer{}
		b.enc = nil
	}
	b.payload.Reset()
	if b.enc == nil {
		b.enc = json.NewEncoder(&b.payload)
	}
	if err := b.enc.Encode(in); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.payload.Bytes(), []byte("\n")), nil
}

// record builds the Record of p and masks it (maskRecord): masking happens
// here, off the decision's path. The Record, and the memory it points to,
// are the builder's, valid until the next call.
func (b *builder) record(p *pending, m *masker) *Record {
	r := &b.rec
	*r = Record{
		Time:           p.at.UTC(),
		LuahookVersion: luahook.Version,
		Instance:       b.instance,
		Agent:          p.in.Agent,
		SessionID:      p.in.SessionID,
		Event:          p.in.Event,
		ToolName:       p.in.ToolName,
	}
	if p.noInput {
		r.InputDigest, r.Input = "", json.RawMessage("null")
	} else if p.truncated {
		r.Truncated, r.InputBytes, r.InputDigest, r.Input = true, p.size, p.digest, json.RawMessage("null")
	} else if data, err := b.payloadJSON(&p.in); err != nil {
		r.InputDigest, r.Input = "", json.RawMessage("null")
	} else {
		r.InputDigest, r.Input = digest(data), data
	}
	if cap(b.hooks) < len(p.hook) {
		b.hooks = make([]Hook, len(p.hook))
	}
	r.Hooks = b.hooks[:len(p.hook)]
	clear(b.files)
	// The outcomes are copied: the hooks' are held in p, which goes back to
	// its pool before the sink writes the record.
	if cap(b.outcomes) < len(p.hook)+1 {
		b.outcomes = make([]luahook.Outcome, len(p.hook)+1)
	}
	outcomes := b.outcomes[:len(p.hook)+1]
	for i := range p.hook {
		t := &p.hook[i]
		r.Hooks[i] = Hook{
			Name: t.Name, Source: t.Source, Kind: t.Kind, Version: t.Version, Mode: string(t.Mode),
			Skipped: t.Skipped, DurationMs: float64(t.Duration.Microseconds()) / 1000,
		}
		if t.Outcome != nil {
			// a redaction's literal text is the secret itself
			outcomes[i] = *t.Outcome.Masked()
			r.Hooks[i].Outcome = &outcomes[i]
		}
		if f := t.Failure; f != nil {
			// The kind and the message: the cause (Err) is not the record's.
			r.Hooks[i].Failure = &luahook.Failure{Kind: f.Kind, Message: f.Message}
		}
		if t.Version != "" {
			if b.files == nil {
				b.files = map[string]string{}
			}
			r.Files = b.files
			r.Files[sourceFile(t.Source)] = t.Version
		}
	}
	out := p.res.OutcomeInto(&outcomes[len(p.hook)])
	out.Output = LoggedOutput(out.Output)
	r.Decision = Decision{Action: out.Action, Reason: out.Reason, DecidedBy: p.res.DecidedBy, Outcome: out}
	r.Approval = p.res.Approval
	if p.hasDelivered {
		b.delivered = p.delivered
		r.Delivered = &b.delivered
	}
	if len(p.lg) > 0 {
		// Copied: p goes back to its pool before the sink writes the
		// record.
		b.lg = append(b.lg[:0], p.lg...)
		r.Ledger = b.lg
	}
	m.maskRecord(r)
	if w := p.res.Output; w != nil && len(r.Input) > 0 && string(r.Input) != "null" {
		// What the hooks took out of the tool's output is taken out of
		// the logged payload too: a secret a policy found (by entropy,
		// by a span) may match none of the log's own patterns.
		if in, err := w.ApplyJSON(r.Input); err == nil && !bytes.Equal(in, r.Input) {
			r.Input = in
			r.Masked = append(r.Masked, "toolResult")
		}
	}
	return r
}

// sourceFile is the file of a hook's source, "file:line" without its line.
func sourceFile(source string) string {
	if i := strings.LastIndexByte(source, ':'); i > 0 && isDigits(source[i+1:]) {
		return source[:i]
	}
	return source
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// MaxLoggedOutputBytes is the largest rewritten tool output (a PostToolUse
// decision's replace_output) a record carries as it is; a larger one is
// logged as OutputDigest, which replay compares with the digest of the
// output it decides.
const MaxLoggedOutputBytes = 64 << 10

// LoggedOutput is the output of a decision as a record carries it: raw
// itself up to MaxLoggedOutputBytes, else OutputDigest(raw) as a JSON
// string.
func LoggedOutput(raw json.RawMessage) json.RawMessage {
	if len(raw) <= MaxLoggedOutputBytes {
		return raw
	}
	return jsontext.AppendString(nil, OutputDigest(raw))
}

// OutputDigest stands for an output too large to log: its size and the
// SHA-256 of its JSON text.
func OutputDigest(raw json.RawMessage) string {
	sum := sha256.Sum256(raw)
	return "[luahook: an output of " + strconv.Itoa(len(raw)) + " bytes, sha256:" + hex.EncodeToString(sum[:]) + "]"
}
