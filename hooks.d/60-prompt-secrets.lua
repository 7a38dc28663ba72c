-- Stops a prompt that carries a credential before it reaches the model: a
-- pasted private key or cloud access key would otherwise end up in a
-- provider's logs. The user gets the reason and can resend without it.

local patterns = {
  { [[-----BEGIN [A-Z ]*PRIVATE KEY-----]], "a private key" },
  { [[\bAKIA[0-9A-Z]{16}\b]], "an AWS access key id" },
  { [[\bgh[pousr]_[A-Za-z0-9]{36,}\b]], "a GitHub token" },
  { [[\bsk-[A-Za-z0-9_-]{20,}\b]], "an API secret key" },
  { [[\bxox[abpr]-[A-Za-z0-9-]{10,}\b]], "a Slack token" },
}

hook.register("UserPromptSubmit", nil, function(input)
  local prompt = input.prompt or ""
  for _, p in ipairs(patterns) do
    if re.match(p[1], prompt) then
      return hook.deny("your prompt seems to contain " .. p[2] ..
        "; it was not sent to the model. Remove it and send the prompt again.")
    end
  end
end, { name = "prompt-secrets", policy = true })
