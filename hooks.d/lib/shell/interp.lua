-- shell.interp: the shell commands and file operations written out in an
-- interpreter's one-liner (python -c, node -e, ruby -e, perl -e, php -r,
-- deno eval, bun -e, lua -e, awk programs), read as shell commands.
--
-- read(p, name, code, via) scans the code for the calls below and parses
-- what they run as nested shell commands reached by via ("python -c"):
--   shell        a command line or an argv list given as literals:
--                python os.system, os.popen, subprocess.run/call/
--                check_call/check_output/Popen/getoutput, pty.spawn;
--                node child_process exec/execSync/spawn/spawnSync/
--                execFile/execFileSync, Bun.spawn, $`…` (zx, Bun.$);
--                ruby and perl system, exec, spawn, `…`, %x(…), qx(…),
--                IO.popen, Open3.capture*; php system, exec, shell_exec,
--                passthru, popen, proc_open and `…`; lua os.execute,
--                io.popen; awk system(…), "…" | getline, print … | "…";
--                osascript's AppleScript do shell script "…" and
--                JavaScript doShellScript("…") (with administrator
--                privileges, administratorPrivileges: true: read as sudo
--                sh -c '…', run as root)
--   deletes      python shutil.rmtree (rm -r -f), os.remove/unlink (rm);
--                node fs.rm/rmSync/rmdirSync with recursive: true (rm
--                -r -f, else rm), unlink/unlinkSync (rm); ruby
--                FileUtils.rm_rf/rm_r/rmtree/remove_dir/remove_entry(_secure)
--                (rm -r -f), FileUtils.rm,
--                File.delete (rm); perl rmtree/remove_tree (rm -r -f),
--                unlink (rm); php unlink (rm); lua os.remove (rm)
--   reads        python open (cat; tee for a "w"/"a" mode), node
--                readFile/readFileSync (cat), writeFile/appendFile (tee),
--                ruby File.read/readlines/open, IO.read (cat), File.write
--                (tee), perl open (cat, or tee for > and >>), php
--                file_get_contents/file/readfile/fopen (cat),
--                file_put_contents (tee), lua io.open (cat)
-- Ruby's and perl's runners and deletes are read without parentheses too
-- (system "…", rmtree "/", FileUtils.rm_r "/etc"), and a delete of a
-- pattern as a glob (perl unlink glob "/x/*", FileUtils.rm_rf(Dir.glob(
-- "/x/*"))).
-- A call of a shell runner whose command is not a literal (a variable,
-- an f-string, "#{…}" or "$x" interpolation) makes read return a reason:
-- the command is computed when it runs. A path that is not a literal is
-- not read (python's os.path.expanduser("…") and ruby's
-- File.expand_path("…") are read as the literal). What is not read: code
-- the one-liner builds by concatenation or loads from elsewhere (import,
-- require, eval of a computed string), aliases of these functions under
-- other names, and files the interpreter runs (python x.py).
--
-- The scan is one pass over the code, its bytes charged to the parse's
-- budget; every call found costs a token and each command line found a
-- nested parse (charged as any nested string).

local ipairs = ipairs
local M = {}

-- The kind of each call: sh runs a shell line, rmr/rm/rmdir delete, read
-- and write open a file; "!" marks the runners whose computed argument
-- is reported (names too common elsewhere, exec or run, are not).
local PY = { system = "sh!", popen = "sh!", run = "sh", call = "sh", check_call = "sh!", check_output = "sh!",
  Popen = "sh!", getoutput = "sh!", getstatusoutput = "sh!", spawn = "sh", rmtree = "rmr", remove = "rm",
  unlink = "rm", rmdir = "rmdir", removedirs = "rmdir", open = "open" }
local JS = { exec = "sh", execSync = "sh!", spawn = "sh", spawnSync = "sh!", execFile = "sh", execFileSync = "sh!",
  rm = "rmjs", rmSync = "rmjs", rmdir = "rmjs", rmdirSync = "rmjs", unlink = "rm", unlinkSync = "rm",
  Command = "cmd", readFile = "read", readFileSync = "read", writeFile = "write", writeFileSync = "write", appendFile = "write",
  appendFileSync = "write" }
local RB = { system = "sh!", exec = "sh", spawn = "sh", popen = "sh!", capture2 = "sh!", capture2e = "sh!",
  capture3 = "sh!", popen3 = "sh!", rm_rf = "rmr", rm_r = "rmr", rmtree = "rmr", remove_dir = "rmr",
  remove_entry = "rmr", remove_entry_secure = "rmr",
  rm = "rm", rm_f = "rm", delete = "rm", unlink = "rm", read = "read", readlines = "read", open = "open",
  foreach = "read", write = "write" }
local PL = { system = "sh!", exec = "sh", rmtree = "rmr", remove_tree = "rmr", unlink = "rm", open = "plopen" }
local PHP = { system = "sh!", exec = "sh!", shell_exec = "sh!", passthru = "sh!", popen = "sh!", proc_open = "sh!",
  unlink = "rm", rmdir = "rmdir", file_get_contents = "read", file = "read", readfile = "read", fopen = "open",
  file_put_contents = "write" }
local LUA = { execute = "sh!", popen = "sh!", remove = "rm", open = "open" }
local AWK = { system = "sh!" }
-- osascript: JavaScript for Automation's doShellScript (the AppleScript
-- do shell script is read apart, it is no call)
local OSA = { doShellScript = "osa" }

-- FAMILY: the table and quoting rules of each interpreter (by name, its
-- version dropped). bt: `…` runs a shell line; interp: the text that
-- starts an interpolation inside "…".
local FAMILY = {
  python = { calls = PY, triple = true }, node = { calls = JS, zx = true, interp = "${" },
  nodejs = { calls = JS, zx = true, interp = "${" }, deno = { calls = JS, zx = true, interp = "${" },
  bun = { calls = JS, zx = true, interp = "${" }, ruby = { calls = RB, bt = true, pct = "x", interp = "#{" },
  perl = { calls = PL, bt = true, pct = "qx", interp = "$" }, php = { calls = PHP, bt = true, interp = "$" },
  lua = { calls = LUA }, awk = { calls = AWK, awk = true },
  osascript = { calls = OSA, interp = "${", osa = true },
}
for _, n in ipairs({ "gawk", "mawk", "nawk" }) do FAMILY[n] = FAMILY.awk end

function M.family(name)
  return name and (FAMILY[name] or FAMILY[(name:gsub("[%d.]+$", ""))]) or nil
end

local ESC = { n = "\n", t = "\t", r = "\r", ["0"] = "\0", ["\\"] = "\\", ["'"] = "'", ['"'] = '"', ["`"] = "`" }

-- literal reads a string literal at i: its text, the position after it,
-- and whether it interpolates (a computed part); nil when there is none.
local function literal(code, i, fam)
  local prefix = code:match("^[rRbBuU]?[rRbB]?", i)
  local f = fam.triple and code:match("^[fF]", i) and 1 or 0
  if fam.triple and f == 1 then prefix = code:match("^[fF][rR]?", i) end
  local at = i + #prefix
  local q = code:sub(at, at)
  if q ~= "'" and q ~= '"' and not (q == "`" and fam.interp == "${") then return nil end
  if #prefix > 0 and not fam.triple then return nil end
  local close = q
  if fam.triple and code:sub(at, at + 2) == q:rep(3) then close = q:rep(3) end
  local out, j, raw = {}, at + #close, prefix:find("[rR]") ~= nil
  local computed = f == 1
  local e, b = 0, 0
  while true do
    -- each searched again only once passed: one pass over the literal
    if e and e < j then e = code:find(close, j, true) end
    if b and b < j then b = code:find("\\", j, true) end
    if not e then return nil end
    if b and b < e and not raw then
      out[#out + 1] = code:sub(j, b - 1)
      local c = code:sub(b + 1, b + 1)
      local h = c == "x" and code:match("^%x%x", b + 2)
      if h then out[#out + 1] = string.char(tonumber(h, 16)); j = b + 4
      else out[#out + 1] = ESC[c] or ("\\" .. c); j = b + 2 end
    else
      out[#out + 1] = code:sub(j, e - 1)
      j = e + #close
      break
    end
  end
  local text = table.concat(out)
  if fam.interp and q ~= "'" and text:find(fam.interp, 1, true) then computed = true end
  if f == 1 and not text:find("{", 1, true) then computed = false end
  return text, j, computed
end

-- args reads a call's arguments from just after its "(" (or the space of
-- a call without parentheses): the literals and literal lists up to the
-- first other argument, which stops the reading. It returns the list
-- ({ "text" } or { list = { ... } } per argument), whether the first
-- argument was computed, and the code's rest from where it stopped.
local function args(code, i, fam)
  local out = {}
  while true do
    i = code:find("[^%s]", i) or #code + 1
    local wrap = code:match("^[%w_.]*expand_?[pu][as][te][hr]?%w*%s*%(", i)
    -- perl's glob "…" and ruby's Dir.glob("…"): the literal is a pattern
    local globbed = not wrap and fam.bt and code:match("^[%w_.]*glob%f[^%w_]%s*%(?%s*", i)
    if wrap or globbed then i = i + #(wrap or globbed) end
    local text, nx, computed = literal(code, i, fam)
    if text then
      if wrap or (globbed and globbed:find("(", 1, true)) then
        local _, ce = code:find("^%s*%)", nx)
        if ce then nx = ce + 1 end
      end
      -- a literal joined to more ("rm " + x, "rm " . $x, "rm %s" % x) is computed
      local after = code:match("^%s*(.?)", nx)
      if computed or not (after == "," or after == ")" or after == "]" or after == ";" or after == "}" or after == "") then
        return out, #out == 0, nx
      end
      out[#out + 1] = { text, glob = globbed and true or nil }
      i = nx
    elseif code:sub(i, i) == "[" then
      local list = {}
      i = i + 1
      while true do
        i = code:find("[^%s]", i) or #code + 1
        local t, n2, c2 = literal(code, i, fam)
        if not t or c2 then return out, #out == 0, i end
        list[#list + 1] = t
        i = code:find("[^%s]", n2) or #code + 1
        if code:sub(i, i) == "," then i = i + 1
        elseif code:sub(i, i) == "]" then i = i + 1; break
        else return out, #out == 0, i end
      end
      out[#out + 1] = { list = list }
    else
      return out, #out == 0 and not code:find("^%)", i), i
    end
    i = code:find("[^%s]", i) or #code + 1
    if code:sub(i, i) ~= "," then return out, false, i end
    i = i + 1
  end
end

-- WINDOW bounds what is read after a call for its options ({ recursive:
-- true }, { args: [...] }), so that no call reads the rest of the code.
local WINDOW = 1024

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- line turns a runner's arguments into a shell line: one string is a
-- command line; a list, or several strings, an argv.
local function line(list)
  if #list == 1 and list[1][1] then return list[1][1] end
  local parts = {}
  for _, a in ipairs(list) do
    if a.list then
      for _, t in ipairs(a.list) do parts[#parts + 1] = q(t) end
    else
      parts[#parts + 1] = q(a[1])
    end
  end
  return table.concat(parts, " ")
end

local function first(list) return list[1] and list[1][1] end

-- operand spells a delete's path for the shell line: quoted, or as a
-- glob when the code gave a pattern (perl unlink glob "/x/*") of plain
-- characters.
local function operand(list)
  local path = first(list)
  if list[1].glob and path:find("^[%w/._*?%[%]~-]+$") then return path end
  return q(path)
end

-- file turns a delete, read or write into a shell line, or nil.
local function file(kind, list, rest)
  local path = first(list)
  if kind == "plopen" then
    -- perl open(FH, "<", "path") or open(FH, ">path")
    local mode, p2 = list[#list - 1] and list[#list - 1][1], list[#list] and list[#list][1]
    if not p2 then return nil end
    if not mode then mode, p2 = p2:match("^%s*([<>+]*)%s*(.-)%s*$") end
    return (mode:find(">") and "tee " or "cat ") .. q(p2)
  end
  if not path then return nil end
  if kind == "rmr" then return "rm -r -f " .. operand(list) end
  if kind == "rm" then return "rm -f " .. operand(list) end
  if kind == "rmdir" then return "rmdir " .. q(path) end
  if kind == "rmjs" then
    return (rest:match("^[^)]*recursive%s*:%s*true") and "rm -r -f " or "rm -f ") .. q(path)
  end
  if kind == "read" then return "cat " .. q(path) end
  if kind == "write" then return "tee " .. q(path) end
  if kind == "open" then
    local mode = list[2] and list[2][1] or "r"
    return (mode:find("[wax+]") and "tee " or "cat ") .. q(path)
  end
  return nil
end

-- read scans code and parses the commands it runs; it returns a reason
-- when a shell runner's command is computed at run time.
function M.read(p, name, code, via)
  local fam = M.family(name)
  if not fam or not p.charge(p, "bytes", #code) then return nil end
  local computed
  local function run(text)
    if p.charge(p, "tokens", 1) then p.sub_parse(p, text, via) end
  end
  -- as_root runs a shell line as root (osascript's administrator
  -- privileges): read as sudo sh -c 'line'
  local function as_root(text)
    run("sudo sh -c " .. q(text))
  end
  local i = 1
  local HUGE = math.huge
  -- the next backquote, %x( / qx( and $`, found again only once passed, so
  -- that the scan stays one pass however many calls the code holds
  local b, x, z, s, e, fname = 0, 0, 0, 0, 0, nil
  while i <= #code and not p.err do
    if s ~= HUGE and s < i then
      s, e, fname = code:find("%f[%w_]([%a_][%w_]*)%s*%(", i)
      s = s or HUGE
    end
    if b ~= HUGE and b < i then b = fam.bt and code:find("`", i, true) or HUGE end
    if x ~= HUGE and x < i then
      x = (fam.pct == "x" and code:find("%%x[({%[|!]", i)) or (fam.pct == "qx" and code:find("qx%s*[({%[|!/]", i))
        or HUGE
    end
    if z ~= HUGE and z < i then z = fam.zx and code:find("%$`", i) or HUGE end
    -- the earliest of a call, a backquote, %x( / qx( and $`
    local at = math.min(s, b, x, z)
    if at == HUGE then break end
    if at == z or at == b then
      local open = at == z and at + 1 or at
      local close = code:find("`", open + 1, true)
      if not close then break end
      local text = code:sub(open + 1, close - 1)
      if fam.interp and text:find(fam.interp, 1, true) then computed = computed or "`…` of a computed command"
      else run(text) end
      i = close + 1
    elseif at == x then
      local o = code:match("^%%?%a+%s*(.)", x)
      local pairs_ = { ["("] = ")", ["{"] = "}", ["["] = "]" }
      local cl = pairs_[o] or o
      local from = code:find(o, x, true) + 1
      local close = code:find(cl, from, true)
      if not close then break end
      local text = code:sub(from, close - 1)
      if fam.interp and text:find(fam.interp, 1, true) then computed = computed or "%x(…) of a computed command"
      else run(text) end
      i = close + 1
    else
      local kind = fam.calls[fname]
      i = e + 1
      if kind == "plopen" then
        -- perl open(FH, "<", "path"): the handle is no literal; the literals are the mode and path
        local list = {}
        for t in code:sub(e + 1, e + WINDOW):match("^[^)]*"):gmatch("[\"']([^\"']*)[\"']") do
          list[#list + 1] = { t }
        end
        local l = file(kind, list, "")
        if l then run(l) end
      elseif kind then
        local list, comp, nx = args(code, e + 1, fam)
        if kind == "cmd" then
          -- new Deno.Command("rm", { args: ["-rf", "/"] })
          local argv = code:sub(nx, nx + WINDOW):match("^[^)]-args%s*:%s*(%b[])")
          if list[1] and list[1][1] and argv then
            local more = args(argv:sub(2, -2) .. ")", 1, fam)
            list[#list + 1] = { list = {} }
            for _, m in ipairs(more) do list[#list].list[#list[#list].list + 1] = m[1] end
          end
          if #list > 0 then run(line(list)) end
        elseif kind == "osa" then
          -- app.doShellScript("…", { administratorPrivileges: true })
          if #list > 0 then
            local l = line(list)
            if code:sub(nx, nx + WINDOW):match("^[^)]-administratorPrivileges%s*:%s*true") then as_root(l)
            else run(l) end
          elseif comp then
            computed = computed or "doShellScript() of a computed command"
          end
        elseif kind:sub(1, 2) == "sh" then
          if #list > 0 then run(line(list))
          elseif comp and kind == "sh!" then computed = computed or (fname .. "() of a computed command") end
        else
          local l = file(kind, list, code:sub(nx, nx + WINDOW))
          if l then run(l) end
        end
        i = math.max(i, nx)
      end
    end
  end
  if fam.awk then
    -- "cmd" | getline; print … | "cmd": what print writes is cmd's input
    for text in code:gmatch('"([^"]*)"%s*|%s*getline') do run(text) end
    for at, target in code:gmatch('()|%s*"([^"]*)"') do
      -- the statement before the pipe, read back at most 200 bytes
      local what = code:sub(math.max(1, at - 200), at - 1):match("[^;{}\n]*$"):match("^%s*printf?%f[^%w](.-)%s*$")
      if what then
        local text = what:match('^%s*%(?%s*"([^"]*)"%s*%)?$')
        run(target .. " <<< " .. (text and q(text) or '"$__awk_print"'))
      end
    end
  end
  if fam.osa then
    -- AppleScript: do shell script "…" [with administrator privileges]
    -- (its words in any case); a script that is not one literal (a
    -- variable, "rm " & x) is computed
    local lower = code:lower()
    for at in lower:gmatch("do%s+shell%s+script%s*()") do
      local i2 = code:match("^%(%s*()", at) or at
      local text, nx, comp = literal(code, i2, fam)
      local after = text and lower:match("^[ \t]*%)?[ \t]*([^\n]*)", nx) or ""
      if not text or comp or after:find("^&") then
        computed = computed or "do shell script of a computed command"
      elseif after:find("administrator%s+privileges") then
        as_root(text)
      else
        run(text)
      end
    end
  end
  -- ruby and perl call system "…" and rmtree "…" without parentheses too
  if fam.bt then
    for fname, at in code:gmatch("%f[%w_]([%a_][%w_]*)%s+()[\"']") do
      local kind = fam.calls[fname]
      if kind and kind:sub(1, 2) == "sh" then
        local list = args(code, at, fam)
        if #list > 0 then run(line(list)) end
      elseif kind == "rmr" or kind == "rm" or kind == "rmdir" then
        local l = file(kind, (args(code, at, fam)), "")
        if l then run(l) end
      end
    end
    -- unlink glob "/x/*"
    for fname, at in code:gmatch("%f[%w_]([%a_][%w_]*)%s+()[%w_.]*glob%f[^%w_]") do
      local kind = fam.calls[fname]
      if kind == "rmr" or kind == "rm" then
        local l = file(kind, (args(code, at, fam)), "")
        if l then run(l) end
      end
    end
  end
  return computed
end

return M
