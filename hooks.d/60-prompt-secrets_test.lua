-- Tests for 60-prompt-secrets.lua.

local function prompt(text)
  return fire("UserPromptSubmit", { prompt = text, sessionId = "s1" })
end

local blocked = {
  { "deploy with AKIAIOSFODNN7EXAMPLE please", "an AWS access key id" },
  { "my key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow...", "a private key" },
  { "-----BEGIN OPENSSH PRIVATE KEY-----", "a private key" },
  { "-----BEGIN PRIVATE KEY-----", "a private key" },
  { "use ghp_" .. string.rep("a1B2", 9) .. " for the API", "a GitHub token" },
  { "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx", "an API secret key" },
  { "slack: xoxb-123456789012-abcdef", "a Slack token" },
}

for _, c in ipairs(blocked) do
  test("blocks a prompt with " .. c[2], function()
    local r = prompt(c[1])
    expect.denied(r, "your prompt seems to contain " .. c[2])
    expect.contains(r.reason, "it was not sent to the model")
    expect.eq(r.outcome.action, "deny")
  end)
end

local harmless = {
  "Add a greeting to hello.txt and install left-pad",
  "what does AKIA mean in AWS key ids?",
  "rename the task-management-system-design doc",
  "explain -----BEGIN CERTIFICATE----- blocks",
  "the ghp_ prefix marks GitHub tokens",
  "",
}

for _, text in ipairs(harmless) do
  test("lets through " .. string.format("%q", text), function()
    local r = prompt(text)
    expect.no_objection(r)
    expect.eq(r.outcome.action, nil)
  end)
end
