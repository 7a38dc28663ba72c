package install

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/luahook/luahook/agent"
)

// target is how one agent's hook configuration is written: where it lives,
// its format, the events luahook is called on, and the entry it gets.
type target struct {
	agent agent.Name
	// project and user return the configuration file of each scope.
	project func(dir string) string
	user    func(home string, env func(string) (string, bool)) string
	// comments: the agent reads the file as JSON with comments.
	comments bool
	// groups: hooks.<Event> is a list of {matcher, hooks: [handler...]}
	// groups (Claude Code's shape); else a list of handlers.
	groups bool
	// version: the file's top level has "version": 1.
	version bool
	// events are the agent's own names of the events luahook maps (see
	// package agent), in the order they are written.
	events []string
	// postToolUse is the agent's own name of the event luahook's
	// PostToolUse hooks run on, where they see a tool's output and may
	// rewrite it (one of events).
	postToolUse string
	// eventArg: the payload does not name its event, so the command line
	// does (Copilot's camelCase dialect).
	eventArg bool
	// handler returns the hook entry of one event.
	handler func(o *Options, event string) obj
	// http: the agent's own HTTP hooks fail closed (Claude Code's
	// onFailure), so --http writes them; other agents get the command
	// hook that forwards to the server and blocks when it cannot.
	http bool
	// disabled names a top-level switch that turns every hook off.
	disabled func(root *node) string
}

// canBlock reports whether a Claude Code event is one that luahook blocks
// when it cannot decide (PreToolUse, UserPromptSubmit): the events whose
// handlers fail closed.
func canBlock(event string) bool {
	return event == "PreToolUse" || event == "UserPromptSubmit"
}

var targets = map[agent.Name]*target{
	agent.Claude: {
		agent:   agent.Claude,
		project: func(dir string) string { return filepath.Join(dir, ".claude", "settings.json") },
		user: func(home string, env func(string) (string, bool)) string {
			return filepath.Join(envDir(env, "CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude")), "settings.json")
		},
		groups: true,
		events: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart",
			"Stop", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd"},
		postToolUse: "PostToolUse",
		http:        true,
		handler: func(o *Options, event string) obj {
			var h obj
			switch {
			case o.HTTP != "" && event == "SessionStart":
				// Claude Code runs no HTTP hook on SessionStart ("HTTP
				// hooks are not supported for SessionStart"): a command
				// forwards it to the server (its token from
				// $LUAHOOK_TOKEN, as the HTTP hooks' header), so the
				// session's context still arrives.
				h = obj{{"type", "command"}, {"command", o.command(agent.Claude, "", true)}}
			case o.HTTP != "":
				h = append(obj{{"type", "http"}, {"url", o.HTTP + "/agent/claude"}}, tokenHeader()...)
			default:
				h = obj{{"type", "command"}, {"command", o.command(agent.Claude, "", false)}}
			}
			// onFailure "block" (Claude Code 2.1.295): a hook that cannot
			// start, times out or exits with an unexpected code blocks the
			// action; over HTTP, an unreachable server does.
			if canBlock(event) {
				h = append(h, field{"onFailure", "block"})
			}
			return obj{{"hooks", []any{h}}}
		},
		disabled: switchOn("disableAllHooks"),
	},
	agent.Codex: {
		agent:   agent.Codex,
		project: func(dir string) string { return filepath.Join(dir, ".codex", "hooks.json") },
		user: func(home string, env func(string) (string, bool)) string {
			return filepath.Join(envDir(env, "CODEX_HOME", filepath.Join(home, ".codex")), "hooks.json")
		},
		groups: true,
		// Codex dispatches no PostToolUseFailure.
		events: []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop",
			"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd"},
		postToolUse: "PostToolUse",
		handler: func(o *Options, event string) obj {
			return obj{{"hooks", []any{obj{{"type", "command"}, {"command", o.command(agent.Codex, "", o.HTTP != "")}}}}}
		},
	},
	agent.Copilot: {
		agent:   agent.Copilot,
		project: func(dir string) string { return filepath.Join(dir, ".github", "hooks", "luahook.json") },
		user: func(home string, env func(string) (string, bool)) string {
			return filepath.Join(envDir(env, "COPILOT_HOME", filepath.Join(home, ".copilot")), "hooks", "luahook.json")
		},
		version:  true,
		eventArg: true,
		events: []string{"preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted", "sessionStart",
			"agentStop", "subagentStop", "sessionEnd"},
		postToolUse: "postToolUse",
		handler: func(o *Options, event string) obj {
			return obj{{"type", "command"}, {"bash", o.command(agent.Copilot, event, o.HTTP != "")}}
		},
		disabled: switchOn("disableAllHooks"),
	},
	agent.Cursor: {
		agent:   agent.Cursor,
		project: func(dir string) string { return filepath.Join(dir, ".cursor", "hooks.json") },
		user: func(home string, _ func(string) (string, bool)) string {
			return filepath.Join(home, ".cursor", "hooks.json")
		},
		version: true,
		// preToolUse, not beforeShellExecution and the other before*
		// events, which announce the same calls again: only preToolUse
		// can apply a rewrite.
		events: []string{"preToolUse", "postToolUse", "postToolUseFailure", "beforeSubmitPrompt", "sessionStart",
			"stop", "sessionEnd"},
		postToolUse: "postToolUse",
		handler: func(o *Options, event string) obj {
			return obj{{"command", o.command(agent.Cursor, "", o.HTTP != "")}}
		},
	},
	agent.Gemini: {
		agent:   agent.Gemini,
		project: func(dir string) string { return filepath.Join(dir, ".gemini", "settings.json") },
		user: func(home string, _ func(string) (string, bool)) string {
			return filepath.Join(home, ".gemini", "settings.json")
		},
		comments:    true,
		groups:      true,
		events:      []string{"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd"},
		postToolUse: "AfterTool",
		handler: func(o *Options, event string) obj {
			return obj{{"hooks", []any{obj{{"name", "luahook"}, {"type", "command"}, {"command", o.command(agent.Gemini, "", o.HTTP != "")}}}}}
		},
		disabled: func(root *node) string {
			if hc := member0(root, "hooksConfig"); hc != nil {
				if en := member0(hc, "enabled"); en != nil && en.kind == kindBool && !en.b {
					return "hooksConfig.enabled is false"
				}
			}
			return ""
		},
	},
}

// envDir returns the folder an agent's environment variable names, or def.
func envDir(env func(string) (string, bool), name, def string) string {
	if env != nil {
		if v, ok := env(name); ok && v != "" {
			return v
		}
	}
	return def
}

// switchOn returns a check that the top-level key is true.
func switchOn(key string) func(*node) string {
	return func(root *node) string {
		if v := member0(root, key); v != nil && v.kind == kindBool && v.b {
			return key + " is true"
		}
		return ""
	}
}

// member0 returns the last value of key in object n (what a JavaScript
// reader keeps), nil if none or n is not an object.
func member0(n *node, key string) *node {
	var v *node
	if n != nil && n.kind == kindObject {
		for _, m := range n.members {
			if m.key == key {
				v = m.value
			}
		}
	}
	return v
}

// fireCall finds a luahook command hook in a command line: "fire --agent"
// as words, whatever the executable is called,
// or luahook-fire with "--agent" right after it and a --socket.
var fireCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)fire\s+--agent(\s|=)|luahook-fire['"]?\s+--agent(\s|=).*\s--socket(\s|=)`)
}) // compiled on first use, not at start-up

// ours reports whether handler h is an entry luahook install wrote: a
// command that runs "fire --agent" or "luahook-fire --agent", an HTTP hook that calls a luahook
// server's /agent/NAME path, or (Gemini CLI) a hook named "luahook".
func (t *target) ours(h *node) bool {
	if h.kind != kindObject {
		return false
	}
	for _, key := range []string{"command", "bash"} {
		if c := member0(h, key); c != nil && c.kind == kindString && fireCall().MatchString(c.str) {
			return true
		}
	}
	if ty, u := member0(h, "type"), member0(h, "url"); ty != nil && ty.kind == kindString && ty.str == "http" &&
		u != nil && u.kind == kindString && strings.HasSuffix(strings.TrimRight(u.str, "/"), "/agent/"+string(t.agent)) {
		return true
	}
	if n := member0(h, "name"); t.agent == agent.Gemini && n != nil && n.kind == kindString && n.str == "luahook" {
		return true
	}
	return false
}

// entries returns the entry of every event.
func (t *target) entries(o *Options) []field {
	out := make([]field, len(t.events))
	for i, ev := range t.events {
		out[i] = field{ev, t.handler(o, ev)}
	}
	return out
}

// lookupTarget returns the target of an agent.
func lookupTarget(name agent.Name) (*target, error) {
	t, ok := targets[name]
	if !ok {
		return nil, fmt.Errorf("install: no hook configuration known for agent %q", name)
	}
	return t, nil
}

// SettingsFile is an agent settings file luahook install writes.
type SettingsFile struct {
	Agent agent.Name
	Scope Scope
	// Path is the file: relative to the project folder for Project
	// (".claude/settings.json"), absolute for User.
	Path string
}

// SettingsFiles returns every settings file luahook install writes, for
// each agent it knows: the project's (relative to the project folder) and
// the user's, under home with env's variables that move an agent's folder
// (CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME) followed. Without home,
// only the project files.
func SettingsFiles(home string, env func(string) (string, bool)) []SettingsFile {
	names := make([]string, 0, len(targets))
	for name := range targets {
		names = append(names, string(name))
	}
	slices.Sort(names)
	var out []SettingsFile
	for _, n := range names {
		t := targets[agent.Name(n)]
		out = append(out, SettingsFile{Agent: t.agent, Scope: Project, Path: t.project("")})
		if home != "" {
			out = append(out, SettingsFile{Agent: t.agent, Scope: User, Path: t.user(home, env)})
		}
	}
	return out
}
