-- redact: takes secrets out of tool output before the model reads it, and fences or withholds fetched text that instructs it
--
-- What it takes out (PostToolUse, every tool: shell output, file reads,
-- searches, web fetches, MCP results), each replaced by a marker that
-- says what was there ("[redacted: a GitHub token]"), the rest of the
-- output kept as it was (names, URLs, line structure):
--   - the credentials of lib/secrets.lua's patterns (private keys, cloud
--     keys, the tokens of GitHub, GitLab, Slack, Stripe, Google, npm, sk-
--     API keys) and of its output_patterns: private key blocks whole
--     (BEGIN to END), JSON Web Tokens, Slack and Discord webhooks, more
--     services' tokens;
--   - the password of a connection string or URL
--     (postgres://user:PASSWORD@host, mongodb+srv://, redis://:PASSWORD@,
--     amqp://, mysql://, https://x-access-token:TOKEN@github.com): the URL
--     stays, the password goes;
--   - the value of an environment-style assignment whose name says it is
--     a secret (DB_PASSWORD=…, GITHUB_TOKEN=…, export AWS_SECRET_ACCESS_KEY=…,
--     as .env files, env dumps and compose files write them): the name
--     stays, the value goes;
--   - a value next to any other secret-looking name (password: "…",
--     "api_key": "…", token=…, Authorization: Bearer …, client_secret …)
--     when it looks random: at least min_length characters, and mixed
--     character classes with entropy (bits per character) of at least
--     2.5, or one class over 16 characters with at least 3.5; a password
--     field needs only 6 characters;
--   - the data of a Kubernetes Secret (kubectl get secret -o yaml|json):
--     every value under data: and stringData:.
-- A value taken out is taken out wherever it occurs in the output (the
-- same secret printed twice); a short one only as a whole word.
-- Values that are not secrets pass: references (${DB_PASSWORD}, $TOKEN,
-- {{ secrets.X }}, process.env.X), placeholders (your-api-key-here,
-- <TOKEN>, changeme, xxxx, ****), well-known defaults (postgres, root,
-- guest), code (a call, a field of an object), numbers, paths, URLs.
--
-- What it fences (only the output of web tools, @network, and of MCP
-- tools, @mcp: content from outside the machine): text addressed to the
-- assistant as instructions, the kinds public prompt-injection scanners
-- and the guards of coding agents flag (open-source rule sets of
-- heuristic scanners, OWASP's LLM01 examples): telling it to ignore its
-- previous instructions, giving it a new role ("you are now …"), asking
-- for its system prompt, fake conversation markers (<system>,
-- <|im_start|>, [INST]), telling it to keep something from the user,
-- notes addressed to AI agents ("IMPORTANT: AI agents must …", "if you
-- are an AI"), and asks to send secrets or keys somewhere. The phrase
-- found is named to the model. It runs after the secrets are taken out,
-- so the fence wraps the redacted text.
-- Why: what a tool prints reaches the model, its provider's logs and the
-- transcript; a secret there is a secret leaked, and a web page or an MCP
-- server can write instructions the model may follow.
--
-- Set them in the config's [packs.redact] table, over the defaults below.
-- Settings (SETTINGS below):
--   injection    "fence" (default): the output is given to the model
--                wrapped in an <untrusted-content> block, after a line
--                telling it that the block is data, not instructions,
--                and naming the phrase found; "withhold": replaced by a
--                note saying it was withheld and why; "off": not judged
--   min_length   the shortest value next to a secret-looking name that
--                is judged by how random it looks (8)
--   max_secrets  distinct secrets taken out of one output (500); an
--                output with more is withheld whole
--
-- The hook that takes secrets out fails closed: an output it could not
-- check is withheld. Settings are edited in this file (luahook add writes
-- it; add --force replaces an edited copy).
--
-- What it cannot know: a secret it has no pattern for and no secret-
-- looking name next to it (a bare password, a key of an unlisted
-- service), one encoded (base64 outside a Kubernetes Secret, split,
-- escaped inside a JSON string), a weak or short value (a numeric PIN, a
-- dictionary word) next to a name other than a password's, and an
-- injection phrased in other words or another language than these.

local SETTINGS = hook.settings("redact", {
  injection = "fence",
  min_length = 8,
  max_secrets = 500,
})

require("redact").register(SETTINGS)
