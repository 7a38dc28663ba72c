-- shell: what a shell command line would run, for policies that judge it.
--
--   local shell = require("shell")
--   local cmds, err = shell.parse("sudo env X=1 /bin/rm -r -f \"$HOME\"")
--   -- cmds[1].name == "rm", cmds[1].wrappers == { "sudo", "env" }
--   -- cmds[1].args[3].text == "~" and cmds[1].args[3].home == true
--
-- shell.parse(src) returns every simple command the line holds, flattened
-- in the order the shell would reach them, including the ones inside $(…),
-- `…`, <(…), >(…), bash -c '…' / sh -c / su -c / eval / env -S / watch
-- strings, find -exec / -execdir / -ok, xargs (-I {} put in place, one
-- command per item; known items of xargs sudo / env / timeout / busybox …
-- are the wrapped command's words; items split at -0 / -d's delimiter,
-- or at blanks outside quotes; BSD -J read as -I), GNU parallel (its
-- command run by a shell for each item after ::: or read from the pipe,
-- its words read both joined and quoted; sem once), the command ssh runs
-- on the remote host, function bodies, here-documents,
-- here-strings and text piped into a shell (echo, printf and their
-- escapes, base64 -d, xxd -r -p, rev: shell.output), and the commands an
-- interpreter's one-liner runs (python -c, node -e, ruby -e, perl -e,
-- php -r, deno eval, bun -e, awk programs: os.system("…"),
-- subprocess.run([…]), execSync("…"), `…`, system("…"), … and their file
-- deletes and reads as rm and cat: see shell.interp, which lists what is
-- read and what is not), and a second value err that is nil, or says which
-- limit the line passed (shell.limits); a policy that must not be bypassed
-- treats err as a denial. A third value, unreadable, is nil, or says what
-- of the line the shell would refuse to run and where ("a \" that is not
-- closed, at byte 6: \"unclosed…"): a quote, $(…), `…`, ${…}, $((…)) or
-- ( … ) left open, or a |, && or || with no command after it; the commands
-- are then what the reader made of the rest (a quote not closed runs to the
-- end of the line). A script the line hands to a shell is judged so too
-- (sh -c '…', eval, su -c, ssh's remote command, `…`, a here-document, a
-- here-string or text piped into a shell, an interpreter's os.system
-- string): its shell refuses it when it runs, and unreadable says so ("a '
-- that is not closed, at byte 1 of the script bash -c runs: 'rm -rf ~");
-- the text of a here-document read for its expansions only (cat <<EOF) is
-- no script, its quotes mean nothing. parse never raises.
--
-- Each command is a table:
--   name      the program, its path dropped and lower-cased ("/bin/RM" ->
--             "rm"; in Windows form too: "C:\\Git\\bin\\git.exe" -> "git",
--             see shell.args.program), after the wrappers; nil when the
--             program word is not known (a $VAR never set on the line, a
--             $(…) output). Words are bytes: a Unicode dash (U+2010) is
--             not "-", as no program reads it as an option's dash
--   word      the program word, a path in it cleaned as the kernel reads it
--             ("/./etc/init.d/x" -> "/etc/init.d/x", "//bin//rm" ->
--             "/bin/rm"); args: the words after it; word_at: its index in
--             argv (the words before it are wrappers and assignments)
--   wrappers  the wrappers that were unwrapped, in order ({ "sudo", "xargs" })
--             (shell.args.WRAPPERS: sudo, env, timeout, nice, stdbuf, xargs,
--             chronic, faketime SPEC, gosu USER, tini --, dotenv, envchain
--             NS, ...). A runner (an entry with keep) stays the command,
--             with its own words, and the command it runs follows it with
--             the runner among its wrappers: uv run CMD gives "uv run CMD"
--             and "[uv] CMD"; so do poetry/pipenv/pdm/hatch/rye/pixi run,
--             conda/mamba/micromamba run -n X, bundle/pnpm/npm/yarn/asdf
--             exec, mise exec/x TOOLS -- CMD, direnv exec DIR, nix
--             develop/shell ... -c CMD, dotenvx/op/doppler/infisical run,
--             aws-vault exec PROFILE, chamber exec S... -- CMD, devbox run,
--             perf record/stat, gdb --args, systemd-run, unshare, nsenter,
--             bwrap, proot, dbus-run-session and rlwrap; the command lines
--             of hyperfine 'CMD'..., script -c, nix-shell --run, doppler
--             and infisical --command, sops exec-env FILE 'CMD', pnpm exec
--             -c, sg GROUP 'CMD' are read as lines, and runuser -u USER
--             [--] CMD as words. A program the reader does not know (none
--             of these, no shell or interpreter, and not one of
--             shell.args.KNOWN: git, docker, kubectl, npm, cargo, go, grep,
--             man, echo, ... whose own subcommands are named rm, run or
--             exec) falls back the same way, once: when its first operand
--             is one of shell.args.GUARDED (rm, find, dd, shred, mkfs.*,
--             git, chmod, chown, sudo, eval, xargs, ...) and a word follows
--             it, or a shell (sh, bash, ...) that an option follows, the
--             command starts there (tool -v rm -rf / gives "tool -v rm -rf
--             /" and "[tool] rm -rf /"); else after its first "--", "run"
--             or "exec" that a word follows (acme -- make, devenv shell
--             exec CMD). A command found so has fallback = true
--   dir       the folder it runs in when a cd (pushd, popd) before it on
--             the line, or its own env -C / sudo -D, moved it: a path from
--             the payload's cwd ("..", "src", "/tmp", "~/x"), with "\0"
--             where a folder is not known (cd "$X", cd -, popd); nil when
--             it runs in the payload's cwd. A cd in ( … ) or $( … ) is
--             taken to last after it; one in sh -c '…' does not. The
--             command ssh runs remotely starts in "~"
--   chdir     the folder its env -C / sudo -D names, as written
--   redirs    { op = ">", fd = "2"|nil, target = word } ("<<" targets hold
--             the here-document's text)
--   pipe_in, pipe_out, bg      a | before / after it, a trailing &
--   upstream  the command before it in its pipeline
--   func      the name of the shell function whose body holds it
--   via       how it was reached when nested ("$(", "`", "<(", "bash -c", ...);
--             a command line set for a program to run later is read too:
--             "git -c core.pager", "git config alias.x" (a git setting git
--             runs: a pager, an editor, ssh, fsmonitor, a driver, a "!"
--             alias or credential helper) and "GIT_PAGER=" (a variable of
--             shell.args.RUN_VARS assigned as a prefix, by env or export)
--   script    for shells, interpreters and eval: the word holding the
--             script (a script operand, python -c code, an unknown sh -c
--             string); inline: it is code given on the command line
--   reads_stdin  a shell or interpreter that reads its script from stdin
--   computed  why the script it runs is known only when it runs (nil when
--             the line writes it out): sh -c / eval / su -c / source of a
--             $(…) (or a string holding one), a variable or <(…); bash
--             <(…) or $X; a shell or interpreter reading a pipe or
--             here-document whose text is not on the line; a one-liner's
--             os.system(x), execSync(`…${x}`), system($0); parallel's
--             command lines read when it runs; an item xargs or parallel
--             reads that is the whole script of sh -c (xargs bash -c,
--             echo ok | parallel sh -c {}), read as far as the line shows
--             it. A written-out script with a variable's value in it (sh -c
--             "cd $D && make") is read, the value an unknown word, and not
--             marked
--
-- shell.find_own(cmd) returns a find command without the words of its
-- -exec / -execdir / -ok / -okdir actions (find . -exec echo -delete \;
-- has no -delete of its own).
--
-- Each word is a table:
--   text      its value after quote removal and expansion; unknown parts are "\0"
--   pat       the same as a glob pattern (see shell.glob): quoted glob
--             characters escaped, unknown parts "\0"
--   glob      it holds an active *, ? or [...]
--   unknown   part of it is unknown; whole: all of it is
--   source    what the unknown part is: "var", "subst", "proc", "arith",
--             "stdin" (items xargs reads), "find" ({} of find -exec),
--             "overflow" (an expansion past shell.limits.fields)
--   home      it starts with the home folder (~, ~user, $HOME, ${HOME}, ${HOME:?},
--             ${HOME%/}, ${HOME,,}), which text spells "~"
--   cwd       it starts with the working folder ($PWD, ${PWD}, $(pwd), `pwd`,
--             ~+), which text spells "." ("$PWD"/.. is "./..")
--   dir       it is all unknown but names a folder ($OLDPWD, ~-): target
--             calls it "prefix"
--   subs      lists of the commands whose output it holds
--   lead      the name of a variable the line does not set that starts it
--             ($X/junk, "${X}"/out; not ${X:?}/junk, ${X:-d}/out): unset or
--             empty, the word is what follows ("/junk")
--
-- Quotes, \ escapes, $'…' (\xHH, \NNN, \uHHHH, \cX), "…" (\" \\ \$ \`),
-- brace expansion ({a,b}, {1..3}, nested), variables assigned earlier on
-- the same line (all the values a variable was given, so that a branch
-- cannot hide one), ${X:-w} and friends, case changes (${X^^}, ${X,,}),
-- and unquoted field splitting are followed; globs are kept as globs.

local lex = require("shell.lex")
local glob = require("shell.glob")
local args = require("shell.args")
local output = require("shell.output")
local quick = require("shell.quick")
local target = require("shell.target")

local ipairs, pairs, type, next, tostring, tonumber = ipairs, pairs, type, next, tostring, tonumber
local M = {}
local find, byte = string.find, string.byte
local B_TILDE, B_SLASH = 126, 47

-- limits bounds the work of one parse: bytes of the line, tokens (words,
-- brace and glob characters), commands, nesting depth, fields one word may expand to,
-- values one variable may hold, brace groups in a word.
M.limits = { bytes = 65536, tokens = 8192, commands = 1024, depth = 12, fields = 64, values = 16, braces = 32 }

M.glob = glob
M.options = args.options
M.basename = args.basename
M.interpreter = args.interpreter

local UNKNOWN_WORD = { text = "\0", pat = "\0", unknown = true, whole = true, source = "overflow" }

local function esc_quoted(s) return (s:gsub("[\\*?%[%]\0]", "\\%0")) end
local function esc_plain(s) return (s:gsub("[\\\0]", "\\%0")) end

-- slice copies pieces a..b.
local function slice(t, a, b, out)
  out = out or {}
  for k = a, b do out[#out + 1] = t[k] end
  return out
end

-- sequence expands the inside of {x..y[..step]} or returns nil.
local function sequence(pieces, a, b, limit)
  if b ~= a or pieces[a].k ~= "lit" or pieces[a].q then return nil end
  -- one assignment per statement: gopher-lua mishandles some multiple
  -- assignments whose right side reads a variable of the left side
  local s = pieces[a].s
  local xs, ys, step = s:match("^(%-?%d+)%.%.(%-?%d+)%.?%.?(%-?%d*)$")
  local chars = false
  local x, y
  if xs then
    x = tonumber(xs)
    y = tonumber(ys)
  else
    local cx, cy = s:match("^(%a)%.%.(%a)$")
    if not cx then return nil end
    x = cx:byte()
    y = cy:byte()
    chars = true
  end
  step = math.abs(tonumber(step) or 1)
  if step == 0 then step = 1 end
  if not x or not y then return nil end
  local count = math.floor(math.abs(y - x) / step) + 1
  if count > limit then return false end
  local out = {}
  local dir = y >= x and step or -step
  for v = x, y, dir do
    out[#out + 1] = { { k = "lit", s = chars and string.char(v) or tostring(v), q = false } }
  end
  return out
end

-- braces expands the brace groups of a word into out, outermost first;
-- false once the results pass the limit.
local function braces(pieces, out, limit, inner)
  local stack = {}
  for i, pc in ipairs(pieces) do
    if pc.k == "brace" then
      if pc.c == "{" then
        stack[#stack + 1] = { i = i, commas = {} }
      elseif pc.c == "," and #stack > 0 then
        local g = stack[#stack]
        g.commas[#g.commas + 1] = i
      elseif pc.c == "}" and #stack > 0 then
        local g = table.remove(stack)
        local alts
        if #stack > 0 and not inner then
          -- nested: the group around it goes first
        elseif #g.commas > 0 then
          alts = {}
          local from = g.i + 1
          for _, ci in ipairs(g.commas) do
            alts[#alts + 1] = slice(pieces, from, ci - 1); from = ci + 1
          end
          alts[#alts + 1] = slice(pieces, from, i - 1)
        else
          alts = sequence(pieces, g.i + 1, i - 1, limit)
          if alts == false then return false end
        end
        if alts then
          for _, a in ipairs(alts) do
            local np = slice(pieces, 1, g.i - 1)
            slice(a, 1, #a, np)
            slice(pieces, i + 1, #pieces, np)
            if not braces(np, out, limit) then return false end
          end
          return true
        end
      end
    end
  end
  if not inner then
    -- no outermost group expands ({x{a,b}}): try the nested ones
    return braces(pieces, out, limit, true)
  end
  out[#out + 1] = pieces
  return #out <= limit
end

-- output returns what a command prints when that is known from the line
-- itself (see shell.output): echo and printf of known words, their escapes
-- decoded, cat, rev, base64 -d and xxd -r -p of known input. Otherwise nil.
M.output = output.output

-- last returns the command whose output $(…) holding cmds is: its one
-- top-level command, or the last of its one pipeline; nil otherwise.
local function last(cmds)
  local top
  for _, c in ipairs(cmds) do
    if c.depth == cmds[1].depth then
      if top and not top.pipe_out then return nil end
      top = c
    end
  end
  return top
end

-- subst_value is the value of $(…) holding cmds, or nil when unknown.
local function subst_value(p, cmds)
  local v = output.output(last(cmds), p)
  return v and (v:gsub("\n+$", ""))
end

-- is_pwd reports whether $(…) holding cmds is $(pwd), the working folder.
local function is_pwd(cmds)
  local c = last(cmds)
  return c ~= nil and #cmds == 1 and c.name == "pwd" and #c.wrappers == 0 and (#c.args == 0
    or (#c.args == 1 and (c.args[1].text == "-L" or c.args[1].text == "-P")))
end

-- builder: the alternatives of one word being expanded.
local function new_alt() return { t = {}, g = {}, known = false } end

local function copy_alt(a)
  local b = { t = slice(a.t, 1, #a.t), g = slice(a.g, 1, #a.g), known = a.known, unknown = a.unknown,
    home = a.home, cwd = a.cwd, dir = a.dir, source = a.source, glob = a.glob, lead = a.lead }
  if a.subs then b.subs = slice(a.subs, 1, #a.subs) end
  return b
end

local function add_text(alt, s, q)
  alt.t[#alt.t + 1] = s
  if q then
    alt.g[#alt.g + 1] = esc_quoted(s)
  else
    alt.g[#alt.g + 1] = esc_plain(s)
    if s:find("[*?%[]") then alt.glob = true end
  end
  if s ~= "" then alt.known = true end
end

local function add_unknown(alt, source, subs)
  alt.t[#alt.t + 1] = "\0"
  alt.g[#alt.g + 1] = "\0"
  alt.unknown = true
  alt.source = alt.source or source
  if subs then
    alt.subs = alt.subs or {}
    alt.subs[#alt.subs + 1] = subs
  end
end

-- add_word appends a resolved word (a variable's value) to an alternative.
local function add_word(alt, w, q, first)
  if w.home and first then alt.home = true end
  if w.cwd and first then alt.cwd = true end
  if w.dir and first then alt.dir = true end
  if w.unknown then
    alt.unknown = true
    alt.source = alt.source or w.source
  end
  if w.subs then
    alt.subs = alt.subs or {}
    for _, s in ipairs(w.subs) do alt.subs[#alt.subs + 1] = s end
  end
  alt.t[#alt.t + 1] = w.text
  if q then
    -- a quoted expansion is literal text, but its unknown parts stay unknown
    alt.g[#alt.g + 1] = esc_quoted(w.text):gsub("\\\0", "\0")
  else
    alt.g[#alt.g + 1] = w.pat
    if w.glob then alt.glob = true end
  end
  if w.text:gsub("\0", "") ~= "" then alt.known = true end
end

local expand -- forward

-- The words the working folder spells ($PWD, $(pwd), ~+: "." marked cwd)
-- and the folder before it ($OLDPWD, ~-: an unknown folder, marked dir).
local PWD_WORD = { text = ".", pat = ".", cwd = true }
local OLDPWD_WORD = { text = "\0", pat = "\0", unknown = true, whole = true, source = "var", dir = true }
local FOLDERS = { HOME = { { text = "~", pat = "~", home = true } }, PWD = { PWD_WORD }, OLDPWD = { OLDPWD_WORD } }

-- cased returns the words of v with their case changed by ${X^^}, ${X,},
-- ...; the home and working folders stay what they are.
local function cased(v, op)
  local out = {}
  for _, w in ipairs(v) do
    if w.home or w.cwd or w.unknown then
      out[#out + 1] = w
    else
      local f = op:sub(1, 1) == "^" and string.upper or string.lower
      local t = #op == 2 and f(w.text) or f(w.text:sub(1, 1)) .. w.text:sub(2)
      out[#out + 1] = { text = t, pat = (t:gsub("[\\\0]", "\\%0")), glob = w.glob }
    end
  end
  return out
end

-- ALWAYS_SET: the special parameters the shell always sets to a value
-- that is not empty ($$, $?, $#, $-).
local ALWAYS_SET = { ["$"] = true, ["?"] = true, ["#"] = true, ["-"] = true }

-- values returns the words a ${…} or $NAME piece may expand to, or nil
-- when unknown.
local function values(p, pc, first)
  local name, op = pc.name, pc.op
  local v = p.vars[name] or FOLDERS[name]
  if op == nil or op == ":?" or op == "?" then return v end
  if op == ":-" or op == "-" or op == ":=" or op == "=" then
    if v then return v end
    local out = { UNKNOWN_WORD }
    for _, w in ipairs(expand(p, pc.arg, true)) do out[#out + 1] = w end
    return out
  end
  if op == ":+" or op == "+" then
    local out = { { text = "", pat = "" } }
    for _, w in ipairs(expand(p, pc.arg, true)) do out[#out + 1] = w end
    return out
  end
  if v and (op == "^^" or op == "^" or op == ",," or op == ",") then return cased(v, op) end
  -- ${HOME%/}: a trailing slash dropped leaves the folder; ${PWD%/*}: the
  -- folder above it
  local cut = (op == "%" or op == "%%") and v and FOLDERS[name] == v and name ~= "OLDPWD"
    and (#pc.arg == 0 and "" or (#pc.arg == 1 and pc.arg[1].k == "lit" and pc.arg[1].s))
  if cut == "" or cut == "/" then return v end
  if cut == "/*" and op == "%" then
    return { { text = v[1].text .. "/..", pat = v[1].pat .. "/..", home = v[1].home, cwd = v[1].cwd } }
  end
  return nil
end

-- fields expands one brace-free piece list into words.
local function fields(p, pieces, limit, nosplit)
  local alts = { new_alt() }
  local single = #pieces == 1 and (pieces[1].k == "var" or pieces[1].k == "sub") and not pieces[1].q and not nosplit
  for idx, pc in ipairs(pieces) do
    local k = pc.k
    if k == "lit" then
      -- a quoted ~ at the start is taken for the home folder too: the value
      -- of $HOME passed through a nested sh -c string comes back that way
      local home = idx == 1 and pc.q and (pc.s:find("^~/") or pc.s == "~")
      for _, a in ipairs(alts) do
        add_text(a, pc.s, pc.q)
        if home and idx == 1 then a.home = true end
      end
    elseif k == "brace" then
      for _, a in ipairs(alts) do add_text(a, pc.c, true) end
    elseif k == "glob" then
      for _, a in ipairs(alts) do
        a.t[#a.t + 1] = pc.s; a.g[#a.g + 1] = pc.s; a.glob = true; a.known = true
      end
    elseif k == "tilde" then
      for _, a in ipairs(alts) do
        if idx == 1 and (pc.user == "+" or pc.user == "-") then
          -- ~+ is $PWD, ~- is $OLDPWD
          add_word(a, pc.user == "+" and PWD_WORD or OLDPWD_WORD, false, true)
        elseif idx == 1 then
          a.t[#a.t + 1] = "~"; a.g[#a.g + 1] = "~"; a.home = true; a.known = true
        else
          add_text(a, "~" .. pc.user, true)
        end
      end
    elseif k == "var" then
      local v = values(p, pc, idx == 1)
      if v == nil then
        -- a function's arguments come from its callers: not followed, so
        -- treated as computed
        local src = (p.cur_func and pc.name and pc.name:find("^[%d@*]$")) and "arg" or "var"
        -- a variable that may be unset or empty leads the word: $X/junk is
        -- /junk then (${X:?}/junk stops the shell instead)
        local lead = idx == 1 and pc.op ~= ":?" and pc.op ~= "?" and not ALWAYS_SET[pc.name or "$"] and pc.name
        for _, a in ipairs(alts) do
          add_unknown(a, src)
          if lead then a.lead = lead end
        end
      elseif #v == 1 then
        for _, a in ipairs(alts) do add_word(a, v[1], pc.q, idx == 1) end
      else
        local nx = {}
        for _, a in ipairs(alts) do
          for _, w in ipairs(v) do
            local b = copy_alt(a)
            add_word(b, w, pc.q, idx == 1)
            nx[#nx + 1] = b
            if #nx > limit then return { UNKNOWN_WORD } end
          end
        end
        alts = nx
      end
    elseif k == "sub" then
      local v = pc.kind ~= "<(" and pc.kind ~= ">(" and subst_value(p, pc.cmds)
      local pwd = v == nil and pc.kind ~= "<(" and pc.kind ~= ">(" and is_pwd(pc.cmds)
      for _, a in ipairs(alts) do
        if pwd then add_word(a, PWD_WORD, pc.q, idx == 1)
        elseif v then
          add_text(a, v, pc.q)
          -- $(echo ~), $(echo $HOME): the home folder
          if idx == 1 and (v == "~" or v:sub(1, 2) == "~/") then a.home = true end
        else add_unknown(a, (pc.kind == "<(" or pc.kind == ">(") and "proc" or "subst", pc.cmds) end
      end
    else -- unk
      for _, a in ipairs(alts) do
        add_unknown(a, "arith")
        for _, s in ipairs(pc.subs or {}) do
          if s.cmds then a.subs = a.subs or {}; a.subs[#a.subs + 1] = s.cmds end
        end
      end
    end
  end
  local out = {}
  for _, a in ipairs(alts) do
    local text = table.concat(a.t)
    local w = { text = text, pat = table.concat(a.g), glob = a.glob or nil, unknown = a.unknown or nil,
      whole = (a.unknown and not a.known) or nil, home = a.home or nil, cwd = a.cwd or nil,
      dir = (a.dir and a.unknown and not a.known) or nil, source = a.source, subs = a.subs, lead = a.lead }
    if single and not w.unknown and text:find("[%s]") then
      -- an unquoted expansion is split into fields at white space
      for f in text:gmatch("%S+") do
        out[#out + 1] = { text = f, pat = esc_plain(f), glob = f:find("[*?%[]") and true or nil,
          home = (#out == 0 and w.home and f:sub(1, 1) == "~") or nil }
      end
    else
      out[#out + 1] = w
    end
  end
  return out
end

-- expand returns the words one piece list expands to (brace expansion,
-- then the rest).
function expand(p, pieces, nosplit)
  local first = pieces[1]
  if first and not pieces[2] and first.k == "lit" then
    -- one literal piece, most words: the word fields() would make of it
    local s, q = first.s, first.q
    local pat, glob, home = s, nil, nil
    if q then
      if find(s, "[\\*?%[%]\0]") then pat = esc_quoted(s) end
      if byte(s, 1) == B_TILDE and (#s == 1 or byte(s, 2) == B_SLASH) then home = true end
    else
      if find(s, "[\\\0]") then pat = esc_plain(s) end
      if find(s, "[*?%[]") then glob = true end
    end
    return { { text = s, pat = pat, glob = glob, home = home } }
  end
  local limit = p.limits.fields
  local groups = 0
  for _, pc in ipairs(pieces) do
    if pc.k == "brace" and pc.c == "{" then groups = groups + 1 end
  end
  local lists = {}
  if groups == 0 then
    lists[1] = pieces
  elseif groups > p.limits.braces or not braces(pieces, lists, limit) then
    return { UNKNOWN_WORD }
  end
  local out = {}
  for _, l in ipairs(lists) do
    for _, w in ipairs(fields(p, l, limit, nosplit)) do
      out[#out + 1] = w
      if #out > limit then return { UNKNOWN_WORD } end
    end
  end
  return out
end
M.expand = expand

-- assign records the values given to a variable (every value it was given
-- on the line, up to limits.values).
local function assign(p, name, ws)
  local v = p.vars[name] or {}
  if p.vars[name] == nil then p.vars[name] = v end
  for _, w in ipairs(ws) do
    local seen = false
    for _, x in ipairs(v) do
      if x.text == w.text and x.pat == w.pat then seen = true; break end
    end
    if not seen then
      if #v >= p.limits.values then
        v[1] = UNKNOWN_WORD
      else
        v[#v + 1] = w
      end
    end
  end
end

-- assignment splits a raw word NAME=value into the name and the value's
-- pieces, or returns nil.
local function assignment(w)
  local first = w[1]
  if not first or first.k ~= "lit" or first.q then return nil end
  local name, rest = first.s:match("^([%a_][%w_]*)%+?=(.*)$")
  if not name then return nil end
  local pieces = {}
  if rest ~= "" then pieces[1] = { k = "lit", s = rest, q = false } end
  slice(w, 2, #w, pieces)
  return name, pieces
end

local DECLARE = { export = true, ["local"] = true, declare = true, typeset = true, readonly = true }

-- CD: the commands that change the working folder of the commands after
-- them (cd, pushd, popd), and the options of cd and pushd.
local CD = { cd = true, pushd = true, popd = true, chdir = true }

-- joined returns folder t (a path, "~/…", or with an unknown part "\0")
-- reached from folder base (nil: the payload's cwd) as shell.args.clean
-- spells it: an absolute or home path as it is, a relative one after base.
local function joined(base, t)
  if t:find("%z") then return "\0" end
  local full = t
  if base and not (t:sub(1, 1) == "/" or t == "~" or t:sub(1, 2) == "~/") then
    if base:find("%z") then return "\0" end
    full = base .. "/" .. t
  end
  local j = args.clean(full)
  if j == "" then return "." end
  return j
end

-- moved returns the folder a cd, pushd or popd leaves the shell in, from
-- folder dir: cd alone goes home; cd -, popd, pushd +N and a glob go to a
-- folder not known here ("\0"); $PWD/… is the payload's cwd's.
local function moved(dir, cmd)
  if cmd.name == "popd" then return "\0" end
  local w
  for _, a in ipairs(cmd.args) do
    if a.unknown or a.text == "-" or not a.text:find("^%-") then w = a; break end
  end
  if not w then return cmd.name == "pushd" and "\0" or "~" end
  if w.whole or w.glob or w.text == "-" or w.text:find("^[+-]%d") then return "\0" end
  if w.cwd then return joined(nil, w.text) end
  return joined(dir, w.text)
end

-- emit adds a finished command to its list and to the flat list; a
-- command after a cd (or run by env -C / sudo -D) is given the folder it
-- runs in (dir).
local function emit(p, cmd, out)
  local dir = p.dir
  if cmd.chdir then dir = joined(dir, cmd.chdir) end
  cmd.dir = dir
  if CD[cmd.name or ""] then p.dir = moved(p.dir, cmd) end
  if cmd.pipe_in and not cmd.upstream then
    -- (a runner's command has the runner's upstream already)
    for k = #out, 1, -1 do
      local c = out[k]
      if c.pipeline == cmd.pipeline and c.pipe_out then cmd.upstream = c; break end
    end
  end
  out[#out + 1] = cmd
  p.all[#p.all + 1] = cmd
end

-- finish resolves a raw command from the lexer and emits it (with the
-- commands it runs in turn).
local function finish(p, raw)
  if not lex.charge(p, "commands", 1) then return end
  p.cur_func = raw.func
  local words = raw.words
  if raw.kind == "for" or raw.kind == "select" then
    local name = lex.word_text(words[2] or {})
    if name and lex.word_text(words[3] or {}) == "in" then
      local vs = {}
      for k = 4, #words do
        for _, w in ipairs(expand(p, words[k])) do vs[#vs + 1] = w end
      end
      assign(p, name, vs)
    end
    return
  elseif raw.kind == "case" then
    return
  end
  local k = 1
  local runs -- values of RUN_VARS set here, which a program runs as command lines
  while words[k] do
    local name, value = assignment(words[k])
    if not name then break end
    if args.RUN_VARS[name] and not words[k].array then
      local vs = expand(p, value, true)
      local run = #vs == 1 and not vs[1].unknown and args.run_var(name, vs[1].text)
      if run then runs = runs or {}; runs[#runs + 1] = { run, name .. "=" } end
    end
    if words[k].array then
      local vs = {}
      for _, item in ipairs(words[k].array) do
        for _, w in ipairs(expand(p, item)) do vs[#vs + 1] = w end
      end
      assign(p, name, vs)
    else
      assign(p, name, expand(p, value, true))
    end
    k = k + 1
  end
  -- a declaration builtin, however quoted (e''xport is export)
  local decl = words[k] and DECLARE[lex.word_text(words[k]) or ""]
  if words[k] and not decl then
    local e = expand(p, words[k], true)
    decl = #e == 1 and not e[1].unknown and DECLARE[e[1].text] or nil
  end
  local argv = {}
  for i = k, #words do
    local name, value = nil, nil
    if decl and i > k then name, value = assignment(words[i]) end
    if name then
      local vs = expand(p, value, true)
      assign(p, name, vs)
      local run = args.RUN_VARS[name] and #vs == 1 and not vs[1].unknown and args.run_var(name, vs[1].text)
      if run then runs = runs or {}; runs[#runs + 1] = { run, name .. "=" } end
    end
    for _, w in ipairs(expand(p, words[i])) do argv[#argv + 1] = w end
  end
  local redirs = {}
  for _, r in ipairs(raw.redirs) do
    -- bash refuses a redirection to several words; each is kept anyway
    local t = expand(p, r.word, true)
    if #t == 0 then t[1] = { text = "", pat = "" } end
    for _, w in ipairs(t) do
      redirs[#redirs + 1] = { op = r.op, fd = r.fd, target = w, heredoc = r.heredoc }
    end
  end
  local cmd = { argv = argv, redirs = redirs, pipe_in = raw.pipe_in, pipe_out = raw.pipe_out, bg = raw.bg,
    pipeline = raw.pipeline, func = raw.func, via = raw.via, depth = raw.depth, wrappers = {} }
  if #argv == 0 then
    -- assignments and redirections only: no program runs
    if #redirs > 0 then
      cmd.name, cmd.args = "", {}
      emit(p, cmd, raw.out)
    end
  else
    args.unwrap(p, cmd, raw.out, emit)
  end
  -- what a pager, an editor or ssh set here will run (GIT_PAGER='…' git log,
  -- export GIT_SSH_COMMAND='…')
  for _, r in ipairs(runs or {}) do p.sub_parse(p, r[1], r[2]) end
end

-- The limits as parse charges them: nested strings are read again, so the
-- bytes lexed may reach three times the input cap.
local charged = {}
for k, v in pairs(M.limits) do charged[k] = v end
charged.bytes = 3 * M.limits.bytes

-- A line of plain words only (no quotes, expansions, globs, operators):
-- read without the lexer, the common case made cheap.
local PLAIN_LINE = "[^%w %-%./_:,@+%%]"

-- parse_line reads src, a string of at most max_bytes: the commands and
-- nil, or the commands read before a limit was passed and a message naming
-- the limit.
local function parse_line(src, max_bytes)
  local all = {}
  if #src > max_bytes then
    return all, string.format("the command is %d bytes long, over the %d bytes the shell parser reads",
      #src, max_bytes)
  end
  local p = { src = src, limits = charged, budget = { bytes = #src, tokens = 0, commands = 0 }, vars = {},
    all = all, out = {}, finish = finish, sub_parse = lex.sub_parse, output = output.output, charge = lex.charge,
    depth = 0 }
  local ok, e
  if not src:find(PLAIN_LINE) then
    lex.start(p)
    ok, e = pcall(function()
      local argv = {}
      for t in src:gmatch("%S+") do argv[#argv + 1] = { text = t, pat = t } end
      if #argv > charged.tokens then
        p.err = string.format("more than %d tokens", charged.tokens)
      elseif #argv > 0 then
        args.unwrap(p, { argv = argv, redirs = {}, wrappers = {}, depth = 0, pipeline = 1 }, p.out, emit)
      end
    end)
  else
    ok, e = pcall(lex.parse, p)
  end
  if not ok then
    -- a bug, not an input: reported as a limit so that policies deny
    return all, "the shell parser failed: " .. tostring(e)
  end
  if p.err then
    return all, "the command has " .. p.err .. ", more than the shell parser reads"
  end
  if p.syntax then
    local what, at, text, via = p.syntax[1], p.syntax[2], p.syntax[3], p.syntax[4]
    if text then
      return all, nil, string.format("%s, at byte %d of the script %s runs: %s", what, at,
        via == "`" and "`…`" or M.printable(via, 40), M.printable((text:sub(at, at + 39):gsub("\n.*", "")), 40))
    end
    return all, nil, string.format("%s, at byte %d: %s", what, at,
      M.printable((src:sub(at, at + 39):gsub("\n.*", "")), 40))
  end
  return all, nil
end

-- parse returns the simple commands of src and nil, or the commands read
-- before a limit was passed and a message naming the limit; and what of
-- the line the shell would refuse to run, or nil. A line is read
-- once for every hook file that loads this lib (memo.call): the others,
-- and later calls with the same line, get a copy of that reading.
function M.parse(src)
  if type(src) ~= "string" then return {}, "the command is not a string" end
  return memo.call(parse_line, src, M.limits.bytes)
end

function M.quick(spec) return quick.quick(spec, M.limits.tokens) end

-- FIND_EXEC: the find actions that run a command, up to a ";" or "+".
local FIND_EXEC = { ["-exec"] = true, ["-execdir"] = true, ["-ok"] = true, ["-okdir"] = true }

-- find_own returns a find command with the words of its -exec, -execdir,
-- -ok and -okdir actions left out of its args (parse gives the command
-- they run as a command of its own), so that a check of find's own
-- actions reads find's words only: find . -exec echo -delete \; prints,
-- and deletes nothing. Any other command is returned as it is.
function M.find_own(c)
  if c.name ~= "find" then return c end
  local own, k, a, cut = {}, 1, c.args, false
  while a[k] do
    if FIND_EXEC[a[k].text] then
      cut = true
      k = k + 1
      while a[k] and a[k].text ~= ";" and a[k].text ~= "+" do k = k + 1 end
    else
      own[#own + 1] = a[k]
    end
    k = k + 1
  end
  if not cut then return c end
  local o = {}
  for key, v in pairs(c) do o[key] = v end
  o.args = own
  return o
end
M.target = target.target

-- walk calls fn(cmd) for every command whose output a word holds
-- ($(…), <(…), `…`), nested ones included.
function M.producers(w, fn)
  for _, list in ipairs(w.subs or {}) do
    for _, c in ipairs(list) do fn(c) end
  end
end

-- command returns the command line of a shell tool's input (its command
-- or cmd key): a string as it is, an argv list (["bash", "-lc", "…"],
-- Codex) quoted back into one line; nil when there is none.
function M.command(args)
  local c = type(args) == "table" and (args.command or args.cmd) or nil
  if type(c) == "table" then
    local parts = {}
    for _, a in ipairs(c) do parts[#parts + 1] = M.quote(tostring(a)) end
    return table.concat(parts, " ")
  end
  return type(c) == "string" and c or nil
end

-- quote returns s in single quotes, as a shell reads it back to s.
function M.quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- printable returns s cut to max bytes (default 80) with every byte that
-- is not printable ASCII written as \xHH, for a reason the model and a
-- terminal will read.
function M.printable(s, max)
  max = max or 80
  s = tostring(s)
  local cut = #s > max
  if cut then s = s:sub(1, max) end
  s = s:gsub("[^\32-\126]", function(c)
    if c == "\0" then return "…" end
    return string.format("\\x%02X", c:byte())
  end)
  return cut and s .. "…" or s
end

return M
