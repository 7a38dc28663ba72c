-- secrets: what a secret looks like, in text and in file names, in one
-- place for every policy (hooks.d/60-prompt-secrets.lua,
-- 20-protect-secrets.lua, the secrets, git and files packs) and for the
-- decision log's redaction, which reads the patterns table below.
--
--   local secrets = require("secrets")
--   local label, masked = secrets.find(text)   -- "a GitHub token", "ghp_…"
--   secrets.file(word)                         -- a project file that holds secrets?
--   local m = secrets.matcher({ "vault.yml" }) -- every secrets file, and more
--   m.file(word), m.in_line, m.rules           -- (see matcher)
--
-- patterns is a plain list of { pattern, label }: pattern a Go RE2
-- expression (used through re.match/re.find), written as a Lua long string
-- [[...]] on one line, label what the text "seems to contain". Tools
-- outside Lua read this list as it is written here: keep one entry per
-- line, in that shape. Only patterns that rarely match anything but a
-- credential belong here: a guard that cries wolf is uninstalled.

local M = {}

M.patterns = {
  { [[-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----]], "a private key" },
  { [[\b(?:AKIA|ASIA)[0-9A-Z]{16}\b]], "an AWS access key id" },
  { [[(?i)\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}\b]], "an AWS secret access key" },
  { [[\bgh[pousr]_[A-Za-z0-9]{36,}\b]], "a GitHub token" },
  { [[\bgithub_pat_[A-Za-z0-9_]{60,}\b]], "a GitHub token" },
  { [[\bglpat-[A-Za-z0-9_-]{20,}\b]], "a GitLab token" },
  { [[\bsk-[A-Za-z0-9_-]{20,}\b]], "an API secret key" },
  { [[\b[rs]k_live_[A-Za-z0-9]{20,}\b]], "a Stripe live key" },
  { [[\bxox[abpr]-[A-Za-z0-9-]{10,}\b]], "a Slack token" },
  { [[\bAIza[0-9A-Za-z_-]{35}\b]], "a Google API key" },
  { [[\bnpm_[A-Za-z0-9]{36}\b]], "an npm token" },
}

-- output_patterns are what tool outputs carry that prompts and written
-- files rarely do, in the same one-entry-per-line shape (the decision log's
-- redaction reads them too): a private key block whole, from its header
-- to its END line (or, cut short, its base64 and header lines), JSON
-- Web Tokens, webhook URLs, the tokens of more services. Each holds a
-- literal every match of it contains, which a reader looks for first. The
-- redact pack takes them out of tool output; no guard denies on them.
M.output_patterns = {
  { [[-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|(?:(?:\r?\n|\\r?\\n)(?:(?:Proc-Type|DEK-Info|Comment): [^\r\n\\]*|[A-Za-z0-9+/=]{2,})?)*)]], "a private key" },
  { [[\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}]], "a JSON Web Token" },
  { [[hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}]], "a Slack webhook" },
  { [[discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,}]], "a Discord webhook" },
  { [[\bxapp-[0-9]-[A-Za-z0-9-]{20,}]], "a Slack token" },
  { [[\bgl(?:rt|dt|cbt|ptt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}]], "a GitLab token" },
  { [[\bATBB[A-Za-z0-9_=.-]{20,}]], "a Bitbucket app password" },
  { [[\bhf_[A-Za-z0-9]{30,}\b]], "a Hugging Face token" },
  { [[\bya29\.[0-9A-Za-z_-]{20,}]], "a Google OAuth token" },
  { [[\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b]], "a SendGrid API key" },
  { [[\bdckr_pat_[A-Za-z0-9_-]{20,}]], "a Docker Hub token" },
  { [[\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}]], "a PyPI token" },
  { [[\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b]], "a Shopify token" },
  { [[\bdo[opr]_v1_[a-f0-9]{64}\b]], "a DigitalOcean token" },
  { [[\b[rs]k_test_[A-Za-z0-9]{20,}\b]], "a Stripe test key" },
  { [[[?&]sig=[A-Za-z0-9%+/=]{30,}]], "an Azure SAS signature" },
  { [[\bhv[sb]\.[A-Za-z0-9_-]{24,}]], "a Vault token" },
  { [[\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}\b]], "a Doppler token" },
  { [[\blin_api_[A-Za-z0-9]{40}\b]], "a Linear API key" },
  { [[\bntn_[A-Za-z0-9]{40,}\b]], "a Notion token" },
  { [[\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b]], "a Postman API key" },
  { [[\bfig[dhu]_[A-Za-z0-9_-]{40,}]], "a Figma token" },
  { [[\bNRAK-[A-Z0-9]{27}\b]], "a New Relic API key" },
  { [[\bATATT3[A-Za-z0-9_=-]{100,}]], "an Atlassian API token" },
  { [[\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b]], "an age secret key" },
  { [[\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b]], "a Grafana service account token" },
  { [[\bglc_[A-Za-z0-9+/]{32,}={0,2}]], "a Grafana Cloud token" },
  { [[\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}\b]], "a Square token" },
  { [[\bsbp_[a-f0-9]{40}\b]], "a Supabase token" },
  { [[\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}]], "a PlanetScale token" },
  { [[\bpul-[a-f0-9]{40}\b]], "a Pulumi token" },
  { [[\bsntrys_eyJ[A-Za-z0-9_=-]{20,}]], "a Sentry token" },
  { [[\bdapi[a-f0-9]{32}(?:-[0-9])?\b]], "a Databricks token" },
  { [[\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}]], "an Anthropic API key" },
}

-- any matches where one of the patterns does: the common case (no secret)
-- costs one scan of the text.
local parts = {}
for i, p in ipairs(M.patterns) do parts[i] = "(?:" .. p[1] .. ")" end
local ANY = table.concat(parts, "|")
local match = re.match -- an upvalue: no lookup of re and its field per call

-- mask shows the start of a secret, never the secret: "ghp_…".
function M.mask(s)
  return s:sub(1, math.min(4, math.floor(#s / 4))) .. "…"
end

-- find returns the label of the first kind of secret text holds and the
-- secret masked (mask), or nil. Text that is not a string holds none.
function M.find(text)
  if type(text) ~= "string" or text == "" or not match(ANY, text) then return nil end
  for _, p in ipairs(M.patterns) do
    local m = re.find(p[1], text)
    if m then return p[2], M.mask(m) end
  end
  return nil
end

-- files are the names of files that hold secrets: "name" a file name,
-- "a/b" a path's last two components, "dir/" a folder and everything in
-- it. Globs, any case (shell.glob.rules).
M.files = {
  ".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
  "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
  ".netrc", "_netrc", ".git-credentials", ".pgpass", ".aws/credentials", ".kube/config",
  ".docker/config.json", ".ssh/", ".gnupg/", ".config/gcloud/", ".azure/",
}

-- machine_files are the files and folders of the machine and the user
-- that hold secrets: password hashes, tokens of registries, CLIs and cloud
-- tools, password stores, browser profiles, keychains. Reading one is as
-- bad as reading one of files, but a project may hold a file of such a
-- name with no secret in it (an .npmrc that names a registry, a
-- credentials.json fixture) and commit it: file leaves them out, matcher
-- takes them in.
M.machine_files = {
  -- system password hashes and host keys
  "etc/shadow", "etc/shadow-", "etc/gshadow", "etc/gshadow-", "etc/master.passwd", "etc/security/opasswd",
  "ssh_host_*_key",
  -- tokens of package registries, CLIs and cloud tools; the folders that
  -- hold cloud credentials count themselves (grep -r, tar, a search's folder)
  "credentials.json", "client_secret*.json", "credentials.tfrc.json", ".npmrc", ".pypirc", ".vault-token",
  ".my.cnf", ".s3cfg", ".config/gh/", ".aws", ".aws/", ".kube", ".kube/", "kubeconfig", ".config/hub",
  ".config/doctl/", ".oci/", ".boto", ".terraformrc", "terraform.rc", ".m2/settings.xml",
  ".gradle/gradle.properties", ".htpasswd", ".envrc",
  -- cloud service account keys and the secrets files of deploy tools
  -- (a Kubernetes Secret's manifest, Terraform variables, a dotenv file
  -- named for its stage or service: prod.env; not every *.env, which a
  -- word of code spells: process.env)
  "*-credentials.json", "*_credentials.json", "*serviceaccount*.json", "*service-account*.json",
  "*service_account*.json", "firebase-adminsdk*.json", "secrets.yml", "secrets.yaml", "secrets.json",
  "secrets.toml", "*-secret.yml", "*-secret.yaml", "*-secrets.yml", "*-secrets.yaml", "*.tfvars",
  "*.tfvars.json", "prod.env", "production.env", "staging.env", "stage.env", "dev.env", "development.env",
  "local.env", "live.env", "secret.env", "secrets.env", "docker.env",
  -- password stores, browser profiles and keychains
  "*.kdbx", "*.ppk", "Login Data", "Login Data For Account", "Default/Cookies", "Network/Cookies",
  "cookies.sqlite", "key3.db", "key4.db", ".config/google-chrome/", ".config/chromium/",
  ".config/BraveSoftware/", ".mozilla/", "Application Support/Google/Chrome/", "Firefox/Profiles/",
  "User Data/Local State",
  "Library/Keychains/", "*.keychain", "*.keychain-db", ".local/share/keyrings/",
  -- Windows' own stores: the user's saved credentials, vaults and DPAPI
  -- master keys (%APPDATA%\Microsoft\Credentials, Protect, Vault), the
  -- registry hives that hold password hashes and LSA secrets
  -- (C:\Windows\System32\config\SAM, SYSTEM, SECURITY, and their
  -- copies), a domain controller's database, setup answer files with the
  -- administrator's password, PowerShell's history
  "Microsoft/Credentials/", "Microsoft/Protect/", "Microsoft/Vault/", "System32/config/SAM",
  "System32/config/SYSTEM", "System32/config/SECURITY", "config/RegBack/", "repair/SAM", "repair/SYSTEM",
  "repair/SECURITY", "NTDS.dit", "Panther/Unattend.xml", "Panther/Unattend/Unattend.xml", "sysprep/sysprep.xml",
  "ConsoleHost_history.txt",
  -- a process's environment, the token a pod is given, Terraform state
  -- (every resource's attributes, passwords included, in plain text) and
  -- shell and REPL histories (a password once typed on a command line)
  "environ", "kubernetes.io/serviceaccount/", "*.tfstate", "*.tfstate.backup", ".bash_history",
  ".zsh_history", ".sh_history", ".history", "fish_history", ".python_history", ".node_repl_history",
  ".psql_history", ".mysql_history", ".rediscli_history", ".sqlite_history", ".irb_history",
}

-- public are the names under ~/.ssh/ that hold no secret: the client's
-- configuration, the hosts it knows and the public keys it accepts (a
-- public key, *.pub, is no secret anywhere).
M.public = { config = true, known_hosts = true, ["known_hosts.old"] = true, authorized_keys = true,
  authorized_keys2 = true }

-- templates hold no secrets, by exact name.
M.templates = { [".env.example"] = true, [".env.sample"] = true, [".env.template"] = true, [".env.dist"] = true }

-- Compiled when the module loads, not on a hook's first call, which runs
-- under the hook's deadline.
local shell = require("shell")
local RULES = shell.glob.rules(M.files)

-- files_in_line is an RE2 expression that matches a line of plain words
-- (shell.quick) wherever file could find a secrets file in one of its
-- words (and maybe elsewhere too).
M.files_in_line = RULES.in_line

-- file returns the part of a word (a shell word or { text, pat }) that
-- could name a secrets file: the word, or what follows an "=", ":" or "@"
-- in it (--env-file=.env, HEAD:.env, host:.ssh/x); nil if none. A glob
-- that could match such a file counts.
function M.file(w)
  if not w.glob and not w.unknown then
    local base = w.text:match("[^/]*$"):lower()
    if M.templates[base] then return nil end
  end
  if shell.glob.could_touch(w.pat, RULES) then return w.text end
  local texts = w.text:gmatch("[=:@]([^=:@]+)")
  for rest in w.pat:gmatch("[=:@]([^=:@]+)") do
    local t = texts()
    if rest ~= "\0" and shell.glob.could_touch(rest, RULES) then return t or rest end
  end
  return nil
end

-- matcher compiles every secrets file (files and machine_files) and the
-- names of extra (the same glob rules: a pack's or a policy's own, such
-- as a SETTINGS list) into a table:
--   file(w)   the part of a word (a shell word or { text, pat }) that
--             could name one of them, as file does, nil if none; a
--             template passes, in a glob's folders too (**/.env.example)
--   in_line   an RE2 expression matching a line of plain words
--             (shell.quick's words) wherever file could find one
--   rules     the compiled rules (shell.glob.could_touch)
-- This is the way to add names: a pack or a policy passes its own to
-- matcher; a name every policy should know belongs in the lists above.
-- Call it when the file loads, not in a hook: it compiles (the list alone
-- once per state, shared by every file that asks for no extra names: read
-- the table it returns, never change it).
local plain

-- fold folds the "//", "." and "dir/.." of a path or a word's pattern
-- ("/etc//shadow", "/etc/./shadow" and "/etc/x/../shadow" are
-- /etc/shadow), keeping it relative when it is; nil when there is none
-- to fold. A ".." that would climb above the start stays.
local function fold(p)
  if not (p:find("//", 1, true) or p:find("/%.%.?/") or p:find("/%.%.?$")) then return nil end
  local parts = {}
  for seg in p:gmatch("[^/]+") do
    local top = parts[#parts]
    if seg == ".." and top and top ~= ".." and top ~= "~" then
      parts[#parts] = nil
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  return (p:sub(1, 1) == "/" and "/" or "") .. table.concat(parts, "/")
end
M.fold = fold

-- A line holding a path to fold may hide a secrets file from in_line's
-- expression ("cat /etc//shadow"): such a line is parsed.
local FOLDS = [[//|/\.\.?(?:/|\s|$)]]

-- public_word reports whether the last component of a word's pattern pat
-- names a file that holds no secret although a rule covers it: a public
-- key (*.pub) or one of public under .ssh/. A glob's last component is
-- never public (~/.ssh/* names the private keys too).
local function public_word(pat)
  local base = pat:match("[^/]*$")
  if base:find("[*?%[%z\\]") then return false end
  base = base:lower()
  if base:sub(-4) == ".pub" then return true end
  -- a public key written as PEM (foo.pub.pem, public.pem, server-pubkey.pem)
  if (base:sub(-4) == ".pem" or base:sub(-4) == ".key") and (base:find("%f[%w]pub%f[%W]") or
    base:find("public", 1, true) or base:find("pubkey", 1, true)) then
    return true
  end
  return M.public[base] and pat:lower():find("%.ssh/[^/]*$") ~= nil or false
end

-- known_name drops the unknown parts of the last component of a word's
-- pattern when that component has literal text too ("Authorization:
-- Bearer $TOKEN", "$KEY:", "cd $DIR && make"): such a value is part of a
-- name or a text, not a secrets file by itself, and a rule must match
-- what the word spells around it ($NAME.pem still matches *.pem, .env$X
-- .env). An unknown part before a "/" may be any folder and stays unknown
-- ($XDG_CONFIG_HOME/gh/hosts.yml).
local function known_name(pat)
  local head, last = pat:match("^(.*/)([^/]*)$")
  if not head then head, last = "", pat end
  if not last:find("%z") or not last:find("[^%z]") then return pat end
  return head .. last:gsub("(\\?)%z", function(e) return e == "" and "" or nil end)
end

-- canary returns the path one file of a generic glob would have, or nil
-- when pat is not one: a glob whose every component holding a wildcard
-- is all stars (*, **) or, the last one, a star and a literal extension
-- (*.json, *.tar.gz, *.*). Such a glob names no file by itself (**/*.yaml
-- lists every YAML file, GRANT … ON *.* names none): it touches a
-- secrets file only when any file it matches would be one (*.pem,
-- ~/.ssh/*, **/.env). Its literal part is what names a secret; a glob
-- with more literal text in a wildcard component (.env*, id_rsa*,
-- *secret*) is judged by what it could match.
local function canary(pat)
  if not pat:find("*", 1, true) or pat:find("[?%[%z\\]") then return nil end
  local out, last = {}, nil
  for seg in pat:gmatch("[^/]+") do
    last = #out + 1
    out[last] = seg
  end
  for i, seg in ipairs(out) do
    if seg:find("*", 1, true) then
      if seg:find("^%*+$") then
        out[i] = "x"
      elseif i == last and (seg:find("^%*+%.[^*]+$") or seg == "*.*") then
        out[i] = "x" .. seg:gsub("^%*+", ""):gsub("%*", "x")
      else
        return nil
      end
    end
  end
  return (pat:sub(1, 1) == "/" and "/" or "") .. table.concat(out, "/")
end
M.canary = canary

-- MAX_PARTS bounds the values after "=", ":" or "@" of one word that are
-- read as paths.
local MAX_PARTS = 8

function M.matcher(extra)
  if (extra == nil or #extra == 0) and plain then return plain end
  local list = {}
  for _, l in ipairs({ M.files, M.machine_files, extra or {} }) do
    for _, f in ipairs(l) do list[#list + 1] = f end
  end
  local rules = shell.glob.rules(list)
  -- the rules that name a file, not only its extension (*.pem): a glob
  -- that ends in * (Dockerfile*) could end in any extension, and only its
  -- name counts. They are the compiled rules of list, picked (rules holds
  -- list's rules in its order), not compiled again: could_touch reads
  -- only them for a glob, which is all it is asked of them.
  local named_rules = {}
  for k, f in ipairs(list) do
    if f:sub(1, 1) ~= "*" then named_rules[#named_rules + 1] = rules[k] end
  end
  local could_touch, templates = shell.glob.could_touch, M.templates
  local function touches(pat)
    if pat:sub(-1) == "*" and pat:sub(-2) ~= "\\*" and pat:sub(-2) ~= "/*" and pat:match("[^/]*$") ~= "*" then
      return could_touch(pat, named_rules) or could_touch(pat:sub(1, -2), rules)
    end
    return could_touch(pat, rules)
  end
  local function file(w)
    local pat, text = w.pat, w.text
    local fp = fold(pat)
    if fp then pat, text = fp, fold(text) or text end
    local base = pat:match("[^/]*$")
    if not base:find("[*?%[%z]") and templates[base:gsub("\\(.)", "%1"):lower()] then return nil end
    if public_word(pat) then return nil end
    if w.unknown and not w.whole then pat = known_name(pat) end
    local c = w.glob and canary(pat)
    if c then
      if could_touch(c, rules) then return text end
      return nil
    end
    if touches(pat) then return text end
    -- a glob of everything in a folder (~/.aws/**, ~/.ssh/*) reads the folder
    local dir = pat:match("^(.+)/%*%*?$")
    if w.glob and dir and could_touch(dir, rules) then return text end
    -- the value after an "=", ":" or "@" (--file=x, user@host:path), the
    -- first few: a word with more is text (a line of code), not a path
    local texts, seen = text:gmatch("[=:@]([^=:@]+)"), 0
    for rest in pat:gmatch("[=:@]([^=:@]+)") do
      local t = texts()
      if rest ~= "\0" and not public_word(rest) and touches(rest) then return t or rest end
      seen = seen + 1
      if seen == MAX_PARTS then break end
    end
    return nil
  end
  local m = { file = file, in_line = rules.in_line .. "|" .. FOLDS, rules = rules }
  if extra == nil or #extra == 0 then plain = m end
  return m
end

-- readers are the programs that read, copy or send the files they are
-- given: an argument of theirs whose value is unknown ($(…), $VAR) may be a
-- secret file. For any other program only a word that could name a secret
-- file counts (git commit -m "$MSG" reads no file).
M.readers = {}
for n in ([[cat tac less more head tail nl od xxd hexdump strings base64 base32 uuencode sed awk gawk grep
  egrep fgrep rg ag cp mv ln scp rsync tar zip gzip bzip2 xz 7z curl wget nc ncat socat source . vi vim nano
  emacs diff cmp jq yq sort uniq cut paste tee dd openssl gpg python python3 perl ruby node install]]):gmatch("%S+") do
  M.readers[n] = true
end

-- URL_PROGRAMS are readers whose operands are URLs: an unknown operand of
-- theirs (a list's lines fed by xargs, $URL) is a file only after one of
-- the options of URL_FILE_OPTIONS (curl -T "$F", wget -i "$LIST").
local URL_PROGRAMS = { curl = true, wget = true }
local URL_FILE_OPTIONS = { ["-T"] = true, ["--upload-file"] = true, ["-K"] = true, ["--config"] = true,
  ["--data-binary"] = true, ["--post-file"] = true, ["--body-file"] = true, ["-i"] = true, ["--input-file"] = true }

-- unknown_read reports whether the word w, all of it unknown, of the
-- command c, in which it is the k-th argument, may be a file c reads: c is
-- one of readers, and w is not the name find -exec puts in place of {}
-- (find's own words say which files it selects: find . -name '.env*'
-- names them), nor a <(…) (a pipe from commands parse reads too), nor an
-- URL program's operand.
-- MOVERS move or link the files they are given without showing what
-- they hold: a name xargs hands them (… | xargs mv -t build/) is not read.
local MOVERS = { mv = true, ln = true, install = true }

-- tracked_list reports whether the command up lists only the files git
-- tracks (git ls-files, git diff --name-only): the project's own files,
-- not the ignored ones where secrets are kept (git ls-files -o and -i
-- list those).
local function tracked_list(up)
  if not up or up.name ~= "git" then return false end
  local sub, names = nil, false
  for _, a in ipairs(up.args) do
    local t = a.text
    if a.unknown then return false end
    if not sub and t:sub(1, 1) ~= "-" then
      sub = t
    elseif sub == "ls-files" and (t == "--others" or t == "--ignored" or t:find("^%-[^-]*[oi]")) then
      return false
    elseif t == "--name-only" or t == "--name-status" then
      names = true
    end
  end
  return sub == "ls-files" or (sub == "diff" and names)
end

function M.unknown_read(c, k, w)
  local n = c.name or ""
  if not M.readers[n] or w.source == "find" or w.source == "proc" then return false end
  if w.source == "stdin" and (MOVERS[n] or tracked_list(w.producer)) then return false end
  if URL_PROGRAMS[n] then
    local prev = c.args[k - 1]
    return prev ~= nil and URL_FILE_OPTIONS[prev.text] == true
  end
  return true
end

-- find_selects returns what names a secrets file (file, a matcher's
-- file) in the name tests (-name, -iname, -path, -ipath, -wholename) of a
-- find c that runs a command on the files it finds (-exec, -execdir,
-- -ok, -okdir), or nil. A test's value is a glob even when quoted (find
-- . -name '.env*' -exec cat {} +): the command's {} is one of those
-- files. A find whose tests select other files runs it on those (find .
-- -name '*.go' -exec grep -l TODO {} +).
local FIND_EXEC = { ["-exec"] = true, ["-execdir"] = true, ["-ok"] = true, ["-okdir"] = true }
local FIND_NAMES = { ["-name"] = true, ["-iname"] = true, ["-path"] = true, ["-ipath"] = true, ["-wholename"] = true,
  ["-iwholename"] = true }
function M.find_selects(c, file)
  local runs = false
  for _, w in ipairs(c.args) do
    if FIND_EXEC[w.text] then runs = true; break end
  end
  if not runs then return nil end
  for k, w in ipairs(c.args) do
    local v = c.args[k + 1]
    if FIND_NAMES[w.text] and v and not v.unknown then
      local hit = file(M.path_word(v.text))
      if hit then return hit end
    end
  end
  return nil
end

-- path_word turns a path string into a word for file.
function M.path_word(p)
  return { text = p, pat = p:gsub("%z", "\\%0"), glob = p:find("[*?%[]") ~= nil }
end

return M
