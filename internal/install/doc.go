// Package install wires luahook into a coding agent's hook configuration:
// it adds (or replaces) luahook's own entries in the agent's settings file
// so that the agent calls luahook on every event package agent maps for
// it, and leaves everything else in the file as it was.
//
// # What is written
//
//	agent    project file                 user file                               events
//	claude   .claude/settings.json        $CLAUDE_CONFIG_DIR or ~/.claude/settings.json   PreToolUse PostToolUse PostToolUseFailure UserPromptSubmit
//	                                                                                      SessionStart Stop SubagentStart SubagentStop PreCompact
//	                                                                                      PostCompact SessionEnd
//	codex    .codex/hooks.json            $CODEX_HOME or ~/.codex/hooks.json       as claude, without PostToolUseFailure (Codex has none)
//	copilot  .github/hooks/luahook.json   $COPILOT_HOME or ~/.copilot/hooks/luahook.json  preToolUse postToolUse postToolUseFailure
//	                                                                                      userPromptSubmitted sessionStart agentStop subagentStop sessionEnd
//	cursor   .cursor/hooks.json           ~/.cursor/hooks.json                    preToolUse postToolUse postToolUseFailure beforeSubmitPrompt
//	                                                                                      sessionStart stop sessionEnd
//	gemini   .gemini/settings.json        ~/.gemini/settings.json                 BeforeTool AfterTool BeforeAgent AfterAgent SessionStart SessionEnd
//
// Each event gets one entry whose command is "<luahook> fire --agent NAME"
// (plus --dir or --config for the user scope, and for Copilot the event's
// name, which its camelCase payloads do not carry). Codex's JSON hooks file
// is written, not config.toml (its documentation lists hooks.json first,
// and its root takes only "description" and "hooks"). Cursor is wired on
// preToolUse only, not also on beforeShellExecution, beforeMCPExecution
// and beforeReadFile, which announce the same calls again (every policy
// would run twice) and cannot apply a rewrite.
//
// Fail-closed settings: Claude Code's entries on PreToolUse and
// UserPromptSubmit carry onFailure "block" (a hook that cannot start,
// times out or exits with an unexpected code blocks the action). Copilot
// fails closed on its own when a preToolUse command crashes or exits
// non-zero (a timeout fails open). Codex, Cursor and Gemini CLI have no
// such setting that the research notes rate as certain: there luahook's
// own exit 2 is what blocks, and Cursor's reported failClosed option is
// not written.
//
// # Over HTTP
//
// With Options.HTTP, Claude Code gets HTTP hooks to URL/agent/claude,
// whose onFailure "block" (on the blocking events) makes an unreachable
// server, a timeout or an error status block the action: Claude Code runs
// the hooks of an event in parallel, so a second, command hook could not
// be a fallback that runs only when the HTTP one fails; it would run every
// policy a second time on every call. The other agents have no HTTP hook
// (Codex, Cursor, Gemini CLI) or one that fails open on an unreachable
// server and needs https (Copilot), so their command hook is
// "<luahook> fire --agent NAME --http URL": fire forwards the payload and
// blocks when it gets no answer.
//
// Every hook shows the server its token, and the file never holds it:
// Claude Code's HTTP hooks carry the header "Authorization: Bearer
// $LUAHOOK_TOKEN" and allowedEnvVars ["LUAHOOK_TOKEN"], which Claude Code
// fills in from its environment; a forwarding command reads $LUAHOOK_TOKEN
// too, or the file Options.TokenFile names (--token-file, in the user's
// own settings only). An http URL is taken only to a loopback address
// (TokenInClear): elsewhere the token would cross the network in clear.
//
// # Agent releases
//
// Options.Requirements states the agent release each setting needs
// (Claude Code's onFailure 2.1.295, its HTTP hooks 2.1.63, Codex's
// hooks.json 0.124.0), and InstalledVersion asks the agent's program on
// PATH for its release, so that luahook install can refuse an agent too
// old to honour what it writes.
//
// # The output firewall
//
// Every agent is wired on its own PostToolUse event (AfterTool,
// postToolUse), where luahook's hooks see a tool's output and can redact
// or replace it. OutputFirewall says what an agent, at a release, does
// with such a rewrite, from the adapters' table (agent.OutputSupport) and
// what is known of its releases (Claude Code replaces a built-in tool's
// output from 2.1.121, and 2.1.121 through 2.1.177 were reported to keep
// Bash's and WebFetch's), and names the gaps where the model still reads
// the tool's own output (Cursor's built-in tools): luahook install warns
// of them, and Check reports them.
//
// # Over a Unix socket
//
// With Options.Socket, every agent's hook (Claude Code's too: it has no
// HTTP hook over a Unix socket) is the command
// "<luahook-fire> --agent NAME [EVENT] --socket PATH", which asks the
// luahook serve --socket PATH and hands anything it cannot use to the
// luahook next to it (which blocks what it cannot decide); Claude Code's
// entries on the blocking events keep onFailure "block".
//
// # Merging
//
// The file is read (at most MaxFileBytes), parsed (JSON; JSON with
// comments for Gemini CLI, which strips them), and changed by splicing
// text into the original: keys, hooks, comments, indentation and line
// endings that are not luahook's stay byte for byte. luahook's entries are
// recognised by their command ("fire --agent" as words, or luahook-fire
// followed by --agent and later a --socket), by an HTTP URL
// ending in /agent/NAME, or (Gemini CLI) by the name "luahook"; each event
// ends with exactly one, appended at the end of its list, and entries that
// install no longer writes are removed. A file that already holds them is
// not touched at all. A file that is not valid, not an object, or whose
// "hooks" is not of the agent's shape is refused with its line and column,
// and nothing is written.
//
// Writing keeps a backup of the file as it was (file + BackupSuffix) and
// replaces both atomically (temporary file, rename), with the file's
// permission bits.
package install
