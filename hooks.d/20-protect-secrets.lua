-- Keeps the agent away from files that hold secrets: .env files, private keys,
-- cloud credentials. Reads, writes and edits of such paths are denied, and so
-- are shell commands that name them.

local secret_paths = {
  [[(^|/)\.env(\.[\w.-]+)?$]],
  [[(^|/)id_(rsa|dsa|ecdsa|ed25519)$]],
  [[\.(pem|key|p12|pfx)$]],
  [[(^|/)\.aws/credentials$]],
  [[(^|/)\.netrc$]],
  [[(^|/)\.ssh/]],
}
local allowed = { [[\.env\.(example|sample|template)$]] }

local function is_secret(path)
  for _, p in ipairs(allowed) do
    if re.match(p, path) then return false end
  end
  for _, p in ipairs(secret_paths) do
    if re.match(p, path) then return true end
  end
  return false
end

-- tool_args returns the tool input when it is an object, else an empty table.
local function tool_args(input)
  local args = input.toolInput
  if type(args) == "table" then return args end
  return {}
end

hook.register("PreToolUse", "read|write|edit", function(input)
  local args = tool_args(input)
  local path = args.path or args.file_path
  if type(path) == "string" and is_secret(path) then
    return hook.deny("access to " .. path .. " is blocked: it may hold secrets")
  end
end, { name = "protect-secrets-files", stage = "validate", policy = true, failure_policy = "closed" })

hook.register("PreToolUse", "bash", function(input)
  local cmd = tool_args(input).command
  if type(cmd) ~= "string" then return nil end
  -- Words are split at white space, quotes, redirections, command separators
  -- and substitutions, and at '=' so that --file=.env is seen too.
  for word in cmd:gmatch("[^%s;&|<>'\"=()`]+") do
    if is_secret(word) then
      return hook.deny("the command touches " .. word .. ", which may hold secrets")
    end
  end
end, { name = "protect-secrets-shell", stage = "validate", policy = true, failure_policy = "closed" })
