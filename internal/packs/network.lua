-- network: lets the agent reach only allowed hosts, upload nothing to unknown ones, and never ship the environment
--
-- What it stops:
--   - a web-fetch tool (@network: WebFetch, web_fetch, …) or a download
--     command (curl, wget, httpie, xh, aria2c, nc/ncat/socat/telnet,
--     ssh/scp/sftp/rsync to a remote) reaching a host that is not in
--     SETTINGS.allowed_hosts; a host it cannot read ($URL, $(…)) counts
--     as unknown;
--   - an upload of a local file or of data (curl -T/-F/-d @file/--data,
--     wget --post-file, scp/rsync to a remote, nc fed a file) to a host
--     that is not in SETTINGS.upload_hosts;
--   - the environment (env, printenv, set, export -p, /proc/*/environ)
--     piped or substituted into a network command, wherever it goes.
-- Why: what leaves the machine cannot be taken back; the environment
-- holds tokens. The reason names the host and how to allow it.
--
-- Settings (SETTINGS below):
--   allowed_hosts  hosts the agent may fetch from; "*.example.com" also
--                  matches its subdomains (package registries, GitHub,
--                  documentation sites, localhost)
--   upload_hosts   hosts the agent may send files or data to ({ localhost })
--
-- What it cannot know: where a program other than the ones above
-- connects (a script, a package manager's own downloads, git remotes),
-- a host hidden behind a redirect, or what a URL's DNS name resolves to.
-- Web searches (no URL) pass.

local shell = require("shell")

local SETTINGS = {
  allowed_hosts = { "localhost", "127.0.0.1", "::1", "github.com", "*.github.com", "raw.githubusercontent.com",
    "objects.githubusercontent.com", "registry.npmjs.org", "pypi.org", "files.pythonhosted.org",
    "proxy.golang.org", "sum.golang.org", "pkg.go.dev", "go.dev", "crates.io", "static.crates.io",
    "docs.rs", "developer.mozilla.org", "docs.python.org", "stackoverflow.com" },
  upload_hosts = { "localhost", "127.0.0.1", "::1" },
}

local function host_in(host, list)
  host = host:lower()
  for _, h in ipairs(list) do
    if h == host or (h:sub(1, 2) == "*." and (host:sub(-(#h - 1)) == h:sub(2) or host == h:sub(3))) then
      return true
    end
  end
  return false
end

-- host_of returns the host of a URL or of a bare "host[:port][/path]",
-- "" when the word holds an unknown part there, nil when it is neither.
local function host_of(text, bare)
  local rest = text:match("^[%a][%w+.-]*://(.*)$")
  if not rest then
    if not bare then return nil end
    rest = text
  end
  local auth = rest:match("^([^/?#]*)")
  auth = auth:gsub("^.*@", "")
  local host = auth:match("^%[([^%]]*)%]") or auth:match("^([^:]*)")
  if host:find("%z") then return "" end
  if host == "" then return nil end
  return host:lower()
end

local function looks_like_host(t)
  return t:find("^[%w.-]+%.%a%a+:?%d*/?") ~= nil or t:find("^localhost[:/]?") ~= nil
    or t:find("^%d+%.%d+%.%d+%.%d+") ~= nil
end

local FETCHERS = { curl = true, wget = true, http = true, https = true, xh = true, xhs = true, aria2c = true,
  ["lwp-request"] = true, httpie = true }
local SOCKETS = { nc = true, ncat = true, netcat = true, socat = true, telnet = true }
local REMOTES = { ssh = true, scp = true, sftp = true, rsync = true }
-- Options whose value is not the URL (so a bare word after them is not a host).
local VALUE_OPTS = {}
for o in ([[-o --output -T --upload-file -d --data --data-binary --data-raw --data-urlencode --json -F --form
  -K --config -c --cookie-jar -b --cookie -D --dump-header -E --cert --key --cacert -H --header -u --user -A
  --user-agent -e --referer -X --request -w --write-out -m --max-time --connect-timeout -x --proxy -r --range
  -O --output-document -P --directory-prefix --post-file --post-data --body-file --body-data -U --header
  -i --input-file -a --append-output --retry --limit-rate]]):gmatch("%S+") do VALUE_OPTS[o] = true end
VALUE_OPTS["-O"] = nil -- curl's -O takes none; wget's takes one: a host after it is still checked

-- UPLOAD_OPTS send a local file or data.
local UPLOAD_OPTS = { "^%-T", "^%-%-upload%-file", "^%-F", "^%-%-form", "^%-d", "^%-%-data", "^%-%-json",
  "^%-%-post%-file", "^%-%-post%-data", "^%-%-body%-file", "^%-%-body%-data", "^%-%-method=[Pp][Oo][Ss][Tt]",
  "^%-X[Pp][Oo][Ss][Tt]", "^%-XPUT", "^%-%-request=P" }

-- hosts returns the hosts cmd reaches ("" for an unknown one) and
-- whether it uploads.
local function hosts(c)
  local out, upload = {}, false
  local n = c.name
  if FETCHERS[n] then
    local prev
    for _, a in ipairs(c.args) do
      local t = a.text
      for _, p in ipairs(UPLOAD_OPTS) do
        if t:find(p) then upload = true end
      end
      if (n == "http" or n == "https" or n == "xh" or n == "httpie") and t:find("^[%w_-]+:?=?@") then
        upload = true
      end
      if t:sub(1, 1) ~= "-" then
        local h = host_of(t, not (prev and VALUE_OPTS[prev]) and (a.unknown or looks_like_host(t)))
        if a.whole and not (prev and VALUE_OPTS[prev]) then h = "" end
        if h then out[#out + 1] = h end
      end
      prev = t:sub(1, 1) == "-" and not t:find("=") and t or nil
    end
  elseif SOCKETS[n] then
    for _, a in ipairs(c.args) do
      if a.text:sub(1, 1) ~= "-" and not a.text:find("^%d+$") then
        local t = a.text:gsub("^[%u%-]+:", ""):gsub(",.*$", "")
        out[#out + 1] = a.whole and "" or host_of(t, true) or ""
        break
      end
    end
    upload = c.pipe_in or #c.redirs > 0
  elseif REMOTES[n] then
    for _, a in ipairs(c.args) do
      local t = a.text
      local h = t:match("^[^/-][^/]*@([^:/]+)") or t:match("^([%w.-]+):") or (n == "ssh" and t:match("^[^-][%w.-]*$"))
      if a.whole then h = "" end
      if h and h ~= "" and (n ~= "ssh" or not out[1]) then out[#out + 1] = h:lower() end
    end
    upload = n ~= "ssh" or c.pipe_in
  end
  return out, upload
end

local ENV_DUMPERS = { env = true, printenv = true, set = true, declare = true, compgen = true }

-- environment reports whether a command's output is the environment.
local function environment(c)
  if not c then return false end
  local n = c.name
  if ENV_DUMPERS[n] and (#c.args == 0 or n == "printenv" or (n == "declare" and c.args[1].text == "-x")) then
    return true
  end
  if n == "export" and (#c.args == 0 or c.args[1].text == "-p") then return true end
  for _, a in ipairs(c.args) do
    if a.text:find("^/proc/[%w]+/environ$") then return true end
  end
  for _, r in ipairs(c.redirs) do
    if r.op == "<" and r.target.text:find("^/proc/[%w]+/environ$") then return true end
  end
  return false
end

local function network_cmd(c)
  return FETCHERS[c.name or ""] or SOCKETS[c.name or ""] or REMOTES[c.name or ""]
end

local function ships_environment(c)
  if not network_cmd(c) then return false end
  local up = c.upstream
  while up do
    if environment(up) then return true end
    up = up.upstream
  end
  for _, a in ipairs(c.args) do
    if a.text:find("/proc/[%w]+/environ") then return true end
    local hit = false
    shell.producers(a, function(p) hit = hit or environment(p) end)
    if hit then return true end
  end
  for _, r in ipairs(c.redirs) do
    if r.target.text:find("^/proc/[%w]+/environ$") then return true end
  end
  return false
end

local function deny(why, instead)
  return hook.deny("network pack: blocked " .. why .. "; " .. instead .. ".")
end

local function judge(list, upload)
  for _, h in ipairs(list) do
    if h == "" then
      return deny("a connection to a host that cannot be read before the command runs",
        "write the URL out in full")
    end
    if not host_in(h, SETTINGS.allowed_hosts) then
      return deny("a connection to " .. shell.printable(h) .. ", which is not an allowed host",
        "use an allowed host, or ask the user to add " .. shell.printable(h) .. " to allowed_hosts in network.lua")
    end
    if upload and not host_in(h, SETTINGS.upload_hosts) then
      return deny("sending local files or data to " .. shell.printable(h),
        "ask the user to upload it, or to add the host to upload_hosts in network.lua")
    end
  end
  return nil
end

hook.register("PreToolUse", "@shell", function(input)
  local line = shell.command(input.toolInput)
  if not line then return nil end
  local cmds, err = shell.parse(line)
  for _, c in ipairs(cmds) do
    if ships_environment(c) then
      return deny("sending the environment (env, printenv) over the network",
        "never send environment variables; they hold tokens")
    end
    if network_cmd(c) then
      local list, upload = hosts(c)
      local r = judge(list, upload)
      if r then return r end
    elseif c.name == nil and c.word and c.word.whole then
      -- a program whose name is computed may be any of the above
      for _, a in ipairs(c.args) do
        local h = host_of(a.text, false)
        if h then
          local r = judge({ h }, false)
          if r then return r end
        end
      end
    end
  end
  if err then
    return deny("a command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
end, { name = "pack-network-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })

hook.register("PreToolUse", "@network", function(input)
  local args = input.toolInput
  local url = type(args) == "table" and (args.url or args.uri) or nil
  if type(url) ~= "string" then return nil end
  local h = host_of(url, true)
  if not h or h == "" then
    return deny("a fetch of " .. shell.printable(url) .. ", whose host cannot be read", "give a full https:// URL")
  end
  return judge({ h }, false)
end, { name = "pack-network-fetch", stage = "validate", failure_policy = "closed", policy = true })
