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
-- Tool names: mcp__server__tool (Claude Code, Codex, Copilot),
-- mcp_server_tool (Gemini CLI), MCP:tool (Cursor). Gemini CLI joins server
-- and tool with one "_", so mcp_a_b_c may be server a (tool b_c) or server
-- a_b (tool c): an entry matches if it matches either reading, so a server
-- whose name starts with an allowed server's name and "_" is taken for it
-- (don't configure servers so). Cursor's names carry no server: they match
-- only entries whose server is "*".
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

local ipairs = ipairs

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

-- readings returns the (server, tool) pairs a tool name may stand for.
local function readings(name)
  local l = name:lower()
  local s, t = l:match("^mcp__(.-)__(.+)$")
  if s and s ~= "" then return { { s, t } } end
  local rest = l:match("^mcp_(.+)$")
  if rest then
    local out = {}
    local from = 1
    while true do
      local k = rest:find("_", from, true)
      if not k then break end
      if k > 1 and k < #rest then out[#out + 1] = { rest:sub(1, k - 1), rest:sub(k + 1) } end
      from = k + 1
    end
    return out
  end
  t = l:match("^mcp:(.+)$")
  if t then return { { nil, t } } end
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
  local r = readings(name)
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
