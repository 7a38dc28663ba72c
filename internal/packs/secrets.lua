-- secrets: stops credentials in prompts, written files, command lines and what tools send out, and commands that print stored ones
--
-- What it stops:
--   - a prompt (UserPromptSubmit) that carries a credential, before it
--     reaches the model's provider;
--   - a file write or edit (@fs.write: content, new_string, edits,
--     apply_patch text, …) whose new text holds one: it would be committed;
--   - a shell command (@shell) holding one, on the line as written or
--     once the shell has removed quotes and escapes (AKIA""…, $'\x41…');
--   - the input of a web (@network) or MCP (@mcp) tool holding one: it
--     would leave the machine;
--   - a shell command that prints a credential a store keeps (gh auth
--     token, aws configure get aws_secret_access_key, gcloud auth
--     print-access-token, az account get-access-token, security
--     find-generic-password -w, secret-tool lookup, git credential fill,
--     vault print token, docker-credential-* get, pass show, op read, bw
--     get), or exports a private key (gpg --export-secret-keys): its
--     output would reach the model;
--   - a credential dumper (laZagne, mimipenguin, mimikatz, pypykatz,
--     secretsdump, …), run as a program or as a script (python
--     laZagne.py all), which collects every credential the machine
--     stores, and reg save / export of the hives that hold the password
--     hashes and LSA secrets (HKLM\SAM, SYSTEM, SECURITY; also through
--     cmd /c) [rule credential-dump];
--   - a shell command that prints a secret's value from elsewhere: a
--     variable named as a secret (echo $GITHUB_TOKEN, printenv
--     AWS_SECRET_ACCESS_KEY; piped into a program or redirected to a file
--     it passes), a Kubernetes secret's data (kubectl get secret x -o
--     yaml/json/jsonpath), a container's environment (docker inspect
--     --format '{{.Config.Env}}'), the container credentials endpoint
--     (169.254.170.2). A secret's name, a listing (kubectl get secrets,
--     describe) and env or printenv of everything pass.
--   - the environment filtered for secrets: env, printenv, set, export -p,
--     declare -x, compgen -v … | xargs printenv piped or fed into grep,
--     rg, awk, sed, … whose pattern names secrets (env | grep -i token,
--     printenv | grep AWS_) [rule env-filter]; env | grep PATH, names
--     only (| cut -d= -f1) and counts (grep -c, -q, | wc -l) pass; and ps
--     with the BSD e option (ps eww), every process's environment [rule
--     process-env];
--   - more stores [rule store-read]: aws sts get-session-token /
--     assume-role, ecr get-login-password, codeartifact
--     get-authorization-token, az storage account keys list, kubectl config
--     view --raw, kubectl create token, npm token create, vault token
--     create, heroku auth:token, gopass show, pass NAME, glab auth status
--     -t, cmdkey /list; piped into a login reading its stdin (| docker
--     login --password-stdin) it passes. A secrets manager's value (vault
--     read / kv get, aws secretsmanager get-secret-value, doppler secrets
--     get) passes: the redact pack takes known credentials out of it.
-- Each reason names its rule: credential (a credential in a text),
-- store-read, secret-print, env-filter, process-env, credential-dump,
-- unreadable.
-- The credentials are those of lib/secrets.lua's patterns (private keys,
-- AWS, GitHub, GitLab, Slack, Stripe, Google, npm and sk- API keys), the
-- list the decision log's redaction uses too. A reason names the kind
-- of secret and shows at most its first characters. Reads of the files
-- that hold secrets (.env, ~/.npmrc, ~/.aws/credentials, /etc/shadow, …)
-- by a file tool, a search or the shell are the files pack's to stop.
-- Why: a secret in a prompt lands in a provider's logs; in a file, in
-- the repository's history; in a command, in the shell history and logs.
--
-- Set them in the config's [packs.secrets] table, over the defaults below.
-- Settings (SETTINGS below):
--   max_bytes  how much of one text is scanned (262144); a longer text
--              is scanned up to there and its tail is not
--   prompts    false leaves prompts to hooks.d/60-prompt-secrets.lua
--
-- What it cannot know: a secret it has no pattern for (a password, a
-- key of an unlisted service), one encoded (base64, split across
-- variables or files), or one a program prints at run time.

local shell = require("shell")
local secrets = require("secrets")
local pwsh = require("pwsh")

local SETTINGS = hook.settings("secrets", {
  max_bytes = 262144,
  prompts = true,
})

-- TEXT_KEYS hold the new text of a write or an edit, across agents.
local TEXT_KEYS = { "content", "new_string", "new_source", "file_text", "text", "command", "input", "patch",
  "new_str", "code_edit" }

local function scan(s)
  if type(s) ~= "string" then return nil end
  if #s > SETTINGS.max_bytes then s = s:sub(1, SETTINGS.max_bytes) end
  return secrets.find(s)
end

-- MAYBE matches a text wherever scan could find a credential in it: the
-- patterns of lib/secrets.lua as one alternation, each without the \b it
-- ends with, so that a match in the first max_bytes of a text that scan
-- cuts there is a match in the whole text too (the cut ends a word where
-- the text may go on). The usual call asks it once of every string of the
-- tool input (re.match_any, one Go call that rules most texts out by the
-- literals every credential holds) and reads no further when it matches
-- none: the reading below runs only for a text that may hold one.
local MAYBE
do
  local parts = {}
  for i, p in ipairs(secrets.patterns) do parts[i] = "(?:" .. (p[1]:gsub("\\b$", "")) .. ")" end
  MAYBE = table.concat(parts, "|")
end
local match, match_any = re.match, re.match_any

-- scan_all scans every string in v (tables to depth 6, at most 4096 values).
local function scan_all(v, depth, budget)
  if type(v) == "string" then
    budget.n = budget.n - 1
    return scan(v)
  end
  if type(v) ~= "table" or depth > 6 then return nil end
  for _, x in pairs(v) do
    if budget.n <= 0 then return nil end
    local label, m = scan_all(x, depth + 1, budget)
    if label then return label, m end
  end
  return nil
end

local function deny(label, masked, where, instead)
  return hook.deny("secrets pack: blocked " .. label .. " (" .. shell.printable(masked) .. ") in " .. where ..
    " [rule credential]; " .. instead .. ".")
end

hook.register("UserPromptSubmit", nil, function(input)
  local prompt = input.prompt
  if not SETTINGS.prompts or type(prompt) ~= "string" or not match(MAYBE, prompt) then return nil end
  local label, m = scan(prompt)
  if label then
    return deny(label, m, "your prompt", "it was not sent to the model; remove it and send the prompt again")
  end
end, { name = "pack-secrets-prompt", failure_policy = "closed", policy = true })

-- The hooks below read their input in their own bodies and hand no table
-- of it to another function (a value handed to scan is a string; a
-- nested table is walked in a copy, json): the input's tables are then
-- refilled for the next call instead of built anew.
hook.register("PreToolUse", "@fs.write", function(input)
  local args = input.toolInput
  if type(args) ~= "table" or not match_any(MAYBE, args) then return nil end
  for _, k in ipairs(TEXT_KEYS) do
    local v = args[k]
    local label, m
    if type(v) == "string" then label, m = scan(v) end
    if label then
      return deny(label, m, "the text to write",
        "read the value from the environment or a git-ignored file (.env) instead of writing it")
    end
  end
  local edits = args.edits
  if type(edits) == "table" then
    local label, m = scan_all(json.decode(json.encode(edits)), 0, { n = 4096 })
    if label then
      return deny(label, m, "the text to write",
        "read the value from the environment or a git-ignored file (.env) instead of writing it")
    end
  end
end, { name = "pack-secrets-write", stage = "validate", failure_policy = "closed", policy = true })

-- STORES are the programs that keep credentials, each with the operand
-- sequences that print one: a list of words found in a row among the
-- command's operands (options left out), with flags that must also be
-- given (any one of them), or a pattern the word after the sequence must
-- match. Listing, status and login verbs print none and pass.
local STORES = {
  gh = { { seq = { "auth", "token" } }, { seq = { "auth", "status" }, flags = { "-t", "--show-token" } } },
  glab = { { seq = { "auth", "status" }, flags = { "-t", "--show-token" } } },
  -- temporary keys and tokens the cloud hands out (a secrets manager's
  -- values, vault read, aws secretsmanager get-secret-value, doppler secrets
  -- get: the other guards' suites read them as everyday work, and the
  -- redact pack takes known credentials out of what they print)
  aws = { { seq = { "configure", "get" }, next = "secret|token" }, { seq = { "configure", "export-credentials" } },
    { seq = { "sts" }, next = "^(?:get-session-token|get-federation-token|assume-role.*)$" },
    { seq = { "ecr" }, next = "^get-login(?:-password)?$" }, { seq = { "ecr-public", "get-login-password" } },
    { seq = { "codeartifact", "get-authorization-token" } } },
  gcloud = { { seq = { "auth" }, next = "^print-.*token$" },
    { seq = { "auth", "application-default" }, next = "^print-.*token$" } },
  az = { { seq = { "account", "get-access-token" } }, { seq = { "storage", "account", "keys", "list" } },
    { seq = { "acr", "login" }, flags = { "--expose-token", "-t" } } },
  security = { { seq = { "find-generic-password" }, flags = { "-w", "-g" } },
    { seq = { "find-internet-password" }, flags = { "-w", "-g" } }, { seq = { "dump-keychain" } } },
  ["secret-tool"] = { { seq = { "lookup" } }, { seq = { "search" } } },
  git = { { seq = { "credential", "fill" } } },
  vault = { { seq = { "print", "token" } }, { seq = { "token", "create" } } },
  -- pass and gopass show an entry named as their first operand too
  pass = { { seq = { "show" } }, { seq = { "grep" } }, { seq = { "otp" } }, { seq = {}, bare = true } },
  gopass = { { seq = { "show" } }, { seq = { "cat" } }, { seq = { "otp" } }, { seq = {}, bare = true } },
  op = { { seq = { "read" } }, { seq = { "item", "get" }, flags = { "--reveal" } } },
  bw = { { seq = { "get" } } },
  -- a cluster's own credentials: the kubeconfig with its keys and tokens, a
  -- service account's new token
  kubectl = { { seq = { "config", "view" }, flags = { "--raw" } }, { seq = { "create", "token" } } },
  npm = { { seq = { "token", "create" } } },
  heroku = { { seq = { "auth:token" } }, { seq = { "authorizations:create" } } },
  cmdkey = { { seq = { "/list" } } },
  -- a private key exported (to the terminal, or to a file the agent reads)
  gpg = { { seq = {}, flags = { "--export-secret-keys", "--export-secret-key", "--export-secret-subkeys",
    "--export-secret-subkey" } } },
}
STORES.gpg2 = STORES.gpg
STORES.oc = STORES.kubectl

-- The subcommands of pass and gopass: a first operand that is none of
-- them names an entry to show (pass github prints its password).
local PASS_VERBS = {}
for w in ("init ls list find search show grep insert add edit generate rm remove delete mv rename cp copy git help " ..
  "version otp setup clone sync mounts create new templates audit config completion env fsck fscopy fsmove " ..
  "history recipients age alias convert link merge process pwgen rcs unclip update"):gmatch("%S+") do
  PASS_VERBS[w] = true
end

-- LOGINS are the options of a command that reads a credential from its
-- standard input to log in with it: a store's output piped into one
-- (aws ecr get-login-password | docker login --password-stdin) goes to
-- the login, not to the conversation.
local LOGINS = { ["--password-stdin"] = true, ["--with-token"] = true, ["--token-stdin"] = true }

-- has_flag reports whether args hold flag: as it is, as --flag=value, or a
-- short one inside a group of short options (-gs for -g).
local function has_flag(args, flag)
  for _, a in ipairs(args) do
    local t = a.text
    if t == flag or t:find(flag .. "=", 1, true) == 1 then return true end
    if #flag == 2 and t:find("^%-%a+$") and t:find(flag:sub(2), 2, true) then return true end
  end
  return false
end

-- store_read returns the command a parsed command c runs to print a
-- credential from a store (see STORES), or nil.
local function store_read(c)
  local n = c.name or ""
  local rules = STORES[n]
  if not rules and n:find("^docker%-credential%-") then rules = { { seq = { "get" } } } end
  if not rules then return nil end
  local ops = {}
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" then ops[#ops + 1] = a.text:lower() end
  end
  for _, r in ipairs(rules) do
    local first = ops[1]
    if r.bare and first and not PASS_VERBS[first] then return n .. " " .. first end
    for k = 1, r.bare and 0 or #ops - #r.seq + 1 do
      local ok = true
      for q = 1, #r.seq do
        if ops[k + q - 1] ~= r.seq[q] then ok = false; break end
      end
      local after = ops[k + #r.seq]
      if ok and r.next then ok = after ~= nil and re.match(r.next, after) end
      if ok and r.flags then
        ok = false
        for _, f in ipairs(r.flags) do
          if has_flag(c.args, f) then ok = true end
        end
      end
      if ok then return n .. " " .. table.concat(r.seq, " ") .. (r.next and after and " " .. after or "") end
    end
  end
  return nil
end

-- to_login reports whether what c prints is piped into a login that
-- reads it from its standard input (see LOGINS).
local function to_login(c, cmds)
  if not c.pipe_out then return false end
  for _, x in ipairs(cmds) do
    if x.upstream == c then
      for _, a in ipairs(x.args) do
        if LOGINS[a.text] then return true end
      end
      return false
    end
  end
  return false
end

-- Printing a secret's value some other way: the value of an environment
-- variable whose name says it holds one (echo $GITHUB_TOKEN, printenv
-- AWS_SECRET_ACCESS_KEY), a Kubernetes secret's data (kubectl get secret
-- x -o yaml / json / jsonpath / go-template), a container's environment
-- (docker inspect --format '{{.Config.Env}}'). Each reaches the
-- conversation unless the command sends it elsewhere: a pipe into another
-- program (echo "$TOKEN" | gh auth login --with-token) or a redirection
-- into a file is allowed for echo and printenv.
local SECRET_NAME = [[(?i)^[a-z0-9_]*(?:token|secret|passw(?:or)?d|passwd|_key|apikey|credential)[a-z0-9_]*$]]
-- SECRET_REF matches a line that expands a variable of such a name.
local SECRET_REF = [[\$\{?[A-Za-z0-9_]*(?i:token|secret|passw(?:or)?d|_key|apikey|credential)]]

-- CONTAINER_CREDENTIALS is a line that fetches the credentials an ECS or
-- EKS container is given, from their endpoint (169.254.170.2, or the URL
-- its variables name).
local CONTAINER_CREDENTIALS = [[169\.254\.170\.2|\$\{?AWS_CONTAINER_CREDENTIALS_(?:RELATIVE|FULL)_URI]]
local FETCHERS = { curl = true, wget = true, http = true, https = true, xh = true }

local function sent_elsewhere(c)
  if c.pipe_out then return true end
  for _, r in ipairs(c.redirs) do
    if r.op == ">" or r.op == ">>" or r.op == ">|" then
      if r.fd == nil or r.fd == "1" then return true end
    end
  end
  return false
end

-- operands returns the words of c that are not options, lower-cased.
local function operands(c)
  local ops = {}
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" then ops[#ops + 1] = a.text:lower() end
  end
  return ops
end

-- output_format returns the value of kubectl's -o / --output, lower-cased.
local function output_format(c)
  local args = c.args
  for k, a in ipairs(args) do
    local t = a.text
    if t == "-o" or t == "--output" then return args[k + 1] and args[k + 1].text:lower() or nil end
    local v = t:match("^%-%-output=(.*)$") or t:match("^%-o=?(.+)$")
    if v then return v:lower() end
  end
  return nil
end

local DUMPS = { "^yaml", "^json", "^jsonpath", "^go%-template", "^template", "^custom%-columns" }

-- secret_print returns what a parsed command c prints a secret's value
-- with (see above), or nil; line is the whole command line.
local function secret_print(c, line)
  local n = c.name or ""
  if (n == "echo" or n == "printf") and not sent_elsewhere(c) and re.match(SECRET_REF, line) then
    for _, a in ipairs(c.args) do
      if a.unknown and a.source == "var" then return n .. " of a variable named as a secret" end
    end
  elseif FETCHERS[n] then
    -- on the line as written ($AWS_CONTAINER_…) or once quotes are removed
    local hit = re.match(CONTAINER_CREDENTIALS, line)
    for _, a in ipairs(c.args) do
      if hit then break end
      hit = not a.unknown and re.match(CONTAINER_CREDENTIALS, a.text)
    end
    if hit then return n .. " of the container credentials endpoint" end
  elseif n == "printenv" and not sent_elsewhere(c) then
    for _, a in ipairs(c.args) do
      if not a.unknown and re.match(SECRET_NAME, a.text) then return "printenv " .. a.text end
    end
  elseif n == "kubectl" or n == "oc" then
    local ops = operands(c)
    for k = 1, #ops - 1 do
      if ops[k] == "get" and (ops[k + 1]:find("^secrets?$") or ops[k + 1]:find("^secrets?/")) then
        local f = output_format(c)
        for _, d in ipairs(DUMPS) do
          if f and f:find(d) then return n .. " get secret -o " .. f:match("^[%a-]*") end
        end
      end
    end
  elseif n == "docker" or n == "podman" or n == "nerdctl" then
    local ops, inspect = operands(c), false
    for _, o in ipairs(ops) do
      if o == "inspect" then inspect = true end
    end
    if inspect then
      for _, a in ipairs(c.args) do
        if a.text:find("%.Env%f[^%w_]") then return n .. " inspect of .Config.Env" end
      end
    end
  end
  return nil
end

-- The environment filtered for secrets [rule env-filter]: a pipeline
-- (or a filter reading its output: <(env), <<< "$(env)") from a command
-- that prints every variable (env, printenv, set, export -p, declare -x,
-- compgen -v | … | xargs printenv, ps e) into a filter (grep, rg, awk,
-- sed, …) whose pattern names secrets (token, secret, pass, pwd, key,
-- credential, auth, api, a provider's prefix: AWS, GH_, GITHUB, …). The
-- filter picks exactly the values the output firewall would have to
-- catch. The whole environment (env, env | sort), a variable that is no
-- secret (env | grep PATH, printenv HOME), names only (env | cut -d= -f1 |
-- grep -i token) and counts (| wc -l) pass.
local ENV_FILTERS = { grep = true, egrep = true, fgrep = true, rg = true, ag = true, ack = true, ugrep = true,
  zgrep = true, awk = true, gawk = true, mawk = true, nawk = true, sed = true, perl = true, findstr = true,
  ["select-string"] = true, sls = true }
-- SECRET_WORD matches a word of a filter's pattern that names secrets.
local SECRET_WORD = "(?i)token|secret|passw|^pass$|^pass_|_pass$|_pass_|pwd|credential|^creds?$|^creds?_|" ..
  "_creds?$|auth|api_?key|^api$|^api_|_api$|^keys?$|_keys?$|^keys?_|_key_|private|bearer|cookie|jwt|" ..
  "^(?:aws|gh|github|gitlab|glab|openai|anthropic|azure|arm|gcp|google|gcloud|stripe|slack|discord|twilio|sendgrid|hf|huggingface|npm|pypi|docker|vault|heroku|" ..
  "cloudflare|cf|digitalocean|do|db|database|pg|postgres|mysql|redis|mongo)_?$|dsn|" ..
  "^(?:database|db|redis|mongo(?:db)?|postgres(?:ql)?|pg|mysql|amqp|rabbitmq|broker)_?ur[il]$"
-- NOT_SECRET are words SECRET_WORD matches that name no secret.
local NOT_SECRET = "(?i)^(?:old)?pwd$|^ssh_auth_sock$"
-- ps's options that take a value: a word after one is no option group.
local PS_VALUE = { ["-o"] = true, ["-O"] = true, ["-p"] = true, ["-u"] = true, ["-U"] = true, ["-g"] = true,
  ["-G"] = true, ["-t"] = true, ["-C"] = true, ["-q"] = true, ["-s"] = true, ["--format"] = true, ["--sort"] = true,
  ["-k"] = true, ["--pid"] = true, ["--user"] = true }

-- ps_env reports whether ps prints the environment of the processes it
-- lists: BSD options (no dash) holding e (ps eww, ps auxe).
local function ps_env(c)
  local skip = false
  for _, a in ipairs(c.args) do
    local t = a.text
    if not skip and not a.unknown and t:find("^[aAcCeEfghjlLmMnrsStTuvwxXZ]+$") and t:find("e", 1, true) then
      return true
    end
    skip = PS_VALUE[t] == true
  end
  return false
end

-- env_source returns what a command c prints the environment with
-- (names and values; "names" for compgen, which prints names only), or nil.
local function env_source(c)
  local n = c.name
  if n == nil then return nil end
  if n == "ps" then return ps_env(c) and "ps" or nil end
  if n == "set" then return #c.args == 0 and "set" or nil end
  if n == "env" or n == "printenv" or n == "export" or n == "declare" or n == "typeset" then
    local after_u = false
    for _, a in ipairs(c.args) do
      if a.text:sub(1, 1) ~= "-" and not after_u then return nil end
      after_u = n == "env" and (a.text == "-u" or a.text == "--unset")
    end
    return n
  end
  if n == "compgen" then
    for k, a in ipairs(c.args) do
      local v = c.args[k + 1]
      local t = a.text
      if t == "-v" or t == "-e" or (t == "-A" and v and (v.text == "variable" or v.text == "export")) then
        return "names"
      end
    end
  end
  return nil
end

-- secret_pattern returns the word of a filter c's pattern that names a
-- secret (SECRET_WORD), or nil.
-- filters whose pattern is a program's text, where -c, -l, -q are no counts
local PROGRAM_FILTERS = { awk = true, gawk = true, mawk = true, nawk = true, sed = true, perl = true }
local COUNTS = { ["--count"] = true, ["--quiet"] = true, ["--silent"] = true, ["--files-with-matches"] = true,
  ["--files-without-match"] = true }
local function secret_pattern(c)
  if not PROGRAM_FILTERS[c.name] then
    -- grep -c, -q, -l: a count or a yes/no, no value
    for _, a in ipairs(c.args) do
      if COUNTS[a.text] or a.text:find("^%-%a*[cqlL]%a*$") then return nil end
    end
  end
  for _, a in ipairs(c.args) do
    local t = a.text
    if t:sub(1, 2) == "--" then t = t:match("=(.*)$") or "" elseif t:sub(1, 1) == "-" then t = "" end
    for w in t:gmatch("[%w_]+") do
      if re.match(SECRET_WORD, w) and not re.match(NOT_SECRET, w) then return w end
    end
  end
  return nil
end

-- downstream returns the command c's output is piped into, or nil.
local function downstream(c, cmds)
  if not c.pipe_out then return nil end
  for _, x in ipairs(cmds) do
    if x.upstream == c then return x end
  end
  return nil
end

local VALUE_PRINTERS = { printenv = true, echo = true, printf = true, eval = true, declare = true, typeset = true,
  env = true }

-- env_filter returns the pipeline's words ("env | grep token") when a
-- filter c picks the environment's secrets out (see ENV_FILTERS), or nil.
local function env_filter(c, cmds)
  if not ENV_FILTERS[c.name or ""] then return nil end
  local word = secret_pattern(c)
  if not word then return nil end
  local src, names_cut
  local up = c.upstream
  while up and not src do
    src = env_source(up)
    if up.name == "cut" then names_cut = true end
    up = up.upstream
  end
  if not src then
    local function look(p) src = src or env_source(p) end
    for _, a in ipairs(c.args) do shell.producers(a, look) end
    for _, r in ipairs(c.redirs) do shell.producers(r.target, look) end
  end
  if not src or names_cut then return nil end
  -- what follows: names only or a count pass; compgen's names pass unless
  -- a later command prints their values (| xargs printenv)
  local d = downstream(c, cmds)
  -- (piped into a compound, a loop, the names may be expanded: read as values)
  local values = src ~= "names" or (c.pipe_out and d == nil)
  while d do
    if d.name == "cut" or d.name == "wc" then return nil end
    if d.name == "read" then values = true end
    d = downstream(d, cmds)
  end
  for _, x in ipairs(cmds) do
    if x ~= c and x.pipeline ~= nil and x.pipeline == c.pipeline and VALUE_PRINTERS[x.name or ""] then values = true end
  end
  if not values then return nil end
  return (src == "names" and "compgen" or src) .. " | " .. c.name .. " " .. word
end

-- For shell.quick: a plain line (no quotes or escapes, so its words are
-- its text) holds no credential once scan of the line as written found
-- none; it prints none from a store unless it runs a store's program
-- with the first word of one of its sequences among its operands. Each
-- sequence is covered by that word (QUICK_WORDS, anywhere in the line),
-- or, when the word is a common one (get, show, read) or there is none
-- (gpg's flags), by the program (QUICK_PROGRAMS): git status or gh pr list is then allowed without
-- parsing.
local COMMON = { get = true, show = true, read = true, lookup = true, search = true, item = true, cat = true,
  grep = true, otp = true, config = true, create = true }
local QUICK_PROGRAMS, QUICK_WORDS = { "docker-credential-[^ /]*" }, {}
do
  local programs, words = {}, {}
  for n, rules in pairs(STORES) do
    for _, r in ipairs(rules) do
      local first = r.seq[1]
      if first == nil or COMMON[first] then
        if not programs[n] then QUICK_PROGRAMS[#QUICK_PROGRAMS + 1] = re.quote(n) end
        programs[n] = true
      elseif not words[first] then
        QUICK_WORDS[#QUICK_WORDS + 1] = re.quote(first)
        words[first] = true
      end
    end
  end
  table.sort(QUICK_PROGRAMS)
  table.sort(QUICK_WORDS)
end
for _, n in ipairs({ "printenv", "kubectl", "oc", "docker", "podman", "nerdctl", "ps" }) do
  QUICK_PROGRAMS[#QUICK_PROGRAMS + 1] = n
end
-- DUMPERS are the tools that collect every credential a machine stores
-- (browsers' and mail clients' passwords, keyrings, memory, the SAM):
-- run as a program or as an interpreter's script (python laZagne.py all),
-- by their name without its extension [rule credential-dump].
local DUMPERS = { lazagne = true, mimipenguin = true, mimikatz = true, pypykatz = true, secretsdump = true,
  lsassy = true, firefox_decrypt = true, ["hack-browser-data"] = true, dumpkeychain = true, chainbreaker = true }
local DUMPER_WORDS = {}
for n in pairs(DUMPERS) do DUMPER_WORDS[#DUMPER_WORDS + 1] = re.quote(n) end
table.sort(DUMPER_WORDS)

local function dumper_name(t)
  return (t:match("[^/\\]*$") or t):lower():gsub("%.[%w]+$", "")
end

-- dumper returns the program or script of c that is one of DUMPERS, or nil.
local function dumper(c)
  if c.name and DUMPERS[dumper_name(c.name)] then return c.name end
  local sc = c.script
  if sc and not sc.unknown and not c.inline and DUMPERS[dumper_name(sc.text)] then return sc.text end
  return nil
end

-- hive_save returns the key a command c saves of the registry hives
-- that hold the machine's password hashes and secrets (reg save or reg
-- export of HKLM\SAM, HKLM\SYSTEM, HKLM\SECURITY, however the shell
-- left its backslash: HKLM\SAM, HKLM/SAM, HKLMSAM), or nil: with the
-- SYSTEM hive's boot key the SAM's hashes are read offline [rule
-- credential-dump].
local REG_VERBS = { save = true, export = true, copy = true }
local function hive_save(c)
  if dumper_name(c.name or "") ~= "reg" then return nil end
  local verb = c.args[1]
  if not (verb and REG_VERBS[verb.text:lower()]) then return nil end
  local key = c.args[2]
  if not key or key.unknown then return nil end
  local k = key.text:lower():gsub("\\", "/"):gsub("^hkey_local_machine", "hklm"):gsub("^hklm:", "hklm")
  if re.match("^hklm/*(?:sam|system|security)/*$", k) then return "reg " .. verb.text .. " " .. key.text end
  return nil
end

-- PowerShell prints a variable's value as its own statement ($env:X) or
-- through Write-Output / Write-Host, an environment variable's through
-- Get-Item env:X and [Environment]::GetEnvironmentVariable('X'):
-- ps_print returns what prints the value of one named as a secret
-- (SECRET_NAME), or nil. Piped into another command or redirected into a
-- file it passes, as echo's does.
local PS_BARE = [[(?i)(?:^|[;\n{])\s*\$\{?env:([A-Za-z0-9_]+)\}?\s*(?:$|[;\n}])]]
local PS_PRINTERS = { ["write-output"] = true, ["write-host"] = true, ["get-item"] = true, ["get-childitem"] = true,
  ["get-content"] = true, ["environment::getenvironmentvariable"] = true }
local function ps_print(cmds, line)
  for name in line:gmatch("%$%{?[Ee][Nn][Vv]:([%w_]+)") do
    if re.match(SECRET_NAME, name) then
      -- a bare $env:X statement (re.find: the name the statement names)
      local m = re.find(PS_BARE, line)
      if m and re.match(SECRET_NAME, m:match("[Ee][Nn][Vv]:([%w_]+)") or "") then return m:gsub("^[%s;{(|]+", "") end
      break
    end
  end
  for _, c in ipairs(cmds) do
    local n = c.name or ""
    if PS_PRINTERS[n] and not c.pipe_out and #c.redirs == 0 then
      for _, w in ipairs(c.args) do
        local names = {}
        if w.raw and (n == "write-output" or n == "write-host") then
          -- $env:X, or "…$env:X…" in a string
          for x in w.raw:gmatch("%$%{?[Ee][Nn][Vv]:([%w_]+)") do names[#names + 1] = x end
        elseif not w.unknown then
          names[1] = n:find("::", 1, true) and w.text or w.text:match("^[Ee][Nn][Vv]:/?([%w_]+)$")
        end
        for _, name in ipairs(names) do
          if re.match(SECRET_NAME, name) then return (c.word and c.word.text or n) .. " of " .. name end
        end
      end
    end
  end
  return nil
end

local _, QUICK_MAX, QUICK_STOP = shell.quick({ programs = { QUICK_PROGRAMS },
  words = "(?i)(?:^| )(?:" .. table.concat(QUICK_WORDS, "|") .. ")(?: |$)|" .. SECRET_REF .. "|" .. CONTAINER_CREDENTIALS ..
    "|(?i:" .. table.concat(DUMPER_WORDS, "|") .. ")|(?i:hklm|hkey_local_machine)" })

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
  local instead = "pass it through an environment variable the user sets, not on the command line"
  local label, m
  if match(MAYBE, line) then label, m = scan(line) end
  if label then return deny(label, m, "the command", instead) end
  -- (any shell tool: Cursor's one Shell tool runs PowerShell on Windows)
  if line:find(":", 1, true) and (line:find("[Ee][Nn][Vv]:") or line:find("nvironment]::", 1, true)) then
    local printed = ps_print((pwsh.parse(line)), line)
    if printed then
      return hook.deny("secrets pack: blocked printing a secret's value (" .. shell.printable(printed) ..
        ") [rule secret-print]; its output would reach the conversation: let the program that needs it read it from the " ..
        "environment itself, check that it is set (Test-Path env:NAME) or ask the user.")
    end
  end
  if #line < QUICK_MAX and not re.match(QUICK_STOP, line) then return nil end
  -- the line as the shell will run it: quotes and escapes removed
  local cmds, err = shell.parse(line)
  for _, c in ipairs(cmds) do
    local dump = dumper(c) or hive_save(c)
    if not dump and pwsh.CMD[c.name or ""] then
      -- what cmd /c runs (cmd.exe /c reg save HKLM\SAM x)
      for _, x in ipairs((pwsh.cmd(c.args))) do dump = dump or hive_save(x) end
    end
    if dump then
      return hook.deny("secrets pack: blocked running a credential dumper (" .. shell.printable(dump) ..
        ") [rule credential-dump], which collects the passwords and keys this machine stores; ask the user " ..
        "for the one credential a step needs.")
    end
    local filtered = env_filter(c, cmds)
    if filtered then
      return hook.deny("secrets pack: blocked picking the secrets out of the environment (" ..
        shell.printable(filtered) .. ") [rule env-filter]; their values would reach the conversation: check " ..
        "that one is set by name (test -n \"$VAR\"), list the names only (env | cut -d= -f1 | grep -i " ..
        shell.printable(filtered:match("%S+$")) .. "), or ask the user.")
    end
    if c.name == "ps" and ps_env(c) then
      return hook.deny("secrets pack: blocked printing the environment of every process (" ..
        shell.printable(c.word and c.word.text or "ps") .. " with the e option) [rule process-env], which holds " ..
        "their tokens and keys: list the processes without it (ps aux, ps -ef).")
    end
    local printed = store_read(c)
    if printed and to_login(c, cmds) then printed = nil end
    if printed then
      return hook.deny("secrets pack: blocked printing a stored credential (" .. shell.printable(printed) ..
        ") [rule store-read]; a tool that needs it reads it from its store itself: do not bring it into the conversation or a " ..
        "command, and ask the user if a step truly needs it.")
    end
    printed = secret_print(c, line)
    if printed then
      return hook.deny("secrets pack: blocked printing a secret's value (" .. shell.printable(printed) ..
        ") [rule secret-print]; its output would reach the conversation: let the program that needs it read it from the " ..
        "environment or the cluster itself, check that it is set (test -n \"$VAR\", kubectl describe secret) " ..
        "or ask the user.")
    end
    local words = {}
    if c.word then words[1] = c.word.text end
    for _, a in ipairs(c.args) do words[#words + 1] = a.text end
    for _, r in ipairs(c.redirs) do words[#words + 1] = r.target.text end
    label, m = scan(table.concat(words, " "))
    if label then return deny(label, m, "the command", instead) end
  end
  if err then
    return hook.deny("secrets pack: blocked a command that could not be checked (" .. err ..
      ") [rule unreadable]; split it into shorter commands.")
  end
end, { name = "pack-secrets-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })

hook.register("PreToolUse", "@network|@mcp", function(input)
  local args = input.toolInput
  local label, m
  if type(args) == "string" then
    label, m = scan(args)
  elseif type(args) == "table" and match_any(MAYBE, args) then
    label, m = scan_all(json.decode(json.encode(args)), 0, { n = 4096 })
  end
  if label then
    return deny(label, m, "what the tool would send", "never send credentials to a web or MCP tool")
  end
end, { name = "pack-secrets-egress", stage = "validate", failure_policy = "closed", policy = true })
