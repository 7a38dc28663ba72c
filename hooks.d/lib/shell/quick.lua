-- shell.quick: a check that lets a policy allow a plain command line
-- without parsing it (shell.quick, documented below; max is
-- shell.limits.tokens).

local ipairs, pairs = ipairs, pairs
local lex = require("shell.lex")
local args = require("shell.args")
local M = {}

-- A quick line, all of QUICK_CLASS's characters, is a line parse reads as
-- plain words split at spaces, with NAME=value assignments before the
-- program: no quotes, escapes, expansions, globs, braces, tildes, comments,
-- redirections or operators (a subset of what the lexer takes for literal
-- text). QUICK_OUTSIDE matches where a line has a character outside the
-- class, so a line is quick exactly when it does not match (RE2 reads an
-- invalid byte as U+FFFD, outside the class too).
local QUICK_CLASS = "A-Za-z0-9 ._/=,:@+%-"
local QUICK_OUTSIDE = "[^" .. QUICK_CLASS .. "]"

-- followed returns the RE2 alternatives of the words after which parse
-- reads a line's program otherwise than as one plain command: the lexer's
-- keywords (if, time, function, for, ...) and the programs shell.args
-- follows (wrappers, shells, interpreters, eval, find, ...), these as
-- lower-case basenames, an interpreter's name with any version.
local function followed()
  local alts = {}
  for _, set in ipairs({ lex.KEYWORDS, args.WRAPPERS, args.FOLLOWS }) do
    for name, spec in pairs(set) do
      if type(spec) == "table" and spec.sub then
        -- a runner with a subcommand (uv run, npm exec) is followed into
        -- only at that subcommand: npm test stays a quick line
        local subs = {}
        if type(spec.sub) == "table" then
          for sub in pairs(spec.sub) do subs[#subs + 1] = re.quote(sub) end
          table.sort(subs)
        else
          subs[1] = re.quote(spec.sub)
        end
        alts[#alts + 1] = re.quote(name) .. "(?: +-[^ ]*)* +(?:" .. table.concat(subs, "|") .. ")"
      else
        alts[#alts + 1] = re.quote(name)
      end
    end
  end
  for _, set in ipairs({ args.SHELLS, args.INTERPRETERS }) do
    for name in pairs(set) do alts[#alts + 1] = re.quote(name) .. "[0-9.]*" end
  end
  table.sort(alts)
  return alts
end

-- quick returns a check of a command line that is true only when parse
-- would find in it nothing a policy of the given kind could object to, so
-- that the policy may allow the line without parsing it. It is true when
-- the line is a quick line of at most limits.tokens bytes (so parse reads
-- it as one simple command, or none, and reaches no limit), its program is
-- neither a program parse follows into nor one of spec.programs (lists of
-- RE2 alternatives of lower-case basenames: the programs the policy's
-- rules look at), and spec.words (an RE2 expression), when given, matches
-- nowhere in it.
--
-- quick also returns the bound and the pattern it uses, for a hook that
-- makes the check itself, a Lua call less on every call:
-- #line < max and not re.match(stop, line).
--
-- The program is the first word that is not an assignment (NAME=value):
-- each word up to the first one without an "=" is taken for it, and its
-- basename and the part after its last "=" are tested, so that a word
-- the lexer does not take for an assignment cannot hide the program. The
-- check allocates nothing: re.match of expressions built here once (which
-- the re module answers with an automaton, one step per byte).
function M.quick(spec, max)
  local alts = followed()
  for _, list in ipairs(spec.programs or {}) do
    for _, a in ipairs(list) do alts[#alts + 1] = a end
  end
  -- a program word may end in ".exe" (git.exe, python3.11.exe: shell.args.program)
  -- The program word, or the command a program the reader does not know
  -- may run (shell.args's fallback): the word after a --, run or exec
  -- (any program), or its first operand when that is one of the programs
  -- the fallback reads there (shell.args.GUARDED, a shell, mkfs.*), so
  -- that git log or npm test, whose first operand no fallback reads, stay
  -- quick lines.
  local names = "(?i:(?:" .. table.concat(alts, "|") .. ")(?:\\.exe)?)/*(?: |$)"
  local guarded = { "mkfs[.a-z0-9]*" }
  for n in pairs(args.GUARDED) do guarded[#guarded + 1] = re.quote(n) end
  for n in pairs(args.SHELLS) do guarded[#guarded + 1] = re.quote(n) .. "[0-9.]*" end
  table.sort(guarded)
  local program = "(?:^ *(?:[^ ]*=[^ ]* +)*(?:[^ ]*[/=])?|(?:^| )(?:--|run|exec) +(?:[^ ]*/)?)" .. names ..
    "|^ *(?:[^ ]*=[^ ]* +)*[^ ]+(?: +-[^ ]*)* +(?:[^ ]*/)?(?i:(?:" .. table.concat(guarded, "|") ..
    ")(?:\\.exe)?)/*(?: |$)"
  -- A command line set for a program to run later, which parse reads as
  -- nested lines: a git setting that runs one (git -c core.pager=X,
  -- git config alias.x …) or a variable of shell.args.RUN_VARS assigned
  -- (GIT_PAGER=X git log).
  local vars = {}
  for n in pairs(args.RUN_VARS) do vars[#vars + 1] = n end
  table.sort(vars)
  local runs = "(?i:(?:^| )[a-z0-9_-]+\\.[a-z0-9._-]*(?:pager|editor|sshcommand|askpass|fsmonitor|external|" ..
    "textconv|command|cmd|driver|clean|smudge|process|packobjectshook|program|gitproxy|uploadpack|receivepack|" ..
    "helper)(?:=| )|(?:^| )alias\\.)|(?:^| )(?:" .. table.concat(vars, "|") .. ")="
  -- What stops the quick path, in one match: a character outside
  -- QUICK_CLASS, such a program, a setting of a command line, or spec.words
  -- somewhere.
  local stop = QUICK_OUTSIDE .. "|(?:" .. program .. ")|" .. runs
  if spec.words then stop = stop .. "|(?:" .. spec.words .. ")" end
  local match = re.match -- an upvalue: no lookup of re and its field per call
  return function(line)
    return #line < max and not match(stop, line)
  end, max, stop
end

return M
