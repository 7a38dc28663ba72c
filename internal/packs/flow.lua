-- flow: asks before data leaves a session that has read private files and taken in untrusted content
--
-- What it remembers (the session ledger, marked on PostToolUse, once the
-- content has arrived; a call a policy denied marks nothing; each label
-- keeps the first time it was made):
--   - untrusted-content: the session took in content from outside: a
--     web fetch tool (@network: WebFetch, web_fetch, …) or a curl, wget,
--     httpie, aria2c fetch from a host not in SETTINGS.trusted_hosts (or
--     one the line does not show), a web search's results, or the result
--     of an MCP tool whose server is not in SETTINGS.trusted_mcp; the
--     detail is the host, the search or the MCP server/tool;
--   - private-data: the session read a secrets file (lib/secrets.lua's
--     list: ~/.ssh/ keys, .env, ~/.aws/credentials, … and
--     SETTINGS.private), whether or not another pack let the read
--     through: by a file tool (@fs.read: Read, Grep and Glob through
--     their path and glob) or a shell command (a program given the file,
--     a < redirection, the code of python -c, node -e, … one-liners, a
--     find -exec of files its name tests select); the detail is the path.
--     A failed file tool read nothing; a failed shell command may have
--     printed the file before it failed, and counts.
-- What it stops: once the session holds every label of
-- SETTINGS.combination (both, by default), each call that can send data
-- out is asked about (SETTINGS.action "ask"; "deny" denies; an agent
-- without ask denies), with a reason naming each mark, its detail and
-- its time (UTC):
--   - uploads and posts: curl/wget/httpie/… with data, a form, a file,
--     stdin, a header or cookie holding data, a method that writes
--     (POST, PUT, PATCH, DELETE), to a host not in SETTINGS.send_hosts;
--   - a fetch whose URL carries data (a query value, a long token or
--     percent-encoded run in its host or path, a command's output): by
--     WebFetch, curl, wget, … to a host in neither send_hosts nor
--     trusted_hosts; a name looked up (dig, nslookup, ping) holding data;
--   - scp/rsync of local paths to a remote, sftp, ssh fed input or given
--     data, nc/ncat/socat/telnet connections (nc -z, a port probe,
--     passes), mail/sendmail/mutt/msmtp/swaks;
--   - git push to a remote not in SETTINGS.push_remotes (a push that
--     names none goes to the branch's remote and passes), and git remote
--     add/set-url and git config remote.*.url, which change where a push
--     goes;
--   - MCP tools whose name SETTINGS.egress_mcp marks as sending (send,
--     post, create, upload, comment, … on any server);
--   - a command line that cannot be read, or a program the line does not
--     name ($CMD).
-- Calls that only read pass: GET and HEAD without data, reads of files,
-- git fetch/pull/clone, ssh running a command. Another session's marks
-- count for nothing here.
-- Why: the attack on an agent is a sequence: it reads a secret, takes in
-- a page or a tool result carrying instructions, then sends the secret
-- out; each call alone looks harmless, and only the session's history
-- shows the danger. Once both have happened, a person decides what
-- leaves.
--
-- Set them in the config's [packs.flow] table, over the defaults below.
-- Settings (SETTINGS below):
--   trusted_hosts  hosts whose content is not counted as untrusted: the
--                  machine itself, package registries' download hosts
--                  (archives and metadata, not pages anyone writes) and
--                  the languages' own documentation; "*.x" matches its
--                  subdomains. GitHub, Stack Overflow and the registries'
--                  project pages are left out: anyone writes what they
--                  serve (an issue, a README), which is where injected
--                  instructions come from
--   trusted_mcp    MCP servers (globs) whose results are not untrusted ({})
--   private        files that are private besides lib/secrets.lua's list,
--                  as shell.glob.rules ("name", "dir/name", "dir/") ({})
--   combination    the labels a session must hold for egress to be
--                  stopped ({ "private-data", "untrusted-content" })
--   action         "ask" (the default) or "deny"
--   send_hosts     hosts data may be sent to whatever the session did
--                  ({ localhost, 127.0.0.1, ::1 })
--   push_remotes   git remotes (names or URLs, globs) a push may go to
--                  ({ "origin" })
--   egress_mcp     MCP "server/tool" globs that send data out
--
-- What it cannot know: what a program other than the ones above sends (a
-- script, an interpreter's own HTTP client: python -c
-- "requests.post(…)"), what a wholly unknown path ($F) names (not
-- marked), what a remote called origin points at (git remote set-url is
-- asked about once the session holds the combination, not before), or
-- content that came in by a route other than those above (git clone, a
-- package's files). Fails closed: a ledger that cannot be read fails the
-- PreToolUse hook, which then denies; a call that will mark the session
-- reads the ledger at PreToolUse first (so runs only while its mark can
-- be kept); a mark the ledger refuses anyway (past its [store] ledger_*
-- bounds, a store that failed in between) fails the PostToolUse hook,
-- which is logged, and the ledger then answers the session's reads with
-- an error (it lost a mark), which denies.

local shell = require("shell")
local paths = require("paths")
local secrets = require("secrets")
local names = require("names")
local git = require("git")

local SETTINGS = hook.settings("flow", {
  trusted_hosts = { "localhost", "127.0.0.1", "::1", "registry.npmjs.org", "files.pythonhosted.org",
    "proxy.golang.org", "sum.golang.org", "index.crates.io", "static.crates.io", "go.dev", "docs.python.org",
    "doc.rust-lang.org", "nodejs.org", "developer.mozilla.org" },
  trusted_mcp = {},
  private = {},
  combination = { "private-data", "untrusted-content" },
  action = "ask",
  send_hosts = { "localhost", "127.0.0.1", "::1" },
  push_remotes = { "origin" },
  egress_mcp = { "*/send*", "*/*_send*", "*/post*", "*/*_post*", "*/upload*", "*/*_upload*", "*/publish*",
    "*/*_publish*", "*/create*", "*/*_create*", "*/comment*", "*/*_comment*", "*/reply*", "*/*_reply*",
    "*/share*", "*/*_share*", "*/push*", "*/*_push*", "*/email*", "*/*_email*", "*/*_message*", "*/message*",
    "*/write*", "*/*_write*", "*/update*", "*/*_update*", "*/fork*", "*/*_fork*" },
})

if SETTINGS.action ~= "ask" and SETTINGS.action ~= "deny" then
  error("flow pack: SETTINGS.action is " .. tostring(SETTINGS.action) .. "; it must be \"ask\" or \"deny\"", 0)
end
if type(SETTINGS.combination) ~= "table" or #SETTINGS.combination == 0 then
  error("flow pack: SETTINGS.combination must list at least one label", 0)
end

local UNTRUSTED, PRIVATE = "untrusted-content", "private-data"
local COMBINATION = SETTINGS.combination
local SECRETS = secrets.matcher(SETTINGS.private)
local secret_file = SECRETS.file
local TRUSTED_MCP = names.matcher(SETTINGS.trusted_mcp)
local EGRESS_MCP = names.matcher(SETTINGS.egress_mcp)
local PUSH_REMOTES = names.matcher(SETTINGS.push_remotes)

local function p(s, max) return shell.printable(s, max) end

local function host_in(host, list)
  host = host:lower()
  for _, h in ipairs(list) do
    if h == host or (h:sub(1, 2) == "*." and (host:sub(-(#h - 1)) == h:sub(2) or host == h:sub(3))) then
      return true
    end
  end
  return false
end

-- host_of returns the host of a URL or of a bare "host[:port][/path]"
-- (bare: true), "" for a host holding an unknown part, nil when the text
-- is neither.
local function host_of(text, bare)
  local rest = text:match("^[%a][%w+.-]*://(.*)$")
  if not rest then
    if not bare then return nil end
    rest = text
  end
  local auth = rest:match("^([^/?#]*)"):gsub("^.*@", "")
  local host = auth:match("^%[([^%]]*)%]") or auth:match("^([^:]*)")
  if host:find("%z") then return "" end
  if host == "" then return nil end
  return host:lower()
end

local function looks_like_host(t)
  return t:find("^[%w.-]+%.%a%a+:?%d*/?") ~= nil or t:find("^localhost[:/]?") ~= nil
    or t:find("^%d+%.%d+%.%d+%.%d+") ~= nil
end

-- CARRIES matches a URL or a name that carries data: a query value, a
-- run of 24 token characters (base64, hex: a key, an encoded file), a
-- run of percent-encoded bytes, or a password in the URL.
local CARRIES = [[[?&][^=&#]*=[^&#]|[A-Za-z0-9+=_-]{24,}|(?:%[0-9A-Fa-f]{2}){6,}|^[a-zA-Z][a-zA-Z0-9+.-]*://[^/@]*:[^/@]*@]]

-- carries_data reports whether a URL word carries data: CARRIES, or a
-- command's output or piped items in it (a $VAR does not count).
local function carries_data(w)
  if w.unknown and (w.source == "subst" or w.source == "proc" or w.source == "stdin" or w.source == "overflow") then
    return true
  end
  return re.match(CARRIES, w.text)
end

-- Shell programs.
local FETCHERS = { curl = true, wget = true, http = true, https = true, xh = true, xhs = true, aria2c = true,
  ["lwp-request"] = true, httpie = true }
local HTTPIE = { http = true, https = true, xh = true, xhs = true, httpie = true }
local SOCKETS = { nc = true, ncat = true, netcat = true, socat = true, telnet = true }
local REMOTES = { ssh = true, scp = true, sftp = true, rsync = true }
local PROBES = { dig = true, nslookup = true, host = true, drill = true, ping = true, ping6 = true }
local MAIL = { mail = true, mailx = true, sendmail = true, mutt = true, msmtp = true, ssmtp = true,
  ["s-nail"] = true, swaks = true, neomutt = true }

-- Options of the fetchers whose value is not the URL.
local VALUE_OPTS = {}
for o in ([[-o --output -T --upload-file -d --data --data-binary --data-raw --data-urlencode --data-ascii --json -F
  --form --form-string -K --config -c --cookie-jar -b --cookie -D --dump-header -E --cert --key --cacert -H --header
  -u --user -A --user-agent -e --referer -X --request -w --write-out -m --max-time --connect-timeout -x --proxy -r
  --range --output-document -P --directory-prefix --post-file --post-data --body-file --body-data -i
  --input-file -a --append-output --retry --limit-rate --method --resolve --connect-to -t --tries
  --header-file --user-agent --referer --http-user --http-password --user --password]]):gmatch("%S+") do
  VALUE_OPTS[o] = true
end
-- SEND_OPTS send what follows them (data, a form, a file); METHOD_OPTS
-- name the method; CARRY_OPTS are headers, cookies and credentials,
-- which send data when they hold some (CARRIES or a command's output).
local SEND_OPTS = {}
for o in ([[-d --data --data-binary --data-raw --data-urlencode --data-ascii --json -F --form --form-string -T
  --upload-file --post-data --post-file --body-data --body-file]]):gmatch("%S+") do
  SEND_OPTS[o] = true
end
-- Which options take the next word as their value: each program's own
-- (curl's and wget's short options differ), so that a flag before the URL
-- never hides it (lib fetchers).
local takes_value = require("fetchers").value_taker(VALUE_OPTS)
local METHOD_OPTS = { ["-X"] = true, ["--request"] = true, ["--method"] = true }
local CARRY_OPTS = { ["-H"] = true, ["--header"] = true, ["-b"] = true, ["--cookie"] = true, ["-A"] = true,
  ["--user-agent"] = true, ["-e"] = true, ["--referer"] = true, ["-u"] = true, ["--user"] = true,
  ["--http-user"] = true, ["--http-password"] = true, ["--password"] = true }
local WRITES = { POST = true, PUT = true, PATCH = true, DELETE = true }

-- option_value splits an option word: "-dX" -> "-d", "X"; "--data=X" ->
-- "--data", "X"; other words -> the word, nil.
local function option_value(t)
  local long, v = t:match("^(%-%-[%w-]+)=(.*)$")
  if long then return long, v end
  local short, rest = t:match("^(%-[dFTXHbAeu])(.+)$")
  if short then return short, rest end
  return t, nil
end

-- fed reports whether a command reads local data on its input: a file
-- (< f), or a pipe (text written out on the line, echo x | …, counts
-- too: it may be what the session read, copied).
local function fed(c)
  for _, r in ipairs(c.redirs) do
    if r.op == "<" or r.op == "<<" or r.op == "<<-" or r.op == "<<<" then return true end
  end
  return c.pipe_in == true
end

-- fetcher reads a curl/wget/httpie/… command: its URL words and what it
-- sends (a short description, nil when it only reads).
local function fetcher(c)
  local urls, sends = {}, nil
  local args = c.args
  local httpie = HTTPIE[c.name]
  local k = 1
  while k <= #args do
    local a = args[k]
    local t = a.text
    if t:sub(1, 1) == "-" and not a.whole and t ~= "-" then
      local opt, v = option_value(t)
      local vw = a
      if v == nil and takes_value(c.name, opt) then
        vw = args[k + 1]
        v = vw and vw.text
        k = k + 1
      end
      -- (wget's short -d, -F and -T are --debug, --force-html and --timeout)
      if SEND_OPTS[opt] and not (c.name == "wget" and opt:sub(1, 2) ~= "--") then
        sends = sends or ("data (" .. opt .. ")")
      elseif METHOD_OPTS[opt] and v and (WRITES[v:upper()] or (vw and vw.unknown)) then
        sends = sends or ("a " .. p(v:upper()) .. " request")
      elseif CARRY_OPTS[opt] and v and vw and carries_data(vw) then
        sends = sends or ("data in " .. opt)
      end
    elseif httpie then
      if #urls == 0 and t:find("^%u+$") and not a.unknown then
        if WRITES[t] then sends = sends or ("a " .. t .. " request") end
      elseif #urls > 0 and (t:find("^[%w_.%-%[%]]*:?=") or t:find("^[%w_.%-%[%]]*@") or t:find("^[%w_.%-]+:%S")
        or a.unknown) then
        -- a request item: a field (x=y, x:=y), a file (x@f), a header
        sends = sends or "request items (" .. p(t) .. ")"
      else
        urls[#urls + 1] = a
      end
    else
      urls[#urls + 1] = a
    end
    k = k + 1
  end
  if httpie and fed(c) then sends = sends or "its input" end
  for _, u in ipairs(urls) do
    if u.text == "-" then sends = sends or "its input" end
  end
  return urls, sends
end

-- remote_target returns the host of an scp/rsync/sftp operand
-- ("user@host:path", "host:path", "host::module", "rsync://host/x"), or
-- nil for a local path.
local function remote_target(t)
  if t:find("^%a[%w+.-]*://") then return host_of(t, false) end
  if t:find("^/") or t:find("^%.") or t:find("^~") then return nil end
  return (t:match("^[^/:]*@([^:/]+):") or t:match("^([%w.%-_]+):") or t:match("^%[([%x:]+)%]:"))
end

-- TAKES are the options of ssh, scp and sftp whose value is the next word.
local TAKES = { ssh = "^%-[BbcDEeFIiJLlmOoPpQRSWw]$", scp = "^%-[cDFiJlloPS]$", sftp = "^%-[BbcDFiJloPRSs]$" }
local RSYNC_TAKES = { ["-e"] = true, ["--rsh"] = true, ["-f"] = true, ["--filter"] = true, ["--exclude"] = true,
  ["--include"] = true, ["--exclude-from"] = true, ["--include-from"] = true, ["-T"] = true, ["--temp-dir"] = true }

-- remote returns what an ssh/scp/sftp/rsync command sends and where (its
-- host, "" when the line does not show it), or nil when it only reads.
local function remote(c)
  local n = c.name
  local ops, skip = {}, false
  for _, a in ipairs(c.args) do
    local t = a.text
    if skip then
      skip = false
    elseif t:sub(1, 1) == "-" and not a.whole then
      if (TAKES[n] and t:find(TAKES[n])) or (n == "rsync" and RSYNC_TAKES[t]) then skip = true end
    else
      ops[#ops + 1] = a
    end
  end
  local first = ops[1]
  if n == "ssh" then
    if not first then return nil end
    local h = first.whole and "" or first.text:match("@([^@]+)$") or first.text
    if fed(c) then return "its input, by ssh", h end
    for k = 2, #ops do
      if carries_data(ops[k]) then return "data in a remote command, by ssh", h end
    end
    return nil
  end
  if n == "sftp" then
    if not first then return nil end
    return "files, by sftp", first.whole and "" or remote_target(first.text) or first.text:match("@([^@:]+)$")
      or first.text
  end
  if #ops < 2 then return nil end
  local dest = ops[#ops]
  local h = dest.whole and "" or remote_target(dest.text)
  if not h then return nil end
  for k = 1, #ops - 1 do
    if not (ops[k].whole or remote_target(ops[k].text)) then
      return "the local path " .. p(ops[k].text) .. ", by " .. n, h
    end
  end
  return nil
end

-- socket returns the host of an nc/ncat/socat/telnet connection ("" when
-- the line does not show it, or for a listener), or nil for a port probe.
local function socket(c)
  local host
  for _, a in ipairs(c.args) do
    local t = a.text
    if t:sub(1, 1) == "-" and not a.whole then
      if t:find("^%-[%a]*z") then return nil end
    elseif not host and not t:find("^%d+$") then
      if c.name == "socat" then
        local l = t:lower()
        local addr = l:match("^tcp%d?:(.*)$") or l:match("^tcp%d?%-connect:(.*)$") or l:match("^udp%d?:(.*)$")
          or l:match("^udp%d?%-connect:(.*)$") or l:match("^openssl:(.*)$") or l:match("^ssl:(.*)$")
          or l:match("^openssl%-connect:(.*)$")
        if addr then
          host = (a.unknown or addr:find("%z")) and "" or addr:match("^%[([^%]]*)%]") or addr:match("^([^:,]*)")
        end
      else
        host = a.whole and "" or host_of(t, true) or ""
      end
    end
  end
  return host or ""
end

-- git_egress returns what a git command sends or redirects, or nil: a
-- push to a remote not in push_remotes (a push that names none goes to
-- the branch's remote), a remote added or repointed.
local function git_egress(c)
  local g = git.parse(c)
  if not g then return nil end
  for _, kv in ipairs(g.config) do
    if kv:lower():find("^remote%..*url") or kv:find("%z") then
      return "a git command with a remote's URL set (-c " .. p(kv) .. ")", ""
    end
  end
  local sub = g.sub
  if sub.unknown then return "a git command the line does not show", "" end
  if sub.text == "push" then
    local pu = git.push(g)
    local r = pu.remote or type(pu.flags.repo) == "string" and { text = pu.flags.repo, unknown = false } or nil
    if type(r) == "table" and (r.unknown or not PUSH_REMOTES(r.text)) then
      return "a git push to " .. (r.unknown and "a remote the line does not show" or p(r.text)),
        r.unknown and "" or (host_of(r.text, false) or remote_target(r.text) or r.text)
    end
    return nil
  end
  if sub.text == "remote" then
    local verb = g.args[1]
    if verb and (verb.unknown or verb.text == "add" or verb.text == "set-url" or verb.text == "rename") then
      return "git remote " .. p(verb.text) .. ", which changes where a push goes", ""
    end
  elseif sub.text == "config" then
    for _, a in ipairs(g.args) do
      if a.unknown or a.text:lower():find("^remote%..*url") or a.text:lower():find("^url%.") then
        return "git config " .. p(a.text) .. ", which changes where a push goes", ""
      end
    end
  end
  return nil
end

-- egress_cmd returns what one parsed command sends out and where (a
-- description and a host, "" when the line does not show it), or nil
-- when it only reads or sends to send_hosts.
local function egress_cmd(c)
  local n = c.name
  if n == nil then
    if c.word and c.word.whole then return "a program the line does not name (" .. p(c.word.text) .. ")", "" end
    return nil
  end
  if FETCHERS[n] then
    local urls, sends = fetcher(c)
    for _, w in ipairs(urls) do
      local h = host_of(w.text, w.unknown or looks_like_host(w.text))
      if w.whole then h = "" end
      if h and not (h ~= "" and host_in(h, SETTINGS.send_hosts)) then
        if sends then return sends .. ", sent by " .. n, h end
        if carries_data(w) and (h == "" or not host_in(h, SETTINGS.trusted_hosts)) then
          return "a URL carrying data (" .. p(w.text) .. "), fetched by " .. n, h
        end
      end
    end
    if sends and #urls == 0 then return sends .. ", sent by " .. n, "" end
    return nil
  end
  if SOCKETS[n] then
    local h = socket(c)
    if h and not (h ~= "" and host_in(h, SETTINGS.send_hosts)) then return "a raw connection (" .. n .. ")", h end
    return nil
  end
  if REMOTES[n] then
    local what, h = remote(c)
    if what and not (h ~= "" and host_in(h, SETTINGS.send_hosts)) then return what, h:lower() end
    return nil
  end
  if MAIL[n] then return "mail (" .. n .. ")", "" end
  if PROBES[n] then
    for _, a in ipairs(c.args) do
      if a.text:sub(1, 1) ~= "-" and carries_data(a) then
        return "a name carrying data (" .. p(a.text) .. "), looked up by " .. n, ""
      end
    end
    return nil
  end
  if n == "git" then return git_egress(c) end
  return nil
end

-- The programs egress_cmd looks at, for shell.quick: a plain line running
-- none of them sends nothing, and passes without parsing. git is left to
-- GIT_WORDS: a plain git line sends only when it names one of them (git
-- status, git diff and git log are plain lines of every day).
local PROGRAMS = {}
for _, set in ipairs({ FETCHERS, SOCKETS, REMOTES, PROBES, MAIL }) do
  for name in pairs(set) do PROGRAMS[#PROGRAMS + 1] = re.quote(name) end
end
table.sort(PROGRAMS)
local GIT_WORDS = [[(?i)(?:^|\s)(?:push|remote|config|-c\S*|--config-env\S*)(?:\s|$)]]
local _, EGRESS_MAX, EGRESS_STOP = shell.quick({ programs = { PROGRAMS }, words = GIT_WORDS })
-- Neither sends nor marks: a plain line no quick check of egress or of
-- marking (shell_marks) stops, one match for the everyday line.
local _, PLAIN_MAX, PLAIN_STOP = shell.quick({ programs = { PROGRAMS },
  words = "(?:" .. GIT_WORDS .. ")|(?:" .. SECRETS.in_line .. ")" })

-- mcp_readings returns the readings of an MCP tool's name: { server, tool } pairs, lower-cased, as the mcp
-- pack reads a name (mcp__server__tool; Gemini's mcp_server_tool, split
-- at each "_" unless native.mcp_context names them; Copilot's
-- server-tool, split at each "-"; Cursor's MCP:tool, no server).
local lower = string.lower
local function mcp_readings(l, s, t, cursor)
  if s ~= "" and t ~= "" then return { { s, t } } end
  local out = {}
  local s, t = l:match("^mcp__(.-)__(.+)$")
  if s and s ~= "" then return { { s, t } } end
  local rest = l:match("^mcp_(.+)$")
  local sep = "_"
  if not rest and l:find("^mcp:") then return { { nil, l:sub(5) } } end
  if not rest and not cursor and l:find("-", 1, true) then rest, sep = l, "-" end
  if rest then
    local at = 1
    while true do
      local k = rest:find(sep, at, true)
      if not k then break end
      if k > 1 and k < #rest then out[#out + 1] = { rest:sub(1, k - 1), rest:sub(k + 1) } end
      at = k + 1
    end
  end
  if #out == 0 then out[1] = { nil, l } end
  return out
end

-- MARKS: when each label was made, for the reason: "this session read
-- ~/.ssh/id_rsa at 12:03:04 UTC and took in content from evil.example at
-- 12:04:10 UTC".
local function said(m)
  local when = os.date("!%H:%M:%S", math.floor(m.at / 1000)) .. " UTC"
  if m.label == PRIVATE then return "read " .. p(m.detail) .. " at " .. when end
  if m.label == UNTRUSTED then return "took in content from " .. p(m.detail) .. " at " .. when end
  return "was marked " .. m.label .. (m.detail ~= "" and " (" .. p(m.detail) .. ")" or "") .. " at " .. when
end

-- held returns the session's marks of every label of the combination, or
-- nil as soon as one is missing: the usual call (a session with no
-- private read) costs one session.has.
local has = session.has
local function held(rt)
  if (rt.session_id or "") == "" then return nil end
  local out
  for i = 1, #COMBINATION do
    local m = has(COMBINATION[i])
    if not m then return nil end
    out = out or {}
    out[i] = m
  end
  return out
end

local function stop(marks, what, where)
  local parts = {}
  for i, m in ipairs(marks) do parts[i] = said(m) end
  local reason = "flow pack: " .. (SETTINGS.action == "deny" and "blocked " or "asking before ") .. what ..
    (where and where ~= "" and (" to " .. p(where)) or "") .. " [rule egress]: this session " ..
    table.concat(parts, " and ") .. "; what it read may leave with it. Tell the user what you want to send and " ..
    "where, and let them decide."
  if SETTINGS.action == "deny" then return hook.deny(reason) end
  return hook.ask(reason)
end

-- The hooks of PreToolUse hand no table of their input to another
-- function (they read the command line, the URL or the tool's name
-- themselves), so that the engine reuses the input's tables for the next
-- call.
-- guard reads the ledger before a line that will mark the session runs
-- (see the guard of a read, below); shell_marks is defined with the
-- marking hooks.
local shell_marks
local function guard(line, rt)
  if (rt.session_id or "") == "" then return nil end
  local private, host = shell_marks(line)
  if private or host then has(private and PRIVATE or UNTRUSTED) end
  return nil
end

hook.register("PreToolUse", "@shell", function(input, rt)
  local args = input.toolInput
  local line = type(args) == "table" and (args.command or args.cmd) or nil
  if type(line) == "table" then
    local parts = {}
    for _, a in ipairs(line) do parts[#parts + 1] = shell.quote(tostring(a)) end
    line = table.concat(parts, " ")
  elseif type(line) ~= "string" then
    return nil
  end
  -- a plain line running none of the programs egress_cmd reads sends
  -- nothing, whatever the session did: it costs no read of the ledger,
  -- unless it will mark the session (guard, below)
  if #line < PLAIN_MAX and not re.match(PLAIN_STOP, line) then return nil end
  if #line < EGRESS_MAX and not re.match(EGRESS_STOP, line) then return guard(line, rt) end
  local marks = held(rt)
  if not marks then return nil end
  local cmds, err = shell.parse(line)
  for _, c in ipairs(cmds) do
    local what, where = egress_cmd(c)
    if what then return stop(marks, what, where) end
  end
  if err then return stop(marks, "a command that could not be checked (" .. err .. ")") end
end, { name = "pack-flow-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })

-- fetch_egress answers a web fetch tool's fetch of url: nil unless the
-- URL carries data to a host in neither send_hosts nor trusted_hosts.
local function fetch_egress(marks, url)
  local h = host_of(url, true)
  if h and h ~= "" and (host_in(h, SETTINGS.send_hosts) or host_in(h, SETTINGS.trusted_hosts)) then return nil end
  if h and h ~= "" and not re.match(CARRIES, url) then return nil end
  return stop(marks, "a fetch of a URL carrying data (" .. p(url) .. ")", h or "")
end

hook.register("PreToolUse", "@network", function(input, rt)
  local marks = held(rt)
  if not marks then return nil end
  local args = input.toolInput
  if type(args) ~= "table" then return nil end
  local url, prompt = args.url or args.uri, args.prompt
  if type(url) == "string" then return fetch_egress(marks, url) end
  -- Gemini CLI's web_fetch names its URLs in a prompt
  if type(prompt) == "string" then
    for u in prompt:gmatch("[%a][%w+.-]*://[^%s\"'<>]+") do
      local r = fetch_egress(marks, u)
      if r then return r end
    end
  end
end, { name = "pack-flow-fetch", stage = "validate", failure_policy = "closed", policy = true })

hook.register("PreToolUse", "@mcp", function(input, rt)
  local marks = held(rt)
  if not marks then return nil end
  -- (the names are handed on only where type() has shown them strings)
  local name, native, server, tool = input.toolName, input.native, "", ""
  if type(name) ~= "string" then return nil end
  if type(native) == "table" then
    local ctx = native.mcp_context
    if type(ctx) == "table" then
      local s, t = ctx.server_name, ctx.tool_name
      if type(s) == "string" and type(t) == "string" then server, tool = lower(s), lower(t) end
    end
  end
  for _, r in ipairs(mcp_readings(lower(name), server, tool, input.agent == "cursor")) do
    if EGRESS_MCP((r[1] or "") .. "/" .. r[2]) then
      return stop(marks, "the MCP tool " .. p(lower(name)) .. ", which sends data out")
    end
  end
end, { name = "pack-flow-mcp", stage = "validate", failure_policy = "closed", policy = true })

-- Marking.

-- A label held keeps its first detail and time. A store that cannot be
-- read is tried for the mark all the same: when the mark fails too, the
-- ledger remembers it lost (session.has then fails for the session, and
-- the egress rule with it, closed), where a failed read alone would have
-- ended the hook with nothing remembered.
local function mark(label, detail)
  local ok, held = pcall(has, label)
  if not (ok and held) then session.mark(label, detail) end
end

local function failed(input)
  local r = input.toolResult
  return type(r) == "table" and r.isError == true
end

-- Programs whose words are text, or files they do not read (echo .env >>
-- .gitignore, chmod 600 ~/.ssh/id_rsa).
local TEXT_ONLY = { echo = true, printf = true, chmod = true, chown = true, chgrp = true, ls = true, stat = true,
  test = true, ["["] = true, mkdir = true, touch = true, rm = true }

-- Options whose value is a key the program uses without showing it (ssh
-- -i KEY, curl --key KEY): not a read.
local KEY_USE = { ssh = { ["-i"] = true }, scp = { ["-i"] = true }, sftp = { ["-i"] = true },
  curl = { ["--cert"] = true, ["--key"] = true, ["-E"] = true, ["--cacert"] = true, ["--proxy-cert"] = true,
    ["--proxy-key"] = true },
  wget = { ["--certificate"] = true, ["--private-key"] = true, ["--ca-certificate"] = true } }

local function key_use(c, k)
  local opts = KEY_USE[c.name or ""]
  if not opts then return false end
  local prev = c.args[k - 1]
  if prev and not prev.unknown and opts[prev.text] then return true end
  local opt = c.args[k].text:match("^(%-%-[%w-]+)=")
  return opt ~= nil and opts[opt] == true
end

local IN_PLACE = { sed = true, gsed = true, perl = true }
local GIT_NO_READ = { rm = true, mv = true, ["ls-files"] = true, ["check-ignore"] = true, ["check-attr"] = true,
  ["update-index"] = true, add = true }

local function git_names_only(c)
  local g = c.name == "git" and git.parse(c)
  return g and not g.sub.unknown and GIT_NO_READ[g.sub.text] or false
end

-- code_words returns the names a one-liner's code quotes
-- (python -c "open('/home/u/.ssh/id_rsa')"), as words.
local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, ash = true, mksh = true, yash = true,
  posh = true, fish = true, csh = true, tcsh = true, rbash = true }
local function inline_code(c)
  local out = {}
  if not (c.inline or c.reads_stdin) or SHELLS[c.name or ""] then return out end
  local function add(text)
    for name in text:gmatch("[^%s'\"(),;=+`{}%[%]]+") do
      if #out >= paths.MAX then break end
      out[#out + 1] = { text = name, pat = name:gsub("[\\*?%[%]]", "\\%0") }
    end
  end
  if c.inline and c.script and not c.script.unknown then add(c.script.text) end
  if c.reads_stdin then
    for _, r in ipairs(c.redirs) do
      if (r.op == "<<" or r.op == "<<-" or r.op == "<<<") and not r.target.unknown then add(r.target.text) end
    end
  end
  return out
end

-- private_read returns the first private file a parsed command reads, or nil.
local function private_read(c)
  local written = {}
  if not IN_PLACE[c.name or ""] then
    for _, w in ipairs(paths.writes(c)) do written[w] = true end
  end
  if not TEXT_ONLY[c.name or ""] then
    for k, w in ipairs(c.args) do
      if not written[w] and not w.whole and not key_use(c, k) then
        local hit = secret_file(w)
        if hit and not git_names_only(c) then return hit end
      end
    end
  end
  if c.name == "find" then
    local hit = secrets.find_selects(c, secret_file)
    if hit then return hit end
  end
  for _, r in ipairs(c.redirs) do
    if r.op == "<" and not r.target.whole then
      local hit = secret_file(r.target)
      if hit then return hit end
    end
  end
  for _, w in ipairs(inline_code(c)) do
    local hit = secret_file(w)
    if hit then return hit end
  end
  return nil
end

-- fetched returns the host a parsed command takes content in from, when
-- it is not trusted ("" when the line does not show it), or nil.
local function fetched(c)
  if not FETCHERS[c.name or ""] then return nil end
  local urls = fetcher(c)
  for _, w in ipairs(urls) do
    local h = host_of(w.text, w.unknown or looks_like_host(w.text))
    if w.whole then h = "" end
    if h and (h == "" or not host_in(h, SETTINGS.trusted_hosts)) then return h end
  end
  return nil
end

local _, MARK_MAX, MARK_STOP = shell.quick({ programs = { PROGRAMS }, words = SECRETS.in_line })

-- shell_marks returns what a command line marks its session with once it
-- has run: the private file it reads and the untrusted host it fetches
-- from (each nil when none).
function shell_marks(line)
  if #line < MARK_MAX and not re.match(MARK_STOP, line) then return nil end
  local cmds = shell.parse(line)
  local private, host
  for _, c in ipairs(cmds) do
    private = private or private_read(c)
    host = host or fetched(c)
  end
  if host == "" then host = "a host the command line does not show" end
  return private, host
end

hook.register("PostToolUse", "@shell", function(input, rt)
  if (rt.session_id or "") == "" then return nil end
  local line = shell.command(input.toolInput)
  if not line then return nil end
  local private, host = shell_marks(line)
  if private then mark(PRIVATE, private) end
  if host then mark(UNTRUSTED, host) end
end, { name = "pack-flow-mark-shell", policy = true })

-- searched returns the globs a search tool's input names beside its
-- folder (as the files pack reads them): Grep's glob, a Glob's pattern,
-- joined to the folder searched when relative.
local function searched(name, args)
  local out = {}
  local dir = args.path or args.dir_path
  if type(dir) ~= "string" or dir == "" then dir = nil end
  local n = type(name) == "string" and name:lower() or ""
  local keys = (n:find("grep", 1, true) or n:find("search", 1, true)) and { "glob", "include" } or { "pattern" }
  for _, k in ipairs(keys) do
    local g = args[k]
    if type(g) == "string" and g ~= "" and #g <= 4096 then
      out[#out + 1] = g
      if dir and not g:find("^[/~]") then out[#out + 1] = dir:gsub("/+$", "") .. "/" .. g end
    end
  end
  return out
end

-- read_mark returns the private file a read tool's call reads, or nil.
local function read_mark(input)
  local args = input.toolInput
  if type(args) ~= "table" then return nil end
  local list = paths.of(args)
  for _, g in ipairs(searched(input.toolName, args)) do list[#list + 1] = g end
  for _, path in ipairs(list) do
    local hit = secret_file(secrets.path_word(path))
    if hit then return hit end
  end
  return nil
end

hook.register("PostToolUse", "@fs.read", function(input, rt)
  if (rt.session_id or "") == "" or failed(input) then return nil end
  local hit = read_mark(input)
  if hit then return mark(PRIVATE, hit) end
end, { name = "pack-flow-mark-read", policy = true })

-- fetch_mark returns where a network tool's call takes content in from,
-- when that is not a trusted host, or nil.
local function fetch_mark(input)
  local args = input.toolInput
  if type(args) ~= "table" then return nil end
  local url = args.url or args.uri
  if type(url) == "string" then
    local h = host_of(url, true)
    if h and h ~= "" and host_in(h, SETTINGS.trusted_hosts) then return nil end
    return (h == nil or h == "") and p(url) or h
  end
  local q = args.query or args.q
  if type(q) == "string" then return "a web search for " .. p(q, 80) end
  return "the web (" .. p(tostring(input.toolName)) .. ")"
end

hook.register("PostToolUse", "@network", function(input, rt)
  if (rt.session_id or "") == "" then return nil end
  local where = fetch_mark(input)
  if where then return mark(UNTRUSTED, where) end
end, { name = "pack-flow-mark-fetch", policy = true })

-- mcp_mark returns the MCP tool a call takes content in from, when its
-- server is not pinned as trusted, or nil.
local function mcp_mark(input)
  local name, native, server, tool = input.toolName, input.native, "", ""
  if type(name) ~= "string" then return nil end
  if type(native) == "table" then
    local ctx = native.mcp_context
    if type(ctx) == "table" then
      local s, t = ctx.server_name, ctx.tool_name
      if type(s) == "string" and type(t) == "string" then server, tool = lower(s), lower(t) end
    end
  end
  local readings = mcp_readings(lower(name), server, tool, input.agent == "cursor")
  local trusted = true
  for _, r in ipairs(readings) do
    if not (r[1] and TRUSTED_MCP(r[1])) then trusted = false end
  end
  if trusted then return nil end
  local r = readings[1]
  return "the MCP tool " .. (#readings == 1 and r[1] and (r[1] .. "/" .. r[2]) or lower(name))
end

hook.register("PostToolUse", "@mcp", function(input, rt)
  if (rt.session_id or "") == "" then return nil end
  local what = mcp_mark(input)
  if what then return mark(UNTRUSTED, what) end
end, { name = "pack-flow-mark-mcp", policy = true })

-- The guard of a read. A mark is made once its call has run
-- (PostToolUse), and a PostToolUse cannot undo the call: were the store
-- away then, the mark would be lost (logged), and the session's later
-- uploads let through. So a call that will mark its session is let
-- through only while the ledger answers: the hooks of PreToolUse read the
-- ledger first, on hooks that fail closed, and a store that does not
-- answer denies the read or the fetch itself. pack-flow-fetch and
-- pack-flow-mcp read it on every call, pack-flow-shell on a line that
-- sends or marks (guard), and this hook on a read of a private file.
-- (The store may still fail between the two; a Redis that keeps nothing
-- across a restart forgets every mark: docs/fleet.md.)

-- READ_KEYS (paths.PATH_KEYS) are the keys of a read tool's input read_mark reads: true
-- for one that holds one path, false for the others (lists, a search's
-- glob and pattern). READ_CONCERNS matches a path secret_file could find a
-- private file in, or would read otherwise than as it is written: a
-- secrets file's name (SECRETS.rules.literal, what could_touch uses for a
-- path with no glob), a path that folds, a glob or an escape (paths.UNPLAIN), and the
-- characters after which a private file is looked for (=, :, @). The
-- usual Read (one path that matches neither) is cleared with no table
-- built, no table of the input handed on; any other goes to read_mark.
local READ_KEYS = paths.PATH_KEYS
local READ_CONCERNS = "(?:" .. SECRETS.rules.literal .. ")|" .. paths.UNPLAIN

hook.register("PreToolUse", "@fs.read", function(input, rt)
  if (rt.session_id or "") == "" then return nil end
  local args = input.toolInput
  if type(args) ~= "table" then return nil end
  local path, one = nil, true
  for k, v in pairs(args) do
    if type(k) == "string" then
      local single = READ_KEYS[k]
      if single ~= nil then
        if single and not path and type(v) == "string" then
          path = v
        else
          one = false
        end
      end
    end
  end
  if one and path and not re.match(READ_CONCERNS, path) then return nil end
  if read_mark(input) then has(PRIVATE) end
end, { name = "pack-flow-guard-read", stage = "validate", failure_policy = "closed", policy = true })
