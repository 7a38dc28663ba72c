-- Stops a prompt that carries a credential before it reaches the model: a
-- pasted private key or cloud access key would otherwise end up in a
-- provider's logs. The user gets the reason and can resend without it.

-- The patterns are lib/secrets.lua's, shared with the packs and the
-- decision log's redaction.
local secrets = require("secrets")

hook.register("UserPromptSubmit", nil, function(input)
  local label = secrets.find(input.prompt)
  if label then
    return hook.deny("your prompt seems to contain " .. label ..
      "; it was not sent to the model. Remove it and send the prompt again.")
  end
end, { name = "prompt-secrets", policy = true })
