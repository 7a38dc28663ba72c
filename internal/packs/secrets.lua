-- secrets: stops credentials in prompts, in files the agent writes, in command lines and in what tools send out
--
-- What it stops:
--   - a prompt (UserPromptSubmit) that carries a credential, before it
--     reaches the model's provider;
--   - a file write or edit (@fs.write: content, new_string, edits,
--     apply_patch text, …) whose new text holds one: it would be committed;
--   - a shell command (@shell) holding one, on the line as written or
--     once the shell has removed quotes and escapes (AKIA""…, $'\x41…');
--   - the input of a web (@network) or MCP (@mcp) tool holding one: it
--     would leave the machine.
-- The credentials are those of lib/secrets.lua's patterns (private keys,
-- AWS, GitHub, GitLab, Slack, Stripe, Google, npm and sk- API keys), the
-- list the decision log's redaction uses too. A reason names the kind
-- of secret and shows at most its first characters.
-- Why: a secret in a prompt lands in a provider's logs; in a file, in
-- the repository's history; in a command, in the shell history and logs.
--
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

local SETTINGS = {
  max_bytes = 262144,
  prompts = true,
}

-- TEXT_KEYS hold the new text of a write or an edit, across agents.
local TEXT_KEYS = { "content", "new_string", "new_source", "file_text", "text", "command", "input", "patch",
  "new_str", "code_edit" }

local function scan(s)
  if type(s) ~= "string" then return nil end
  if #s > SETTINGS.max_bytes then s = s:sub(1, SETTINGS.max_bytes) end
  return secrets.find(s)
end

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
    "; " .. instead .. ".")
end

hook.register("UserPromptSubmit", nil, function(input)
  if not SETTINGS.prompts then return nil end
  local label, m = scan(input.prompt)
  if label then
    return deny(label, m, "your prompt", "it was not sent to the model; remove it and send the prompt again")
  end
end, { name = "pack-secrets-prompt", failure_policy = "closed", policy = true })

hook.register("PreToolUse", "@fs.write", function(input)
  local args = input.toolInput
  if type(args) ~= "table" then return nil end
  for _, k in ipairs(TEXT_KEYS) do
    local label, m = scan(args[k])
    if label then
      return deny(label, m, "the text to write",
        "read the value from the environment or a git-ignored file (.env) instead of writing it")
    end
  end
  if type(args.edits) == "table" then
    local label, m = scan_all(args.edits, 0, { n = 4096 })
    if label then
      return deny(label, m, "the text to write",
        "read the value from the environment or a git-ignored file (.env) instead of writing it")
    end
  end
end, { name = "pack-secrets-write", stage = "validate", failure_policy = "closed", policy = true })

hook.register("PreToolUse", "@shell", function(input)
  local line = shell.command(input.toolInput)
  if not line then return nil end
  local instead = "pass it through an environment variable the user sets, not on the command line"
  local label, m = scan(line)
  if label then return deny(label, m, "the command", instead) end
  -- the line as the shell will run it: quotes and escapes removed
  local cmds, err = shell.parse(line)
  for _, c in ipairs(cmds) do
    local words = {}
    if c.word then words[1] = c.word.text end
    for _, a in ipairs(c.args) do words[#words + 1] = a.text end
    for _, r in ipairs(c.redirs) do words[#words + 1] = r.target.text end
    label, m = scan(table.concat(words, " "))
    if label then return deny(label, m, "the command", instead) end
  end
  if err then
    return hook.deny("secrets pack: blocked a command that could not be checked (" .. err ..
      "); split it into shorter commands.")
  end
end, { name = "pack-secrets-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })

hook.register("PreToolUse", "@network|@mcp", function(input)
  local label, m = scan_all(input.toolInput, 0, { n = 4096 })
  if label then
    return deny(label, m, "what the tool would send", "never send credentials to a web or MCP tool")
  end
end, { name = "pack-secrets-egress", stage = "validate", failure_policy = "closed", policy = true })
