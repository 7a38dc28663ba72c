package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/pipeline"
	"github.com/luahook/luahook/runner"
)

// WholeReason is implemented by a problem whose message is a whole reason,
// saying what to do (an untrusted folder's or file's); FailClosedReason
// names it as it is, and a hook file that failed on one (a lib module not
// trusted) by it.
type WholeReason interface {
	error
	WholeReason()
}

// maxProblemChars bounds each problem a denial names, and
// maxProblemsNamed how many it names: the reason reaches the model.
const (
	maxProblemChars  = 400
	maxProblemsNamed = 5
)

// FailClosedReason words the denial of an event decided while problems
// left part of the policies out: each broken file or config key with its
// file:line and what to do, at most five of them.
func FailClosedReason(problems []error) string {
	var parts []string
	for i, p := range problems {
		if i == maxProblemsNamed {
			parts = append(parts, fmt.Sprintf("and %d more (run luahook check)", len(problems)-i))
			break
		}
		msg := luahook.TruncateChars(p.Error(), maxProblemChars)
		var le *LoadError
		var ce *ConfigError
		var wr WholeReason
		switch {
		case errors.As(p, &le) && errors.As(le.Err, &wr):
			// A hook file that failed on what wraps the reason (a lib
			// module not trusted) is not broken: the reason says what to do.
			parts = append(parts, fmt.Sprintf("policy file %s did not load: %s", filepath.Base(le.Path),
				luahook.TruncateChars(wr.Error(), maxProblemChars)))
		case errors.As(p, &le):
			parts = append(parts, fmt.Sprintf("policy file %s is broken: %s; fix it or remove it", filepath.Base(le.Path), msg))
		case errors.As(p, &ce):
			parts = append(parts, fmt.Sprintf("config %s is broken: %s; fix it", filepath.Base(ce.File), msg))
		case errors.As(p, &wr):
			parts = append(parts, msg)
		default:
			parts = append(parts, "not loaded: "+msg)
		}
	}
	return "luahook denied the action because not every policy loaded: " + strings.Join(parts, "; ") + "."
}

// DeniedFor returns res denied by luahook with reason, after the policies'
// own reason when they denied too. The hook that decided stays only when
// a hook denied.
func DeniedFor(res runner.Result, reason string) runner.Result {
	if res.Denied() && res.Reason != "" {
		reason = res.Reason + "\n" + reason
	}
	if !res.Denied() {
		res.DecidedBy = ""
	}
	res.Verdict = luahook.VerdictDeny
	res.Reason, res.Input = luahook.TruncateReason(reason), nil
	return res
}

// ErrNotDecided is what a door answers under on_load_error = "fail" while
// problems stand: no decision at all.
var ErrNotDecided = errors.New("not decided")

// Undecidable returns an error wrapping ErrNotDecided when the mode in force
// (OnLoadError(choice)) is on_load_error = "fail" and problems stand: a door
// then decides nothing and fires no hook. e may be nil.
func (e *Engine) Undecidable(problems []error, choice string) error {
	if len(problems) > 0 && e.OnLoadError(choice) == OnLoadErrorFail {
		return fmt.Errorf("%w: %d load error(s) (on_load_error fail)", ErrNotDecided, len(problems))
	}
	return nil
}

// CloseOver applies the on-load-error mode (OnLoadError(choice)) to res, a
// result the policies reached while problems (FailClosed's, with any a
// door met before it had an engine, such as an untrusted folder) left part
// of them out. deny (the default): an event that can block is denied,
// FailClosedReason after the policies' own reason, and closed is true (an
// agent's door answers it with the agent's block signal); any other event
// stands, and warn lists the problems. skip: res stands, and warn lists
// them. fail: err is Undecidable's and res must not be used; a door asks
// Undecidable before it fires. e may be nil. Every door calls it, so that a
// policy folder that did not load whole decides alike through each.
func (e *Engine) CloseOver(res *runner.Result, problems []error, choice string) (warn []error, closed bool, err error) {
	if err := e.Undecidable(problems, choice); err != nil || len(problems) == 0 {
		return nil, false, err
	}
	if e.OnLoadError(choice) == OnLoadErrorDeny && res.Event.CanBlock() {
		*res = DeniedFor(*res, FailClosedReason(problems))
		return nil, true, nil
	}
	return problems, false, nil
}

// Decide fires in at the engine's hooks, as Runner().Fire does, and applies
// the engine's fail-closed state to the result (CloseOver with FailClosed
// and the config's on_load_error): while a policy file or the config has no
// version in force, an event that can block is denied, naming the cause.
// It is what a Go host calls for a decision it enforces; an error (only
// under on_load_error = "fail") means nothing was decided.
func (e *Engine) Decide(ctx context.Context, in *luahook.Input) (runner.Result, error) {
	problems := e.FailClosed()
	if err := e.Undecidable(problems, ""); err != nil {
		return runner.Result{Event: in.Event}, err
	}
	res := e.run.Fire(ctx, in)
	_, _, err := e.CloseOver(&res, problems, "")
	return res, err
}

// DecidePayload is Decide for a payload in luahook's own format as a host
// received it: decoded strictly (luahook.DecodePayload); a payload that does
// not decode is denied when the event it names can block
// (runner.Undecided), and is an error otherwise.
func (e *Engine) DecidePayload(ctx context.Context, data []byte) (runner.Result, error) {
	if n := e.payloadCap(); n > 0 && len(data) > n {
		// Over the cap, as fire and serve refuse it: denied when its event
		// can block.
		err := fmt.Errorf("payload larger than %d bytes", n)
		if res, ok := runner.Undecided(luahook.UndecodedEvent(pipeline.Oversize(data)), err); ok {
			return res, nil
		}
		return runner.Result{}, err
	}
	var cut int64
	if len(data) > luahook.MaxScanBytes {
		// Cut as every door cuts what it reads: a tool's output is
		// decided cut, any other payload cut is refused.
		if kept, n, err := pipeline.ReadPayload(bytes.NewReader(data), len(data), true, nil, nil); err == nil && n > 0 {
			data, cut = kept, n
		}
	}
	in, err := luahook.DecodePayload(data)
	if err == nil && cut > 0 {
		err = pipeline.ApplyCut(in, cut)
	}
	if err != nil {
		if res, ok := runner.Undecided(luahook.UndecodedEvent(data), err); ok {
			return res, nil
		}
		return runner.Result{}, err
	}
	return e.Decide(ctx, in)
}
