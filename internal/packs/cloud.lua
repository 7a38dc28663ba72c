-- cloud: blocks teardown: terraform destroy, broad kubectl deletes, docker prunes and volume rm, cloud CLIs' delete verbs
--
-- What it stops, on any shell tool:
--   terraform, tofu, terragrunt: destroy, apply -auto-approve, apply -destroy,
--     state rm, workspace delete (denied); apply of a saved plan file
--     (asked: the plan is not visible), denied when a plan -destroy -out
--     of the same line wrote it; plan -destroy -out F, a saved plan that
--     destroys, which a later apply F runs with no prompt (asked:
--     SETTINGS.destroy_plan). plan -destroy without -out passes: it only
--     shows what would go.
--   pulumi: destroy, up --yes, stack rm, state delete (denied)
--   kubectl (and oc) delete / drain, helm uninstall (delete, del, un): denied
--     on a protected context. When the line names no context, what is
--     deleted decides: namespaces, cluster-wide kinds (nodes, persistent
--     volumes, CRDs, cluster roles, storage classes, webhooks), volume
--     claims, `all`, --all, -A, -f of a folder or of stdin, -R, -k, and
--     names computed from another command are denied; one or more pods
--     named (or by selector) pass, since their controller brings them back;
--     any other named resource, a single manifest file, drain and helm
--     uninstall are asked about (SETTINGS.unknown_context). --dry-run
--     (client, server) and --help pass.
--   docker, podman, nerdctl: system prune, container/volume/network prune,
--     image prune -a, volume rm, rm -f / -v / --all / of names computed from
--     another command, rmi -f / --all, stack/service/secret/node rm,
--     podman system reset; docker compose / docker-compose / podman-compose
--     down -v and rm -v (denied). Everyday: rm of one named stopped
--     container, rmi of a named image, image prune of dangling images,
--     builder prune (the build cache), network rm of a named network, and
--     any of them with --dry-run (docker has none: it stops at the flag).
--   The CLIs operators reach outside services with, read generically: the
--     CLI, then its verb words up to the first read-only verb (list, get,
--     describe, show, create, ...); a verb word that is, or has a part
--     (delete-db-instance, apps:destroy) that is, delete, destroy, remove,
--     rm, del, purge, terminate, drop, prune, rb, wipe, erase, uninstall,
--     truncate, deregister, unregister, revoke, unset, undeploy or
--     unsubscribe, or that is or starts with forget, reset, clear,
--     archive, kill, roll or untag (clear_permissions, pg:reset), is
--     denied, unless the line asks for --dry-run or --help. A verb that
--     stops or undoes what runs live without deleting it, disable,
--     deactivate, cancel, rollback, kill or suspend, whole or as a part
--     (gh workflow disable, gh run cancel, glab ci cancel, kubectl scale
--     --replicas=0, wrangler
--     deployments rollback, heroku releases:rollback, aws cloudformation
--     cancel-update-stack, gcloud services disable, mc admin user disable),
--     is asked about (SETTINGS.live_stops, rule live-stops): CI turned
--     off, a deploy stopped midway or rolled back, a feature or an account
--     switched off are live changes the team did not ask for, though their
--     opposite brings them back. Activate (fastly service version
--     activate) and other deploys pass: they are the operator's choice.
--     A sync that deletes what its file does not list (decK's deck sync
--     and deck gateway sync; any CLI's sync with --prune) is denied. The CLIs:
--     aws, gcloud, gsutil, az, azd (down), azcopy, bq, doctl, linode-cli,
--     hcloud, scw, oci, ibmcloud, openstack, exo, civo, flyctl/fly, heroku,
--     vercel, netlify, railway, firebase, supabase, wrangler, cf, eksctl,
--     kops, rosa, cdk, cdktf, sam, serverless/sls, sst, eb, argocd, flux,
--     istioctl, velero, vault (also secrets/auth/audit disable), consul,
--     nomad, etcdctl, rpk, kopia, restic (forget --prune, prune), borg
--     (delete, prune), rclone (purge, delete, rmdirs, ..., and sync to a
--     remote), gh and glab (repo/secret/release ... delete, repo archive,
--     api -X DELETE), doppler, infisical, and the password managers op,
--     bw, pass, gopass, lpass; the brokers', CI servers', payment,
--     search, feature-flag, CDN and paging services' CLIs: nats,
--     rabbitmqadmin, rabbitmqctl (delete_vhost, force_reset,
--     forget_cluster_node, clear_permissions), pulsar-admin, confluent,
--     circleci, gitlab-runner, gitlab-rake and gitlab-backup (restore),
--     the Jenkins CLI (java -jar jenkins-cli.jar), stripe, square, algolia,
--     apigeecli, deck, fastly, flipt, ldcli, unleash, datadog-ci, newrelic,
--     pd, splunk (remove, clean), twilio, sentry-cli, auth0, okta, atlas,
--     mongocli, pscale, neonctl, turso, upstash, dokku, cloudflared,
--     flarectl, s5cmd, b2, kn, tkn, argo, temporal, tctl, linkerd,
--     grafana-cli; the registries' skopeo, crane, regctl and oras (an
--     image deleted from a registry).
--   Any other program read by a CLI's grammar, `tool group [group...]
--     VERB`: its first words plain names (no option, path or value before
--     them) and delete, destroy, remove, rm, del, purge, drop, prune, wipe,
--     erase, uninstall, terminate, deregister, unregister, revoke or
--     truncate second, third or fourth (nats stream delete X, acmectl dns
--     records remove www) is denied; one of the live stops above there
--     (split splits kill X, unleash features disable X) is asked about. A verb first (npm rm x, cargo remove
--     x) passes, and so do the project's own tools, version managers,
--     system tools other packs judge, and programs whose words are text
--     (git, npm, pip, conda, rustup, make, echo, grep, man, ssh, ip, ...:
--     NOT_CLI below).
--   aws without a delete verb: secretsmanager update-secret,
--     put-secret-value, update-secret-version-stage and ssm put-parameter
--     --overwrite (a live secret replaced), route53 change-resource-record-
--     sets whose batch, on the line, DELETEs, cloudfront create-invalidation
--     of /* (denied).
--   SDK and ORM calls that delete: typed as a command line
--     (gateway.customer.delete('c_1')), in an interpreter's one-liner
--     (node -e "client.deleteIndex('x')", python -c "...delete_bucket(...)")
--     or in rails / gitlab-rails runner ("Project.destroy_all"); a method
--     named delete*, destroy*, purge*, truncate*, wipe*, erase*, or
--     clear<Something> (typed: also drop, remove, cancel), not on a file or
--     HTTP module (fs, os, shutil, File, Path, requests: other packs'),
--     is denied.
--   nsupdate (changes to a live DNS zone; help and -V pass); stratus
--     detonate (Stratus Red Team runs an attack technique in the account).
--   Backups: restic forget of snapshots by ID (or latest), with no --keep
--     policy, with --unsafe-allow-remove-all or --prune; restic unlock
--     --remove-all; borg compact, recreate, rdelete, break-lock; rclone
--     move and moveto (the source is deleted) are denied; forget by a
--     --keep policy and --dry-run (-n) pass.
--     Object stores (aws s3, gcloud storage, gsutil, mc, s3cmd): rm of one
--     named object is asked about (SETTINGS.object_deletes, rule
--     object-delete: the object is gone for good unless the bucket keeps
--     versions, and it lies outside the project, where the files pack
--     stops a delete of one file too); rm recursive or of a wildcard, rb,
--     and sync/rsync/mirror that deletes at the destination are denied.
--   Kafka's scripts: an option that deletes or removes (--delete,
--     --delete-config, --delete-offsets, --remove), kafka-delete-records,
--     and --reset-offsets with --execute (denied; without --execute the
--     reset is only printed).
--   aws-vault exec, op run, doppler run and infisical run: the command they
--     run is judged.
--   New long-lived credentials and role grants (SETTINGS.grants, rule
--     grants; asked by default): aws iam create-access-key,
--     create-login-profile, create-user, attach-/put-*-policy,
--     add-user-to-group, update-assume-role-policy; gcloud …
--     add-iam-policy-binding, set-iam-policy, service-accounts keys
--     create; az role assignment create, ad sp/app credential reset, ad sp
--     create-for-rbac, ad user create; gsutil iam ch/set; kubectl create
--     clusterrolebinding/rolebinding to cluster-admin or admin. They
--     outlive the session and reach the whole account (privilege
--     escalation and persistence in the attack catalogues' words).
-- Local tools are left alone: kind, minikube and k3d clusters, a CLI's own
-- configuration and extensions (gcloud config/components, az extension,
-- gh extension/alias/auth, rclone config).
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
-- command runs ($CTX), the answer is SETTINGS.unknown_context for a named
-- resource: "ask" (the default: the user confirms), "deny" or "allow"; the
-- broad deletes above are denied then whatever the setting. A named context
-- that is not protected allows every delete.
--
-- Set them in the config's [packs.cloud] table, over the defaults below.
-- Settings (SETTINGS below): protected_contexts, unknown_context, and
-- live_stops: "ask" (the default), "deny" or "allow", the answer to a
-- verb that stops or undoes what runs live (disable, cancel, rollback, ...);
-- destroy_plan: the same, to terraform/tofu plan -destroy -out F;
-- object_deletes: the same, to the delete of one named object of an object
-- store (aws s3 rm s3://bucket/key, gsutil rm, mc rm); grants: the same, to
-- a new long-lived credential or a role granted (aws iam create-access-key).
--
-- What it cannot know: which account, project or cluster a command reaches
-- through its configuration files and environment; deletes through APIs
-- (curl to a cloud endpoint), SDK scripts, the consoles, or a CLI it does
-- not list; what a manifest file or a saved plan holds. Fails closed: a
-- line that cannot be read is denied.

local SETTINGS = hook.settings("cloud", {
  protected_contexts = { "*prod*", "*prd*", "*live*" },
  unknown_context = "ask",
  live_stops = "ask",
  destroy_plan = "ask",
  object_deletes = "ask",
  grants = "ask",
})

local shell = require("shell")
local danger = require("danger")

local ipairs, pairs, type = ipairs, pairs, type

local protected = require("names").matcher(SETTINGS.protected_contexts)

local INSTEAD = {
  infra = "to see what it would change, use a read-only form (terraform plan, pulumi preview, --dry-run).",
  kube = "to see what it would remove, use kubectl get or --dry-run=client; delete one named resource, " ..
    "on a context named with --context.",
  containers = "review first (docker ps -a, docker volume ls, docker system df) and remove one named, " ..
    "stopped container or image without -f.",
  cli = "to see what exists, use the CLI's list, describe or show verbs, or --dry-run where it has one.",
  api = "deleting through a service's SDK or ORM is for the user to run; read or list first.",
  store = "remove single objects by name, or list them first (aws s3 ls, gsutil ls, rclone lsf); " ..
    "sync without deleting at the destination.",
  object = "list it first (aws s3 ls, gsutil ls, mc ls) and let the user confirm this one object; " ..
    "a bucket with versioning keeps the old version.",
  sync = "preview the change with the tool's diff (deck gateway diff) and let the user run the sync.",
  backup = "preview with --dry-run (restic forget, borg prune, rclone) and let the user run the real one.",
  escape = "mount only the project (-v \"$PWD\":/src) and leave out --privileged with --pid=host.",
  inside = "run read-only commands in the container (ls, cat, ps), or delete one named file in a scratch folder.",
  defenses = "leave audit trails, detectors and keys on; describe them (aws cloudtrail get-trail-status, " ..
    "aws kms describe-key) and ask the user.",
  grant = "use the credentials and roles you have (aws sts get-caller-identity, gcloud auth list show them); " ..
    "the user grants access and makes keys.",
}

-- EFFECTS say what a denied command does, by the kind of rule that fired:
-- teardown (the default), a container's escape to the host, a defense off.
local EFFECTS = {
  teardown = "removes infrastructure or data that cannot be restored",
  escape = "gives a container the host's root file system or processes (a container escape)",
  inside = "destroys data inside a running container or pod",
  defenses = "turns off an audit trail, a threat detector or an encryption key (defenses off)",
  replace = "replaces, live, what running services depend on",
  attack = "runs an attack technique against a real cloud account",
  object = "deletes an object from a remote store, for good unless the bucket keeps versions",
  halt = "stops, cancels or rolls back, live, what users or the team depend on (a workflow, a run, a deploy, " ..
    "a feature, an account)",
  grant = "makes a new long-lived credential or grants a role, which outlives the session and reaches the whole " ..
    "account",
}

local function deny(why, instead, effect)
  return hook.deny("cloud guard: " .. why .. " " .. EFFECTS[effect or "teardown"] ..
    (effect == "object" and " [rule object-delete]. " or effect == "grant" and " [rule grants]. " or ". ") ..
    "Show the user the exact command and ask them to run it themselves; " .. (instead or INSTEAD.infra))
end

-- flag reports whether an option -name / --name / --name=value (not
-- =false) is among args.
local function flag(args, name)
  local pat = "^%-%-?" .. name:gsub("%-", "%%-") .. "="
  for _, a in ipairs(args) do
    local t = a.text
    if t == "-" .. name or t == "--" .. name or t:find(pat) and not t:find("=false$") then
      return true
    end
  end
  return false
end

-- short reports whether one of letters is set in a cluster of short
-- options (-fv, -af) among args.
local function short(args, letters)
  for _, a in ipairs(args) do
    local t = a.text
    if t:find("^%-%a+$") and t:find("[" .. letters .. "]", 2) then return true end
  end
  return false
end

-- dry_run reports a --dry-run (or --dryrun) that is not =none / =false.
local function dry_run(args)
  for _, a in ipairs(args) do
    local t = a.text
    local v = t:match("^%-%-dry%-?run=(.*)$")
    if t == "--dry-run" or t == "--dryrun" or v and v ~= "none" and v ~= "false" then return true end
  end
  return false
end

-- help reports a request for help (--help, help first, -h last), which
-- runs nothing: -h elsewhere may be another option (gsutil -h HEADER).
local function help(args)
  local last = args[#args]
  if last and last.text == "-h" then return true end
  for i, a in ipairs(args) do
    if a.text == "--help" or i == 1 and a.text == "help" then return true end
  end
  return false
end

local function has(list, v)
  for _, x in ipairs(list) do
    if x == v then return true end
  end
  return false
end

-- computed reports an operand whose value comes from another command's
-- output ($(…), xargs): a list nobody reviewed.
local function computed(a)
  return a.unknown and a.source ~= "var"
end

-- kubernetes ---------------------------------------------------------------

-- An answer of the kubectl rule: "deny", "ask" or nil, with the why. scope
-- is "broad" (denied unless a context that is not protected is named),
-- "pods" (everyday: passes unless the context is protected) or "named".
local function by_context(ctx, what, scope)
  if ctx and not ctx.unknown then
    if protected(ctx.text) then return "deny", what .. " on the protected context " .. shell.printable(ctx.text) end
    return nil
  end
  local where = ctx and "a context only known when the command runs" or "the current context (not named on the line)"
  if scope == "broad" then return "deny", what .. " on " .. where end
  if scope == "pods" or SETTINGS.unknown_context == "allow" then return nil end
  return SETTINGS.unknown_context == "deny" and "deny" or "ask", what .. " on " .. where
end

local KUBECTL = { short = { A = "all-namespaces", R = "recursive" }, short_arg = { n = "namespace", s = "server",
  l = "selector", o = "output", f = "filename", c = "container", k = "kustomize" },
  long = { "all", "all-namespaces", "force", "now", "wait", "ignore-not-found", "recursive", "dry-run",
    "ignore-daemonsets", "delete-emptydir-data", "delete-local-data", "insecure-skip-tls-verify", "disable-eviction" },
  long_arg = { "context", "namespace", "cluster", "user", "server", "kubeconfig", "token", "selector", "output",
    "filename", "field-selector", "grace-period", "timeout", "as", "as-group", "cascade", "request-timeout",
    "certificate-authority", "client-certificate", "client-key", "tls-server-name", "pod-selector", "raw",
    "kustomize" } }
local HELM = { short_arg = { n = "namespace" }, long = { "all-namespaces", "wait", "keep-history", "dry-run",
  "debug", "no-hooks" }, long_arg = { "kube-context", "namespace", "kubeconfig", "timeout", "cascade",
  "description", "kube-apiserver", "kube-token", "kube-as-user", "registry-config", "repository-config" } }

-- BROAD_KINDS are the kinds whose deletion takes everything in them, the
-- whole cluster's or data: namespaces, cluster-wide kinds, volumes.
local BROAD_KINDS = {}
for _, k in ipairs({ "namespace", "namespaces", "ns", "project", "projects", "node", "nodes", "no", "pv",
  "persistentvolume", "persistentvolumes", "pvc", "persistentvolumeclaim", "persistentvolumeclaims", "crd", "crds",
  "customresourcedefinition", "customresourcedefinitions", "all", "clusterrole", "clusterroles",
  "clusterrolebinding", "clusterrolebindings", "storageclass", "storageclasses", "sc",
  "mutatingwebhookconfiguration", "mutatingwebhookconfigurations", "validatingwebhookconfiguration",
  "validatingwebhookconfigurations", "apiservice", "apiservices", "priorityclass", "priorityclasses",
  "ingressclass", "ingressclasses", "csidriver", "csidrivers" }) do
  BROAD_KINDS[k] = true
end
local POD_KINDS = { pod = true, pods = true, po = true }

-- manifests describes the broad reading of -f VALUE, or nil for one file.
local function manifests(v)
  if v == "-" then return "a manifest read from stdin" end
  for f in v:gmatch("[^,]+") do
    if f:find("\0", 1, true) then return "manifests only known when the command runs" end
    if not f:find("^%a+://") then
      local base = f:gsub("/+$", ""):match("[^/]*$")
      if f:find("/$") or base == "." or base == ".." or base == "" or not base:find(".", 2, true) or
        f:find("[*?]") then
        return "every manifest in the folder " .. shell.printable(f)
      end
    end
  end
  return nil
end

-- delete_scope reads what a kubectl delete removes: the scope (see
-- by_context) and the words saying so.
local function delete_scope(o)
  if o.flags.all then return "broad", "with --all" end
  if o.flags["all-namespaces"] then return "broad", "with --all-namespaces (-A)" end
  if o.flags.recursive then return "broad", "with --recursive" end
  if type(o.flags.kustomize) == "string" then return "broad", "of a kustomization (-k)" end
  local file = o.flags.filename
  if type(file) == "string" then
    local what = manifests(file)
    if what then return "broad", "of " .. what end
    return "named", "of the manifest " .. shell.printable(file)
  end
  local ops = o.operands
  local spec = ops[2]
  if not spec then return "named", "" end
  if spec.unknown then return "broad", "of kinds only known when the command runs" end
  local pods = true
  for kind in spec.text:lower():gmatch("[^,]+") do
    kind = kind:match("^[^/.]*")
    if BROAD_KINDS[kind] then return "broad", "of " .. kind end
    if not POD_KINDS[kind] then pods = false end
  end
  for i = 3, #ops do
    if computed(ops[i]) then return "broad", "of names computed from another command" end
    local kind = ops[i].text:lower():match("^([^/.]*)[^/]*/")
    if kind and BROAD_KINDS[kind] then return "broad", "of " .. kind end
    if kind and not POD_KINDS[kind] then pods = false end
  end
  return pods and "pods" or "named", "of " .. shell.printable(spec.text)
end

local function word_of(o, key, fallback)
  local v = o.flags[key]
  if type(v) == "string" then
    -- options() keeps the value's text: find the word to know if it is unknown
    return { text = v, unknown = v:find("\0", 1, true) ~= nil }
  end
  return fallback
end

-- live_stop is the answer SETTINGS.live_stops gives a live service
-- stopped or undone (what), with the effect that words it.
local function live_stop(what)
  if SETTINGS.live_stops == "allow" then return nil end
  return SETTINGS.live_stops == "deny" and "deny" or "ask", what, "halt"
end

-- kubernetes judges kubectl, oc or helm, ctx being the context chosen
-- earlier on the line. A release or rollout put back to an earlier
-- version (kubectl rollout undo, helm rollback) undoes a live service, and
-- a scale to no replicas stops one: live_stop.
local function kubernetes(c, ctx)
  if c.name == "kubectl" or c.name == "oc" then
    local o = shell.options(c.args, KUBECTL)
    local sub = o.operands[1]
    if not sub then return nil end
    local s = sub.unknown and "?" or sub.text
    if s == "rollout" then
      local op = o.operands[2]
      if op and (op.unknown or op.text == "undo") and not dry_run(c.args) and not help(c.args) then
        return live_stop(c.name .. " rollout undo")
      end
      return nil
    end
    if s == "scale" then
      -- to no replicas: the service stops, as a rollback or a disable does
      for k, a in ipairs(c.args) do
        -- the word that holds the count: --replicas=N, or the one after --replicas
        local w = a.text == "--replicas" and c.args[k + 1] or (a.text:find("^%-%-replicas=") and a)
        local v = w and (w == a and a.text:match("=(.*)$") or w.text)
        if v and (v == "0" or w.unknown) and not dry_run(c.args) and not help(c.args) then
          return live_stop(c.name .. " scale --replicas=" .. shell.printable(v, 20))
        end
      end
      return nil
    end
    if s ~= "delete" and s ~= "drain" and s ~= "?" then return nil end
    if dry_run(c.args) or help(c.args) then return nil end
    local name = c.name .. " " .. (sub.unknown and "<unknown>" or s)
    if s ~= "delete" then return by_context(word_of(o, "context", ctx), name, "named") end
    local scope, what = delete_scope(o)
    return by_context(word_of(o, "context", ctx), what == "" and name or name .. " " .. what, scope)
  else
    local o = shell.options(c.args, HELM)
    local sub = o.operands[1]
    if not sub then return nil end
    local s = sub.unknown and "?" or sub.text
    if s == "rollback" then
      if o.flags["dry-run"] or help(c.args) then return nil end
      return live_stop("helm rollback")
    end
    if s ~= "uninstall" and s ~= "delete" and s ~= "del" and s ~= "un" and s ~= "?" then return nil end
    if o.flags["dry-run"] then return nil end
    if o.flags["all-namespaces"] then
      return by_context(word_of(o, "kube-context", ctx), "helm uninstall with --all-namespaces", "broad")
    end
    return by_context(word_of(o, "kube-context", ctx), "helm uninstall", "named")
  end
end

-- switched returns the context a command switches to, or nil.
local function switched(c)
  if c.name == "kubectx" and c.args[1] and c.args[1].text ~= "-" and c.args[1].text:sub(1, 1) ~= "-" then
    return c.args[1]
  end
  if c.name ~= "kubectl" and c.name ~= "oc" then return nil end
  local o = shell.options(c.args, KUBECTL)
  local ops = o.operands
  if ops[1] and ops[1].text == "config" and ops[2] and ops[2].text == "use-context" and ops[3] then
    return ops[3]
  end
  return nil
end

-- terraform and pulumi -------------------------------------------------------

local TF = { terraform = true, tofu = true, terragrunt = true }

-- TF_ARG are terraform's options whose value may be the next word.
local TF_ARG = { ["-var"] = true, ["-var-file"] = true, ["-target"] = true, ["-replace"] = true, ["-state"] = true,
  ["-state-out"] = true, ["-backup"] = true, ["-lock-timeout"] = true, ["-parallelism"] = true, ["-out"] = true }

-- plan_out returns the file a plan's -out writes (-out=F, -out F), or nil.
local function plan_out(args)
  for k, a in ipairs(args) do
    local t = a.text:gsub("^%-%-", "-")
    local v = t:match("^%-out=(.*)$")
    if v then return v end
    if t == "-out" and args[k + 1] then return args[k + 1].text end
  end
  return nil
end

-- terraform judges terraform, tofu and terragrunt; plans holds the files
-- into which earlier commands of the line wrote a plan -destroy. A plan
-- -destroy only shows what would go (and passes); applying it, on the
-- same line, is a destroy.
local function terraform(c, plans)
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
  local at = 1
  if sub == "run-all" or sub == "run" then sub, at = ops[2], 2 end
  if sub == "destroy" then return "deny", c.name .. " destroy" end
  if sub == "apply" then
    if flag(c.args, "auto-approve") or flag(c.args, "terragrunt-non-interactive") or flag(c.args, "non-interactive") then
      return "deny", c.name .. " apply -auto-approve"
    end
    if flag(c.args, "destroy") then return "deny", c.name .. " apply -destroy" end
    local plan = ops[at + 1]
    if plan and plans[plan] then
      return "deny", c.name .. " apply of the saved plan " .. shell.printable(plan) .. ", written by plan -destroy"
    end
    if plan then return "ask", c.name .. " apply of the saved plan " .. shell.printable(plan) end
  end
  if sub == "plan" and flag(c.args, "destroy") then
    local out = plan_out(c.args)
    if out then
      plans[out] = true
      if SETTINGS.destroy_plan ~= "allow" then
        return SETTINGS.destroy_plan == "deny" and "deny" or "ask", c.name .. " plan -destroy -out " ..
          shell.printable(out) .. " (a saved plan that destroys, which " .. c.name .. " apply " ..
          shell.printable(out) .. " runs with no prompt)"
      end
    end
  end
  if sub == "state" and (ops[at + 1] == "rm" or ops[at + 1] == "remove") then
    return "deny", c.name .. " state rm (the resources are left unmanaged, then recreated or lost)"
  end
  if sub == "workspace" and ops[at + 1] == "delete" then return "deny", c.name .. " workspace delete" end
  if sub == "?" then return "ask", c.name .. " with a subcommand only known when it runs" end
  return nil
end

local function pulumi(c)
  local ops = {}
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" then ops[#ops + 1] = a.text end
  end
  local sub = ops[1]
  if sub == "destroy" or sub == "down" then return "deny", "pulumi destroy" end
  if (sub == "up" or sub == "update") and (flag(c.args, "yes") or flag(c.args, "y") or flag(c.args, "skip-preview")) then
    return "deny", "pulumi up --yes"
  end
  if sub == "stack" and (ops[2] == "rm" or ops[2] == "remove") then return "deny", "pulumi stack rm" end
  if sub == "state" and ops[2] == "delete" then return "deny", "pulumi state delete" end
  return nil
end

-- containers -------------------------------------------------------------------

-- DOCKER_ARG are the global options of docker, podman and nerdctl that take
-- the next word as their value.
local DOCKER_ARG = { ["-c"] = true, ["--context"] = true, ["-H"] = true, ["--host"] = true, ["--config"] = true,
  ["-l"] = true, ["--log-level"] = true, ["--tlscacert"] = true, ["--tlscert"] = true, ["--tlskey"] = true,
  ["--connection"] = true, ["--url"] = true, ["--root"] = true, ["--runroot"] = true, ["--storage-driver"] = true,
  ["--namespace"] = true, ["-n"] = true, ["--address"] = true, ["--identity"] = true }
local MANAGED = { container = true, image = true, volume = true, network = true, system = true, builder = true,
  buildx = true, stack = true, service = true, secret = true, config = true, node = true, plugin = true,
  context = true, compose = true, pod = true, machine = true, manifest = true, swarm = true, trust = true }
-- Objects whose removal loses data or a deployment: any rm of them is denied.
local HOLDS_DATA = { volume = true, stack = true, service = true, secret = true, node = true }
local RM = { rm = true, remove = true, delete = true }
local COMPOSE_ARG = { ["-f"] = true, ["--file"] = true, ["-p"] = true, ["--project-name"] = true,
  ["--profile"] = true, ["--env-file"] = true, ["--project-directory"] = true, ["--ansi"] = true,
  ["--progress"] = true, ["--parallel"] = true }

-- rest returns the words of args after the first k operands (options with
-- a value given in skip taking their next word), and those operands.
local function rest(args, skip, k)
  local ops, i = {}, 1
  while args[i] and #ops < k do
    local t = args[i].text
    if t:sub(1, 1) ~= "-" then
      ops[#ops + 1] = t:lower()
    elseif skip[t] then
      i = i + 1
    end
    i = i + 1
  end
  local out = {}
  for j = i, #args do out[#out + 1] = args[j] end
  return out, ops
end

local function compose(name, args)
  local after, ops = rest(args, COMPOSE_ARG, 1)
  local verb = ops[1]
  if (verb == "down" or verb == "rm") and (flag(after, "volumes") or short(after, "v")) then
    return "deny", name .. " " .. verb .. " -v (the volumes go with it)"
  end
  return nil
end

-- RUN_BOOL are the options of docker/podman run and create that take no
-- value; every other option without "=" takes the next word.
local RUN_BOOL = { ["--rm"] = true, ["-d"] = true, ["--detach"] = true, ["-i"] = true, ["--interactive"] = true,
  ["-t"] = true, ["--tty"] = true, ["--privileged"] = true, ["--init"] = true, ["-P"] = true,
  ["--publish-all"] = true, ["--read-only"] = true, ["--sig-proxy"] = true, ["--no-healthcheck"] = true,
  ["--oom-kill-disable"] = true, ["-q"] = true, ["--quiet"] = true, ["--help"] = true, ["--replace"] = true,
  ["--systemd"] = true, ["--no-hosts"] = true }
-- HOST_PLACES are the host folders whose writable mount hands a container
-- the host: / itself, and those of its configuration, kernel and devices.
local HOST_PLACES = { "/etc", "/root", "/boot", "/proc", "/sys", "/usr", "/bin", "/sbin", "/lib", "/var/lib/docker" }

-- host_source reports whether a mount source is the host's root or one of
-- HOST_PLACES (or below it) and the mount is not read-only.
local function host_source(src, opts)
  if not src or src:sub(1, 1) ~= "/" then return false end
  if opts and (("," .. opts .. ","):find(",ro,", 1, true) or ("," .. opts .. ","):find(",readonly,", 1, true)
    or ("," .. opts .. ","):find(",readonly=true,", 1, true)) then
    return false
  end
  src = src:gsub("/+$", "")
  if src == "" or src == "/dev" then return true end
  for _, p in ipairs(HOST_PLACES) do
    if src == p or src:sub(1, #p + 1) == p .. "/" then return true end
  end
  return false
end

-- run_options returns the options of a run/create (up to the image), as
-- { name, value } with value nil for a flag, and the image's index.
local function run_options(args)
  local out, k = {}, 1
  while args[k] do
    local t = args[k].text
    if t == "--" or t:sub(1, 1) ~= "-" or args[k].unknown then break end
    local name, value = t:match("^(%-%-[^=]+)=(.*)$")
    if name then
      out[#out + 1] = { name, value }
    elseif RUN_BOOL[t] or t:find("^%-[dit]+$") then
      out[#out + 1] = { t }
    elseif t:find("^%-%a.") and not t:find("^%-%-") then
      out[#out + 1] = { t:sub(1, 2), t:sub(3) } -- -v/x:/y
    else
      k = k + 1
      out[#out + 1] = { t, args[k] and args[k].text }
    end
    k = k + 1
  end
  return out, k
end

-- escape returns why a run/create hands the container the host: a
-- writable mount of the host's root or system folders (-v /:/host,
-- --mount type=bind,source=/,…), or the host's PID namespace with the
-- privilege to enter it (--pid=host with --privileged or --cap-add
-- SYS_ADMIN/SYS_PTRACE/ALL). --privileged alone (docker-in-docker) and
-- --pid=host alone (a monitoring tool) pass.
local function escape(args)
  local opts = run_options(args)
  local pid, priv = false, false
  for _, o in ipairs(opts) do
    local name, v = o[1], o[2] or ""
    if name == "-v" or name == "--volume" then
      local src, _, mode = v:match("^([^:]*):([^:]*):?(.*)$")
      if host_source(src, mode) then return "a mount of the host's " .. shell.printable(src) end
    elseif name == "--mount" then
      local src = v:match("source=([^,]*)") or v:match("src=([^,]*)")
      if v:find("type=bind", 1, true) and host_source(src, v) then
        return "a mount of the host's " .. shell.printable(src)
      end
    elseif name == "--pid" and v == "host" then
      pid = true
    elseif name == "--privileged" or (name == "--cap-add" and (v:upper():find("SYS_ADMIN") or v:upper():find("SYS_PTRACE")
      or v:upper() == "ALL")) then
      priv = true
    end
  end
  if pid and priv then return "--pid=host with --privileged (the host's processes, enterable)" end
  return nil
end

-- EXEC_ARG are the options of docker/podman exec that take a value.
local EXEC_ARG = { ["-e"] = true, ["--env"] = true, ["--env-file"] = true, ["-u"] = true, ["--user"] = true,
  ["-w"] = true, ["--workdir"] = true, ["--detach-keys"] = true }

-- exec_command returns the words of the command docker exec CONTAINER …
-- or kubectl exec POD -- … runs, or nil.
local function exec_command(args, kube)
  local k = 1
  if kube then
    while args[k] and args[k].text ~= "--" do k = k + 1 end
    if not args[k] then return nil end
    k = k + 1
  else
    -- the options, the container, then its command
    while args[k] and args[k].text:sub(1, 1) == "-" and not args[k].unknown do
      if EXEC_ARG[args[k].text] then k = k + 1 end
      k = k + 1
    end
    k = k + 1
  end
  if not args[k] then return nil end
  local out = {}
  for j = k, #args do out[#out + 1] = args[j] end
  return out
end

-- KUBE_GLOBAL are kubectl's global options that take the next word.
local KUBE_GLOBAL = { ["-n"] = true, ["--namespace"] = true, ["--context"] = true, ["--kubeconfig"] = true,
  ["-s"] = true, ["--server"] = true, ["--cluster"] = true, ["--user"] = true, ["--as"] = true, ["--token"] = true }

-- kube_verb returns kubectl's verb: its first word that is not an option
-- or an option's value.
local function kube_verb(args)
  local k = 1
  while args[k] do
    local t = args[k].text
    if KUBE_GLOBAL[t] then
      k = k + 1
    elseif t:sub(1, 1) ~= "-" then
      return t
    end
    k = k + 1
  end
  return nil
end

-- SCRATCH are the folders inside a container whose deletes are cleanup.
local SCRATCH = { "/tmp", "/var/tmp", "/var/cache", "/root/.cache" }

-- inside returns why the command an exec runs destroys data in the
-- container: a recursive delete (rm -r, find -delete) of an absolute path
-- or of the working folder there, a disk formatted or overwritten, found
-- in the command and in any sh -c '…' it runs. Deletes in scratch folders
-- pass.
local function inside(words)
  local parts = {}
  for _, w in ipairs(words) do
    if w.unknown then return nil end
    parts[#parts + 1] = shell.quote(w.text)
  end
  local cmds = shell.parse(table.concat(parts, " "))
  for _, c in ipairs(cmds) do
    local n = c.name
    if danger.formats_disk(c) or danger.writes_disk(c) then return n .. " of a disk" end
    local del = (n == "rm" and (flag(c.args, "recursive") or short(c.args, "rR"))) or n == "shred"
      or (n == "find" and flag(c.args, "delete"))
    if del then
      for _, a in ipairs(c.args) do
        local t = a.text
        if not a.unknown and t:sub(1, 1) ~= "-" and (n ~= "find" or not t:find("^[(!]")) then
          local scratch = false
          for _, s in ipairs(SCRATCH) do
            if t:sub(1, #s + 1) == s .. "/" then scratch = true end
          end
          if not scratch and (t:sub(1, 1) == "/" or t == "." or t == "*" or t == "~" or t:find("^%./?%*?$")) then
            return (n == "find" and "find -delete " or n == "shred" and "shred " or n .. " -r ") .. shell.printable(t)
          end
        elseif a.unknown then
          return n .. " of a computed path"
        end
        if n == "find" and t:find("^%-") then break end
      end
    end
  end
  return nil
end

local function containers(c)
  local n = c.name
  if n == "docker-compose" or n == "podman-compose" then return compose(n, c.args) end
  local args, ops = rest(c.args, DOCKER_ARG, 1)
  local object, verb = ops[1], nil
  if not object then return nil end
  if object == "compose" then return compose(n .. " compose", args) end
  if MANAGED[object] then
    local more
    args, more = rest(args, {}, 1)
    verb = more[1]
  else
    verb, object = object, object == "rmi" and "image" or "container"
  end
  -- docker has no --dry-run: the command stops at the unknown flag
  if not verb or help(args) or dry_run(args) then return nil end
  local what = n .. " " .. (MANAGED[ops[1]] and object .. " " .. verb or verb)
  if object == "swarm" and verb == "leave" then
    return "deny", what .. " (the node leaves the cluster; a manager with --force drops the swarm's state)"
  end
  if object == "container" and (verb == "run" or verb == "create") then
    local why = escape(args)
    if why then return "deny", what .. " with " .. why, INSTEAD.escape, "escape" end
  elseif object == "container" and verb == "exec" then
    local words = exec_command(args, false)
    local why = words and inside(words)
    if why then return "deny", what .. " running " .. why, INSTEAD.inside, "inside" end
  end
  if verb == "rmi" then verb = "rm" end
  if verb == "prune" then
    if object == "builder" or object == "buildx" then return nil end
    if object == "image" and not (flag(args, "all") or short(args, "a")) then return nil end
    return "deny", what .. (object == "image" and " --all" or "")
  end
  if object == "system" and verb == "reset" then return "deny", what end
  if not RM[verb] then return nil end
  if HOLDS_DATA[object] then return "deny", what end
  if object == "container" or object == "pod" then
    if flag(args, "force") or flag(args, "volumes") or flag(args, "all") or short(args, "fva") then
      return "deny", what .. " -f/-v/--all (running containers, or their volumes)"
    end
    for _, a in ipairs(args) do
      if computed(a) then return "deny", what .. " of containers computed from another command" end
    end
  elseif object == "image" then
    if flag(args, "force") or flag(args, "all") or short(args, "fa") then return "deny", what .. " -f/--all" end
  end
  return nil
end

-- the CLIs of outside services ----------------------------------------------------

-- VERBS are the destructive verbs; a verb word is one of them or has one as
-- a part (delete-db-instance, apps:destroy, batch-delete-image).
local VERBS = { delete = true, destroy = true, remove = true, rm = true, del = true, purge = true,
  terminate = true, drop = true, prune = true, rb = true, wipe = true, erase = true, uninstall = true,
  truncate = true, deregister = true, unregister = true, revoke = true, unset = true, undeploy = true,
  unsubscribe = true }
-- WEAK are destructive verbs whose letters also make other words' parts
-- (repo::archive, kill-switch): they count as the whole word, as the first
-- part of a word (reset-db-parameter-group, clear_permissions) or as the
-- part after its last ":" (heroku pg:reset), not elsewhere.
local WEAK = { forget = true, reset = true, clear = true, archive = true, kill = true, roll = true, untag = true }
-- STOPS are the verbs that stop or undo what runs live without deleting
-- it: a CI workflow disabled or a run cancelled, a deploy rolled back, a
-- feature flag killed, a user or a service deactivated or suspended. They
-- count as the whole word or as a part of it (cancel-update-stack,
-- releases:rollback); SETTINGS.live_stops answers them.
local STOPS = { disable = true, deactivate = true, cancel = true, rollback = true, kill = true, suspend = true }
-- READ are the verbs after which the words are arguments, not verbs: the
-- reading stops there (gh issue list --label remove). Words that also name
-- a group of commands (gcloud run, aws logs, gh run, az backup) are not
-- among them.
local READ = {}
for _, v in ipairs({ "list", "ls", "get", "describe", "show", "view", "status", "info", "inspect", "cat", "read",
  "search", "browse", "diff", "watch", "whoami", "version", "create", "new", "add", "insert", "generate", "edit",
  "update", "set", "put", "apply", "plan", "exec", "ssh", "clone", "checkout", "cp", "copy", "mv", "move", "download",
  "upload", "login", "logout", "init", "validate", "start", "stop", "restart", "scale", "merge", "close", "reopen",
  "comment", "review", "ready", "open", "push", "pull", "fetch", "snapshots", "check", "mount", "ping", "tail",
  "output", "import", "export", "submit", "wait", "lsf", "lsd", "tree", "size", "ncdu", "mkdir", "touch", "rerun",
  "sync", "rsync", "mirror", "invoke", "query", "tag", "modify", "configure" }) do
  READ[v] = true
end
-- READ_PREFIX are the read verbs that also start a verb-noun word
-- (describe-services, get-caller-identity, list-buckets); other words that
-- start with a read verb are group names (ssh-key, cat-file).
local READ_PREFIX = {}
for _, v in ipairs({ "list", "get", "describe", "show", "view", "search", "read", "check", "validate", "wait",
  "export", "download", "lookup", "test", "preview", "estimate", "simulate", "create", "put", "update", "start",
  "stop", "tail", "query", "invoke", "copy", "upload", "import", "generate", "batch" }) do
  READ_PREFIX[v] = true
end

-- CLIS lists the CLIs read generically: local, the first words that are
-- about the CLI's own configuration; extra, verbs of theirs that are
-- destructive too; store, an object store whose rm of one object passes.
local CLIS = {
  aws = { store = true },
  gcloud = { store = true, ["local"] = { config = true, components = true } },
  gsutil = { store = true },
  mc = { store = true },
  s3cmd = { store = true },
  az = { ["local"] = { extension = true, config = true } },
  azd = { extra = { down = true } },
  gh = { ["local"] = { extension = true, alias = true, config = true, auth = true }, extra = { archive = true } },
  glab = { ["local"] = { alias = true, config = true, auth = true }, extra = { archive = true } },
  vault = { extra = { disable = true } },
  heroku = { extra = { ["pg:reset"] = true } },
  -- the data under a path replaced; the site taken offline
  firebase = { extra = { ["database:set"] = true, ["hosting:disable"] = true } },
  restic = { backup = true, extra = { forget = true } },
  borg = { backup = true, extra = { compact = true, recreate = true, rdelete = true, ["break-lock"] = true } },
  -- message brokers, CI servers, payment and search services, feature
  -- flags, CDNs, monitoring and paging: verbs of their own
  rabbitmqctl = { extra = { force_reset = true, forget_cluster_node = true } },
  splunk = { extra = { clean = true } },
  ["gitlab-rake"] = { extra = { restore = true } },
  ["gitlab-backup"] = { extra = { restore = true } },
  rclone = { backup = true, ["local"] = { config = true }, extra = { deletefile = true, rmdir = true,
    rmdirs = true, cleanup = true, dedupe = true, move = true, moveto = true } },
  -- decK: sync makes the gateway hold what the file lists, and deletes
  -- every entity (of the --select-tag) the file does not
  deck = { sync_deletes = true },
}
for _, n in ipairs({ "azcopy", "bq", "doctl", "linode-cli", "hcloud", "scw", "oci", "ibmcloud", "openstack", "exo",
  "civo", "flyctl", "fly", "vercel", "netlify", "railway", "supabase", "wrangler", "cf",
  "eksctl", "kops", "rosa", "cdk", "cdktf", "sam", "serverless", "sls", "sst", "eb", "argocd", "flux", "istioctl",
  "velero", "consul", "nomad", "etcdctl", "rpk", "kopia", "doppler", "infisical", "op", "bw", "pass", "gopass",
  "lpass", "nats", "rabbitmqadmin", "pulsar-admin", "confluent", "circleci", "gitlab-runner", "jenkins-cli",
  "stripe", "square", "algolia", "apigeecli", "fastly", "flipt", "ldcli", "unleash", "datadog-ci",
  "newrelic", "pd", "twilio", "sentry-cli", "auth0", "okta", "atlas", "mongocli", "pscale", "neonctl", "turso",
  "upstash", "dokku", "cloudflared", "flarectl", "s5cmd", "b2", "kn", "tkn", "argo", "temporal", "tctl",
  "linkerd", "grafana-cli", "skopeo", "crane", "regctl", "oras" }) do
  CLIS[n] = {}
end
local DEFENSE_SERVICES -- defined below, with DEFENSES

-- SYNC_DELETE are the options with which a sync deletes at the destination.
local SYNC_DELETE = { "delete", "delete-removed", "delete-unmatched-destination-objects", "delete-destination",
  "remove", "delete-after", "delete-before", "delete-during", "prune" }

-- DEFENSES are the verbs that turn a defense off without deleting
-- anything: an audit trail's logging stopped, a key disabled or scheduled
-- for deletion, a recorder or a detector stopped.
local DEFENSES = { ["stop-logging"] = true, ["schedule-key-deletion"] = true, ["disable-key"] = true,
  ["disable-key-rotation"] = true, ["stop-configuration-recorder"] = true, ["disable-security-hub"] = true,
  ["disable-ebs-encryption-by-default"] = true, ["disable-organization-admin-account"] = true,
  ["disassociate-from-administrator-account"] = true, ["disable-import-findings-for-product"] = true }
-- DEFENSE_SERVICES are the services whose destructive verbs turn a defense
-- off (aws cloudtrail delete-trail, gcloud logging sinks delete).
DEFENSE_SERVICES = { cloudtrail = true, guardduty = true, kms = true, logging = true, securityhub = true,
  configservice = true, macie2 = true, inspector2 = true, detective = true, ["access-analyzer"] = true,
  audit = true }

local function destructive(w, cfg)
  if DEFENSES[w] then return "defense" end
  local extra = cfg.extra
  if VERBS[w] or WEAK[w] or extra and extra[w] then return w end
  for part in w:gmatch("[^:_-]+") do
    if VERBS[part] or extra and extra[part] then return part end
  end
  local first = w:match("^(%a+)[_-]")
  if first and WEAK[first] then return first end
  local last = w:match("^%a[%w-]*:(%a+)$")
  if last and WEAK[last] then return last end
  return nil
end

-- stop returns the STOPS verb a verb word is or has as a part, or nil.
local function stop(w)
  if STOPS[w] then return w end
  for part in w:gmatch("[^:_-]+") do
    if STOPS[part] then return part end
  end
  return nil
end

local function recursive(args)
  return flag(args, "recursive") or flag(args, "recurse") or short(args, "rR")
end

-- verbs reads the CLI's verb words: the destructive verb found (or nil),
-- the words read up to it, whether an option came before it, and the sync
-- verb met.
local function verbs(c, cfg)
  local path, n, opt = {}, 0, false
  for _, a in ipairs(c.args) do
    local t = a.text
    if t == "--" then
      -- what follows is arguments, or a command run by the CLI (op run --)
      break
    elseif t:sub(1, 1) == "-" then
      opt = true
    else
      n = n + 1
      if n > 6 then break end
      local w = t:lower()
      if w:find("^%a[%w:_-]*$") then
        if n == 1 and cfg["local"] and cfg["local"][w] then return nil end
        path[#path + 1] = w
        local v = destructive(w, cfg)
        if not v and w == "disable" and DEFENSE_SERVICES[path[1]] then v = "defense" end
        if v then return v, path, opt end
        local halt = stop(w)
        if halt then return nil, path, opt, nil, halt end
        -- describe-services, get-caller-identity: a read verb with its noun
        if READ[w] or READ_PREFIX[w:match("^(%a+)%-")] then return nil, path, opt, w end
      end
    end
  end
  return nil, path, opt
end

-- dest_remote reports whether an rclone path names a remote (remote:path),
-- not a local path (C:\ is a drive).
local function dest_remote(t)
  return t:find("^[%w_.%-]+:") ~= nil and not t:find("^%a:[\\/]")
end

-- RESTIC_FLAGS are restic's options that take no value.
local RESTIC_FLAGS = { ["--prune"] = true, ["--dry-run"] = true, ["-n"] = true, ["--compact"] = true, ["-c"] = true,
  ["--unsafe-allow-remove-all"] = true, ["--json"] = true, ["-q"] = true, ["--quiet"] = true, ["-v"] = true,
  ["--verbose"] = true, ["--no-lock"] = true, ["--no-cache"] = true, ["--insecure-tls"] = true,
  ["--cleanup-cache"] = true, ["--repack-small"] = true, ["--repack-uncompressed"] = true }

-- restic_forget judges restic forget: a retention policy (--keep-*) drops
-- what it says and passes; snapshots named by ID (or latest), no policy at
-- all, --unsafe-allow-remove-all and --prune (their data deleted) are
-- denied. --dry-run (-n) passes.
local function restic_forget(args)
  if dry_run(args) or short(args, "n") then return nil end
  if flag(args, "prune") then return "deny", "restic forget --prune", INSTEAD.backup end
  if flag(args, "unsafe-allow-remove-all") then
    return "deny", "restic forget --unsafe-allow-remove-all", INSTEAD.backup
  end
  local seen, skip, policy, named = false, false, false, nil
  for _, a in ipairs(args) do
    local t = a.text
    if not seen then
      seen = t == "forget"
    elseif skip then
      skip = false
    elseif t:sub(1, 1) == "-" then
      if t:find("^%-%-keep%-") or t:find("^%-[lHdwmy]") then policy = true end
      skip = not t:find("=", 1, true) and not RESTIC_FLAGS[t]
    elseif not named then
      named = a
    end
  end
  if named then
    return "deny", "restic forget of the snapshot " .. shell.printable(named.text), INSTEAD.backup
  end
  if not policy then return "deny", "restic forget with no --keep policy", INSTEAD.backup end
  return nil
end

-- aws_change reads the aws verbs that change without a destructive verb's
-- name: a secret's value replaced (secretsmanager update-secret,
-- put-secret-value, update-secret-version-stage; ssm put-parameter
-- --overwrite), DNS records deleted by a change batch, and the whole CDN
-- cache invalidated. It returns why, or nil.
local function aws_change(path, args)
  local service, verb = path[1], path[2]
  if not verb then return nil end
  if service == "secretsmanager" and (verb == "update-secret" or verb == "put-secret-value" or
    verb == "update-secret-version-stage") then
    return "aws secretsmanager " .. verb .. " (the secret every service reads changes under them)", "replace"
  end
  if service == "ssm" and verb == "put-parameter" and flag(args, "overwrite") then
    return "aws ssm put-parameter --overwrite (the parameter's value is replaced)", "replace"
  end
  if service == "route53" and verb == "change-resource-record-sets" then
    for _, a in ipairs(args) do
      local t = a.text:lower()
      if t:find('"action"%s*:%s*"delete"') or t:find("action=delete") then
        return "aws route53 change-resource-record-sets with a DELETE action (the DNS records go)"
      end
    end
  end
  if service == "cloudfront" and verb == "create-invalidation" then
    for _, a in ipairs(args) do
      local t = a.text
      if t == "/*" or t == "*" or t:find('"/%*"') then
        return "aws cloudfront create-invalidation of /* (every cached object; the origin takes all the traffic)",
          "replace"
      end
    end
  end
  return nil
end

local function outside(c, cfg)
  local n, args = c.name, c.args
  if help(args) then return nil end
  local v, path, opt, read, halt = verbs(c, cfg)
  if not path then return nil end
  -- what the reason names: the verb words, or the last two when an option
  -- (and maybe its value) came before them
  local what = n .. " " .. table.concat(path, " ")
  if opt and #path > 0 then
    what = #path >= 2 and n .. " ... " .. path[#path - 1] .. " " .. path[#path] or n .. " " .. path[#path]
  end
  if n == "aws" and not dry_run(args) then
    local why, effect = aws_change(path, args)
    if why then return "deny", why, INSTEAD.cli, effect end
  end
  if halt then
    if dry_run(args) or SETTINGS.live_stops == "allow" then return nil end
    return SETTINGS.live_stops == "deny" and "deny" or "ask", what, INSTEAD.cli, "halt"
  end
  if read == "sync" or read == "rsync" or read == "mirror" then
    if dry_run(args) then return nil end
    if cfg.sync_deletes then
      return "deny", what .. " (what the file does not list is deleted)", INSTEAD.sync
    end
    for _, o in ipairs(SYNC_DELETE) do
      if flag(args, o) then return "deny", what .. " --" .. o, INSTEAD.store end
    end
    if n == "gsutil" and short(args, "dD") then return "deny", "gsutil rsync -d", INSTEAD.store end
    if n == "rclone" and read == "sync" and not short(args, "n") then
      local ops = {}
      for _, a in ipairs(args) do
        if a.text:sub(1, 1) ~= "-" then ops[#ops + 1] = a end
      end
      local dst = ops[#ops]
      if #ops >= 3 and (dst.unknown or dest_remote(dst.text)) then
        return "deny", "rclone sync to the remote " .. shell.printable(dst.text) ..
          " (files missing from the source are deleted there)", INSTEAD.store
      end
    end
    return nil
  end
  if n == "restic" and v == "forget" then
    return restic_forget(args)
  end
  if n == "restic" and has(path, "unlock") and flag(args, "remove-all") then
    return "deny", "restic unlock --remove-all (the locks of running backups and prunes go too)", INSTEAD.backup
  end
  if not v then
    -- an API call with the DELETE method (gh api --method=DELETE ...)
    for _, a in ipairs(args) do
      local t = a.text:lower()
      if t == "--method=delete" or t == "-xdelete" then return "deny", n .. " ... " .. t, INSTEAD.cli end
    end
  end
  if not v or dry_run(args) then return nil end
  if v == "defense" or DEFENSE_SERVICES[path[1] or ""] then return "deny", what, INSTEAD.defenses, "defenses" end
  if cfg.backup then
    if short(args, "n") then return nil end
    return "deny", what, INSTEAD.backup
  end
  if cfg.store and (v == "rm" or v == "del") then
    for _, a in ipairs(args) do
      if a.text:find("*", 1, true) then return "deny", what .. " of a wildcard", INSTEAD.store end
    end
    if recursive(args) then return "deny", what .. " --recursive", INSTEAD.store end
    -- aws's help is a last word: aws s3 rm help
    local last = args[#args]
    if SETTINGS.object_deletes == "allow" or n == "aws" and last and last.text == "help" then return nil end
    return SETTINGS.object_deletes == "deny" and "deny" or "ask", what .. " of one object", INSTEAD.object, "object"
  end
  if cfg.store and v == "rb" then return "deny", what .. " (the bucket and its name go)", INSTEAD.store end
  return "deny", what, INSTEAD.cli
end

-- kafka judges Kafka's scripts (kafka-topics, kafka-configs, kafka-acls,
-- kafka-consumer-groups, with or without .sh): an option that deletes or
-- removes (--delete, --delete-config, --delete-offsets, --remove),
-- kafka-delete-records, and offsets reset with --execute (without it the
-- tool only prints the plan).
local function kafka(c)
  if help(c.args) then return nil end
  if c.name:find("^kafka%-delete%-records") then return "deny", "kafka-delete-records", INSTEAD.cli end
  for _, a in ipairs(c.args) do
    local t = a.text:match("^([^=]*)")
    if t:find("^%-%-delete") or t:find("^%-%-remove") then return "deny", c.name .. " " .. t, INSTEAD.cli end
  end
  if flag(c.args, "reset-offsets") and flag(c.args, "execute") then
    return "deny", c.name .. " --reset-offsets --execute (consumers skip or re-read messages)", INSTEAD.cli
  end
  return nil
end

-- NOT_CLI are the programs the generic reading leaves alone: a project's
-- own tools (package managers, build tools, version managers, git, whose
-- removals stay in the project or have packs of their own), programs whose
-- operands are text, files or another command (echo, grep, man, ssh), and
-- the programs the rules above judge.
local NOT_CLI = {}
for _, n in ipairs({ "alter", "drop", "delete", "truncate", "update", "insert", "select", "grant", "revoke", "create",
  "with", "replace", "merge", "git", "npm", "pnpm", "yarn", "bun", "npx", "bunx", "corepack", "cargo", "rustup", "go",
  "pip", "pip3", "pipx", "uv", "uvx", "poetry", "pdm", "hatch", "pipenv", "conda", "mamba", "micromamba", "pyenv",
  "rbenv", "nodenv", "nvm", "fnm", "volta", "asdf", "mise", "rtx", "sdk", "gem", "bundle", "bundler", "composer",
  "dotnet", "nuget", "mvn", "mvnw", "gradle", "gradlew", "sbt", "make", "gmake", "just", "task", "bazel",
  "bazelisk", "cmake", "ninja", "meson", "brew", "apt", "apt-get", "dnf", "yum", "pacman", "apk", "zypper",
  "snap", "flatpak", "port", "nix", "nix-env", "echo", "printf", "man", "tldr", "info", "help", "whatis",
  "apropos", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "cat", "less", "more", "head", "tail",
  "ls", "find", "tmux", "screen", "ssh", "mosh", "kind", "minikube", "k3d", "colima", "code", "jupyter",
  "pre-commit", "flutter", "dart", "deno", "swift", "xcrun", "conan", "vcpkg", "tox", "nox", "pytest",
  "systemctl", "service", "journalctl", "launchctl", "crontab", "lerna", "nx", "turbo", "rails", "rake",
  "test", "true", "false", "type", "which", "command", "builtin", "alias", "history", "jq", "yq", "tr",
  "wc", "sort", "uniq", "cut", "tee", "xargs", "cp", "mv", "rm", "ln", "touch", "mkdir", "rmdir", "chmod",
  "chown", "tar", "zip", "unzip", "diff", "patch", "read", "export", "set", "unset", "cd", "pushd", "popd",
  "say", "notify-send", "logger", "wall", "write", "mail", "sendmail", "parallel", "busybox", "sudo", "doas",
  "env", "nice", "ionice", "nohup", "timeout", "time", "watch", "stdbuf", "setsid", "flock", "chroot", "strace",
  "ltrace", "exec", "eval", "source", "vagrant", "ansible-galaxy", "packer", "adb", "spack", "ip", "bridge", "tc",
  "nmcli", "iw", "python", "python3", "node", "ruby", "perl", "php", "ctr", "crictl", "nerdctl", "buildah" }) do
  NOT_CLI[n] = true
end
-- GENERIC are the destructive verbs read in any other program's verb
-- position.
local GENERIC = { delete = true, destroy = true, remove = true, rm = true, del = true, purge = true, drop = true,
  prune = true, wipe = true, erase = true, uninstall = true, terminate = true, deregister = true,
  unregister = true, revoke = true, truncate = true }

-- generic reads a program no rule knows with a CLI's grammar, `tool group
-- [group...] VERB`: its first words all plain names (no option, path or
-- value before them), and a destructive verb of GENERIC second, third or
-- fourth (nats stream delete ORDERS, stripe customers delete cus_1). A
-- verb first (npm rm x, cargo remove x) is a project's own business and
-- passes, as do the read verbs.
local function generic(c)
  local n = c.name
  if NOT_CLI[n:lower()] or not n:find("^%a[%w_-]*$") then return nil end
  local path = { n }
  for i = 1, 4 do
    local a = c.args[i]
    if not a or a.unknown then return nil end
    local t = a.text:lower()
    if not t:find("^%a[%w_-]*$") or READ[t] then return nil end
    path[#path + 1] = t
    if i >= 2 and GENERIC[t] then
      if help(c.args) or dry_run(c.args) then return nil end
      return "deny", table.concat(path, " ") .. " (a destructive verb of a service's command-line tool)", INSTEAD.cli
    end
    if i >= 2 and STOPS[t] and SETTINGS.live_stops ~= "allow" then
      if help(c.args) or dry_run(c.args) then return nil end
      return SETTINGS.live_stops == "deny" and "deny" or "ask", table.concat(path, " ") ..
        " (a verb of a service's command-line tool)", INSTEAD.cli, "halt"
    end
  end
  return nil
end

-- SDK_VERBS are the first words of an SDK method that deletes
-- (customer.delete, deleteIndex, destroy_all, purgeQueue, clearObjects).
local SDK_VERBS = { delete = true, destroy = true, purge = true, truncate = true, drop = true, remove = true,
  clear = true, cancel = true, wipe = true, erase = true }
-- SDK_FILES are the receivers whose delete methods remove files (read as rm
-- by lib/shell.lua, judged by the shell pack) or are a collection's own.
local SDK_FILES = { fs = true, os = true, shutil = true, file = true, fileutils = true, dir = true, path = true,
  pathlib = true, rimraf = true, fse = true, requests = true, httpx = true, axios = true, urllib3 = true,
  aiohttp = true, session = true, got = true, superagent = true, http = true, fetch = true }
-- SCRIPT_VERBS are the SDK verbs read in a one-liner's code, where remove,
-- clear, drop and cancel are too often a list's, a data frame's or a
-- timer's own.
local SCRIPT_VERBS = { delete = true, destroy = true, purge = true, truncate = true, wipe = true, erase = true }

-- sdk_method returns the verb of a method name (deleteIndex -> delete,
-- destroy_all -> destroy, clearObjects -> clear), when it is one of verbs.
local function sdk_method(m, verbs)
  local first = m:gsub("(%l)(%u)", "%1_%2"):lower():match("^_*(%a+)")
  if first and verbs[first] then
    -- clear only empties a collection when it names what (clearObjects)
    if first == "clear" and not m:find("^clear.") then return nil end
    return first
  end
  return nil
end

-- sdk_typed reads a command whose name is an SDK call typed as a command
-- line (gateway.customer.delete('c_1'), algolia.clearObjects()).
local function sdk_typed(n)
  local recv, m = n:match("^([%a_][%w_.]*)%.([%a_][%w_]*)$")
  if not recv or SDK_FILES[recv:match("[^.]*$")] then return nil end
  local v = sdk_method(m, SDK_VERBS)
  return v and n
end

-- sdk_script returns the first call in code (an interpreter's one-liner,
-- rails runner's Ruby) of a method that deletes through an SDK or an ORM
-- (client.deleteIndex(...), Project.destroy_all, requests.delete(url)).
local function sdk_script(code)
  -- the receiver: a name, or a call's or an index's result (client("s3").x)
  for at, recv, m in code:gmatch("()([%w_%)%]]*)%s*%.%s*([%a_][%w_]*)") do
    -- a bare verb (x.delete(k)) is a collection's own (a hash, a map, a
    -- set) unless its receiver is a class or model (User.destroy), a
    -- call's or an index's result, or an attribute of something else
    -- (gateway.customer.delete)
    local bare = SCRIPT_VERBS[m] and recv:find("^[%l_][%w_]*$") and code:sub(at - 1, at - 1) ~= "."
    if not bare and not SDK_FILES[recv:lower()] and sdk_method(m, SCRIPT_VERBS) then
      return (recv:find("^[%a_]") and recv .. "." or ".") .. m
    end
  end
  for m in code:gmatch("%.%s*(clear[A-Z_]%w*)") do return m end
  return nil
end

-- jenkins reads java -jar jenkins-cli.jar ...: the Jenkins CLI's verbs.
local function jenkins(c)
  local a = c.args
  for i = 1, #a - 1 do
    if a[i].text == "-jar" and shell.basename(a[i + 1].text):lower():find("^jenkins%-cli.*%.jar$") then
      local rest = {}
      for j = i + 2, #a do rest[#rest + 1] = a[j] end
      return { name = "jenkins-cli", args = rest }
    end
  end
  return nil
end

-- RUNNERS run the command after their own words: the line judged is that
-- command (aws-vault exec PROFILE -- aws ...).
local RUNNERS = { ["aws-vault"] = "exec", op = "run", doppler = "run", infisical = "run" }

-- inner returns the command a runner runs, or nil.
local function inner(c)
  local verb = RUNNERS[c.name]
  local a = c.args
  if not verb or not a[1] or a[1].text ~= verb then return nil end
  local from
  for i = 2, #a do
    if a[i].text == "--" then from = i + 1; break end
  end
  if not from and c.name == "aws-vault" then
    -- aws-vault exec PROFILE command ...: the first operand after the profile
    local n = 0
    for i = 2, #a do
      if a[i].text:sub(1, 1) ~= "-" then
        n = n + 1
        if n == 2 then from = i; break end
      end
    end
  end
  if not from or not a[from] or a[from].unknown then return nil end
  local args = {}
  for i = from + 1, #a do args[#args + 1] = a[i] end
  return { name = shell.basename(a[from].text):lower(), args = args }
end

-- A line of plain words whose program none of the rules look at is allowed
-- without parsing it (shell.quick): the common case, a build or a test,
-- costs two regular-expression matches. The programs are those judge
-- reads, the generic CLIs taken from CLIS.
local PROGRAMS = { "terraform", "tofu", "terragrunt", "pulumi", "kubectl", "oc", "helm", "docker", "podman",
  "nerdctl", "docker-compose", "podman-compose", "kafka-[a-z-]+(?:\\.sh)?", "java", "nsupdate", "rails",
  "gitlab-rails", "stratus" }
for name in pairs(CLIS) do PROGRAMS[#PROGRAMS + 1] = re.quote(name) end
for name in pairs(RUNNERS) do PROGRAMS[#PROGRAMS + 1] = re.quote(name) end
-- generic's lines: a program, one to three plain names, a verb of GENERIC
local GENERIC_WORDS = {}
for v in pairs(GENERIC) do GENERIC_WORDS[#GENERIC_WORDS + 1] = v end
for v in pairs(STOPS) do GENERIC_WORDS[#GENERIC_WORDS + 1] = v end
table.sort(GENERIC_WORDS)
local quick = shell.quick({ programs = { PROGRAMS },
  words = "^ *(?:[^ ]*=[^ ]* +)*[^ ]+ +(?:[A-Za-z][A-Za-z0-9_-]* +){1,3}(?i:" .. table.concat(GENERIC_WORDS, "|") ..
    ")(?: |$)" })

-- GRANTS are the verbs of the cloud CLIs that make a long-lived credential
-- or grant a role (privilege escalation and persistence in an account),
-- by CLI: each a list of operand words in a row, after the first operand.
local GRANTS = {
  aws = { { "iam", "create-access-key" }, { "iam", "create-login-profile" }, { "iam", "update-login-profile" },
    { "iam", "attach-user-policy" }, { "iam", "attach-role-policy" }, { "iam", "attach-group-policy" },
    { "iam", "put-user-policy" }, { "iam", "put-role-policy" }, { "iam", "put-group-policy" },
    { "iam", "add-user-to-group" }, { "iam", "update-assume-role-policy" }, { "iam", "create-user" },
    { "iam", "set-default-policy-version" }, { "iam", "create-service-specific-credential" },
    { "iam", "upload-ssh-public-key" }, { "iam", "create-policy-version" } },
  gcloud = { { "add-iam-policy-binding" }, { "set-iam-policy" }, { "service-accounts", "keys", "create" },
    { "hmac", "create" } },
  az = { { "role", "assignment", "create" }, { "ad", "sp", "credential", "reset" },
    { "ad", "app", "credential", "reset" }, { "ad", "sp", "create-for-rbac" }, { "ad", "user", "create" },
    { "ad", "group", "member", "add" } },
  gsutil = { { "iam", "ch" }, { "iam", "set" }, { "hmac", "create" } },
}

-- grant returns what a command does when it makes a long-lived credential
-- or grants a role (GRANTS; kubectl/oc create clusterrolebinding or
-- rolebinding to cluster-admin or admin), or nil. --help and --dry-run pass.
local function grant(c)
  local n = c.name
  local rules = GRANTS[n]
  if not rules and n ~= "kubectl" and n ~= "oc" then return nil end
  local ops = {}
  for _, a in ipairs(c.args) do
    if a.text:sub(1, 1) ~= "-" then ops[#ops + 1] = a.text:lower() end
    if #ops >= 8 then break end
  end
  if help(c.args) or flag(c.args, "dry-run") then return nil end
  if not rules then
    local kind
    for k = 1, 3 do
      if ops[k] == "create" then kind = ops[k + 1]; break end
    end
    if kind ~= "clusterrolebinding" and kind ~= "rolebinding" then return nil end
    for k, a in ipairs(c.args) do
      local role = a.text:match("^%-%-clusterrole=(.*)$") or (a.text == "--clusterrole" and c.args[k + 1]
        and c.args[k + 1].text)
      if role == "cluster-admin" or role == "admin" then
        return n .. " create " .. kind .. " to " .. role
      end
    end
    return nil
  end
  for _, r in ipairs(rules) do
    for k = 1, #ops - #r + 1 do
      local ok = true
      for q = 1, #r do
        if ops[k + q - 1] ~= r[q] then ok = false; break end
      end
      if ok then return n .. " " .. table.concat(r, " ") end
    end
  end
  return nil
end

local function judge(c, ctx, plans)
  local n = c.name
  if not n then return nil end
  if SETTINGS.grants ~= "allow" then
    local g = grant(c)
    if g then return SETTINGS.grants == "deny" and "deny" or "ask", shell.printable(g), INSTEAD.grant, "grant" end
  end
  local i = inner(c)
  if i then
    local verdict, why, instead, effect = judge(i, ctx, plans)
    if verdict then return verdict, why, instead, effect end
  end
  if TF[n] then
    local verdict, why = terraform(c, plans)
    return verdict, why, INSTEAD.infra
  elseif n == "pulumi" then
    local verdict, why = pulumi(c)
    return verdict, why, INSTEAD.infra
  elseif n == "docker" or n == "podman" or n == "nerdctl" or n == "docker-compose" or n == "podman-compose" then
    local verdict, why, instead, effect = containers(c)
    return verdict, why, instead or INSTEAD.containers, effect
  elseif (n == "kubectl" or n == "oc") and kube_verb(c.args) == "exec" then
    local words = exec_command(c.args, true)
    local why = words and inside(words)
    if why then return "deny", n .. " exec running " .. why, INSTEAD.inside, "inside" end
    return nil
  elseif n == "kubectl" or n == "oc" or n == "helm" then
    local verdict, why, effect = kubernetes(c, ctx)
    return verdict, why, effect == "halt" and INSTEAD.cli or INSTEAD.kube, effect
  elseif n:find("^kafka%-") then
    return kafka(c)
  end
  local cfg = CLIS[n]
  if cfg then return outside(c, cfg) end
  if n == "java" then
    local j = jenkins(c)
    if j then return outside(j, CLIS["jenkins-cli"]) end
    return nil
  end
  local script = c.script
  if script and c.inline and not script.unknown then
    local call = sdk_script(script.text)
    if call then
      return "deny", n .. " running " .. shell.printable(call) .. " (an SDK call that deletes)", INSTEAD.api
    end
  end
  if (n == "rails" or n == "gitlab-rails") and c.args[1] and c.args[1].text:find("^r") then
    local sub = c.args[1].text
    if (sub == "runner" or sub == "r") and c.args[2] then
      local call = sdk_script(c.args[2].text)
      if call then
        return "deny", n .. " runner " .. shell.printable(call) .. " (an ORM call that deletes)", INSTEAD.api
      end
    end
  end
  if n:find(".", 1, true) then
    local call = sdk_typed(n)
    if call then return "deny", shell.printable(call) .. " (an SDK call that deletes)", INSTEAD.api end
  end
  if n == "stratus" then
    -- Stratus Red Team: detonate runs the technique; warmup, status, list
    -- and cleanup prepare, read and tear down its own prerequisites
    for _, a in ipairs(c.args) do
      if a.text == "detonate" or a.unknown then
        return "deny", "stratus " .. shell.printable(a.text), INSTEAD.cli, "attack"
      end
      if a.text:sub(1, 1) ~= "-" then break end
    end
    return nil
  end
  if n == "nsupdate" then
    if help(c.args) or c.args[1] and c.args[1].text == "-V" then return nil end
    return "deny", "nsupdate (it sends changes, deletes among them, to a live DNS zone)", INSTEAD.cli
  end
  return generic(c)
end

hook.register("PreToolUse", "@shell", function(input)
  -- The command line, read here as shell.command reads it: a hook that
  -- hands no table of its input to another function keeps the input's
  -- tables for the next call (the usual call allocates nothing).
  local args = input.toolInput
  local cmd = type(args) == "table" and (args.command or args.cmd) or nil
  if type(cmd) == "table" then
    local parts = {}
    for _, a in ipairs(cmd) do parts[#parts + 1] = shell.quote(tostring(a)) end
    cmd = table.concat(parts, " ")
  elseif type(cmd) ~= "string" then
    return nil
  end
  if quick(cmd) then return nil end
  local cmds, err = shell.parse(cmd)
  local ctx, ask, ask_effect, ask_instead
  local plans = {}
  for _, c in ipairs(cmds) do
    local verdict, why, instead, effect = judge(c, ctx, plans)
    if verdict == "deny" then return deny(why, instead, effect) end
    if verdict == "ask" and not ask then ask, ask_effect, ask_instead = why, effect, instead end
    ctx = switched(c) or ctx
  end
  if err then return hook.deny("cloud guard: the command could not be checked: " .. err ..
    ". Split it into shorter commands.") end
  if ask then
    if ask_effect == "halt" then
      return hook.ask("cloud guard: " .. ask .. " " .. EFFECTS.halt .. " [rule live-stops]. Let the user " ..
        "confirm; " .. INSTEAD.cli)
    end
    if ask_effect == "grant" then
      return hook.ask("cloud guard: " .. ask .. " " .. EFFECTS.grant .. " [rule grants]. Let the user confirm; " ..
        INSTEAD.grant)
    end
    if ask_effect == "object" then
      return hook.ask("cloud guard: " .. ask .. " " .. EFFECTS.object .. " [rule object-delete]. " .. ask_instead)
    end
    return hook.ask("cloud guard: " .. ask .. ". Name the context or plan on the command line " ..
      "(kubectl --context NAME) so that it can be checked, or let the user confirm.")
  end
end, { name = "cloud", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
