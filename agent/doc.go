// Package agent is luahook's protocol layer: one Adapter per coding agent
// (Claude Code, Codex, GitHub Copilot, Cursor, Gemini CLI) that decodes the
// agent's native hook payload into a luahook.Input and encodes luahook's
// answer into exactly what that agent reads. It sits above the contract
// and the runner and below the command line and serve; the runner never
// knows which agent called.
//
// # Using it
//
// A caller (fire --agent, serve's per-agent paths) does:
//
//	a, err := agent.Lookup("claude")          // or agent.Detect(payload) for --agent auto
//	req, err := a.Decode(payload, event)      // event: from the hook config, "" if the payload names it
//	if err != nil {                           // *DecodeError: block, naming the cause
//		var de *agent.DecodeError
//		errors.As(err, &de)
//		ans := a.Block(de.Event, err.Error())
//	}
//	if req.Input == nil {                     // an event with no luahook equivalent
//		ans := a.Encode(req, agent.Decision{}) // no objection
//	}
//	res := runner.Fire(ctx, req.Input)        // req.Input carries agent and native
//	ans := a.Encode(req, agent.FromResult(res))
//
// then writes ans.Stdout to stdout, ans.Stderr to stderr and exits with
// ans.ExitCode (a command hook), or answers 200 with ans.Stdout as the body
// (HTTP: Claude Code's HTTP hooks cannot block with a status code; every
// refusal the adapters write is JSON, so the body alone blocks). Every path
// that cannot reach a decision (undecodable payload, a hook file that does
// not load, a deadline...) answers a.Block(event, reason).
//
// # Decoding
//
// The payload must be one JSON object in which no object, at any depth,
// has a key twice (compared as encoding/json decodes keys), so that a proxy
// and luahook cannot read different payloads; the fields luahook reads must
// have their JSON types; identifiers are held to luahook.Input.CheckLimits.
// Unknown keys are kept: agents add fields in every release, and Native
// carries the payload untouched; the Input of a mapped event carries it too,
// as native (with agent, the adapter's Name), so that a policy can read what
// the contract does not carry. native counts towards the payload's caps. toolName is the agent's own tool name
// (matchers compare it case-insensitively); toolCapabilities comes from the
// one table in capabilities.go (shell, fs.read, fs.write, network, mcp,
// task), so "@shell" matches Bash, Shell, run_shell_command and bash alike.
// The caller caps the payload's size; decoding allocates in proportion to it.
//
// # Decisions
//
// A Decision is NoObjection (nothing is written: the agent's own rules and
// prompts apply), Allow (explicit: it skips the permission prompt in Claude
// Code, Codex and Copilot), Deny, Ask, or Continue (Stop: keep going), with
// a reason, a rewritten tool input (the whole input) with the reasons its
// hooks gave (hook.mutate's second argument), and added context.
// FromResult maps runner.Result: Denied, Asked (hook.ask), Continue (a Stop
// hook's hook.continue), Allowed (an explicit hook.allow(); no objection from
// every hook is NoObjection), the rewrite, its reasons (from the trace) and
// the context.
//
// Every adapter answers each decision with the strongest answer the agent's
// protocol has that approves no more than the hooks did: no objection is
// never an approval, and a rewrite no hook allowed never reaches an agent
// as one. Where an agent or event has no ask, ask is a deny with the
// reason. Where an agent applies a rewrite only with an approval (Codex), or
// cannot ask about one (Codex; Cursor's preToolUse), the call is blocked
// and the reason gives the rewritten call (the command of a shell call,
// else the whole input as JSON; printable, and within
// luahook.MaxReasonChars), for the model to make instead. A rewrite that
// the agent would ignore (and so run the original call) is a denial that
// says why. The rewrite's reason goes wherever the agent reads a reason
// with the answer written (Claude Code's ask and allow, every ask, the
// blocks above), after the ask's own. Parts an event cannot carry are
// dropped, as listed below. testdata/verdicts.md holds every agent's exact
// answer to every verdict on the events luahook install wires.
//
// # Rewritten tool output
//
// On PostToolUse, a decision whose Output is set (the hooks redacted or
// replaced the tool's output, withheld it, or luahook cut it past
// luahook.MaxScanBytes) is answered with the strongest field the agent's
// protocol has that makes the model read the rewritten output and never
// the original: a replacement in the tool's own shape (Claude Code,
// Copilot, Cursor's MCP tools), or a block whose reason the model reads
// in place of the result (Codex, Gemini CLI). Where the agent has none (a
// failed tool's output; Cursor's built-in tools; an output whose shape
// cannot be rebuilt) the model reads the original, and the answer's
// context says what was taken out and not to bring it back
// (luahook.OutputRewrite.Summary), so that it is never repeated on. Every
// answer that carries a rewritten output carries that text too, with the
// hooks' own context after it. OutputSupport tells, per agent, which of
// these the agent does, and from which release (for luahook doctor and
// install); testdata/<agent>/*.outputs holds each agent's exact answer to
// each output action.
//
// Block, on an event that can block, writes the agent's JSON refusal on
// stdout, the reason on stderr, and exits 2 (every agent below blocks on
// exit 2 there); with an unknown event ("" — the payload could not be read)
// it blocks the same way. On an event that cannot block it lets the agent
// proceed: nothing on stdout, exit 0, the reason on stderr.
//
// Facts below carry the research notes' confidence (H: primary source read
// in full; M: primary excerpt or careful secondary source); what the notes
// mark L (uncertain) was left out, and is listed per agent.
//
// # Claude Code (the reference format) — H
//
//	native event        luahook event        answer
//	PreToolUse          PreToolUse           hookSpecificOutput {hookEventName, permissionDecision allow|deny|ask,
//	                                         permissionDecisionReason, updatedInput, additionalContext}
//	PostToolUse         PostToolUse          hookSpecificOutput.additionalContext; rewritten output: updatedToolOutput
//	                                         (updatedMCPToolOutput for MCP tools) in the tool's shape, and additionalContext
//	PostToolUseFailure  PostToolUse (toolResult.isError, content = error)  hookSpecificOutput.additionalContext
//	                                         (a rewritten output: additionalContext only; no replacement there)
//	UserPromptSubmit    UserPromptSubmit     deny/ask: {"decision":"block","reason"}; context: hookSpecificOutput.additionalContext
//	SessionStart        SessionStart         hookSpecificOutput.additionalContext
//	Stop                Stop                 continue: {"decision":"block","reason"} (the reason is the next instruction)
//	SubagentStart/Stop  SubagentStart/Stop (observational; subagent.target = agent_type)   nothing
//	PreCompact/PostCompact  PreCompact/PostCompact (observational; compaction.trigger)     nothing
//	SessionEnd          SessionEnd (observational)                                         nothing
//	anything else       none (PermissionRequest, Notification, Setup, ...): no objection
//
// toolResult.content is tool_response as text (an object as compact JSON).
// hookEventName is always written (without it the output fails validation).
// A rewrite goes out as updatedInput, which Claude Code applies only with a
// permission decision: with Allow it is "allow" (permissionDecisionReason,
// shown to the user, is the rewrite's reason); without one it is "ask" (the
// user sees the rewritten call, and the rewrite's reason, else "luahook
// rewrote this call") rather than an approval the policy did not give; with
// Ask, the ask's reason is followed by the rewrite's. A rewritten output
// goes out as updatedToolOutput (updatedMCPToolOutput for a tool with the
// mcp capability, mcp__ names) in the tool's own output shape, since
// Claude Code drops a replacement of another shape (a plain string for
// Bash; anthropics/claude-code#65403, #68951): tool_response with the
// redactions applied to its strings when the output was only redacted; the
// hooks' value when they replaced it with one; for a text that replaces an
// object (a replaced, withheld or cut output), the object with the text in
// its place (Bash: stdout, stderr empty; MCP content blocks: one text
// block; else its longest string, its other strings redacted). An output
// with no string to hold the text gets the context alone. No
// "decision":"block" goes with it: on PostToolUse it only adds feedback
// beside the output, and it would say that the tool failed. Claude Code
// 2.1.121 was the first to replace a built-in tool's output.
// Dropped: context on Stop, a deny on PostToolUse/SessionStart/Stop
// (their blocking forms are not luahook outcomes), defer, updatedPermissions,
// sessionTitle and the other event-specific outputs.
//
// # Codex — H (output strictness M)
//
// Claude Code's payload and events (turn_id and model added) and answer
// shape, but Codex marks a hook failed — and runs the tool — on any output
// field it does not accept for the event (codex-rs/hooks output_parser.rs:
// no ask; "allow" only with updatedInput, updatedInput only with "allow";
// "deny" only with a reason), so the adapter writes only accepted ones. On
// PreToolUse:
//
//	no objection      nothing
//	allow             "allow" with updatedInput the call's own input (nothing when Codex
//	                  would not take that input back)
//	ask               "deny" with the reason (Codex has no ask)
//	deny              "deny" with the reason
//	rewrite           "deny": Codex applies a rewrite only by approving the call, which
//	                  no hook did; the reason gives the rewrite's reason and the rewritten
//	                  call to make instead (Codex passes it to the model)
//	rewrite + allow   "allow" with updatedInput
//	rewrite + ask     "deny": the ask's reason, the rewrite's, and the rewritten call
//
// A Bash call whose input names apply_patch (a patch given to Codex's
// shell, which Codex applies itself as a file edit) carries fs.write as
// well as shell.
// A rewritten Bash or apply_patch call without a string "command" is denied
// (Codex would fail the hook). Codex reads permissionDecisionReason only
// with "deny", so an allow carries no reason. continue, stopReason and
// suppressOutput are never written. A rewritten output on PostToolUse is
// {"decision":"block","reason"}, which replaces the tool's result on every
// release: the reason is the rewritten output (cut to 10000 characters,
// saying so), then what was taken out; the hooks' context goes as
// additionalContext. updatedToolOutput and updatedMCPToolOutput are never
// written: 0.142.5 rejects updatedToolOutput (openai/codex#31015), a
// rejected field fails the hook and keeps the original output, and no
// release is known to accept them. SubagentStop, PermissionRequest,
// Interrupt and the compaction events: as in Claude Code, or no objection.
//
// # GitHub Copilot — H
//
// Two payload dialects, chosen by how the configuration spells the event.
// camelCase (preToolUse): {sessionId, timestamp, cwd, toolName, toolArgs}
// with no event name (the caller passes it); toolArgs is an object or an
// object written as a JSON string. PascalCase (PreToolUse): Claude Code's
// payload, tool names and events; a payload with hook_event_name is read as
// this dialect. The camelCase dialect names an MCP tool server-tool, with
// nothing else to tell the server (Copilot CLI 1.0.102): a tool name with
// a "-" has the mcp capability. Both get Copilot's flat answer:
//
//	native event (camel / Pascal)            luahook event     answer
//	preToolUse / PreToolUse                  PreToolUse        {permissionDecision allow|deny|ask, permissionDecisionReason, modifiedArgs,
//	                                                           additionalContext}
//	postToolUse / PostToolUse                PostToolUse       {additionalContext} (content = toolResult.textResultForLlm;
//	                                                           isError unless resultType is "success"); rewritten output:
//	                                                           {modifiedResult {resultType, textResultForLlm}, additionalContext}
//	postToolUseFailure / PostToolUseFailure  PostToolUse       {additionalContext} (isError, content = error)
//	userPromptSubmitted / UserPromptSubmit   UserPromptSubmit  deny/ask: {"decision":"block","reason"} (Copilot CLI 1.0.102
//	                                                           blocks the prompt on it with exit 0); context: {additionalContext}
//	sessionStart / SessionStart              SessionStart      {additionalContext}
//	agentStop / Stop                         Stop              continue: {"decision":"block","reason"}
//	subagentStop, sessionEnd                 observational     nothing
//	anything else (permissionRequest, errorOccurred, ...)      no objection
//
// A rewrite without a verdict is modifiedArgs alone (Copilot applies it
// without a permission decision, under its own permission rules); Copilot
// reads permissionDecisionReason only with deny and ask, so the rewrite's
// reason has no field there. An ask about a rewritten call is a deny whose
// reason gives the rewritten call to make instead: Copilot CLI 1.0.102
// asks about the original call and runs it on yes, dropping modifiedArgs.
// Copilot's cloud agent, and the CLI when no one can answer, treat ask as
// deny. Block on a prompt lets it
// proceed: exit 2 is only a warning there.
// Command hooks for preToolUse fail closed on exit 2 and crashes, but a
// timeout always fails open: serve is the way to bound that. Copilot CLI
// 1.0.102 gives the context of preToolUse (after the call's result) and
// of userPromptSubmitted (with the prompt) to the model. A rewritten
// output is modifiedResult in toolResult's shape (the tool's resultType,
// textResultForLlm the rewritten text), with additionalContext saying what
// was taken out; a failed tool's (postToolUseFailure) gets the context
// alone. That Copilot CLI gives modifiedResult to the model is M: an
// extension's was reported shown but not given (github/copilot-cli#3361).
// Dropped: modifiedPrompt. Left out (L):
// whether the PascalCase dialect also reads Claude Code's hookSpecificOutput
// (the flat form is written for both), and whether command hooks expect
// modifiedArgs as a JSON string where toolArgs was one (an object is written).
//
// # Cursor — H (Sep-2026 additions M)
//
//	native event          luahook event     answer
//	preToolUse            PreToolUse        {decision allow|deny, reason, updated_input}; no ask (ask = deny)
//	beforeShellExecution  PreToolUse (toolName "Shell", toolInput {command})
//	                                        {permission allow|deny|ask, user_message, agent_message}
//	beforeMCPExecution    PreToolUse (toolName = tool_name, toolInput = tool_input parsed from its JSON text, capability mcp)
//	                                        as beforeShellExecution
//	beforeReadFile        PreToolUse (toolName "Read", toolInput {file_path})
//	                                        {permission allow|deny, user_message}; no ask (ask = deny)
//	beforeSubmitPrompt    UserPromptSubmit  deny/ask: {"continue":false, user_message}; allow: {"continue":true}
//	postToolUse           PostToolUse       nothing (content = tool_output); rewritten output: {additional_context,
//	                                        updated_mcp_tool_output (MCP tools only)}
//	postToolUseFailure    PostToolUse       nothing (isError, content = error_message); rewritten output: {additional_context}
//	sessionStart          SessionStart      {additional_context}
//	stop                  Stop              continue: {followup_message}
//	sessionEnd            SessionEnd (observational)   nothing
//	anything else (after*, subagent*, preCompact, Tab hooks)   no objection
//
// sessionId is conversation_id (session_id on sessionStart when it is
// absent); cwd is cwd, else workspace_roots[0]. Cursor announces a tool call
// through preToolUse and also through beforeShellExecution,
// beforeMCPExecution or beforeReadFile: configure luahook on one of them,
// or every policy runs twice (luahook install wires preToolUse). Only
// preToolUse can apply a rewrite; on the before* events a rewrite is a
// denial that says so. preToolUse has no ask: an ask is a deny, and an ask
// about a rewritten call a deny whose reason gives the rewritten call. A
// rewrite without a verdict is updated_input alone (Cursor's own
// permission rules apply), its reason dropped. Cursor replaces the output
// of MCP tools only (M): a rewritten output of an MCP tool is
// updated_mcp_tool_output (the hooks' value; else the MCP result as
// tool_output held it, redacted; else {content: [one text block]}). A
// built-in tool's output cannot be replaced: the model reads the original,
// and additional_context (M: Cursor gives it to the model after the tool's
// result, and drops one over 10000 characters) says what was taken out and
// not to repeat it; luahook doctor and install warn of it. Dropped:
// context on every event but sessionStart (beforeSubmitPrompt cannot
// inject it; on postToolUse it goes only with a rewritten output), env.
// With an unknown event, Block writes every
// blocking event's refusal at once (stop reads none of them). Left out (M/L):
// the failClosed option and the MCP:<tool> names of preToolUse are not
// relied on (MCP:<tool> still gets the mcp capability).
//
// # Gemini CLI — H
//
//	native event  luahook event     answer
//	BeforeTool    PreToolUse        {decision allow|deny|ask, reason}, an ask's reason also as systemMessage; rewrite: hookSpecificOutput {hookEventName, tool_input}
//	AfterTool     PostToolUse       hookSpecificOutput.additionalContext (content = tool_response.llmContent; isError when error is set);
//	                                rewritten output: {decision "deny", reason: the rewritten output}, additionalContext
//	BeforeAgent   UserPromptSubmit  deny/ask: {decision "deny", reason}; context: hookSpecificOutput.additionalContext
//	AfterAgent    Stop              continue: {decision "deny", reason} (the reason becomes the next prompt)
//	SessionStart  SessionStart      hookSpecificOutput.additionalContext
//	SessionEnd    SessionEnd (observational)   nothing
//	anything else (BeforeModel, AfterModel, BeforeToolSelection, PreCompress, Notification)   no objection
//
// Gemini CLI merges a rewrite over the call's arguments instead of
// replacing them, so a rewrite that removes a key is a denial that says so.
// Gemini CLI shows reason only with a deny, and on an ask only systemMessage
// (its confirmation's one text, printed as a hook system message by
// gemini -p), so an ask's reason is written in both and a rewrite's reason
// reaches it only with an ask. A deny on AfterTool replaces the tool's
// result (a failed one's too) with its reason: a rewritten output is that
// deny, its reason the rewritten text, whole; what was taken out goes as
// additionalContext.
// Dropped: context on BeforeTool, clearContext, tailToolCallRequest, model
// hooks. MCP tools are mcp_<server>_<tool> (and mcp__ before 2026-03),
// ambiguous when the server's name has a "_"; BeforeTool and AfterTool of
// an MCP tool also carry mcp_context {server_name, tool_name, command,
// args, ...} (0.61.0), which policies read in native (the mcp pack does):
// it must be an object with string server_name and tool_name, and gives
// the call the mcp capability.
// Left out: Gemini CLI's successor, the Antigravity CLI, whose hook
// contract was still changing (L).
//
// # Detect
//
// Detect tells the agents apart by their payloads' top-level keys; see its
// doc for the rules and for the payloads that cannot be told apart
// (Gemini CLI's and Copilot's PascalCase SessionStart: Copilot is picked).
// luahook's own format (a payload with "event", or with none of the agents'
// keys) is not an agent.
package agent
