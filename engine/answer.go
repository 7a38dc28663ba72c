package engine

import (
	"bytes"
	"context"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/runner"
)

// Reply is the answer to a payload (Engine.Answer): the bytes and exit
// status a command hook would answer with, and what the door may report.
type Reply = pipeline.Reply

// Gate is the engine's fail-closed state as the pipeline every door shares
// applies it: the on-load-error mode in force (choice, or the config's when
// ""), with Undecidable and CloseOver over problems, the ones a one-shot
// door met opening the engine (an untrusted folder, a config it could not
// open, what did not load: Problems). e may be nil (nothing could be
// opened).
func (e *Engine) Gate(choice string, problems []error) pipeline.Gate {
	return e.gateOver(choice, func() []error { return problems })
}

// LiveGate is Gate over what has no version in force at the moment of each
// call (FailClosed), for a door that stays up while the engine reloads
// (serve), and standing: problems the door met opening the engine, which
// no reload lifts (a project folder never trusted).
func (e *Engine) LiveGate(choice string, standing ...error) pipeline.Gate {
	if len(standing) == 0 {
		return e.gateOver(choice, e.FailClosed)
	}
	return e.gateOver(choice, func() []error { return append(e.FailClosed(), standing...) })
}

func (e *Engine) gateOver(choice string, problems func() []error) pipeline.Gate {
	return pipeline.Gate{
		Mode:        e.OnLoadError(choice),
		Undecidable: func() error { return e.Undecidable(problems(), choice) },
		CloseOver: func(res *runner.Result) ([]error, bool, error) {
			return e.CloseOver(res, problems(), choice)
		},
		Record:    e.recordAnswer,
		Recording: func() bool { return e.decisionLogger() != nil },
	}
}

// Answer decides a payload as a door received it and renders the answer,
// exactly as luahook fire and serve do: format is "" for luahook's own
// format (an agent's native payload there is recognised and answered in
// that agent's protocol), "auto", or an agent's name; event names the event
// when the payload does not (the agent's name for it). A payload that does
// not decode is denied, with the agent's block signal, when its event can
// block; while a policy has no version in force an event that can block is
// denied naming the cause; no objection is never written as an allow. The
// Reply's Stdout, Stderr and ExitCode are what a command hook would answer;
// its Err is set only when nothing may be answered (on_load_error =
// "fail", or an undecodable payload on an event that cannot block).
func (e *Engine) Answer(ctx context.Context, format, event string, payload []byte) Reply {
	var res runner.Result
	req := pipeline.Request{Format: format, Event: event, Payload: payload, MaxBytes: e.payloadCap()}
	if len(payload) > luahook.MaxScanBytes {
		// A string of it may be longer than luahook reads of one: cut, as
		// every door cuts what it reads (a tool's output is decided cut;
		// any other payload cut is refused as one over the cap is).
		cut, n, err := pipeline.ReadPayload(bytes.NewReader(payload), len(payload), true, nil, nil)
		if err == nil && n > 0 {
			req.Payload, req.Cut = cut, n
		}
	}
	c := pipeline.Read(req)
	return c.Answer(ctx, e.run, e.LiveGate(""), &res, nil)
}

// payloadCap is the most bytes a payload given to Answer or DecidePayload
// may have: the cap on a hook's input (Options.MaxInputBytes, the config's
// [runner] max_input_bytes, 8 MiB by default), as fire and serve cap the
// payloads they read. 0: none.
func (e *Engine) payloadCap() int {
	n := maxInputBytes(e.opts.MaxInputBytes, e.Config().Runner.MaxInputBytes)
	return max(n, 0)
}
