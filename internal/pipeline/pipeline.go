// Package pipeline is the one path from a payload's bytes to the answer's
// bytes and exit status that every door of luahook takes: `luahook fire`
// (plain and --agent), `serve`'s hook route and agent routes (and so
// luahook-fire's relay through `serve --socket`), and a Go host's
// engine.Engine.Answer. It owns the decisions a door must not make on its
// own: which format a payload is in (luahook's own, or an agent's native
// one, recognised when it was sent to luahook's own door), strict decoding,
// what happens to a payload that cannot be read or decoded (the
// on-load-error mode: deny with the agent's block signal, skip, or fail),
// the fail-closed state of the policies (Gate), and the rendering of the
// verdict. The doors only carry bytes: standard input and output, or an
// HTTP body.
//
// A call has two steps, because a door may need the decoded payload before
// it can decide (fire opens the project its payload's cwd names): Read
// decodes, then Call.Answer decides and renders.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/firstvalue"
	"github.com/luahook/luahook/runner"
)

// The on-load-error modes (engine.OnLoadErrorDeny, ...), which also say what
// becomes of a payload that cannot be decided.
const (
	ModeDeny = "deny" // an event that can block is denied with the cause (the default: "")
	ModeSkip = "skip" // the call proceeds, with a warning
	ModeFail = "fail" // nothing is answered: the door reports an error
)

// Auto is the Format that recognises an agent's payload by its shape, and
// reads anything else as luahook's own.
const Auto = "auto"

// Firer fires a decoded payload at the policies (runner.Runner).
type Firer interface {
	Fire(ctx context.Context, in *luahook.Input) runner.Result
}

// firerInto is a Firer that writes over a Result the caller reuses.
type firerInto interface {
	FireInto(ctx context.Context, in *luahook.Input, res *runner.Result)
}

// unobservedFirer is a Firer that can fire without telling its decision
// observer (runner.Runner.FireUnobserved), for a call whose Gate records
// the answer itself.
type unobservedFirer interface {
	FireUnobserved(ctx context.Context, in *luahook.Input, res *runner.Result)
}

// Gate is the fail-closed state of the policies the Firer fires at: the
// on-load-error mode in force, and the engine's Undecidable and CloseOver
// over the problems that stand. The zero value decides every payload as
// the policies reach it, and denies an undecodable one that can block.
type Gate struct {
	// Mode is the on-load-error mode: ModeDeny (or ""), ModeSkip, ModeFail.
	Mode string
	// Undecidable, asked before any hook runs, returns an error while
	// nothing may be decided (ModeFail with a problem standing).
	Undecidable func() error
	// CloseOver applies the state to a result the policies reached: an
	// event that can block is denied while a policy has no version in
	// force (closed), or the problems are listed as warnings (skip).
	CloseOver func(res *runner.Result) (warn []error, closed bool, err error)
	// Record, when set, receives every answer the call gives (not an
	// event without a luahook equivalent, nor a request for an unknown
	// agent): the decision log's record of what the agent received,
	// written here, after rendering, and not by the runner's observer. A
	// Firer that can fire without its observer (FireUnobserved) does so
	// then; with another Firer only the answers given without firing are
	// recorded, the observer having seen the others.
	Record func(a *Answered)
	// Recording, when set, says whether Record is to be called at all
	// (a decision log is in force), asked once per call: without one the
	// call fires with the observer and renders nothing more.
	Recording func() bool
}

// recording drops Record when Recording says no log is in force.
func (g *Gate) recording() {
	if g.Record != nil && g.Recording != nil && !g.Recording() {
		g.Record = nil
	}
}

func (g *Gate) mode() string {
	if g.Mode == "" {
		return ModeDeny
	}
	return g.Mode
}

// Request is a payload as a door received it.
type Request struct {
	// Format is "" for luahook's own format (an agent's payload sent there
	// is recognised and answered in that agent's protocol), Auto, or an
	// agent's name (agent.Names).
	Format string
	// Event names the event when the door knows it apart from the payload:
	// the agent's name for it (Copilot's routes), or, in luahook's own
	// format, an event that overrides the payload's (fire EVENT).
	Event string
	// Payload is the payload's bytes, as far as they were read.
	Payload []byte
	// ReadErr says why the payload was not read whole (over the size cap,
	// a read that timed out); the payload is then not decided.
	ReadErr error
	// MaxBytes, when positive, caps the payload: a longer one is not
	// decided, as if its reading had stopped at the cap (a door that reads
	// the payload itself caps it as it reads).
	MaxBytes int
	// Cut is how many bytes ReadPayload withheld from the payload's
	// strings longer than luahook.MaxScanBytes. A PostToolUse is decided
	// on what was kept (ToolResult.Cut: the model reads the output cut);
	// any other payload that was cut is not decided, as one over the cap.
	Cut int64
	// CutOver, with Cut, is the door's refusal of a payload longer than its
	// cap, which was within it only for the strings cut: a payload cut that
	// is not decided is refused with it, exactly as it was before strings
	// were cut (nil: CutError).
	CutOver error
}

// ReadPayload reads a payload from r as every door reads one: up to the end
// of the JSON object it starts with (or of r, with whole: an HTTP body, a
// file), every string longer than luahook.MaxScanBytes cut to its first
// bytes and luahook.CutMarker, so that a tool's output of any size is read
// in memory that follows what is kept. It returns how many bytes were
// withheld (Request.Cut); limit caps what is kept, and firstvalue.ErrTooLarge
// comes with the first limit+1 bytes kept. window and keep are buffers the
// door may lend (firstvalue.Cut).
func ReadPayload(r io.Reader, limit int, whole bool, window, keep []byte) ([]byte, int64, error) {
	return firstvalue.ReadCut(r, limit, firstvalue.Cut{Max: luahook.MaxScanBytes, Marker: luahook.CutMarker,
		Keys: OutputKeys, Whole: whole, Window: window, Keep: keep})
}

// OutputKeys are the members of a payload that carry a tool's output, in
// luahook's own format and every agent's: only their strings are cut
// (ReadPayload). Anything else (a tool's input above all) is kept whole,
// and a payload over the cap is refused as it always was: a call is never
// decided on a part of its input.
var OutputKeys = []string{
	"toolResult",    // luahook's own; Copilot's camelCase dialect
	"tool_response", // Claude Code, Codex, Gemini CLI, Copilot's PascalCase dialect
	"tool_output",   // Cursor's postToolUse
	"error",         // a failed tool's error: Claude Code, Copilot
	"error_message", // Cursor's postToolUseFailure
	"output",        // Cursor's afterShellExecution
	"result_json",   // Cursor's afterMCPExecution
}

// OversizeStart is how much of a payload over its cap every door keeps:
// enough to read the event it names (a payload over the cap is not
// decided; one whose event can block is denied).
const OversizeStart = 64 << 10

// Oversize returns the start of a payload over its cap that the door
// keeps (OversizeStart bytes at most).
func Oversize(data []byte) []byte { return data[:min(len(data), OversizeStart)] }

// Cause says why an answer was given without the policies' decision.
type Cause uint8

const (
	CauseNone        Cause = iota // the policies decided (or nothing needed deciding)
	CauseRead                     // the payload could not be read whole
	CauseDecode                   // the payload did not decode
	CauseLoad                     // denied because a policy had no version in force
	CauseInterrupted              // the call was cut short (the context ended)
	CauseServer                   // the server asked in its place did not answer (fire --http)
	CauseOverloaded               // serve waited in vain for the request's turn (its limits)
)

// Call is a decoded payload, ready to be answered.
type Call struct {
	adapter agent.Adapter  // nil: luahook's own format
	areq    *agent.Request // the agent's request (adapter set, decoded)
	in      *luahook.Input // the payload in luahook's contract; nil when undecodable or without equivalent
	event   string         // the agent's event name, or luahook's, for a block
	cause   Cause          // CauseRead, CauseDecode: not decodable
	err     error          // why not
	fmtErr  error          // the request itself is wrong (an unknown agent)
}

// Read decodes req: in its agent's format (req.Format, or the agent
// recognised), else strictly in luahook's own (luahook.DecodeInput, then
// req.Event overriding the event, which must be known).
func Read(req Request) Call {
	if req.MaxBytes > 0 && len(req.Payload) > req.MaxBytes && req.ReadErr == nil {
		req.ReadErr = fmt.Errorf("payload larger than %d bytes", req.MaxBytes)
		req.Payload = Oversize(req.Payload)
	}
	var c Call
	switch req.Format {
	case "":
	case Auto:
		if a, ok := agent.Detect(req.Payload); ok {
			c.adapter = a
		}
	default:
		a, err := agent.Lookup(req.Format)
		if err != nil {
			c.fmtErr = err
			return c
		}
		c.adapter = a
	}
	if c.adapter == nil {
		c.readOwn(req)
		if c.err != nil && req.ReadErr == nil && req.Format == "" {
			if a, ok := agent.Detect(req.Payload); ok {
				// An agent's own payload sent to luahook's own door: answered
				// in that agent's protocol, with its block signal where
				// luahook cannot decide. luahook's own error would read as
				// "proceed" to the agent.
				c = Call{adapter: a}
				c.readAgent(Request{Payload: req.Payload})
			}
		}
	} else {
		c.readAgent(req)
	}
	if req.Cut > 0 && req.ReadErr == nil {
		c.cut(req)
	}
	return c
}

// cut applies what ReadPayload withheld (ApplyCut) to the call: one it
// refuses is not decided, as one over the cap is not.
func (c *Call) cut(req Request) {
	err := c.err
	if err == nil {
		err = ApplyCut(c.in, req.Cut)
	}
	if err == nil {
		return
	}
	if err = req.CutOver; err == nil {
		err = CutError(req.Cut)
	}
	c.in, c.areq, c.cause, c.err = nil, nil, CauseRead, err
}

// ApplyCut applies to a decoded payload (nil: an agent's event without a
// luahook equivalent) the bytes ReadPayload withheld from its strings: a
// PostToolUse is decided on the output cut (ToolResult.Cut: the runner then
// hands the model that output, never the rest no hook read); any other
// payload is refused with CutError, since a decision on a part of its input
// would not be one.
func ApplyCut(in *luahook.Input, cut int64) error {
	switch {
	case cut <= 0:
		return nil
	case in == nil || in.Event != luahook.PostToolUse:
		return CutError(cut)
	case in.ToolResult != nil:
		// The bytes withheld are counted in all, wherever their strings
		// were: a payload's long string is its tool's output.
		in.ToolResult.Cut = cut
	}
	return nil
}

// CutError is why a payload of which cut bytes were withheld is not
// decided: it is larger than luahook reads, as one over the cap is.
func CutError(cut int64) error {
	return fmt.Errorf("payload larger than %d bytes in one string (%d bytes past it); only a tool's output (PostToolUse) is decided cut",
		luahook.MaxScanBytes, cut)
}

func (c *Call) readOwn(req Request) {
	c.event = req.Event
	if req.ReadErr != nil {
		if c.event == "" {
			c.event = string(luahook.UndecodedEvent(req.Payload)) // read as far as it goes
		}
		c.cause, c.err = CauseRead, req.ReadErr
		return
	}
	in, err := luahook.DecodeInput(req.Payload)
	if err == nil {
		if req.Event != "" {
			in.Event = luahook.Event(req.Event)
		}
		switch {
		case in.Event == "":
			err = errors.New(`no event: give EVENT or an "event" key in the payload`)
		default:
			if _, perr := luahook.ParseEvent(string(in.Event)); perr != nil {
				err = fmt.Errorf("payload: %w", perr)
			}
		}
	}
	if err != nil {
		if c.event == "" {
			c.event = string(luahook.UndecodedEvent(req.Payload))
		}
		c.cause, c.err = CauseDecode, err
		return
	}
	c.in, c.event = in, string(in.Event)
}

func (c *Call) readAgent(req Request) {
	c.event = req.Event
	if req.ReadErr != nil {
		c.cause, c.err = CauseRead, req.ReadErr
		return
	}
	r, err := c.adapter.Decode(req.Payload, req.Event)
	if err != nil {
		if de := (*agent.DecodeError)(nil); errors.As(err, &de) {
			c.event = de.Event
		}
		c.cause, c.err = CauseDecode, err
		return
	}
	c.areq, c.in, c.event = r, r.Input, r.Event
}

// Agent returns the adapter of the agent whose protocol the call is answered
// in, nil for luahook's own format.
func (c *Call) Agent() agent.Adapter { return c.adapter }

// Cut returns how many bytes of the tool's output were withheld before the
// hooks saw it (ToolResult.Cut), 0 when none were or the call has no
// tool result: what a door that forwards the payload tells the server
// (relay.CutHeader).
func (c *Call) Cut() int64 {
	if c.in == nil || c.in.ToolResult == nil {
		return 0
	}
	return c.in.ToolResult.Cut
}

// Event returns the event's name as the payload's format names it (the
// agent's, or luahook's), "" when it could not be read.
func (c *Call) Event() string { return c.event }

// Input returns the decoded payload in luahook's contract, nil when it did
// not decode or its event has no luahook equivalent. A door may fill in what
// it knows and the payload left out (fire: the current folder as cwd, a
// --tool name) before Answer.
func (c *Call) Input() *luahook.Input { return c.in }

// Native returns an agent's payload as it was decoded (white space around
// it trimmed), nil for luahook's own format or a payload that did not
// decode.
func (c *Call) Native() []byte {
	if c.areq == nil {
		return nil
	}
	return c.areq.Native
}

// Err returns why the payload could not be decoded (nil when it was).
func (c *Call) Err() error {
	if c.fmtErr != nil {
		return c.fmtErr
	}
	return c.err
}

// Reply is the answer to a call: what the door writes, and what it may
// report or count.
type Reply struct {
	// Stdout, Stderr and ExitCode are the answer as a command hook writes
	// it: luahook's outcome JSON (one line) or the agent's own answer.
	// An HTTP door sends Stdout as the body (an agent's route: with the
	// exit status in a header).
	Stdout   []byte
	Stderr   string
	ExitCode int
	// Err is set when nothing is answered: the payload could not be
	// decided and the mode says fail (or, in luahook's own format, it is
	// not one on an event that can block and the mode is not deny), or
	// the policies may not decide (Gate.Undecidable). Fire exits 1 with
	// it; serve answers 400, or 503 when Unavailable.
	Err         error
	Unavailable bool // Err came from Gate.Undecidable
	// Fired reports that hooks ran: res holds their decision, after the
	// fail-closed state.
	Fired bool
	// Cause says why the answer is not the policies' decision.
	Cause Cause
	// Warn lists the problems the policies ran without (skip), and a
	// payload that was let through undecided (skip).
	Warn []error
}

// Answer decides the call at f under g, into res (overwritten; a door may
// reuse one, FireInto), and renders the answer, appending Stdout to out.
func (c *Call) Answer(ctx context.Context, f Firer, g Gate, res *runner.Result, out []byte) Reply {
	if c.fmtErr != nil {
		return Reply{Err: c.fmtErr}
	}
	g.recording()
	if c.err != nil {
		return c.undecoded(g, out)
	}
	if c.in == nil {
		// An agent's event with no luahook equivalent: no objection,
		// nothing fired.
		return c.agentReply(c.adapter.Encode(c.areq, agent.Decision{}), out, CauseNone)
	}
	if g.Undecidable != nil {
		if err := g.Undecidable(); err != nil {
			r := Reply{Err: err, Unavailable: true}
			c.record(&g, &r, nil, "")
			return r
		}
	}
	// The answer is the Gate's to record when the Firer can fire without
	// its observer; otherwise the observer saw the decision.
	uf, unobserved := f.(unobservedFirer)
	fi, into := f.(firerInto)
	switch {
	case unobserved && g.Record != nil:
		uf.FireUnobserved(ctx, c.in, res)
	case into:
		fi.FireInto(ctx, c.in, res)
		g.Record = nil
	default:
		*res = f.Fire(ctx, c.in)
		g.Record = nil
	}
	if ctx.Err() != nil {
		// Whatever the hooks returned was cut short.
		reason := "luahook was interrupted before it could decide (" + context.Cause(ctx).Error() + ")"
		var r Reply
		if c.adapter != nil {
			r = c.agentReply(c.adapter.Block(c.event, reason), out, CauseInterrupted)
			r.Fired = true // the hooks ran, cut short: a door must not count a decision
		} else {
			r = Reply{Err: errors.New("interrupted: no outcome"), Cause: CauseInterrupted, Fired: true}
		}
		c.record(&g, &r, res, reason)
		return r
	}
	var warn []error
	var closed bool
	// The record keeps the policies' own result next to what was
	// delivered: CloseOver replaces res with the fail-closed denial.
	policies := res
	if g.Record != nil {
		own := *res
		policies = &own
	}
	if g.CloseOver != nil {
		var err error
		if warn, closed, err = g.CloseOver(res); err != nil {
			r := Reply{Err: err, Unavailable: true, Fired: true}
			c.record(&g, &r, policies, "")
			return r
		}
	}
	cause := CauseNone
	if closed {
		cause = CauseLoad
	}
	var r Reply
	switch {
	case c.adapter == nil:
		r = ownReply(res, out)
	case closed:
		// Denied for what did not load: the agent's own block signal.
		r = c.agentReply(c.adapter.Block(c.event, res.Reason), out, cause)
	default:
		r = c.agentReply(c.adapter.Encode(c.areq, agent.FromResult(*res)), out, cause)
	}
	r.Fired, r.Cause, r.Warn = true, cause, warn
	reason := ""
	if closed {
		reason = res.Reason
	}
	c.record(&g, &r, policies, reason)
	return r
}

// undecoded answers a payload that could not be read or decoded, as the
// mode says (Undecided).
func (c *Call) undecoded(g Gate, out []byte) Reply {
	if c.adapter == nil {
		ev := luahook.Event(c.event)
		if g.mode() != ModeDeny || !ev.CanBlock() {
			r := Reply{Err: c.err, Cause: c.cause}
			c.record(&g, &r, nil, "")
			return r
		}
		res, _ := runner.Undecided(ev, c.err)
		r := ownReply(&res, out).with(c.cause)
		c.record(&g, &r, nil, res.Reason)
		return r
	}
	return c.Undecided(g, "luahook could not read the payload ("+c.err.Error()+")", c.cause, out)
}

// Undecided answers an agent's call that luahook could not decide, for
// reason (the payload did not decode; the server fire --http asked did not
// answer), as the mode says: the agent's block signal (deny), let through
// with a warning (skip), or nothing and an error (fail).
func (c *Call) Undecided(g Gate, reason string, cause Cause, out []byte) Reply {
	g.recording()
	var r Reply
	switch g.mode() {
	case ModeSkip:
		r = c.agentReply(agent.Answer{}, out, cause)
		r.Warn = []error{errors.New(reason + "; proceeding (on_load_error skip)")}
	case ModeFail:
		r = Reply{Err: errors.New(reason), Cause: cause}
	default:
		reason = luahook.TruncateReason(reason)
		if w := c.cutOutput(); w != nil {
			// No hook decided on this tool's output, which was cut: the
			// model reads it cut, never the rest no hook could scan.
			r = c.outputReply(w, out, cause)
			break
		}
		r = c.agentReply(c.adapter.Block(c.event, reason), out, cause)
	}
	c.record(&g, &r, nil, reason)
	return r
}

// cutOutput is the output of a PostToolUse call that was cut
// (ToolResult.Cut), as the model is to read it when no hook decided; nil
// for any other call.
func (c *Call) cutOutput() *luahook.OutputRewrite {
	if c.Cut() == 0 || c.in.Event != luahook.PostToolUse {
		return nil
	}
	w, _ := luahook.NewOutputChain(c.in.ToolResult.Content, c.in.ToolResult.Cut).Finish(context.Background())
	return w
}

// outputReply answers a call with the output w for the model and nothing
// else decided.
func (c *Call) outputReply(w *luahook.OutputRewrite, out []byte, cause Cause) Reply {
	if c.adapter == nil {
		res := runner.Result{Event: luahook.PostToolUse, Output: w}
		r := ownReply(&res, out)
		r.Cause = cause
		return r
	}
	return c.agentReply(c.adapter.Encode(c.areq, agent.Decision{Output: w}), out, cause)
}

func (r Reply) with(cause Cause) Reply {
	r.Cause = cause
	return r
}

// agentReply renders an agent's answer.
func (c *Call) agentReply(a agent.Answer, out []byte, cause Cause) Reply {
	return Reply{Stdout: append(out, a.Stdout...), Stderr: a.Stderr, ExitCode: a.ExitCode, Cause: cause}
}

// ownReply renders res in luahook's own format: its outcome as one line of
// JSON; a denial exits 2 with its reason on standard error, as a command
// hook's denial does.
func ownReply(res *runner.Result, out []byte) Reply {
	var o luahook.Outcome
	b, err := res.OutcomeInto(&o).AppendJSON(out)
	if err != nil {
		// An outcome the runner built always encodes; say so if not.
		return Reply{Err: fmt.Errorf("encoding the outcome: %w", err)}
	}
	r := Reply{Stdout: append(b, '\n')}
	if res.Denied() {
		r.Stderr, r.ExitCode = res.Reason+"\n", 2
	}
	return r
}
