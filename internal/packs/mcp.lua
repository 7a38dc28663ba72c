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
-- Set them in the config's [packs.mcp] table, over the defaults below.
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

local SETTINGS = hook.settings("mcp", {
  allow = { "context7", "github/get_*", "github/list_*", "github/search_*", "github/create_issue",
    "playwright" },
  deny = { "*/delete*", "*/*_delete*", "*/drop*", "*/*_drop*", "*/destroy*", "*/*_destroy*", "*/purge*",
    "*/*_purge*", "*/force_push*", "*/*_force_push*" },
  deny_by_default = false,
})

local find, sub, lower, match, quote = string.find, string.sub, string.lower, re.match, re.quote
local ipairs, type = ipairs, type

-- Each list is compiled when the pack loads into one regexp per form of
-- reading, so that a call costs a few Go calls whatever the lists hold:
--   pair     "server\0tool": the server and tool the name or mcp_context
--            names (a "\0" in the server is read as "\1", which no entry
--            holds: the first "\0" splits the key);
--   gemini   the whole name mcp_<server>_<tool>: the entry matches if it
--            matches any split of the rest at a "_" into two non-empty parts;
--   copilot  the whole name <server>-<tool>, split at any "-" likewise;
--   tool     a tool alone (Cursor's MCP:tool, a name of no known form):
--            only the entries whose server is "*".
-- In a glob, * stands for any run of characters and ? for one; everything
-- else is literal. Names are lower-cased before they are matched, and the
-- globs when they are compiled.

-- glob_re returns the regexp of glob (not anchored), where any is the
-- regexp of one character a wildcard stands for.
local function glob_re(glob, any)
  local out = {}
  for i = 1, #glob do
    local c = sub(glob, i, i)
    if c == "*" then out[#out + 1] = any .. "*"
    elseif c == "?" then out[#out + 1] = any
    else out[#out + 1] = quote(c) end
  end
  return table.concat(out)
end

-- part_re returns the regexp of glob matching a non-empty part of a split
-- name, or nil when it matches none: only a glob of stars alone matches
-- the empty string, so only those change.
local function part_re(glob)
  if glob:find("^%**$") then
    if glob == "" then return nil end
    return ".+"
  end
  return glob_re(glob, ".")
end

-- compile turns the entries of SETTINGS[which] into { pair = re, gemini =
-- re, copilot = re, tool = re }, false for a form no entry can match.
local function compile(which)
  local alts = { pair = {}, gemini = {}, copilot = {}, tool = {} }
  for _, e in ipairs(SETTINGS[which]) do
    if type(e) ~= "string" then
      error("mcp pack: SETTINGS." .. which .. " holds a " .. type(e) .. "; entries are strings", 0)
    end
    if e:find("[%z\1]") then
      error(string.format("mcp pack: SETTINGS.%s entry %q holds a NUL or \\1 byte", which, e), 0)
    end
    e = e:lower()
    local s, t = e:match("^([^/]+)/(.+)$")
    s, t = s or e, t or "*"
    alts.pair[#alts.pair + 1] = glob_re(s, "[^\\x00]") .. "\\x00" .. glob_re(t, ".")
    local ps, pt = part_re(s), part_re(t)
    if ps and pt then
      alts.gemini[#alts.gemini + 1] = "mcp_(?:" .. ps .. ")_(?:" .. pt .. ")"
      alts.copilot[#alts.copilot + 1] = "(?:" .. ps .. ")-(?:" .. pt .. ")"
    end
    if s == "*" then alts.tool[#alts.tool + 1] = glob_re(t, ".") end
  end
  local out = {}
  for form, list in pairs(alts) do
    local pat = #list > 0 and "(?s)^(?:" .. table.concat(list, "|") .. ")$"
    -- compiled now, so that a list that cannot be (a glob of bytes that
    -- are not UTF-8) stops the load instead of denying every call
    local ok, err = pcall(match, pat or "", "")
    if not ok then error("mcp pack: SETTINGS." .. which .. " cannot be compiled: " .. tostring(err), 0) end
    out[form] = pat
  end
  return out
end
local ALLOW, DENY = compile("allow"), compile("deny")

-- pair_key returns the key of a server and a tool (lower-cased).
local function pair_key(server, tool)
  if find(server, "\0", 1, true) then server = server:gsub("%z", "\1") end
  return server .. "\0" .. tool
end

-- read_name returns the key and form of a tool's name (lower-cased) as a
-- call names it: mcp__server__tool (Claude Code, Codex, Copilot's
-- PascalCase hooks) the shortest non-empty server before a "__"; else
-- mcp_rest (Gemini CLI); else mcp:tool (Cursor); else server-tool
-- (Copilot CLI; never Cursor's); else a tool alone.
local function read_name(l, cursor)
  local n = #l
  if find(l, "mcp_", 1, true) == 1 then
    if find(l, "mcp__", 1, true) == 1 then
      local k = find(l, "__", 6, true)
      if k and k > 6 and k + 2 <= n then return pair_key(sub(l, 6, k - 1), sub(l, k + 2)), "pair" end
    end
    if n > 4 then return l, "gemini" end
  elseif n > 4 and find(l, "mcp:", 1, true) == 1 then
    return sub(l, 5), "tool"
  end
  if not cursor and find(l, "-", 1, true) then return l, "copilot" end
  return l, "tool"
end

hook.register("PreToolUse", "@mcp", function(input)
  local name = input.toolName or ""
  local native, server, tool = input.native, nil, nil
  if native and type(native) == "table" then
    local ctx = native.mcp_context
    if type(ctx) == "table" then server, tool = ctx.server_name, ctx.tool_name end
  end
  local key, form
  if type(server) == "string" and server ~= "" and type(tool) == "string" and tool ~= "" then
    key, form = pair_key(lower(server), lower(tool)), "pair"
  else
    local l = lower(name)
    -- mcp__server__tool with no NUL in the name, the usual spelling, is
    -- read here (read_name reads it the same way): one function call fewer
    local k = find(l, "__", 6, true)
    if k and k > 6 and k + 2 <= #l and find(l, "mcp__", 1, true) == 1 and not find(l, "\0", 1, true) then
      key, form = sub(l, 6, k - 1) .. "\0" .. sub(l, k + 2), "pair"
    else
      key, form = read_name(l, input.agent == "cursor")
    end
  end
  local deny, allow = DENY[form], ALLOW[form]
  if deny and match(deny, key) then
    return hook.deny("mcp guard: the MCP tool " .. name .. " is on the deny list (it destroys data). " ..
      "Tell the user what you wanted to do and let them do it.")
  end
  if allow and match(allow, key) then return nil end
  if SETTINGS.deny_by_default then
    return hook.deny("mcp guard: the MCP tool " .. name .. " is not on the allow list. Use an allowed " ..
      "tool, or ask the user to add this one to the mcp pack's allow list.")
  end
  return hook.ask("mcp guard: the MCP tool " .. name .. " is not on the allow list; the user decides.")
end, { name = "mcp-allowlist", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
