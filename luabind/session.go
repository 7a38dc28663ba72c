package luabind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/termtext"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// SessionOptions configure a Session. The zero value is useful: the default
// sandbox and modules of hook files, print to the logger (discarded), a
// private store.
type SessionOptions struct {
	// Options are those of hook files: lib directory, granted libraries,
	// string cap, environment, logger, store. LoadTimeout and MaxStates do
	// not apply to a session.
	Options
	// Name prefixes the ids of the session's registrations ("repl#1").
	// Empty means "session".
	Name string
	// Stdout receives print's output, one line per call. Nil sends it to the
	// logger, as in hook files.
	Stdout io.Writer
}

// Session is one sandboxed Lua state, built like the states of hook files
// (same sandbox, modules, caps and store) but meant for interactive use: the
// REPL and policy tests run code in it piece by piece. Its globals are not
// frozen, and hook.register works at any time: each call adds a live hook
// that runs in the session's state.
//
// The state is used by one caller at a time: Eval, Load, Do, Call and the
// calls of the session's hooks take turns, waiting on their contexts. A hook
// called from Go code that runs inside the session (a function installed with
// Do, calling the runner) borrows the state instead of waiting for it.
type Session struct {
	st   *state
	sem  chan struct{} // held by the outermost user of the state
	name string
	out  io.Writer

	origin string // chunk name of the Eval or Load in progress (state held)

	mu     sync.Mutex // guards the fields below; never held while Lua runs
	hooks  []*sessionHook
	closed bool
}

// sessionHook is a function registered in a session, as a luahook.Hook.
type sessionHook struct {
	s      *Session
	reg    Registration
	index  int    // into the state's fns
	origin string // the chunk that registered it
}

var (
	_ luahook.Hook         = (*sessionHook)(nil)
	_ luahook.ContextBound = (*sessionHook)(nil)
)

// holderKey marks a context derived from one that holds a session's state.
type holderKey struct{}

// holder is a holder of the state: Go code it runs may lend the state to
// nested calls, one at a time, through sem.
type holder struct {
	s   *Session
	sem chan struct{}
}

// NewSession builds a session's sandboxed state.
func NewSession(opts SessionOptions) (*Session, error) {
	name := opts.Name
	if name == "" {
		name = "session"
	}
	o, err := opts.Options.withDefaults()
	if err != nil {
		return nil, err
	}
	sh := &shared{path: name, opts: o, log: o.Logger, store: o.Store, envSet: make(map[string]bool, len(o.AllowEnv))}
	for _, n := range o.AllowEnv {
		sh.envSet[n] = true
	}
	// The options of newState (state.go): a session is built like the
	// states of hook files, without running a chunk and without freezing.
	L := lua.NewState(lua.Options{
		SkipOpenLibs:     true,
		CallStackSize:    callStackSize,
		RegistrySize:     registrySize,
		RegistryMaxSize:  registryMaxSize,
		RegistryGrowStep: registryGrowStep,
	})
	st := &state{L: L, sh: sh, loaded: map[string]lua.LValue{}}
	st.Codec.Init(L, o.MaxInputValues, o.MaxStringBytes)
	st.mods.Init(L, sh.modulesConfig(), &st.Codec, st)
	if err := st.open(); err != nil {
		L.Close()
		return nil, fmt.Errorf("building the Lua sandbox: %w", err)
	}
	st.loading = true // hook.register works at any time
	s := &Session{st: st, sem: make(chan struct{}, 1), name: name, out: opts.Stdout}
	st.mods.Module("hook").RawSetString("register", L.NewFunction(s.register))
	if s.out != nil {
		L.G.Global.RawSetString("print", L.NewFunction(s.print))
	}
	return s, nil
}

// register is hook.register in a session: the file's own, plus a live hook.
func (s *Session) register(L *lua.LState) int {
	n := s.st.hookRegister(L)
	i := len(s.st.regs) - 1
	h := &sessionHook{s: s, reg: s.st.regs[i], index: i, origin: s.origin}
	h.reg.Hook = h
	s.mu.Lock()
	s.hooks = append(s.hooks, h)
	s.mu.Unlock()
	return n
}

// print writes its arguments to the session's output, cut to the string cap
// (modules.PrintText) and escaped for a terminal (termtext).
func (s *Session) print(L *lua.LState) int {
	io.WriteString(s.out, termtext.Block(modules.PrintText(L, s.st.sh.opts.MaxStringBytes))+"\n")
	return 0
}

// Null returns the session's json.null value.
func (s *Session) Null() lua.LValue { return s.st.Null }

// Registrations returns the session's live hooks in registration order.
func (s *Session) Registrations() []Registration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Registration, len(s.hooks))
	for i, h := range s.hooks {
		out[i] = h.reg
	}
	return out
}

// Unregister removes the hook with the given id (as hook.register returned
// it) and reports whether there was one. A removed hook fails with
// luahook.FailRejected if a registry still calls it.
func (s *Session) Unregister(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.hooks)
	s.hooks = slices.DeleteFunc(s.hooks, func(h *sessionHook) bool { return h.reg.ID == id })
	return len(s.hooks) < n
}

// Close closes the state once its current user is done. Later calls fail
// with luahook.FailRejected. Close is idempotent.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.sem <- struct{}{}
	s.st.close()
	<-s.sem // later users get in, and see that the session is closed
}

// acquire waits for the state, or borrows it when ctx descends from a holder
// of this session, and returns the context to run Lua with: it makes the
// caller a holder in turn.
func (s *Session) acquire(ctx context.Context) (inner context.Context, release func(), err error) {
	sem := s.sem
	if h, ok := ctx.Value(holderKey{}).(*holder); ok && h.s == s {
		sem = h.sem
	}
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, contextFailure(ctx, "while waiting for the Lua session (busy)")
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		<-sem
		return nil, nil, luahook.Failf(luahook.FailRejected, "the Lua session %s is closed", s.name)
	}
	return context.WithValue(ctx, holderKey{}, &holder{s: s, sem: make(chan struct{}, 1)}), func() { <-sem }, nil
}

// frame is what a use of the state changes and must put back, so that a
// nested use leaves its holder's call as it found it.
type frame struct {
	ctx, lctx context.Context
	in        *luahook.Input
	name      string
	origin    string
	top       int
}

func (s *Session) save() frame {
	st := s.st
	return frame{ctx: st.ctx, lctx: st.L.Context(), in: st.in, name: st.name, origin: s.origin, top: st.L.GetTop()}
}

func (s *Session) restore(f frame) {
	st := s.st
	st.ctx, st.in, st.name, s.origin = f.ctx, f.in, f.name, f.origin
	if f.lctx != nil {
		st.L.SetContext(f.lctx)
	} else {
		st.L.RemoveContext()
	}
	st.L.SetTop(f.top)
}

// use runs fn with the state held (or borrowed) and the Lua context set.
func (s *Session) use(ctx context.Context, fn func(ctx context.Context) error) (err error) {
	inner, release, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	saved := s.save()
	defer func() {
		if r := recover(); r != nil {
			err = luahook.Failf(luahook.FailError, "%s: panic: %v", s.name, r)
		}
		s.restore(saved)
	}()
	s.st.L.SetContext(inner)
	return fn(inner)
}

// Eval compiles and runs src as a chunk named chunkName, as a Lua prompt
// does, and returns the values it returned, formatted with Format. A line
// starting with "=" evaluates the rest as an expression (Lua 5.1's prompt);
// otherwise src is first tried as "return " + src, so that a bare expression
// prints its value (Lua 5.4's prompt). A chunk that does not compile is a
// *LoadError (Incomplete reports whether more input could complete it); an
// error while running is a *luahook.Failure: FailError with the Lua message
// ("stdin:1: ..."), FailAborted or FailTimeout when ctx ended it.
func (s *Session) Eval(ctx context.Context, chunkName, src string) ([]string, error) {
	chunk, err := s.compilePrompt(chunkName, src)
	if err != nil {
		return nil, err
	}
	var out []string
	err = s.use(ctx, func(ctx context.Context) error {
		s.origin = chunkName
		vals, err := s.run(ctx, chunk)
		for _, v := range vals {
			out = append(out, s.Format(v))
		}
		return err
	})
	return out, err
}

// EvalJSON evaluates a Lua expression and returns its value as JSON text, as
// the json module encodes it.
func (s *Session) EvalJSON(ctx context.Context, chunkName, expr string) ([]byte, error) {
	chunk, err := s.compile(chunkName, []byte("return "+expr))
	if err != nil {
		return nil, err
	}
	var raw []byte
	err = s.use(ctx, func(ctx context.Context) error {
		vals, err := s.run(ctx, chunk)
		if err != nil {
			return err
		}
		if len(vals) == 0 {
			return fmt.Errorf("%s: the expression has no value", chunkName)
		}
		raw, err = s.ToJSON(vals[0])
		raw = slices.Clone(raw)
		return err
	})
	return raw, err
}

// compilePrompt compiles a prompt line: "=expr", an expression, or statements.
func (s *Session) compilePrompt(chunkName, src string) (*Chunk, error) {
	if rest, ok := strings.CutPrefix(src, "="); ok {
		return s.compile(chunkName, []byte("return "+rest))
	}
	if c, err := s.compile(chunkName, []byte("return "+src)); err == nil {
		return c, nil
	}
	return s.compile(chunkName, []byte(src))
}

// compile compiles the session's own code: under the session's options but
// never measured by Options.Coverage, which counts only the lib modules the
// session requires (a policy test is not itself covered).
func (s *Session) compile(chunkName string, src []byte) (*Chunk, error) {
	opts := s.st.sh.opts
	opts.Coverage, opts.DiskCache = nil, nil
	return opts.Compile(chunkName, src)
}

// run calls a compiled chunk in the held state and returns its results.
func (s *Session) run(ctx context.Context, c *Chunk) ([]lua.LValue, error) {
	L := s.st.L
	base := L.GetTop()
	L.Push(L.NewFunctionFromProto(c.proto))
	if err := L.PCall(0, lua.MultRet, nil); err != nil {
		return nil, s.st.callFailure(ctx, err)
	}
	vals := make([]lua.LValue, 0, L.GetTop()-base)
	for i := base + 1; i <= L.GetTop(); i++ {
		vals = append(vals, L.Get(i))
	}
	return vals, nil
}

// Incomplete reports whether err is a syntax error at the end of the input,
// which more lines could complete: an open block, string or parenthesis. It
// is lua.c's test for "<eof>" in the message.
func Incomplete(err error) bool {
	var pe *parse.Error
	return errors.As(err, &pe) && pe.Pos.Line == parse.EOF
}

// Load runs the Lua file at path in the session, as Eval runs a chunk,
// with path as the chunk name. The hooks the file registers replace those a
// previous Load of the same path registered; if the file fails, the hooks it
// registered before failing are dropped and the previous ones stay.
func (s *Session) Load(ctx context.Context, path string) error {
	src, err := regfile.Read(path, int64(s.st.sh.opts.MaxSourceBytes))
	if err != nil {
		return err
	}
	chunk, err := s.compile(path, src)
	if err != nil {
		return err
	}
	s.mu.Lock()
	previous := map[*sessionHook]bool{}
	for _, h := range s.hooks {
		if h.origin == path {
			previous[h] = true
		}
	}
	s.mu.Unlock()
	err = s.use(ctx, func(ctx context.Context) error {
		s.origin = path
		_, err := s.run(ctx, chunk)
		return err
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = slices.DeleteFunc(s.hooks, func(h *sessionHook) bool {
		if h.origin != path {
			return false
		}
		// On success the previous version goes; on failure the new one.
		return previous[h] == (err == nil)
	})
	return err
}

// Do runs fn with the session's state, for Go code that installs globals or
// calls Lua functions. The state's context is a holder context (see
// Session): Go functions fn installs find it with L.Context(), and hooks of
// the session that they cause to be called borrow the state. fn must not
// keep L.
func (s *Session) Do(ctx context.Context, fn func(L *lua.LState) error) error {
	return s.use(ctx, func(context.Context) error { return fn(s.st.L) })
}

// Call calls a Lua function of the session with args, discarding its
// results. Errors are as for Eval.
func (s *Session) Call(ctx context.Context, fn *lua.LFunction, args ...lua.LValue) error {
	return s.use(ctx, func(ctx context.Context) error {
		L := s.st.L
		L.Push(fn)
		for _, a := range args {
			L.Push(a)
		}
		if err := L.PCall(len(args), 0, nil); err != nil {
			return s.st.callFailure(ctx, err)
		}
		return nil
	})
}

// ToJSON encodes a value of the session as compact JSON, as json.encode
// does. The bytes are valid until the next conversion. It must be called
// with the state held: from a function running in the session, or in Do.
func (s *Session) ToJSON(v lua.LValue) ([]byte, error) { return s.st.Enc.Encode(v) }

// FromJSON decodes JSON text into a value of the session, as json.decode
// does. It must be called with the state held, like ToJSON.
func (s *Session) FromJSON(data []byte) (lua.LValue, error) { return s.st.Dec.Decode(data) }

// BoundByContext reports true: the hook returns promptly once ctx is done.
func (h *sessionHook) BoundByContext() bool { return true }

// ValidatesOutcomes reports true, as for hook files' hooks.
func (h *sessionHook) ValidatesOutcomes() bool { return true }

// ScopedToCall reports true, as for hook files' hooks.
func (h *sessionHook) ScopedToCall() bool { return true }

// Call runs the hook's function in the session's state, waiting for the
// state on ctx (or borrowing it, see Session). Failures are those of hook
// files' hooks.
func (h *sessionHook) Call(ctx context.Context, in *luahook.Input) (out *luahook.Outcome, err error) {
	if in == nil {
		return nil, luahook.NoInput()
	}
	if ctx.Err() != nil {
		return nil, contextFailure(ctx, "before the Lua hook started")
	}
	s := h.s
	err = s.use(ctx, func(ctx context.Context) error {
		if !s.live(h) {
			return luahook.Failf(luahook.FailRejected, "hook %s was unregistered", h.reg.ID)
		}
		var err error
		out, _, err = s.st.call(ctx, h.index, hookName(h.reg), in)
		return err
	})
	if err != nil {
		return nil, luahook.AsFailure(err)
	}
	return out, nil
}

func (s *Session) live(h *sessionHook) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.hooks, h)
}
