-- cloud: blocks teardown: terraform destroy, apply -auto-approve, kubectl delete on protected contexts, cloud deletes
--
-- What it stops, on any shell tool:
--   terraform, tofu, terragrunt: destroy, apply -auto-approve, apply -destroy
--     (denied); apply of a saved plan file (asked: the plan is not visible)
--   pulumi: destroy, up --yes (denied)
--   kubectl delete / drain, helm uninstall (delete, del, un): denied on a
--     protected context; asked when the context is not on the command line;
--     with --all, -A or --all-namespaces denied unless the context is named
--     and not protected
--   aws s3 rm --recursive, aws s3 rb --force, aws <service> delete-*/
--     terminate-*; gcloud ... delete, gcloud storage rm -r, gsutil rm -r;
--     az ... delete / delete-* (denied)
-- Commands are read through lib/shell.lua: wrappers (sudo, env, timeout),
-- chains, $(…), sh -c '…' and quoting do not hide them.
--
-- Why: these commands remove infrastructure or data that no checkout brings
-- back, and an agent cannot tell a test cluster from production.
--
-- The kubectl context: the payload only has the command line, so the
-- context is what the line names: --context X (helm: --kube-context X), or a
-- `kubectl config use-context X` (or `kubectx X`) earlier on the same line.
-- A context matching one of SETTINGS.protected_contexts (globs, compared
-- case-insensitively) is protected. When the line names none (the current
-- context of ~/.kube/config, KUBECONFIG) or it is only known when the
-- command runs ($CTX), the answer is SETTINGS.unknown_context: "ask" (the
-- default: the user confirms), "deny" or "allow".
--
-- Settings (SETTINGS below): protected_contexts, unknown_context.
--
-- What it cannot know: which account, project or cluster a command reaches
-- through its configuration files and environment; deletes through APIs
-- (curl to a cloud endpoint), SDK scripts or the consoles. Fails closed: a
-- line that cannot be read is denied.

local SETTINGS = {
  protected_contexts = { "*prod*", "*prd*", "*live*" },
  unknown_context = "ask",
}

local shell = require("shell")

local ipairs, type = ipairs, type

local protected = require("names").matcher(SETTINGS.protected_contexts)

local function deny(why)
  return hook.deny("cloud guard: " .. why .. " removes infrastructure or data that cannot be restored. " ..
    "Show the user the exact command and ask them to run it themselves; to see what it would change, " ..
    "use a read-only form (terraform plan, kubectl get, --dry-run).")
end

-- An answer of the kubectl rule: "deny", "ask" or nil, with the why.
local function by_context(ctx, what, broad)
  if ctx and not ctx.unknown then
    if protected(ctx.text) then return "deny", what .. " on the protected context " .. shell.printable(ctx.text) end
    return nil
  end
  local where = ctx and "a context only known when the command runs" or "the current context (not named on the line)"
  if broad then return "deny", what .. " with --all on " .. where end
  if SETTINGS.unknown_context == "allow" then return nil end
  return SETTINGS.unknown_context == "deny" and "deny" or "ask", what .. " on " .. where
end

local KUBECTL = { short = { A = "all-namespaces" }, short_arg = { n = "namespace", s = "server", l = "selector",
  o = "output", f = "filename", c = "container" },
  long = { "all", "all-namespaces", "force", "now", "wait", "ignore-not-found", "recursive", "dry-run",
    "ignore-daemonsets", "delete-emptydir-data", "delete-local-data", "insecure-skip-tls-verify" },
  long_arg = { "context", "namespace", "cluster", "user", "server", "kubeconfig", "token", "selector", "output",
    "filename", "field-selector", "grace-period", "timeout", "as", "as-group", "cascade", "request-timeout",
    "certificate-authority", "client-certificate", "client-key", "tls-server-name", "pod-selector", "raw" } }
local HELM = { short_arg = { n = "namespace" }, long = { "all-namespaces", "wait", "keep-history", "dry-run",
  "debug", "no-hooks" }, long_arg = { "kube-context", "namespace", "kubeconfig", "timeout", "cascade",
  "description", "kube-apiserver", "kube-token", "kube-as-user", "registry-config", "repository-config" } }

local function word_of(o, key, fallback)
  local v = o.flags[key]
  if type(v) == "string" then
    -- options() keeps the value's text: find the word to know if it is unknown
    return { text = v, unknown = v:find("\0", 1, true) ~= nil }
  end
  return fallback
end

-- kubernetes judges kubectl and helm, ctx being the context chosen earlier
-- on the line.
local function kubernetes(c, ctx)
  if c.name == "kubectl" then
    local o = shell.options(c.args, KUBECTL)
    local sub = o.operands[1]
    if not sub then return nil end
    local s = sub.unknown and "?" or sub.text
    if s ~= "delete" and s ~= "drain" and s ~= "?" then return nil end
    local broad = o.flags.all or o.flags["all-namespaces"]
    return by_context(word_of(o, "context", ctx), "kubectl " .. (sub.unknown and "<unknown>" or s), broad)
  elseif c.name == "helm" then
    local o = shell.options(c.args, HELM)
    local sub = o.operands[1]
    if not sub then return nil end
    local s = sub.unknown and "?" or sub.text
    if s ~= "uninstall" and s ~= "delete" and s ~= "del" and s ~= "un" and s ~= "?" then return nil end
    return by_context(word_of(o, "kube-context", ctx), "helm uninstall", o.flags["all-namespaces"])
  end
  return nil
end

-- switched returns the context a command switches to, or nil.
local function switched(c)
  if c.name == "kubectx" and c.args[1] and c.args[1].text ~= "-" and c.args[1].text:sub(1, 1) ~= "-" then
    return c.args[1]
  end
  if c.name ~= "kubectl" then return nil end
  local o = shell.options(c.args, KUBECTL)
  local ops = o.operands
  if ops[1] and ops[1].text == "config" and ops[2] and ops[2].text == "use-context" and ops[3] then
    return ops[3]
  end
  return nil
end

local TF = { terraform = true, tofu = true, terragrunt = true }

local function flag(args, name)
  for _, a in ipairs(args) do
    local t = a.text
    if t == "-" .. name or t == "--" .. name or t:find("^%-%-?" .. name:gsub("%-", "%%-") .. "=") and
      not t:find("=false$") then
      return true
    end
  end
  return false
end

-- TF_ARG are terraform's options whose value may be the next word.
local TF_ARG = { ["-var"] = true, ["-var-file"] = true, ["-target"] = true, ["-replace"] = true, ["-state"] = true,
  ["-state-out"] = true, ["-backup"] = true, ["-lock-timeout"] = true, ["-parallelism"] = true }

local function terraform(c)
  if not TF[c.name or ""] then return nil end
  local ops = {}
  local skip = false
  for _, a in ipairs(c.args) do
    if skip then
      skip = false
    elseif a.unknown and a.whole then
      ops[#ops + 1] = "?"
    elseif a.text:sub(1, 1) ~= "-" then
      ops[#ops + 1] = a.text
    else
      skip = TF_ARG[a.text:gsub("^%-%-", "-")] == true
    end
  end
  local sub = ops[1]
  if sub == "run-all" or sub == "run" then sub = ops[2] end
  if sub == "destroy" then return "deny", c.name .. " destroy" end
  if sub == "apply" then
    if flag(c.args, "auto-approve") or flag(c.args, "terragrunt-non-interactive") or flag(c.args, "non-interactive") then
      return "deny", c.name .. " apply -auto-approve"
    end
    if flag(c.args, "destroy") then return "deny", c.name .. " apply -destroy" end
    local plan = ops[(ops[1] == "apply") and 2 or 3]
    if plan then return "ask", c.name .. " apply of the saved plan " .. shell.printable(plan) end
  end
  if sub == "?" then return "ask", c.name .. " with a subcommand only known when it runs" end
  return nil
end

local function pulumi(c)
  if c.name ~= "pulumi" then return nil end
  local sub
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" then sub = a.text; break end
  end
  if sub == "destroy" or sub == "down" then return "deny", "pulumi destroy" end
  if (sub == "up" or sub == "update") and (flag(c.args, "yes") or flag(c.args, "y") or flag(c.args, "skip-preview")) then
    return "deny", "pulumi up --yes"
  end
  return nil
end

local function words(c)
  local out = {}
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" then out[#out + 1] = a.text:lower() end
  end
  return out
end

local function has(list, v)
  for _, x in ipairs(list) do
    if x == v then return true end
  end
  return false
end

local function recursive(c)
  return flag(c.args, "recursive") or flag(c.args, "r") or flag(c.args, "R")
end

local function clouds(c)
  local n = c.name
  if n == "aws" then
    local w = words(c)
    -- the service may follow global options and their values (aws --profile prod s3 rm ...)
    for i = 1, #w - 1 do
      if w[i] == "s3" and w[i + 1] == "rm" and recursive(c) then return "deny", "aws s3 rm --recursive" end
      if w[i] == "s3" and w[i + 1] == "rb" and flag(c.args, "force") then return "deny", "aws s3 rb --force" end
    end
    for _, x in ipairs(w) do
      if x:find("^delete%-") or x:find("^terminate%-") then return "deny", "aws " .. x end
    end
  elseif n == "gcloud" then
    local w = words(c)
    if has(w, "delete") then return "deny", "gcloud ... delete" end
    if w[1] == "storage" and w[2] == "rm" and recursive(c) then return "deny", "gcloud storage rm --recursive" end
  elseif n == "gsutil" then
    local w = words(c)
    if (w[1] == "rm" or w[1] == "rb") and (recursive(c) or w[1] == "rb") then return "deny", "gsutil " .. w[1] end
  elseif n == "az" then
    for _, x in ipairs(words(c)) do
      if x == "delete" or x:find("^delete%-") then return "deny", "az ... " .. x end
    end
  end
  return nil
end

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" then return nil end
  local cmds, err = shell.parse(cmd)
  local ctx, ask
  for _, c in ipairs(cmds) do
    local verdict, why = terraform(c)
    if not verdict then verdict, why = pulumi(c) end
    if not verdict then verdict, why = clouds(c) end
    if not verdict then verdict, why = kubernetes(c, ctx) end
    if verdict == "deny" then return deny(why) end
    if verdict == "ask" and not ask then ask = why end
    ctx = switched(c) or ctx
  end
  if err then return hook.deny("cloud guard: the command could not be checked: " .. err ..
    ". Split it into shorter commands.") end
  if ask then
    return hook.ask("cloud guard: " .. ask .. ". Name the context or plan on the command line " ..
      "(kubectl --context NAME) so that it can be checked, or let the user confirm.")
  end
end, { name = "cloud", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
