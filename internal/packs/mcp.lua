-- mcp: allows only the MCP servers and tools on a list; the rest are asked about, or denied by default
--
-- What it stops: calls to MCP tools (any tool with the "mcp" capability)
-- that SETTINGS.allow does not list. An entry is "server" (every tool of
-- the server) or "server/tool", where both parts are globs ("github/get_*",
-- "*/search_*"), compared case-insensitively. SETTINGS.deny lists calls
-- that are denied even when allowed (destructive tools on any server).
-- An unlisted call is asked about (the user decides), or denied when
-- SETTINGS.deny_by_default is true.
--
-- Why: an MCP server is code and credentials the agent can reach with a
-- tool call; a server added for one task (or by a project's config) should
-- not silently gain write access to a tracker, a database or a cloud.
--
-- Settings (SETTINGS below): allow, deny, deny_by_default.
--
-- Tool names: mcp__server__tool (Claude Code, Codex, Copilot's
-- PascalCase hooks), mcp_server_tool (Gemini CLI), server-tool (Copilot
-- CLI), MCP:tool (Cursor). Gemini CLI joins server and tool with one "_",
-- but also names them apart (native.mcp_context), which is read when
-- present: a server "my_server" is then that server. Without it,
-- mcp_a_b_c may be server a (tool b_c) or server a_b (tool c), and
-- Copilot's a-b-c server a (tool b-c) or a-b (tool c): an entry matches if
-- it matches any reading, so a server whose name starts with an allowed
-- server's name and "_" (Copilot: "-") is taken for it (don't configure
-- servers so). Cursor's names carry no server: they match only entries
-- whose server is "*".
--
-- What it cannot know: what a tool does beyond its name, or which account
-- its server acts as. Fails closed: a failure of this hook denies.

local SETTINGS = {
  allow = { "context7", "github/get_*", "github/list_*", "github/search_*", "github/create_issue",
    "playwright" },
  deny = { "*/delete*", "*/*_delete*", "*/drop*", "*/*_drop*", "*/destroy*", "*/*_destroy*", "*/purge*",
    "*/*_purge*", "*/force_push*", "*/*_force_push*" },
  deny_by_default = false,
}

local names = require("names")

local ipairs, type = ipairs, type

-- parse turns the entries into { server = matcher, tool = matcher }.
local function parse(list)
  local out = {}
  for _, e in ipairs(list) do
    local s, t = e:match("^([^/]+)/(.+)$")
    s = s or e
    out[#out + 1] = { any_server = s == "*", server = names.matcher({ s }, true),
      tool = names.matcher({ t or "*" }, true) }
  end
  return out
end
local ALLOW, DENY = parse(SETTINGS.allow), parse(SETTINGS.deny)

-- splits returns every (server, tool) pair rest splits into at one sep.
local function splits(rest, sep)
  local out = {}
  local from = 1
  while true do
    local k = rest:find(sep, from, true)
    if not k then break end
    if k > 1 and k < #rest then out[#out + 1] = { rest:sub(1, k - 1), rest:sub(k + 1) } end
    from = k + 1
  end
  return out
end

-- readings returns the (server, tool) pairs a call may stand for: the
-- server and tool the agent named apart (Gemini CLI's mcp_context), else
-- those its name for the tool may stand for.
local function readings(name, agent, server, tool)
  if type(server) == "string" and server ~= "" and type(tool) == "string" and tool ~= "" then
    return { { server:lower(), tool:lower() } }
  end
  local l = name:lower()
  local s, t = l:match("^mcp__(.-)__(.+)$")
  if s and s ~= "" then return { { s, t } } end
  local rest = l:match("^mcp_(.+)$")
  if rest then return splits(rest, "_") end
  t = l:match("^mcp:(.+)$")
  if t then return { { nil, t } } end
  if agent ~= "cursor" and l:find("-", 1, true) then return splits(l, "-") end
  return { { nil, l } }
end

local function matches(entries, pairs_)
  for _, e in ipairs(entries) do
    for _, p in ipairs(pairs_) do
      -- the tool first: most entries name a server every call has
      if e.tool(p[2]) and (e.any_server or (p[1] ~= nil and e.server(p[1]))) then return true end
    end
  end
  return false
end

hook.register("PreToolUse", "@mcp", function(input)
  local name = input.toolName or ""
  local native = input.native
  local ctx = type(native) == "table" and native.mcp_context or nil
  local server, tool
  if type(ctx) == "table" then server, tool = ctx.server_name, ctx.tool_name end
  local r = readings(name, input.agent, server, tool)
  if matches(DENY, r) then
    return hook.deny("mcp guard: the MCP tool " .. name .. " is on the deny list (it destroys data). " ..
      "Tell the user what you wanted to do and let them do it.")
  end
  if matches(ALLOW, r) then return nil end
  if SETTINGS.deny_by_default then
    return hook.deny("mcp guard: the MCP tool " .. name .. " is not on the allow list. Use an allowed " ..
      "tool, or ask the user to add this one to the mcp pack's allow list.")
  end
  return hook.ask("mcp guard: the MCP tool " .. name .. " is not on the allow list; the user decides.")
end, { name = "mcp-allowlist", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
