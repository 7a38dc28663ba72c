package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The attributes of the spans a tracer records (SetTracer). The session id
// is never one of them: only its digest (SessionDigest).
const (
	AttrEvent         = "luahook.event"          // the event fired
	AttrTool          = "luahook.tool"           // its tool, when it has one
	AttrAgent         = "luahook.agent"          // the coding agent whose payload it is
	AttrClient        = "luahook.client"         // the client serve authenticated
	AttrSessionDigest = "luahook.session.digest" // SessionDigest of the session id
	AttrVerdict       = "luahook.verdict"        // none, allow, deny, ask or continue
	AttrAction        = "luahook.action"         // the outcome's action, when there is one
	AttrDecidedBy     = "luahook.decided_by"     // Result.DecidedBy
	AttrHookName      = "luahook.hook.name"      // the hook's name
	AttrHookKind      = "luahook.hook.kind"      // lua, command, http or go
	AttrHookStage     = "luahook.hook.stage"     // mutate or validate (PreToolUse)
	AttrHookMode      = "luahook.hook.mode"      // shadow, when its outcome is not enforced
	AttrHookVerdict   = "luahook.hook.verdict"   // its outcome's action, or "no objection"
	AttrHookFailure   = "luahook.hook.failure"   // the kind of its failure
	AttrCodeFilepath  = "code.filepath"          // the file that registered the hook
	AttrCodeLineno    = "code.lineno"            // the line of its registration
)

// NoObjection is the hook verdict (AttrHookVerdict) of a hook that returned
// no outcome, or one without an action.
const NoObjection = "no objection"

// SetTracer replaces the tracer of the decisions that start afterwards;
// nil turns tracing off. With a tracer, each decision (Fire, FireInto,
// FireUnobserved, Explain) is a span, a child of the span ctx carries, and
// each hook it calls a child span of it whose context the hook is called
// with (an HTTP hook sends it on as traceparent), timed as the hook ran:
// parallel hooks' spans overlap. Background hooks are not traced. It is
// safe to call while events are fired.
func (r *Runner) SetTracer(t trace.Tracer) {
	if t == nil {
		r.tracer.Store(nil)
		return
	}
	r.tracer.Store(&t)
}

// SessionDigest is what a span records of a session id: the first 16 hex
// digits of its SHA-256, enough to tell sessions apart, never the id
// itself. "" for no session.
func SessionDigest(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:8])
}

// fireTraced is decide within a decision span started with t.
func (r *Runner) fireTraced(ctx context.Context, t trace.Tracer, in *luahook.Input, buf []HookTrace) Result {
	ctx, span := t.Start(ctx, decisionSpanName(in), trace.WithAttributes(inputAttrs(in)...))
	res := r.decide(ctx, in, buf)
	endDecision(span, &res)
	return res
}

// decisionSpanName is "<event> <tool>", "<event>" without a tool, and
// "luahook.decision" without a payload.
func decisionSpanName(in *luahook.Input) string {
	switch {
	case in == nil:
		return "luahook.decision"
	case in.ToolName == "":
		return string(in.Event)
	}
	return string(in.Event) + " " + in.ToolName
}

func inputAttrs(in *luahook.Input) []attribute.KeyValue {
	if in == nil {
		return nil
	}
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, attribute.String(AttrEvent, string(in.Event)))
	for _, kv := range [...]struct{ k, v string }{
		{AttrTool, in.ToolName}, {AttrAgent, in.Agent}, {AttrClient, in.Client}, {AttrSessionDigest, SessionDigest(in.SessionID)},
	} {
		if kv.v != "" {
			attrs = append(attrs, attribute.String(kv.k, kv.v))
		}
	}
	return attrs
}

// endDecision records what was decided on the decision's span and ends it:
// status Error when a hook's failure decided a denial (fail closed).
func endDecision(span trace.Span, res *Result) {
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, attribute.String(AttrVerdict, res.Verdict.String()))
	if a := res.Action(); a != "" {
		attrs = append(attrs, attribute.String(AttrAction, string(a)))
	}
	if res.DecidedBy != "" {
		attrs = append(attrs, attribute.String(AttrDecidedBy, res.DecidedBy))
	}
	span.SetAttributes(attrs...)
	if res.Denied() {
		for i := range res.Trace {
			if t := &res.Trace[i]; t.Failure != nil && t.Name == res.DecidedBy {
				span.SetStatus(codes.Error, "denied: hook \""+t.Name+"\" failed ("+string(t.Failure.Kind)+")")
				break
			}
		}
	}
	span.End()
}

// invokeTraced is invoke's call of a hook within a span started with t at
// start; the hook is called with the span's context.
func (r *Runner) invokeTraced(ctx context.Context, t trace.Tracer, start time.Time, e *registry.Entry, tmpl *luahook.Input, tr *HookTrace) (*luahook.Outcome, *luahook.Failure) {
	hctx, span := t.Start(ctx, "hook "+e.Name, trace.WithTimestamp(start), trace.WithAttributes(hookAttrs(e)...))
	out, f := call(hctx, start, e, tmpl, r.maxInput.Load(), &tr.own)
	tr.Duration = time.Since(start)
	tr.Outcome = out
	verdict := NoObjection
	if out != nil && out.Action != "" && f == nil {
		verdict = string(out.Action)
	}
	span.SetAttributes(attribute.String(AttrHookVerdict, verdict))
	if f != nil {
		span.SetAttributes(attribute.String(AttrHookFailure, string(f.Kind)))
		// The kind only: a failure's message may quote the payload.
		span.SetStatus(codes.Error, "hook failed ("+string(f.Kind)+")")
	}
	span.End(trace.WithTimestamp(start.Add(tr.Duration)))
	if f != nil {
		tr.Failure = f
		r.logFailure(ctx, tmpl.Event, e, f, false)
		return nil, f
	}
	return out, nil
}

func hookAttrs(e *registry.Entry) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, attribute.String(AttrHookName, e.Name), attribute.String(AttrHookKind, string(e.Kind)))
	if e.Stage != "" {
		attrs = append(attrs, attribute.String(AttrHookStage, string(e.Stage)))
	}
	if e.Mode == luahook.ModeShadow {
		attrs = append(attrs, attribute.String(AttrHookMode, string(e.Mode)))
	}
	if file, line, ok := sourceLine(e.Source); ok {
		attrs = append(attrs, attribute.String(AttrCodeFilepath, file), attribute.Int(AttrCodeLineno, line))
	} else if e.Source != "" {
		attrs = append(attrs, attribute.String(AttrCodeFilepath, e.Source))
	}
	return attrs
}

// sourceLine splits a "file:line" source.
func sourceLine(src string) (file string, line int, ok bool) {
	i := strings.LastIndexByte(src, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return src[:i], n, true
}
