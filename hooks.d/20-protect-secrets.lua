-- Keeps the agent away from files that hold secrets: .env files, private keys,
-- cloud, registry and git credentials, /etc/shadow, browser profiles and
-- keychains. A tool call that touches such a path is denied: every path-like
-- argument of every tool (read, write, edit, a notebook edit, the folder and
-- glob of a grep, the pattern of a glob listing, joined to its folder...),
-- and every word and redirection of a shell command, read by lib/shell.lua as
-- the shell reads it (quotes, escapes, braces, variables, $(…)), and the
-- names quoted in the code of an interpreter one-liner (python -c, node -e,
-- a here-document fed to python3 -). A glob that could match a secret file
-- counts as touching it. Names are compared without regard to case. A
-- template (.env.example) is no secret, and a command that only writes a
-- secrets file (cp .env.example .env, echo X=1 >> .env) reads none of it.

-- The builtins the hook calls on every call, as locals: no lookup of a
-- global per call (the reuse analysis trusts them as it trusts the globals).
local type, pairs, ipairs, tostring = type, pairs, ipairs, tostring

local shell = require("shell")

-- What holds secrets (file names, paths, folders) is lib/secrets.lua's
-- list, shared with the packs: secrets.matcher compiles all of it.
local secrets = require("secrets")
local paths_lib = require("paths")
local SECRETS = secrets.matcher()

-- Shell tools by name, when the host does not declare capabilities.
local SHELL_TOOLS = { bash = true, shell = true, run_shell_command = true, execute_command = true,
  run_terminal_cmd = true, terminal = true, local_shell = true, exec_command = true }
-- Arguments that hold text, not paths.
local TEXT_KEYS = { content = true, new_string = true, old_string = true, new_source = true, text = true,
  description = true, prompt = true, command = true }
-- Tools that search the text of files, by name: their pattern is a regular
-- expression of text (a glob tool's pattern names files).
local GREP_TOOLS = { Grep = true, grep = true, search_file_content = true, grep_search = true, GrepTool = true }
-- Programs that edit in place the files paths.writes gives for them: they
-- read those files too.
local IN_PLACE = { sed = true, gsed = true, perl = true }
-- Programs whose arguments are text, or files they do not read (echo .env
-- >> .gitignore, ls ~/.ssh, chmod 600 ~/.ssh/id_rsa).
local TEXT_ONLY = { echo = true, printf = true, ls = true, stat = true, test = true, ["["] = true, mkdir = true,
  chmod = true, chown = true, chgrp = true }
-- Programs that read, copy or send the files they are given: an argument
-- of theirs whose value is unknown ($(…), $VAR) may be a secret file.
local READERS = secrets.readers
-- Shells, whose code parse reads as commands: the names their code quotes
-- are not looked at as an interpreter's are.
local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, ash = true, mksh = true, yash = true,
  posh = true, fish = true, csh = true, tcsh = true, rbash = true }

-- secret returns the part of a word (a shell word or { text, pat }) that
-- could name a secrets file: the word, or what follows an "=", ":" or "@"
-- in it (--env-file=.env, HEAD:.env, host:.ssh/x); nil if none. A glob that
-- could match such a file counts; a template does not, in a glob's folders
-- too (**/.env.example).
local secret = SECRETS.file

-- listed returns what names a secrets file in a search tool's glob g (a
-- grep's glob or include, a glob tool's pattern) joined to the folder dir
-- it searches, when g is relative: { pattern = "Cookies", path =
-- "~/.config/x/Default" } lists ~/.config/x/Default/Cookies. Each alone is
-- looked at as a path already.
local function listed(dir, g)
  if g == "" or #g + #dir > 4096 or g:find("^[/~]") then return nil end
  return secret(secrets.path_word(dir:gsub("/+$", "") .. "/" .. g))
end

-- A line of plain words that runs no program the parser follows and has
-- no word that could name a secrets file is allowed without parsing it:
-- shell.quick's check, made in the hook from the bound and the pattern it
-- returns (#line < QUICK_MAX and not match(QUICK_STOP, line)), so that the
-- common case costs one regular-expression match and no Lua call. (The
-- hot path's returns give no value, which the runner reads as nil: a
-- LOADNIL less.)
local _, QUICK_MAX, QUICK_STOP = shell.quick({ words = SECRETS.in_line })
local match, match_any = re.match, re.match_any

-- The same pattern matches every string that could be a path naming a
-- secrets file: one that is not plain words, or a plain word that could
-- name one (a path string paths reads is one word, which path_word reads as
-- the shell reads a plain word). A tool input in which it matches no string
-- outside TEXT_KEYS (re.match_any, one call) holds no such path: the walk
-- below runs only when it matches somewhere.
local ARGS_STOP = QUICK_STOP

-- paths returns what names a secrets file in the first string of v that
-- could be a path (one line, at most 4 KiB, not under a text key; blanks
-- allowed: "Application Support/…/Login Data"), v being at depth and under
-- key in the tool input; nil if none.
local function paths(v, depth, key)
  if depth > 8 then return nil end
  if type(v) == "string" then
    if not TEXT_KEYS[key] and #v <= 4096 and not v:find("[\n\r]") and v ~= "" then
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
        -- (a content search's pattern is text)
        if not TEXT_KEYS[k] and not (k == "pattern" and GREP_TOOLS[input.toolName]) then
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
  local is_shell = false
  if caps and type(caps) == "table" and caps[1] ~= nil then
    for _, c in ipairs(caps) do
      if c == "shell" then is_shell = true end
    end
  else
    -- (a name in SHELL_TOOLS is a string: type is asked only of others)
    local name = input.toolName
    is_shell = SHELL_TOOLS[name] or (type(name) == "string" and SHELL_TOOLS[name:lower()])
  end
  if not is_shell then
    -- a search's glob in the folder it searches (each value's type is
    -- asked before it is handed to listed: a string holds no table of the
    -- input)
    local dir = args.path or args.dir_path
    if type(dir) == "string" then
      local g, include, pattern = args.glob, args.include, args.pattern
      local hit = type(g) == "string" and listed(dir, g)
      if not hit and type(include) == "string" then hit = listed(dir, include) end
      if not hit and type(pattern) == "string" and not GREP_TOOLS[input.toolName] then hit = listed(dir, pattern) end
      if hit then return blocked(hit) end
    end
    return nil
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
    -- a file the command only writes (cp .env.example .env, > .env) is
    -- not read
    local written = {}
    if not IN_PLACE[c.name or ""] then
      for _, w in ipairs(paths_lib.writes(c)) do written[w] = true end
    end
    local words = {}
    if c.word then words[1] = c.word end
    if not TEXT_ONLY[c.name or ""] then
      for k, a in ipairs(c.args) do
        -- an all-unknown word is looked at only where it may be a file
        -- the program reads (not find's {}, a <(…) or a URL)
        if not a.whole or secrets.unknown_read(c, k, a) then words[#words + 1] = a end
      end
    end
    for _, r in ipairs(c.redirs) do
      if not r.heredoc and r.op ~= "<<<" then words[#words + 1] = r.target end
    end
    -- an interpreter's code (python -c '…', perl -e '…', python3 - <<EOF):
    -- the names it quotes (parse sets inline and reads_stdin for shells
    -- and interpreters only)
    if (c.inline or c.reads_stdin) and not SHELLS[c.name or ""] then
      local code = {}
      if c.inline and c.script and not c.script.unknown then code[1] = c.script.text end
      if c.reads_stdin then
        for _, r in ipairs(c.redirs) do
          if (r.heredoc or r.op == "<<<") and not r.target.unknown then code[#code + 1] = r.target.text end
        end
      end
      for _, text in ipairs(code) do
        for name in text:gmatch("[^%s'\"(),;=+`{}%[%]]+") do
          words[#words + 1] = { text = name, pat = name:gsub("[\\*?%[%]]", "\\%0") }
        end
      end
    end
    -- the files a find runs a command on, by its name tests
    local hit = c.name == "find" and secrets.find_selects(c, secret)
    if hit then return hook.deny("the command touches " .. shell.printable(hit) .. ", which may hold secrets") end
    for _, w in ipairs(words) do
      local hit = not written[w] and secret(w)
      if hit and (not w.whole or READERS[c.name or ""]) then
        return hook.deny("the command touches " .. shell.printable(hit) .. ", which may hold secrets")
      end
    end
  end
  if err then
    return hook.deny("the command could not be checked for secrets files: " .. err)
  end
end, { name = "protect-secrets", stage = "validate", policy = true, failure_policy = "closed" })
