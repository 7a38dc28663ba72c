-- Tests for lib/secrets.lua's output_patterns: each kind of secret tool
-- output carries is found whole, and the text around it and near misses
-- are not.
-- Run them with: luahook test ./hooks.d (or luahook test hooks.d/lib-secrets_test.lua)

local secrets = require("secrets")

-- match returns what the output pattern labelled label finds in text.
local function match(label, text)
  for _, p in ipairs(secrets.output_patterns) do
    if p[2] == label then
      local m = re.find(p[1], text)
      if m then return m end
    end
  end
  return nil
end

local KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5\n" ..
  "-----END OPENSSH PRIVATE KEY-----"

test("a private key block is found whole, from BEGIN to END", function()
  expect.eq(match("a private key", "key:\n" .. KEY .. "\nnext line"), KEY)
end)

test("a private key block inside a JSON string is found whole", function()
  local k = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----"
  expect.eq(match("a private key", '{"private_key": "' .. k .. '\\n", "x": 1}'), k)
end)

test("a private key cut short goes to the end of its base64 lines", function()
  local cut = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEpAIBAAKCAQEA1234\nabcd+/=="
  expect.eq(match("a private key", cut .. "\n$ echo done"), cut .. "\n")
end)

test("a private key's header alone leaves the prose after it", function()
  expect.eq(match("a private key", "starts with -----BEGIN EC PRIVATE KEY----- and more"), "-----BEGIN EC PRIVATE KEY-----")
end)

test("a certificate is no private key", function()
  expect.eq(match("a private key", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----"), nil)
end)

local found = {
  { "a JSON Web Token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U" },
  { "a Slack webhook", "hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx" },
  { "a Discord webhook", "discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz012345" },
  { "a Slack token", "xapp-1-A0123456789-1234567890123-abcdef0123456789" },
  { "a GitLab token", "glrt-Ab12Cd34Ef56Gh78Ij90" },
  { "a Bitbucket app password", "ATBBaB3cD4eF5gH6iJ7kL8mN9oP0" },
  { "a Hugging Face token", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789" },
  { "a Google OAuth token", "ya29.a0AfH6SMBx3k9vQ2mZ7pL4nR8tY1wC5e" },
  { "a SendGrid API key", "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG" },
  { "a Docker Hub token", "dckr_pat_Ab12Cd34Ef56Gh78Ij90Kl12Mn3" },
  { "a PyPI token", "pypi-AgEIcHlwaS5vcmc" .. string.rep("Ab1_", 14) },
  { "a Shopify token", "shpat_" .. string.rep("a1b2c3d4", 4) },
  { "a DigitalOcean token", "dop_v1_" .. string.rep("0123456789abcdef", 4) },
  { "a Stripe test key", "sk_test_4eC39HqLyjWDarjtT1zdp7dc" },
  { "an Azure SAS signature", "&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo%3D" },
}
for _, c in ipairs(found) do
  test("finds " .. c[1], function() expect.eq(match(c[1], "before " .. c[2] .. " after"), c[2]) end)
end

local near = {
  { "a JSON Web Token", "eyJhbGciOiJIUzI1NiJ9 is a header alone" },
  { "a GitLab token", "glrt-short" },
  { "a Hugging Face token", "self.hf_model_name_or_path_for_the_tokenizer" },
  { "a Stripe test key", "sk_test_abc" },
  { "an Azure SAS signature", "?sig=short" },
  { "a Slack webhook", "https://hooks.slack.com/services/ is the prefix" },
}
for _, c in ipairs(near) do
  test("a near miss is not " .. c[1] .. ": " .. c[2], function() expect.eq(match(c[1], c[2]), nil) end)
end
