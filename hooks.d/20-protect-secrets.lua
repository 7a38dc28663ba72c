-- Keeps the agent away from files that hold secrets: .env files, private keys,
-- cloud and git credentials. A tool call that touches such a path is denied:
-- every path-like argument of every tool (read, write, edit, grep, glob, a
-- notebook edit...), and every word and redirection of a shell command, read
-- by lib/shell.lua as the shell reads it (quotes, escapes, braces, variables,
-- $(…)). A glob that could match a secret file counts as touching it. Names
-- are compared without regard to case.

-- The builtins the hook calls on every call, as locals: no lookup of a
-- global per call (the reuse analysis trusts them as it trusts the globals).
local type, pairs, ipairs, tostring = type, pairs, ipairs, tostring

local shell = require("shell")

-- What holds secrets (file names, paths, folders) is lib/secrets.lua's
-- files list, shared with the packs.
local secrets = require("secrets")

-- Shell tools by name, when the host does not declare capabilities.
local SHELL_TOOLS = { bash = true, shell = true, run_shell_command = true, execute_command = true,
  run_terminal_cmd = true, terminal = true, local_shell = true, exec_command = true }
-- Arguments that hold text, not paths.
local TEXT_KEYS = { content = true, new_string = true, old_string = true, new_source = true, text = true,
  description = true, prompt = true, command = true }
-- Programs whose arguments are text, not files (echo .env >> .gitignore).
local TEXT_ONLY = { echo = true, printf = true }
-- Programs that read, copy or send the files they are given: an argument
-- of theirs whose value is unknown ($(…), $VAR) may be a secret file.
local READERS = secrets.readers

local secret = secrets.file

-- A line of plain words that runs no program the parser follows and has
-- no word that could name a secrets file is allowed without parsing it:
-- shell.quick's check, made in the hook from the bound and the pattern it
-- returns (#line < QUICK_MAX and not match(QUICK_STOP, line)), so that the
-- common case costs one regular-expression match and no Lua call. (The
-- hot path's returns give no value, which the runner reads as nil: a
-- LOADNIL less.)
local _, QUICK_MAX, QUICK_STOP = shell.quick({ words = secrets.files_in_line })
local match, match_any = re.match, re.match_any

-- The same pattern matches every string that could be a path naming a
-- secrets file: one that is not plain words, or a plain word that could
-- name one (a path string paths reads is one word, which path_word reads as
-- the shell reads a plain word). A tool input in which it matches no string
-- outside TEXT_KEYS (re.match_any, one call) holds no such path: the walk
-- below runs only when it matches somewhere.
local ARGS_STOP = QUICK_STOP

-- paths returns what names a secrets file in the first string of v that
-- could be a path (one line, no blanks, at most 4 KiB, not under a text
-- key), v being at depth and under key in the tool input; nil if none.
local function paths(v, depth, key)
  if depth > 8 then return nil end
  if type(v) == "string" then
    if not TEXT_KEYS[key] and #v <= 4096 and not v:find("[%s]") and v ~= "" then
      return secret(secrets.path_word(v))
    end
  elseif type(v) == "table" then
    for k, x in pairs(v) do
      local hit = paths(x, depth + 1, type(k) == "string" and k or key)
      if hit then return hit end
    end
  end
  return nil
end

-- blocked is the answer to a tool input that names hit, a secrets file.
local function blocked(hit)
  return hook.deny("access to " .. shell.printable(hit) .. " is blocked: it may hold secrets")
end

-- One hook checks both what the tool input names as paths and, for a shell
-- tool, its command line: a second hook would cost the call a second input
-- table and a second trip through the runner. It reads its input in its
-- own body and hands no table of it to another function (a nested table is
-- walked in a copy, json): the reuse analysis then proves that it keeps
-- none, and the payload's tables are refilled for the next call.
hook.register("PreToolUse", nil, function(input)
  -- every path-like string of the tool input
  local args = input.toolInput
  local targs = type(args)
  if targs ~= "table" then
    -- no command line either
    local hit = targs == "string" and paths(args, 0, nil)
    if hit then return blocked(hit) end
    return nil
  end
  if match_any(ARGS_STOP, args, TEXT_KEYS) then
    for k, v in pairs(args) do
      -- a value's key is k when it is a string (TEXT_KEYS has no other)
      local tv = type(v)
      if tv == "string" then
        if not TEXT_KEYS[k] then
          local hit = paths(v, 1, type(k) == "string" and k or nil)
          if hit then return blocked(hit) end
        end
      elseif tv == "table" then
        local hit = paths(json.decode(json.encode(v)), 1, type(k) == "string" and k or nil)
        if hit then return blocked(hit) end
      end
    end
  end
  -- a shell tool: its capabilities say so or, when the host declares
  -- none, its name
  local caps = input.toolCapabilities
  if caps and type(caps) == "table" and caps[1] ~= nil then
    local shell_cap = false
    for _, c in ipairs(caps) do
      if c == "shell" then shell_cap = true end
    end
    if not shell_cap then return nil end
  else
    -- (a name in SHELL_TOOLS is a string: type is asked only of others)
    local name = input.toolName
    if not SHELL_TOOLS[name] and (type(name) ~= "string" or not SHELL_TOOLS[name:lower()]) then return nil end
  end
  -- its command line (shell.command): a string, or an argv list quoted
  -- back into one line
  local line = args.command or args.cmd
  if type(line) == "string" then
    if #line < QUICK_MAX and not match(QUICK_STOP, line) then return end
  elseif type(line) == "table" then
    local parts = {}
    for _, a in ipairs(line) do parts[#parts + 1] = shell.quote(tostring(a)) end
    line = table.concat(parts, " ")
  else
    return
  end
  local cmds, err = shell.parse(line)
  for _, c in ipairs(cmds) do
    local words = {}
    if c.word then words[1] = c.word end
    if not TEXT_ONLY[c.name or ""] then
      for _, a in ipairs(c.args) do words[#words + 1] = a end
    end
    for _, r in ipairs(c.redirs) do
      if not r.heredoc and r.op ~= "<<<" then words[#words + 1] = r.target end
    end
    -- inline code (python -c '…', perl -e '…'): the names it quotes
    if c.inline and c.script and not c.script.unknown then
      for name in c.script.text:gmatch("[^%s'\"(),;=+]+") do
        words[#words + 1] = { text = name, pat = name:gsub("[\\*?%[%]]", "\\%0") }
      end
    end
    for _, w in ipairs(words) do
      local hit = secret(w)
      if hit and (not w.whole or READERS[c.name or ""]) then
        return hook.deny("the command touches " .. shell.printable(hit) .. ", which may hold secrets")
      end
    end
  end
  if err then
    return hook.deny("the command could not be checked for secrets files: " .. err)
  end
end, { name = "protect-secrets", stage = "validate", policy = true, failure_policy = "closed" })
