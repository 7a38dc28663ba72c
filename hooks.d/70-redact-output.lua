-- Takes secrets out of what tools print before the model reads it: a
-- token in a test's log, a password in a connection string, an env dump,
-- a .env file read, a private key. Each is replaced by a marker that says
-- what was there; the rest of the output stays as it was. Fetched and MCP
-- content that addresses the model with instructions ("ignore previous
-- instructions ...") is fenced as untrusted data.

-- The hooks are lib/redact.lua's, the same as the redact pack's (luahook
-- add redact: its file says what it finds and what it cannot know).
-- injection: "fence", "withhold" or "off"; min_length: the shortest
-- random-looking value taken out next to a secret-looking name;
-- max_secrets: past this many, the output is withheld whole.
local SETTINGS = { injection = "fence", min_length = 8, max_secrets = 500 }

require("redact").register(SETTINGS, { name = "redact-output", who = "luahook" })
