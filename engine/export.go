package engine

import (
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// Names from the packages below the engine that its hosts (the luahook
// command, the REPL, policy tests) handle, so that they need not import
// those packages: a host talks to the engine, the engine to the rest.
type (
	// Runner fires events at the engine's hooks (Engine.Runner).
	Runner = runner.Runner
	// Result is what firing an event decided, with its trace.
	Result = runner.Result
	// Explanation is every hook of an event with why it took part or not,
	// and the Result (Runner.Explain).
	Explanation = runner.Explanation
	// HookExplanation is one hook of an Explanation.
	HookExplanation = runner.HookExplanation
	// HookTrace is what one hook did during a call.
	HookTrace = runner.HookTrace
	// TraceOptions say how Result.RenderTrace writes a trace.
	TraceOptions = runner.TraceOptions
	// Entry is a registered hook, as Engine.RunOrder lists it.
	Entry = registry.Entry
	// LoadError is a hook file that did not load, with its file and line
	// (in Engine.Errors).
	LoadError = luabind.LoadError
	// ConfigError is one problem of a config file, with its file, line and
	// key (in Engine.Errors, split by Engine.Problems).
	ConfigError = config.Error
)
