-- Keeps the agent away from files that hold secrets: .env files, private keys,
-- cloud and git credentials. A tool call that touches such a path is denied:
-- every path-like argument of every tool (read, write, edit, grep, glob, a
-- notebook edit...), and every word and redirection of a shell command, read
-- by lib/shell.lua as the shell reads it (quotes, escapes, braces, variables,
-- $(…)). A glob that could match a secret file counts as touching it. Names
-- are compared without regard to case.

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

local function caps(input)
  local set = {}
  if type(input.toolCapabilities) == "table" then
    for _, c in ipairs(input.toolCapabilities) do set[c] = true end
  end
  return set
end

-- is_shell reports whether the tool runs shell commands.
local function is_shell(input)
  local c = caps(input)
  if next(c) ~= nil then return c.shell == true end
  return SHELL_TOOLS[string.lower(tostring(input.toolName or ""))] == true
end

-- paths calls fn(value) for every string in the tool input that could be a
-- path: one line, no blanks, at most 4 KiB, not under a text key.
local function paths(v, fn, depth, key)
  if depth > 8 then return nil end
  if type(v) == "string" then
    if not TEXT_KEYS[key] and #v <= 4096 and not v:find("[%s]") and v ~= "" then return fn(v) end
  elseif type(v) == "table" then
    for k, x in pairs(v) do
      local hit = paths(x, fn, depth + 1, type(k) == "string" and k or key)
      if hit then return hit end
    end
  end
  return nil
end

hook.register("PreToolUse", nil, function(input)
  local hit = paths(input.toolInput, function(p)
    return secret(secrets.path_word(p))
  end, 0, nil)
  if hit then
    return hook.deny("access to " .. shell.printable(hit) .. " is blocked: it may hold secrets")
  end
end, { name = "protect-secrets-files", stage = "validate", policy = true, failure_policy = "closed" })

hook.register("PreToolUse", nil, function(input)
  if not is_shell(input) then return nil end
  local line = shell.command(input.toolInput)
  if not line then return nil end
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
end, { name = "protect-secrets-shell", stage = "validate", policy = true, failure_policy = "closed" })
