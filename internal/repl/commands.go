package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/policytest"
)

// commands lists the prompt's commands, in the order :help shows them.
var commands = []struct{ name, args, help string }{
	{"fire", "EVENT [PAYLOAD]", "run a payload (JSON, or a Lua table) through every hook; print the outcome"},
	{"explain", "EVENT [PAYLOAD]", "run a payload as :fire does; show every hook of the event, why it matched or not, what it did, who decided"},
	{"list", "", "list the registered hooks in the order they run"},
	{"load", "FILE", "run a Lua file here; its hooks replace those of its previous :load"},
	{"unregister", "ID", "remove a hook registered at the prompt (the id hook.register returned)"},
	{"reload", "", "reload the config and the hooks folder"},
	{"trace", "[on|off]", "print each hook's outcome and duration after :fire"},
	{"help", "", "show this help"},
	{"quit", "", "leave (Ctrl-D too)"},
}

// command runs a ":name args" line and reports whether the prompt should end.
func (r *repl) command(ctx context.Context, line string) (quit bool) {
	name, args, _ := strings.Cut(strings.TrimPrefix(line, ":"), " ")
	args = strings.TrimSpace(args)
	var err error
	switch name {
	case "quit", "q", "exit":
		return true
	case "fire":
		err = r.fire(ctx, args)
	case "explain":
		err = r.explain(ctx, args)
	case "list":
		err = r.list()
	case "load":
		err = r.load(ctx, args)
	case "unregister":
		err = r.unregister(args)
	case "reload":
		err = r.reload(ctx)
	case "trace":
		err = r.setTrace(args)
	case "help", "h", "?":
		r.help()
	default:
		err = fmt.Errorf(":%s: unknown command (:help lists them)", name)
	}
	if err != nil {
		r.report(err)
	}
	return false
}

func (r *repl) help() {
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(tw, "  :%s %s\t%s\n", c.name, c.args, c.help)
	}
	tw.Flush()
	fmt.Fprint(r.out, `Lua (the sandbox and modules of hook files):
  =EXPR, or EXPR alone     print the value; tables are pretty-printed
  hook.register(event, matcher, fn[, opts])
                           a live hook: :fire and fire() run it with the others
  fire(event[, payload])   run a payload through every hook; returns the result table
  expect.denied(r[, text])  expect.asked(r[, text])  expect.allowed(r)  expect.no_objection(r)
  expect.proceeds(r)  expect.mutated(r[, input])  expect.context(r, text)
  expect.eq(a, b)  expect.truthy(v)  expect.contains(s, sub)      as in *_test.lua files
  json, log, re, store, env, require                                as in hook files
Keys: Tab completes, Ctrl-C interrupts (or clears the line), Ctrl-D quits.
`)
}

// fire is :fire EVENT [PAYLOAD] (see payload): it prints the outcome.
func (r *repl) fire(ctx context.Context, args string) error {
	in, err := r.payload(ctx, "fire", args)
	if err != nil {
		return err
	}
	var res engine.Result
	err = r.interruptible(ctx, func(ctx context.Context) error {
		res = r.eng.Runner().Fire(ctx, in)
		return nil
	})
	if err != nil {
		return err
	}
	if r.trace {
		res.RenderTrace(r.out, engine.TraceOptions{Indent: "  ", OutcomeJSON: true})
	}
	out, err := json.Marshal(res.Outcome())
	if err != nil {
		return err
	}
	// Escaping the C1 controls and direction overrides that JSON leaves as
	// they are keeps the line valid JSON with the same meaning.
	fmt.Fprintf(r.out, "%s\n", termtext.Line(string(out)))
	return nil
}

// explain is :explain EVENT [PAYLOAD]: the payload of :fire, fired the
// same way, shown as luahook explain shows it.
func (r *repl) explain(ctx context.Context, args string) error {
	in, err := r.payload(ctx, "explain", args)
	if err != nil {
		return err
	}
	var x engine.Explanation
	err = r.interruptible(ctx, func(ctx context.Context) error {
		x = r.eng.Runner().Explain(ctx, in)
		return nil
	})
	if err != nil {
		return err
	}
	return x.Render(r.out)
}

// payload reads the EVENT [PAYLOAD] arguments of :fire and :explain (cmd).
// The payload is JSON, or a Lua expression giving a table; the event name
// is case-sensitive, as everywhere.
func (r *repl) payload(ctx context.Context, cmd, args string) (*luahook.Input, error) {
	name, payload, _ := strings.Cut(args, " ")
	if name == "" {
		return nil, fmt.Errorf(":%s EVENT [PAYLOAD]: which event?", cmd)
	}
	event, err := luahook.ParseEvent(name)
	if err != nil {
		return nil, err
	}
	raw := []byte(strings.TrimSpace(payload))
	switch {
	case len(raw) == 0:
		raw = []byte("{}")
	case !json.Valid(raw):
		raw, err = r.sess.EvalJSON(ctx, "payload", string(raw))
		if err != nil {
			return nil, fmt.Errorf("the payload is neither JSON nor a Lua table: %w", err)
		}
	}
	in, err := policytest.ParsePayload(raw)
	if err != nil {
		return nil, err
	}
	in.Event = event
	defaults(in)
	return in, nil
}

func (r *repl) list() error {
	hooks := r.eng.Listing()
	if len(hooks) == 0 {
		fmt.Fprintln(r.out, "no hooks registered")
		return nil
	}
	return engine.WriteListing(r.out, hooks, engine.ListingOptions{Short: true})
}

func (r *repl) load(ctx context.Context, path string) error {
	if path == "" {
		return errors.New(":load FILE: which file?")
	}
	err := r.interruptible(ctx, func(ctx context.Context) error { return r.sess.Load(ctx, path) })
	r.sync()
	if err != nil {
		return err
	}
	fmt.Fprintf(r.out, "loaded %s; %d hook(s) registered at the prompt\n", path, len(r.synced))
	return nil
}

func (r *repl) unregister(id string) error {
	if !r.sess.Unregister(id) {
		return fmt.Errorf(":unregister %s: no such hook registered at the prompt", id)
	}
	r.sync()
	return nil
}

func (r *repl) reload(ctx context.Context) error {
	if !r.hasFolder() {
		return errors.New(":reload: no hooks folder is loaded")
	}
	err := r.eng.Reload(ctx)
	fmt.Fprintf(r.out, "reloaded %s: %d hooks\n", r.eng.Dir(), r.eng.Stats().Hooks)
	return err
}

func (r *repl) setTrace(arg string) error {
	switch arg {
	case "on":
		r.trace = true
	case "off":
		r.trace = false
	case "":
		r.trace = !r.trace
	default:
		return fmt.Errorf(":trace %s: want on or off", arg)
	}
	state := "off"
	if r.trace {
		state = "on"
	}
	fmt.Fprintln(r.out, "trace", state)
	return nil
}
