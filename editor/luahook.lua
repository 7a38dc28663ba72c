---@meta luahook
-- Type annotations for lua-language-server (LuaLS): the luahook hook API, the
-- payload, the outcome and the modules. Point your editor at this folder
-- (hooks.d/.luarc.json does: "workspace.library": ["../editor"]) to get
-- completion, hover docs and type checks in hook files.

---@alias luahook.Event
---| "PreToolUse"       # before a tool runs: deny it or rewrite its input
---| "PostToolUse"      # after a tool returns: add context to its result
---| "UserPromptSubmit" # before a user turn: block it or add context
---| "SessionStart"     # once per session: add context to the system prompt
---| "Stop"             # at the end of every turn: side effects
---| "PreCompact"       # observational
---| "PostCompact"      # observational
---| "SubagentStart"    # observational
---| "SubagentStop"     # observational
---| "SessionEnd"       # observational
---| "Notification"     # observational

---@alias luahook.Action "allow"|"deny"|"mutate"|"ask"|"continue"|"redact"|"replace_output"
---@alias luahook.ContextAs "inline"|"separate"

---@class luahook.ToolResult
---@field content string
---@field isError boolean
---@field cut? integer   bytes withheld past 4 MiB before hooks saw it (content ends with a marker)

---@class luahook.Compaction
---@field trigger "auto"|"manual"|"overflow"|"tool"
---@field aggressive boolean
---@field tokensBefore? integer
---@field tokensAfter? integer

---@class luahook.Subagent
---@field target string
---@field task string
---@field subagentId? string
---@field delegationId? string
---@field mode? "background"|"wait"
---@field ok? boolean
---@field status? string
---@field summary? string
---@field durationMs? integer

---@class luahook.Notification
---@field kind "permission"|"input"
---@field message string
---@field toolName? string

--- The payload, shaped exactly like its JSON form. A fresh table per call:
--- changing it changes nothing unless you return it with hook.mutate.
---@class luahook.Input
---@field event luahook.Event
---@field toolName? string                 PreToolUse, PostToolUse
---@field toolInput? table<string, any>     PreToolUse, PostToolUse: the tool's arguments
---@field toolCapabilities? string[]        when the host declares them
---@field toolMutating? boolean             when the host declares it
---@field toolResult? luahook.ToolResult    PostToolUse
---@field prompt? string                    UserPromptSubmit
---@field compaction? luahook.Compaction    PreCompact, PostCompact
---@field subagent? luahook.Subagent        SubagentStart, SubagentStop
---@field notification? luahook.Notification Notification
---@field cwd string
---@field sessionId? string
---@field agent? string       the agent that sent the payload ("claude", "codex", ...)
---@field native? table      the agent's own payload, untouched

--- What a hook returns. Every field is optional; nil or {} means "no objection".
--- Legacy keys are accepted: decision = "block"|"allow", modifiedInput = {...}.
---@class luahook.Outcome
---@field action? luahook.Action
---@field reason? string                    required with "deny"
---@field input? table<string, any>         required with "mutate": the rewritten tool input
---@field additionalContext? string
---@field contextAs? luahook.ContextAs
---@field output? string|table              required with "replace_output": the tool's new output
---@field redact? luahook.Redaction[]        required with "redact" (hook.redact builds it)
---@field route? "web"                       with "ask": a person on luahook serve --approvals decides
---@field approvers? string[]                with route "web": who may decide (none: anyone serve authenticates)
---@field timeoutMs? integer                 with route "web": how long the call waits (default 300000, at most 600000)

--- One part of a PostToolUse output to take out: a string (that text), or
--- one of pattern (RE2), text, or from and to (string.find's positions in
--- toolResult.content), with a label saying what it is.
---@alias luahook.Redaction string|{pattern?: string, text?: string, from?: integer, to?: integer, label?: string}

--- The second argument of every hook function.
---@class luahook.Runtime
---@field deadline_ms? integer  the call's deadline, in epoch milliseconds
---@field session_id? string
---@field cwd string
---@field name string           the hook's name
---@field event luahook.Event
local Runtime = {}
--- Milliseconds left before the call's deadline.
---@return integer
function Runtime.remaining_ms() end
--- Whether the caller cancelled this call.
---@return boolean
function Runtime.cancelled() end

---@alias luahook.HookFunction fun(input: luahook.Input, rt: luahook.Runtime): luahook.Outcome|nil

---@class luahook.Options
---@field name? string
---@field stage? "mutate"|"validate"          PreToolUse: default "mutate"; PostToolUse: "mutate" joins the output's chain
---@field timeout_ms? integer                  default 5000 (60000 for background); 1 ms to 10 min
---@field failure_policy? "open"|"closed"      default "open"; "closed" denies on failure (PreToolUse, UserPromptSubmit)
---@field policy? boolean                      still runs under --no-hooks
---@field background? boolean                  PostToolUse only: not awaited; context delivered next turn
---@field run_when_tool_skipped? boolean       PostToolUse only

---@class luahook.hook
---@field events table<luahook.Event, luahook.Event>
hook = {}

--- Registers a hook. matcher: nil, "" or "*" for every tool, else "bash|edit"
--- (exact names, case-insensitive). Returns the hook's id.
---@param event luahook.Event
---@param matcher string|nil
---@param fn luahook.HookFunction
---@param opts? luahook.Options
---@return string id
function hook.register(event, matcher, fn, opts) end

--- An explicit allow: several agents (Claude Code, Codex, Copilot) then skip
-- their permission prompt. Return nil for no objection.
---@return luahook.Outcome
function hook.allow() end

-- Hands the tool call to the user (PreToolUse only); a deny from any hook wins.
---@param reason string shown to the user; cut to 2,000 characters
---@return luahook.Outcome
function hook.ask(reason) end

--- Puts the tool call to a person on luahook serve's approvals (PreToolUse
--- only; serve --approvals): the call waits for their decision, and every
--- agent receives an allow or a deny. No decision within timeout_ms denies;
--- so does a runner that serves no approvals. A deny from any hook wins.
---@param opts {reason: string, approvers?: string[], timeout_ms?: integer}
---@return luahook.Outcome
function hook.approve(opts) end

-- Asks the agent to keep going instead of stopping (Stop only).
---@param reason string the agent's next instruction; cut to 2,000 characters
---@return luahook.Outcome
function hook.continue(reason) end

--- Denies the tool call (PreToolUse) or blocks the turn (UserPromptSubmit).
---@param reason string shown to the model; cut to 2,000 characters
---@return luahook.Outcome
function hook.deny(reason) end

--- Rewrites the tool input (PreToolUse, mutate stage). The result is
--- re-validated against the tool's JSON Schema.
---@param input table<string, any>
---@param reason? string
---@return luahook.Outcome
function hook.mutate(input, reason) end

--- Takes parts of the tool's output out before the model reads it
--- (PostToolUse), each replaced by "[redacted: LABEL]". A single entry
--- table may be given instead of a list.
---@param list luahook.Redaction[]|luahook.Redaction
---@param reason? string
---@return luahook.Outcome
function hook.redact(list, reason) end

--- Replaces the tool's whole output (PostToolUse): a string, or a table
--- in the tool's own shape. Every redaction of the chain still applies.
---@param value string|table
---@param reason? string
---@return luahook.Outcome
function hook.replace_output(value, reason) end

--- A guard pack's settings: defaults (a literal table) with the config's
--- [packs.NAME] table merged over it (a table of named entries entry by
--- entry, anything else whole). The config is checked against the shipped
--- pack's defaults when it loads.
---@param name string
---@param defaults table
---@return table
function hook.settings(name, defaults) end

--- Adds context for the model.
---@param text string
---@param as? luahook.ContextAs
---@return luahook.Outcome
function hook.context(text, as) end

---@class luahook.json
---@field null userdata  JSON null (keys with null values survive a round trip)
json = {}
---@param value any
---@return string
function json.encode(value) end
---@param text string
---@return any
function json.decode(text) end
--- Marks t so that it encodes as a JSON array, even when empty.
---@generic T: table
---@param t? T
---@return T
function json.array(t) end
--- Marks t so that it encodes as a JSON object, even when empty.
---@generic T: table
---@param t? T
---@return T
function json.object(t) end
--- "null", "array", "object", "string", "number", "boolean".
---@param value any
---@return string
function json.type(value) end

---@class luahook.log
log = {}
---@param msg string
---@param fields? table<string, any>
function log.debug(msg, fields) end
---@param msg string
---@param fields? table<string, any>
function log.info(msg, fields) end
---@param msg string
---@param fields? table<string, any>
function log.warn(msg, fields) end
---@param msg string
---@param fields? table<string, any>
function log.error(msg, fields) end

--- Go RE2 regular expressions (linear time), compiled once and cached.
---@class luahook.re
re = {}
---@param pattern string
---@param s string
---@return boolean
function re.match(pattern, s) end
--- Whether pattern matches a string in value: value itself, or every
--- string of a table and the tables in it (keys, numbers and booleans
--- aren't strings here), but not a string whose key, or for an element of
--- a list the list's key, is a key of skip. A table nested deeper than 64
--- levels counts as a match.
---@param pattern string
---@param value any
---@param skip? table<string, boolean>
---@return boolean
function re.match_any(pattern, value, skip) end
--- The first match and its captures, or nil.
---@param pattern string
---@param s string
---@return string|nil match
---@return string|nil ...
function re.find(pattern, s) end
---@param pattern string
---@param s string
---@param n? integer at most n matches
---@return string[]
function re.find_all(pattern, s, n) end
--- Replaces matches with a "$1"/"${name}" template or a function's result.
---@param s string
---@param pattern string
---@param repl string|fun(match: string, ...: string): string|nil
---@param n? integer
---@return string result
---@return integer count
function re.gsub(s, pattern, repl, n) end
---@param pattern string
---@param s string
---@param n? integer
---@return string[]
function re.split(pattern, s, n) end
--- A pattern that matches s literally.
---@param s string
---@return string
function re.quote(s) end

--- The process-wide store shared by every state and file: the only way to
--- keep state between calls.
---@class luahook.store
store = {}
---@param key string
---@return string|number|boolean|table|nil
function store.get(key) end
--- Sets key; nil deletes; tables are stored as JSON.
---@param key string
---@param value string|number|boolean|table|nil
---@param ttl_ms? integer
function store.set(key, value, ttl_ms) end
--- Atomically adds delta (default 1) and returns the new value; ttl_ms applies
--- when the key is created.
---@param key string
---@param delta? number
---@param ttl_ms? integer
---@return number
function store.incr(key, delta, ttl_ms) end
---@param key string
function store.delete(key) end

--- Environment variables the config allows ([lua] allow_env).
---@class luahook.env
env = {}
--- The variable's value, or nil when unset; a name the config does not allow is an error.
---@param name string
---@return string|nil
function env.get(name) end

--- Results computed once and handed out as copies ("memo.call(parse, line)").
---@class luahook.memo
memo = {}
--- fn(...)'s results, computed once for the same code of fn and the same
--- arguments (strings, numbers, booleans, nil; at most 16), then copied
--- out of a cache shared by the hook files that load the same lib source.
--- fn must compute its results from its arguments alone; only plain data
--- is kept (tables without metatables).
---@generic R
---@param fn fun(...): R
---@param ... string|number|boolean|nil
---@return R
function memo.call(fn, ...) end

--- The session ledger of the call in progress (its payload's sessionId): marks,
--- counters over windows and the last calls, kept in the store (shared by
--- every replica with Redis), bounded by [store] ledger_max_marks,
--- ledger_max_calls, ledger_max_bytes and ledger_max_age_ms. Only inside a
--- hook call whose payload has a session id; otherwise each function raises.
---@class luahook.session
session = {}

---@class luahook.Mark
---@field label string
---@field detail string
---@field at integer milliseconds since the epoch

---@class luahook.Call
---@field tool string
---@field event string "PostToolUse"
---@field ok boolean false when the tool failed (PostToolUseFailure)
---@field summary string the command, path, URL or query, cut to 256 bytes
---@field digest string the tool and its normalized input, hashed: the same call, the same digest
---@field at integer milliseconds since the epoch

--- Gives the session label (1 to 128 bytes) with detail (cut to 1 KiB), now;
--- marking a label again replaces its detail and time. A new mark past
--- ledger_max_marks or ledger_max_bytes is an error naming the bound.
---@param label string
---@param detail? string
function session.mark(label, detail) end
--- The session's mark of label, or nil.
---@param label string
---@return luahook.Mark|nil
function session.has(label) end
--- Every mark of the session, in the order first made.
---@return luahook.Mark[]
function session.marks() end
--- Adds delta (default 1; 0 reads) to the session's counter name over a fixed
--- window of window_ms (0: the ledger's age), which starts at the first count
--- after the last one ended; returns the total in the window.
---@param name string
---@param window_ms integer
---@param delta? number
---@return number
function session.count(name, window_ms, delta) end
--- Counts each {name, window_ms[, delta]} of counters (1 to 16) as
--- session.count counts it, in order, and returns their totals; with n, also
--- the session's last n calls, as session.calls(n) returns them. One ledger
--- operation (one round trip with Redis) for what would be one each.
---@param counters {[1]: string, [2]: integer, [3]: number?}[]
---@param n? integer
---@return number[] totals
---@return luahook.Call[]|nil calls
function session.counts(counters, n) end
--- The session's last n calls (default: all the ledger keeps), newest last,
--- as PostToolUse reported them.
---@param n? integer
---@return luahook.Call[]
function session.calls(n) end
--- The digest the ledger gives the call in progress (its tool name and its
--- input, keys sorted): compare it with the digest of session.calls().
---@return string
function session.digest() end

--- Read-only facts about the project folder, the payload's cwd, without io:
--- paths are relative to it or absolute below it. '..' out of it, an
--- absolute path elsewhere and a symbolic link whose target is outside it
--- or absolute are refused, saying which rule refused them. Bounded per hook
--- call: 4 MiB read by fs.read, 20,000 entries (one per exists, stat and
--- read, and each entry a glob visits). Only inside a hook call whose
--- payload has a cwd; each call stops at the hook's deadline.
---@class luahook.fs
fs = {}

---@class luahook.Stat
---@field type "file"|"dir"|"link"|"other" a link is itself, not followed; "other": a named pipe, a socket, a device
---@field size integer bytes
---@field mtime integer seconds since the epoch, as os.time counts

--- Whether path names a file, a folder or anything else (links followed,
--- inside the project folder); raises for a path that is refused.
---@param path string
---@return boolean
function fs.exists(path) end
--- What path is, or nil and the reason (no such file, refused).
---@param path string
---@return luahook.Stat|nil
---@return string|nil err
function fs.stat(path) end
--- A regular file's contents, at most max bytes (default 64 KiB, at most
--- 1 MiB); nil and the reason for a larger file, one that is not a regular
--- file (never opened: a named pipe cannot block), a missing or refused one.
---@param path string
---@param max? integer
---@return string|nil
---@return string|nil err
function fs.read(path, max) end
--- The paths that pattern matches below the project folder, relative to it
--- with "/", sorted: at most max (default 256, at most 4096), truncated
--- true when more matched. * ? [class] and \ match within one element, **
--- any number of elements; links are matched, never walked through. A walk
--- visits at most 10,000 entries, and raises past that.
---@param pattern string
---@param max? integer
---@return string[] paths
---@return boolean truncated
function fs.glob(pattern, max) end

-- In *_test.lua files (luahook test):

---@alias luahook.Verdict "none"|"allow"|"deny"|"ask"|"continue"

---@class luahook.Result
---@field event luahook.Event
---@field verdict luahook.Verdict   none: no hook objected, which is not an allow
---@field denied boolean
---@field asked? boolean
---@field allowed? boolean   an explicit hook.allow()
---@field decidedBy? string
---@field approval? {id?: string, digest: string, verdict: "approved"|"denied"|"timeout"|"failed", by?: string, at: string, reason?: string, approvers?: string[], timeoutMs: integer}   the web approval the call waited for
---@field reason? string
---@field input? table<string, any>
---@field additionalContext? string
---@field contextAs? luahook.ContextAs
---@field output? {content: string, value?: table, replaced?: boolean, withheld?: {label: string, count: integer}[], reasons?: string}   PostToolUse: the output the model reads instead of the tool's
---@field trace table[]
---@field outcome table   what `luahook fire` prints

--- Declares a test case.
---@param name string
---@param fn fun()
function test(name, fn) end

--- Fires an event at the loaded hooks.
---@param event luahook.Event
---@param payload? table<string, any>
---@param options? {approval: "approve"|"deny"|"timeout", by?: string, reason?: string}   how a web approval the call asks for is answered (none: it times out)
---@return luahook.Result
function fire(event, payload, options) end

---@class luahook.expect
expect = {}
---@param r luahook.Result
---@param substring? string
function expect.denied(r, substring) end
---@param r luahook.Result
---@param substring? string
function expect.asked(r, substring) end
--- An explicit hook.allow(), and no hook failed.
---@param r luahook.Result
function expect.allowed(r) end
--- No hook objected: no verdict, no rewrite, and no hook failed.
---@param r luahook.Result
function expect.no_objection(r) end
--- Neither denied nor asked (no objection, an allow or a rewrite), and no hook failed.
---@param r luahook.Result
function expect.proceeds(r) end
---@param r luahook.Result
---@param subset? table<string, any>
function expect.mutated(r, subset) end
---@param r luahook.Result
---@param substring string
function expect.context(r, substring) end
--- PostToolUse: the tool's output was rewritten, the new output containing substring.
---@param r luahook.Result
---@param substring? string
function expect.output(r, substring) end
--- PostToolUse: label is among what was taken out of the output.
---@param r luahook.Result
---@param label string
function expect.withheld(r, label) end
--- PostToolUse: the model reads the tool's own output, and no hook failed.
---@param r luahook.Result
function expect.output_kept(r) end
---@param actual any
---@param expected any
---@param msg? string
function expect.eq(actual, expected, msg) end
---@param v any
---@param msg? string
function expect.truthy(v, msg) end
---@param s string|table
---@param sub any
function expect.contains(s, sub) end
