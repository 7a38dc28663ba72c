-- shell.args: command-line options, and the programs that run another
-- program (sudo, env, xargs, timeout, sh -c, eval, find -exec, ...).

local ipairs, pairs, type, next, tostring, tonumber = ipairs, pairs, type, next, tostring, tonumber
local interp = require("shell.interp")
local M = {}

-- basename drops the folders of a program path ("/usr/bin/rm" -> "rm").
function M.basename(s)
  return (s:gsub("/+$", ""):match("[^/]*$"))
end

-- program returns the name a program word runs: its folders dropped (at
-- "/", and at "\\" as a Windows path spells them), lower-cased, and a
-- Windows ".exe" dropped: "C:/Git/bin/git.exe", "\\rm.exe" and
-- "python3.11.exe" run git, rm and python3.11.
function M.program(s)
  local n = s:gsub("[/\\]+$", ""):match("[^/\\]*$"):lower()
  if n:sub(-4) == ".exe" and #n > 4 then n = n:sub(1, -5) end
  return n
end

-- clean folds the "//", "/./" and "a/.." of a path the way the kernel
-- reads them ("/usr/bin/../bin/rm" -> "/usr/bin/rm", "/./etc/init.d/x" ->
-- "/etc/init.d/x"); a relative path keeps its leading "./" or "../".
function M.clean(s)
  local abs = s:sub(1, 1) == "/"
  local parts, lead = {}, 0
  for seg in s:gmatch("[^/]+") do
    if seg == ".." then
      if #parts > lead then
        parts[#parts] = nil
      elseif not abs then
        parts[#parts + 1] = ".."; lead = lead + 1
      end
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  local out = table.concat(parts, "/")
  if abs then return "/" .. out end
  if lead == 0 and s:sub(1, 2) == "./" then return "./" .. out end
  return out
end

-- program_path returns a program word in path form with its path cleaned
-- (M.clean), so that a policy reading the word's text sees the file the
-- kernel runs; a word that is clean already is returned as it is.
function M.program_path(w)
  local t = M.clean(w.text)
  if t == w.text or t == "" then return w end
  local c = {}
  for k, v in pairs(w) do c[k] = v end
  c.text, c.pat = t, (t:gsub("[\\\0]", "\\%0"))
  return c
end

-- long returns the long option names that the (possibly abbreviated) name
-- selects: the exact one if it is there, else every name it is a prefix
-- of (GNU getopt_long accepts any unique prefix; an ambiguous prefix is an
-- error there, and here it selects every candidate, which can only make a
-- policy stricter).
function M.long(name, names)
  local hits = {}
  for _, n in ipairs(names) do
    if n == name then return { n } end
    if name ~= "" and n:sub(1, #name) == name then hits[#hits + 1] = n end
  end
  return hits
end

-- options parses words as a GNU program would. spec:
--   short     = { r = "recursive", f = "force" }   letters of flags
--   short_arg = { o = "output" }                   letters that take a value
--   long      = { "recursive", "force" }           long flags (abbreviable)
--   long_arg  = { "output" }                       long options with a value
--   posix     = true                               options end at the first operand
-- It returns { flags = { name = true or value }, operands = { words },
-- unknown = true } where unknown says that a word whose value is unknown
-- stood where an option could (so any flag may be set).
function M.options(words, spec)
  local res = { flags = {}, operands = {} }
  local longs = {}
  for _, n in ipairs(spec.long or {}) do longs[#longs + 1] = n end
  for _, n in ipairs(spec.long_arg or {}) do longs[#longs + 1] = n end
  local takes = {}
  for _, n in ipairs(spec.long_arg or {}) do takes[n] = true end
  local short, short_arg = spec.short or {}, spec.short_arg or {}
  local k, done = 1, false
  while words[k] do
    local w = words[k]
    local t = w.text
    if done then
      res.operands[#res.operands + 1] = w
    elseif w.unknown and (t:sub(1, 1) == "-" or t:sub(1, 1) == "\0") then
      res.unknown = true
      res.operands[#res.operands + 1] = w
    elseif t == "--" then
      done = true
    elseif t:sub(1, 2) == "--" then
      local name, eq, val = t:match("^%-%-([^=]*)(=?)(.*)$")
      local hits = M.long(name, longs)
      for _, h in ipairs(hits) do
        if takes[h] then
          if eq == "" then
            val = words[k + 1] and words[k + 1].text
            if #hits == 1 then k = k + 1 end
          end
          res.flags[h] = val or true
        else
          res.flags[h] = true
        end
      end
    elseif t:sub(1, 1) == "-" and #t > 1 then
      for j = 2, #t do
        local c = t:sub(j, j)
        if short_arg[c] then
          local val = t:sub(j + 1)
          if val == "" then
            k = k + 1
            val = words[k] and words[k].text or ""
          end
          res.flags[short_arg[c]] = val
          break
        elseif short[c] then
          res.flags[short[c]] = true
        end
      end
    else
      res.operands[#res.operands + 1] = w
      if spec.posix then done = true end
    end
    k = k + 1
  end
  return res
end

-- WRAPPERS lists the programs that run the program named after their own
-- options: letters and long names of their options that take a value,
-- letters that mean they run nothing (sudo -e edits, command -v looks up),
-- operands to skip before the program (timeout's duration, chroot's root).
local WRAPPERS = {
  sudo = { short_arg = "ugprCDhTUtc", long_arg = { "user", "group", "prompt", "role", "close-from", "chdir",
    "host", "type", "command-timeout", "other-user", "login-class" }, assigns = true, stop = "elvVK", chdir = "D" },
  doas = { short_arg = "uC", stop = "L" },
  pkexec = { long_arg = { "user" } },
  env = { short_arg = "uCSP", long_arg = { "unset", "chdir", "split-string", "block-signal", "default-signal",
    "ignore-signal" }, assigns = true, split = "S", split_long = "split-string", dash = true, chdir = "C" },
  nice = { short_arg = "n", long_arg = { "adjustment" } },
  nohup = {},
  setsid = {},
  unbuffer = {},
  builtin = {},
  exec = { short_arg = "a" },
  command = { stop = "vV" },
  time = {},
  timeout = { short_arg = "sk", long_arg = { "signal", "kill-after" }, skip = 1 },
  stdbuf = { short_arg = "ioe", long_arg = { "input", "output", "error" } },
  ionice = { short_arg = "cnpPu", long_arg = { "class", "classdata", "pid", "pgid", "uid" }, stop = "pPu" },
  chroot = { long_arg = { "userspec", "groups" }, skip = 1 },
  chrt = { skip = 1, stop = "p" },
  taskset = { skip = 1, stop = "p" },
  flock = { short_arg = "wEc", long_arg = { "timeout", "conflict-exit-code", "command" }, skip = 1, stop = "c" },
  caffeinate = { short_arg = "tw" },
  xargs = { short_arg = "adEIJLnPRs", long_arg = { "arg-file", "delimiter", "max-args", "max-procs", "max-chars",
    "process-slot-var" }, xargs = true },
  watch = { short_arg = "nq", long_arg = { "interval", "equexit" }, join = true },
  busybox = {},
  fakeroot = {},
  torsocks = {},
  proxychains = { short_arg = "f" },
  proxychains4 = { short_arg = "f" },
  firejail = {},
  ["strace"] = { short_arg = "eoOpPsSuIXabE" },
  ltrace = { short_arg = "eoOpuaAlLnsS" },
  nocorrect = {},
  noglob = {},
}
M.WRAPPERS = WRAPPERS

local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, ash = true, mksh = true,
  yash = true, posh = true, fish = true, csh = true, tcsh = true, rbash = true }
M.SHELLS = SHELLS

-- INTERPRETERS run a script from stdin or from an option's value.
local INTERPRETERS = { python = "c", perl = "eE", ruby = "e", node = "ep", nodejs = "ep", php = "r", lua = "e",
  deno = "", bun = "e", osascript = "e", pwsh = "c", powershell = "c", julia = "eE", Rscript = "e", R = "e" }
M.INTERPRETERS = INTERPRETERS

-- FOLLOWS are the other programs whose operands unwrap reads as commands
-- or scripts, by what it does with them.
local FOLLOWS = { eval = "eval", source = "source", ["."] = "source", su = "su", runuser = "su", alias = "alias",
  find = "find", awk = "awk", gawk = "awk", mawk = "awk", nawk = "awk", parallel = "parallel", sem = "parallel",
  ssh = "ssh" }
M.FOLLOWS = FOLLOWS

-- interpreter returns the inline-code option letters of an interpreter
-- name ("python3.12" included), or nil.
function M.interpreter(name)
  if not name then return nil end
  if SHELLS[name] then return "c" end
  return INTERPRETERS[name] or INTERPRETERS[(name:gsub("[%d.]+$", ""))]
end

local function sq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function plain(text)
  return { text = text, pat = (text:gsub("[\\\0]", "\\%0")), glob = text:find("[*?%[]") and true or nil }
end

-- upstream returns the command before cmd in its pipeline, from out.
local function upstream(cmd, out)
  if not cmd.pipe_in then return nil end
  for k = #out, 1, -1 do
    local c = out[k]
    if c.pipeline == cmd.pipeline and c.pipe_out then return c end
  end
  return nil
end

-- nested parses a script text found in cmd and gives its commands cmd's
-- function and place.
local function nested(p, text, via)
  return p.sub_parse(p, text, via)
end

-- join returns the texts of words k.. joined by spaces, or nil if one is unknown.
local function join(words, k)
  local parts = {}
  for j = k, #words do
    if words[j].unknown then return nil end
    parts[#parts + 1] = words[j].text
  end
  return table.concat(parts, " ")
end

-- written returns the text of a script word (sh -c's, eval's, a
-- here-document's) with each unknown part that is a variable's value
-- spelled as a variable never set, so that the nested parse reads the
-- script around it ("cd $DIR && make") and the value as unknown; nil when
-- the script itself is computed: all of it unknown, or a part that is a
-- command's output ($(…)) or items read when it runs.
local function written(w)
  if not w.unknown then return w.text end
  if w.whole or w.subs or (w.source ~= "var" and w.source ~= "arg") then return nil end
  return (w.text:gsub("%z", "${__unknown}"))
end

-- joined returns the written texts of words k.. joined by spaces, or nil.
local function joined(words, k)
  local parts = {}
  for j = k, #words do
    parts[#parts + 1] = written(words[j])
    if not parts[#parts] then return nil end
  end
  return table.concat(parts, " ")
end

-- STDIN_FILES name standard input as a script file (bash /dev/stdin).
local STDIN_FILES = { ["/dev/stdin"] = true, ["/dev/fd/0"] = true, ["/proc/self/fd/0"] = true }

local from_stdin -- forward

-- VALUED: the letters of interpreters' options that take a value.
local VALUED = { python = "WX", ruby = "rIC", perl = "MmI", node = "r", nodejs = "r", bun = "r", deno = "r" }

-- computed marks cmd as running a script known only when it runs, with
-- the reason (the first one found stays).
local function computed(cmd, why)
  cmd.computed = cmd.computed or why
end

-- code reads the script text of a shell or interpreter found on the line.
local function code(p, cmd, text, via)
  if SHELLS[cmd.name] or FOLLOWS[cmd.name] == "source" then
    nested(p, text, via)
  else
    local why = interp.read(p, cmd.name, text, via)
    if why then computed(cmd, "its code runs " .. why) end
  end
end

-- script finds what a shell or interpreter runs: the inline code (-c '…'),
-- a script operand, or stdin.
local function script(p, cmd, out, letters)
  local a = cmd.args
  local k, inline, stdin = 1, false, false
  local valued = VALUED[cmd.name] or VALUED[(cmd.name:gsub("[%d.]+$", ""))] or "%z"
  if cmd.name == "deno" and a[1] and a[1].text == "eval" then
    -- deno eval [options] code
    k, inline = 2, true
    while a[k] and not a[k].unknown and a[k].text:sub(1, 1) == "-" do k = k + 1 end
  end
  while a[k] and not inline do
    local w = a[k]
    local t = w.text
    if w.unknown then break end
    if t == "-" or t == "--" then k = k + 1; if t == "-" then stdin = true end; break end
    if t:sub(1, 2) == "--" then
      if t == "--rcfile" or t == "--init-file" then k = k + 1 end
      if t == "--eval" or t == "--command" or t == "--print" then inline = true; k = k + 1; break end
    elseif t:find("^[-+].") then
      local body = t:sub(2)
      local at = letters ~= "" and body:find("[" .. letters .. "]")
      -- ruby -rfileutils, perl -Mstrict: the letters after one that takes a value are the value
      if at and not SHELLS[cmd.name] and body:sub(1, at - 1):find("[" .. valued .. "]") then at = nil end
      if at and t:sub(1, 1) == "-" then
        inline = true
        if at < #body and not SHELLS[cmd.name] then
          -- python -c'code': the code is the rest of the word
          cmd.script, cmd.inline = plain(body:sub(at + 1)), true
          code(p, cmd, cmd.script.text, cmd.name .. " -" .. body:sub(at, at))
          return
        end
      end
      if body:find("s") and SHELLS[cmd.name] then stdin = true end
      if body:find("[oO]") and SHELLS[cmd.name] then k = k + 1 end
      if body == "m" and not SHELLS[cmd.name] then
        -- python -m module: the module is the script
        cmd.script = a[k + 1]
        return
      end
      if not inline and body:find("^[" .. valued .. "]$") and not SHELLS[cmd.name] then k = k + 1 end
    else
      break
    end
    k = k + 1
    if inline then break end
  end
  local w = a[k]
  if inline then
    local text = w and written(w)
    if text and SHELLS[cmd.name] then
      -- sh -c 'script' name args: $0, $1, ... and $@ are the words after it
      local vars, saved, rest = p.vars, {}, {}
      for _, n in ipairs({ "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*" }) do saved[n] = vars[n] end
      for n = 0, 9 do vars[tostring(n)] = a[k + 1 + n] and { a[k + 1 + n] } or nil end
      for j = k + 2, #a do rest[#rest + 1] = a[j] end
      vars["@"] = #rest > 0 and rest or nil
      vars["*"] = vars["@"]
      nested(p, text, cmd.name .. " -c")
      for _, n in ipairs({ "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*" }) do vars[n] = saved[n] end
    elseif text then
      code(p, cmd, text, cmd.name .. " " .. (a[k - 1] and a[k - 1].text or "-c"))
    elseif w then
      computed(cmd, "the code of " .. cmd.name .. " " .. (a[k - 1] and a[k - 1].text or "-c") .. " is computed when it runs")
    end
    cmd.script = w
    cmd.inline = true
    return
  end
  if w and not stdin and not STDIN_FILES[w.text] then
    -- a script file: computed when the whole name is ($X, <(…)), not when
    -- only its folder is unknown ("$VENV/bin/activate" is a file on disk)
    cmd.script = w
    if w.whole then computed(cmd, "the script file " .. cmd.name .. " runs is computed when it runs") end
    return
  end
  from_stdin(p, cmd, out)
end

-- from_stdin reads the script a shell or interpreter (or source
-- /dev/stdin) reads from its standard input: a here-document or
-- here-string, a file (<), or the output of the command piped in.
function from_stdin(p, cmd, out)
  cmd.reads_stdin = true
  for _, r in ipairs(cmd.redirs) do
    if (r.op == "<<" or r.op == "<<-" or r.op == "<<<") and r.target then
      local text = written(r.target)
      if text then
        code(p, cmd, text, cmd.name .. " <<")
      else
        cmd.script = r.target
        computed(cmd, "the here-document " .. cmd.name .. " reads is computed when it runs")
      end
      return
    elseif r.op == "<" then
      -- a script file: read as a script operand is
      cmd.script = r.target
      return
    end
  end
  local up = upstream(cmd, out)
  if not up then return end
  local text = p.output(up, p)
  if text then
    code(p, cmd, text, "| " .. cmd.name)
  else
    computed(cmd, cmd.name .. " runs what " .. (up.name or "a command") .. " prints, known only when it runs")
  end
end

-- ESCAPES: the escapes of xargs -d's delimiter.
local ESCAPES = { ["\\n"] = "\n", ["\\t"] = "\t", ["\\0"] = "\0", ["\\\\"] = "\\" }

-- xargs_items splits the text xargs reads into items: at each delimiter
-- (-0, -d D), at lines (-I R), or else at blanks outside quotes, quotes
-- removed and a backslash keeping the next character, as xargs does by
-- default (echo "'rm -rf /'" | xargs sh -c runs one item).
local function xargs_items(text, delim, repl)
  local out = {}
  if delim then
    local d = ESCAPES[delim] or delim:sub(1, 1)
    if d == "" then d = "\n" end
    local from = 1
    while from <= #text do
      local at = text:find(d, from, true) or #text + 1
      if at > from then out[#out + 1] = text:sub(from, at - 1) end
      from = at + 1
    end
    return out
  end
  if repl then
    for l in text:gmatch("[^\n]+") do out[#out + 1] = (l:gsub("^%s+", "")) end
    return out
  end
  if not text:find("[\"'\\]") then
    for f in text:gmatch("%S+") do out[#out + 1] = f end
    return out
  end
  local cur, q, any, k = {}, nil, false, 1
  while k <= #text do
    local ch = text:sub(k, k)
    if q then
      if ch == q then q = nil else cur[#cur + 1] = ch end
    elseif ch == "'" or ch == '"' then
      q, any = ch, true
    elseif ch == "\\" and k < #text then
      k = k + 1
      cur[#cur + 1] = text:sub(k, k)
    elseif ch:find("%s") then
      if any or #cur > 0 then out[#out + 1] = table.concat(cur) end
      cur, any = {}, false
    else
      cur[#cur + 1] = ch
    end
    k = k + 1
  end
  if any or #cur > 0 then out[#out + 1] = table.concat(cur) end
  return out
end

-- XARGS_OPTIONAL: xargs's long options whose value is optional (=R only).
local XARGS_OPTIONAL = { "replace", "max-lines", "eof" }

-- replaced returns words with the replace string R of xargs -I R or
-- parallel put in place by item (an unknown item makes the word unknown).
local function replaced(words, repl, item)
  local out = {}
  local pat = repl:gsub("%W", "%%%0")
  for _, w in ipairs(words) do
    if repl ~= "" and not w.unknown and w.text:find(repl, 1, true) then
      if w.text == repl then
        out[#out + 1] = item
      else
        out[#out + 1] = { text = (w.text:gsub(pat, (item.text:gsub("%%", "%%%%")))),
          pat = (w.pat:gsub(pat, (item.pat:gsub("%%", "%%%%")))), glob = w.glob, home = w.home, cwd = w.cwd,
          unknown = item.unknown, source = item.source, producer = item.producer }
      end
    else
      out[#out + 1] = w
    end
  end
  return out
end

local STDIN_ITEM = { text = "\0", pat = "\0", unknown = true, whole = true, source = "stdin" }

-- awk reads an awk program given on the command line (not -f file).
local function awk(p, cmd)
  local a, k = cmd.args, 1
  while a[k] and not a[k].unknown do
    local t = a[k].text
    if t == "--" then k = k + 1; break end
    if t:find("^%-f") or t:find("^%-%-file") then return end
    if t == "-e" or t == "--source" then k = k + 1; break end
    if t == "-F" or t == "-v" or t == "--field-separator" or t == "--assign" then k = k + 1
    elseif not (t:sub(1, 1) == "-" and #t > 1) then break end
    k = k + 1
  end
  local w = a[k]
  if not w then return end
  cmd.script, cmd.inline = w, true
  if w.unknown then
    computed(cmd, "the awk program is computed when it runs")
  else
    local why = interp.read(p, "awk", w.text, cmd.name)
    if why then computed(cmd, "its program runs " .. why) end
  end
end

-- The options of GNU parallel that take a value (as a separate word).
local PARALLEL_SHORT = "jSaICdELNnP"
local PARALLEL_LONG = { jobs = true, sshlogin = true, ["arg-file"] = true, colsep = true, delimiter = true,
  ["max-lines"] = true, ["max-args"] = true, joblog = true, results = true, tmpdir = true, workdir = true,
  wd = true, timeout = true, halt = true, retries = true, delay = true, memfree = true, load = true,
  sshloginfile = true, slf = true, ["tag-string"] = true, env = true, basefile = true, ["return"] = true,
  transferfile = true, nice = true, ["arg-sep"] = true, ["arg-file-sep"] = true, id = true, semaphorename = true,
  ["semaphore-timeout"] = true, st = true }


-- parallel reads GNU parallel: its command (run by a shell, {} and its
-- kin replaced by each item, or the item appended) with the items after
-- ::: or from its input; with no command, each item is a command line.
local function parallel(p, cmd, out)
  local a, k, repl, from_file = cmd.args, 1, nil, false
  while a[k] and not a[k].unknown and not a[k].text:find("^::::?%+?$") do
    local t = a[k].text
    if t == "--" then k = k + 1; break end
    if t:sub(1, 2) == "--" then
      local n, eq = t:match("^%-%-([^=]*)(=?)")
      if n == "arg-file" then from_file = true end
      if PARALLEL_LONG[n] and eq == "" then k = k + 1 end
    elseif t:sub(1, 1) == "-" and #t > 1 then
      local c = t:sub(2, 2)
      if c == "a" then from_file = true end
      if c == "I" then repl = #t > 2 and t:sub(3) or (a[k + 1] and a[k + 1].text) end
      if PARALLEL_SHORT:find(c, 1, true) and #t == 2 then k = k + 1 end
    else
      break
    end
    k = k + 1
  end
  local parts, items, unknown = {}, {}, from_file
  while a[k] and not a[k].text:find("^::::?%+?$") do
    if a[k].unknown then computed(cmd, "parallel runs a command computed when it runs"); return end
    parts[#parts + 1] = a[k].text
    k = k + 1
  end
  -- parallel joins its words with spaces for the shell; with -q it quotes
  -- them: both readings are judged (parallel bash -c 'rm -rf {}' ::: /)
  local line = table.concat(parts, " ")
  local quoted = {}
  for n, t in ipairs(parts) do quoted[n] = t:find("[^%w%-%./_:=,@+%%{}]") and sq(t) or t end
  local lines = { line }
  quoted = table.concat(quoted, " ")
  if quoted ~= line and #parts > 1 then lines[2] = quoted end
  if cmd.name == "sem" then
    -- sem (parallel --semaphore) runs its command once
    for _, l in ipairs(#parts > 0 and lines or {}) do nested(p, l, "sem") end
    return
  end
  local sep
  while a[k] do
    if a[k].text:find("^::::?%+?$") then sep = a[k].text
    elseif sep:find("^::::") or a[k].unknown then unknown = true
    else items[#items + 1] = a[k].text end
    k = k + 1
  end
  if not sep and not from_file then
    local up = upstream(cmd, out)
    local text = up and p.output(up, p)
    if text then
      for l in text:gmatch("[^\n]+") do items[#items + 1] = l end
    else
      unknown = true
    end
  end
  -- ::: with no item after it: the command is read once, its item unknown
  if sep and #items == 0 and #parts > 0 then unknown = true end
  local pat = repl and repl:gsub("%W", "%%%0") or "{[%./#%%]*%d*[%./]*}"
  local function with(l, item)
    local r, n = l:gsub(pat, (item:gsub("%%", "%%%%")))
    if n == 0 then r = l .. " " .. item end
    return r
  end
  for n, it in ipairs(items) do
    if n > p.limits.fields then break end
    for _, l in ipairs(lines) do nested(p, line == "" and it or with(l, sq(it)), "parallel") end
  end
  if unknown then
    if line == "" then
      computed(cmd, "parallel runs command lines it reads when it runs")
    else
      local saved = p.vars.__parallel_item
      p.vars.__parallel_item = { STDIN_ITEM }
      for _, l in ipairs(lines) do nested(p, with(l, "$__parallel_item"), "parallel") end
      p.vars.__parallel_item = saved
    end
  end
end

-- SSH_VALUED: the letters of ssh's options that take a value.
local SSH_VALUED = "BbcDEeFIiJLlmOopQRSWw"

-- ssh reads the command ssh runs on the remote host: the words after the
-- destination, joined by spaces as ssh sends them, read as a shell line
-- that starts in the remote home folder (its dir "~").
local function ssh(p, cmd)
  local a, k = cmd.args, 1
  while a[k] and not a[k].unknown do
    local t = a[k].text
    if t == "--" then k = k + 1; break end
    if t:sub(1, 1) ~= "-" or #t < 2 then break end
    for j = 2, #t do
      if SSH_VALUED:find(t:sub(j, j), 1, true) then
        if j == #t then k = k + 1 end
        break
      end
    end
    k = k + 1
  end
  if not a[k + 1] then return end
  local text = joined(a, k + 1)
  if not text then
    cmd.script = a[k + 1]
    computed(cmd, "the command ssh runs on the remote host is computed when it runs")
    return
  end
  local saved = p.dir
  p.dir = "~"
  nested(p, text, "ssh")
  p.dir = saved
end

-- FIND_EXEC are the find actions that run a command.
local FIND_EXEC = { ["-exec"] = true, ["-execdir"] = true, ["-ok"] = true, ["-okdir"] = true }

-- follow_up reads what a command runs in turn, once it is emitted: the
-- strings of env -S and watch (later), the other items of xargs -I
-- (extra), and the scripts of shells, interpreters, eval, source, su,
-- awk, parallel, ssh, alias and find -exec.
local function follow_up(p, cmd, out, emit, later, extra)
  for _, l in ipairs(later) do nested(p, l[1], l[2]) end
  for _, l in ipairs(extra) do
    if not p.charge(p, "commands", 1) then return end
    M.unwrap(p, { argv = l, redirs = {}, wrappers = { "xargs" }, via = cmd.via, depth = cmd.depth, func = cmd.func,
      pipeline = -1 }, out, emit)
  end
  local name, a = cmd.name, cmd.args
  if not name then return end
  local letters = M.interpreter(name)
  local follow = FOLLOWS[name]
  if letters then
    script(p, cmd, out, letters)
  elseif follow == "eval" then
    local text = joined(a, 1)
    if text then nested(p, text, "eval")
    elseif a[1] then
      cmd.script = a[1]
      computed(cmd, "eval runs a string computed when it runs")
    end
  elseif follow == "source" then
    cmd.script = a[1]
    if a[1] and STDIN_FILES[a[1].text] then
      from_stdin(p, cmd, out)
    elseif a[1] and a[1].whole then
      computed(cmd, name .. " reads a script computed when it runs")
    end
  elseif follow == "su" then
    for k, x in ipairs(a) do
      local t = x.text
      local v = t:match("^%-%-command=(.*)$") or t:match("^%-c(.+)$")
      if v then nested(p, v, name .. " -c"); break end
      if (t == "-c" or t == "--command") and a[k + 1] then
        local text = written(a[k + 1])
        if text then
          nested(p, text, name .. " -c")
        else
          cmd.script = a[k + 1]
          computed(cmd, "the command of " .. name .. " -c is computed when it runs")
        end
        break
      end
    end
  elseif follow == "awk" then
    awk(p, cmd)
  elseif follow == "parallel" then
    parallel(p, cmd, out)
  elseif follow == "ssh" then
    ssh(p, cmd)
  elseif follow == "alias" then
    for _, x in ipairs(a) do
      local v = not x.unknown and x.text:match("^[^=]+=(.*)$")
      if v then nested(p, v, "alias") end
    end
  elseif follow == "find" then
    local k = 1
    while a[k] do
      if FIND_EXEC[a[k].text] then
        local sub = { argv = {}, redirs = {}, wrappers = {}, via = "find " .. a[k].text, depth = cmd.depth,
          func = cmd.func, pipeline = -1 }
        k = k + 1
        while a[k] and a[k].text ~= ";" and a[k].text ~= "+" do
          local x = a[k]
          if x.text == "{}" then
            x = { text = "\0", pat = "\0", unknown = true, whole = true, source = "find", producer = cmd }
          end
          sub.argv[#sub.argv + 1] = x
          k = k + 1
        end
        if #sub.argv > 0 then M.unwrap(p, sub, out, emit) end
      end
      k = k + 1
    end
  end
end

-- unwrap finds the program cmd.argv runs, behind its wrappers, sets
-- cmd.name, cmd.word, cmd.args and cmd.wrappers, emits cmd through emit and
-- then the commands it runs in turn (sh -c strings, eval, find -exec, ...).
function M.unwrap(p, cmd, out, emit)
  local argv, i = cmd.argv, 1
  local items, repl, arg_file, delim, split
  local later, extra = {}, {}
  while argv[i] do
    local w = argv[i]
    if w.unknown then break end
    local name = M.program(w.text)
    local spec = WRAPPERS[name]
    if not spec then break end
    local j, stop = i + 1, false
    while argv[j] do
      local a = argv[j]
      local t = a.text
      if a.unknown then break end
      if t == "--" then j = j + 1; break end
      if spec.assigns and t:find("^[%a_][%w_]*=") then
        j = j + 1
      elseif t == "-" and spec.dash then
        -- env -: an empty environment, as env -i
        j = j + 1
      elseif t:sub(1, 2) == "--" then
        local lname, eq, val = t:match("^%-%-([^=]*)(=?)(.*)$")
        local hits = M.long(lname, spec.long_arg or {})
        if #hits > 0 and eq == "" then j = j + 1; val = argv[j] and argv[j].text end
        if spec.xargs then
          -- --replace[=R], --arg-file=F: R replaces in the command; the items come from F
          if M.long(lname, XARGS_OPTIONAL)[1] == "replace" then repl = eq ~= "" and val or "{}" end
          if hits[1] == "arg-file" then arg_file = true end
          if hits[1] == "delimiter" then delim = val end
          if M.long(lname, { "null" })[1] then delim = "\0" end
        end
        if spec.chdir and hits[1] == "chdir" and val then cmd.chdir = val end
        if spec.split_long and hits[1] == spec.split_long and val then split = val; stop = true end
        j = j + 1
      elseif t:sub(1, 1) == "-" and #t > 1 then
        for k = 2, #t do
          local c = t:sub(k, k)
          if spec.stop and spec.stop:find(c, 1, true) then stop = true end
          if spec.xargs and c == "0" then delim = "\0" end
          if spec.xargs and (c == "i" or c == "l" or c == "e") then
            -- options whose value is optional and attached (-i{}, -l1)
            if c == "i" then repl = t:sub(k + 1) ~= "" and t:sub(k + 1) or "{}" end
            break
          end
          if spec.short_arg and spec.short_arg:find(c, 1, true) then
            local val = t:sub(k + 1)
            if val == "" then j = j + 1; val = argv[j] and argv[j].text end
            if spec.split == c and val then split = val; stop = true end
            if spec.chdir == c and val then cmd.chdir = val end
            -- -J R (BSD): the items in place of R, read here as -I R
            if spec.xargs and (c == "I" or c == "J") then repl = val end
            if spec.xargs and c == "a" then arg_file = true end
            if spec.xargs and c == "d" then delim = val end
            break
          end
        end
        j = j + 1
      else
        break
      end
      if stop then break end
    end
    if split then
      -- env -S STRING args: STRING split into words goes before args, and
      -- env reads the result again (options, assignments, the program)
      local parts = { "env", split }
      for x = j, #argv do parts[#parts + 1] = argv[x].unknown and "${__unknown}" or sq(argv[x].text) end
      later[#later + 1] = { table.concat(parts, " "), "env -S" }
      split = nil
    end
    if stop then break end
    j = j + (spec.skip or 0)
    cmd.wrappers[#cmd.wrappers + 1] = name
    if spec.xargs then
      local up = not arg_file and upstream(cmd, out) or nil
      local text = up and p.output(up, p)
      items = {}
      if text then
        -- with a replace string, each line is one item
        for _, f in ipairs(xargs_items(text, delim, repl)) do items[#items + 1] = plain(f) end
      else
        items[1] = { text = "\0", pat = "\0", unknown = true, whole = true, source = "stdin", producer = up }
      end
      if not argv[j] then
        argv[j] = plain("echo")
      end
      if repl and items[1] then
        -- xargs -I{} cmd {}: one command per item, the item in place of {}
        local rest = {}
        for x = j, #argv do rest[#rest + 1] = argv[x] end
        for n = 2, math.min(#items, p.limits.fields) do extra[#extra + 1] = replaced(rest, repl, items[n]) end
        local first = replaced(rest, repl, items[1])
        for x = 1, #first do argv[j + x - 1] = first[x] end
        items = nil
      elseif text and argv[j] and not argv[j].unknown and WRAPPERS[M.program(argv[j].text)] then
        -- xargs sudo, xargs env, xargs timeout: the items are the wrapped
        -- command's words, so the program is found among them once the
        -- wrappers are unwrapped again
        for _, it in ipairs(items) do argv[#argv + 1] = it end
        items = nil
      end
    end
    if spec.join then
      local text = join(argv, j)
      if text then later[#later + 1] = { text, name } end
      i = j
      break
    end
    i = j
  end
  local w = argv[i]
  if not w then
    -- only wrappers: the last one is the program
    cmd.name = table.remove(cmd.wrappers)
    cmd.word, cmd.word_at, cmd.args = argv[#argv], #argv, {}
  else
    if not w.unknown and not w.glob and w.text:find("/", 1, true) then w = M.program_path(w) end
    cmd.word, cmd.word_at = w, i
    cmd.args = {}
    for k = i + 1, #argv do cmd.args[#cmd.args + 1] = argv[k] end
    if not w.unknown then cmd.name = M.program(w.text) end
  end
  if items then
    for _, it in ipairs(items) do cmd.args[#cmd.args + 1] = it end
  end
  emit(p, cmd, out)
  -- what it runs in turn runs in its folder (env -C, sudo -D); a cd
  -- inside it (bash -c 'cd x; …') does not outlive it
  local saved = p.dir
  if cmd.chdir then p.dir = cmd.dir end
  follow_up(p, cmd, out, emit, later, extra)
  p.dir = saved
end

return M
