-- Tests for mcp.lua: only the listed MCP servers and tools run unasked;
-- destructive tools are denied on every server; names are read in every
-- agent's spelling.

local function call(tool, args)
  return fire("PreToolUse", { toolName = tool, toolCapabilities = { "mcp" }, toolInput = args or {},
    cwd = "/home/dev/app", sessionId = "t" })
end

local function expect_asked(r, sub)
  expect.eq(r.denied, false, "denied")
  expect.eq(r.asked, true, "asked")
  expect.contains(r.reason, sub or "not on the allow list")
end

local allowed = {
  "mcp__context7__resolve-library-id",
  "mcp__context7__get-library-docs",
  "mcp__github__get_issue",
  "mcp__github__list_pull_requests",
  "mcp__github__search_code",
  "mcp__github__create_issue",
  "mcp__playwright__browser_navigate",
  "mcp__playwright__browser_snapshot",
  "mcp_github_get_pull_request", -- Gemini CLI's spelling
  "context7-resolve-library-id",  -- Copilot CLI's spelling: server-tool
  "github-get_issue",
  "context7-get_library__docs",   -- a __ in a tool is not the mcp__server__tool spelling
}

for _, tool in ipairs(allowed) do
  test("allows " .. tool, function()
    local r = call(tool, { owner = "acme", repo = "app" })
    expect.no_objection(r)
    expect.eq(r.asked, nil, "asked")
  end)
end

local asked = {
  "mcp__github__merge_pull_request",
  "mcp__github__create_or_update_file",
  "mcp__slack__post_message",
  "mcp__postgres__query",
  "mcp__githubx__get_issue",      -- a look-alike server
  "mcp__evil__github__get_issue", -- the server is "evil"
  "mcp__GitHubEnterprise__get_issue",
  "MCP:post_message",             -- Cursor: no server named
  "slack-post_message",           -- Copilot CLI's spelling
  "github-mcp-server-get_issue",  -- Copilot's own GitHub server is not "github"
  -- servers named with a "_": through Gemini CLI's payload (mcp_context7_evil_query)
  -- the server is read from mcp_context, never taken for the allowed context7,
  -- and files_purge's list is not the deny list's purge
  "mcp__context7_evil__query",
  "mcp__files_purge__list",
}

for _, tool in ipairs(asked) do
  test("asks about the unlisted " .. tool, function()
    expect_asked(call(tool))
  end)
end

local denied = {
  "mcp__github__delete_repository",
  "mcp__github__delete_file",
  "mcp__filesystem__delete_directory",
  "mcp__supabase__drop_table",
  "mcp__stripe__customer_delete",
  "mcp__vercel__destroy_project",
  "mcp__github__force_push",
  -- bypass attempts: case, the allowed server, other agents' spellings
  "MCP__GitHub__Delete_Repository",
  "mcp__github__DELETE_branch",
  "mcp_github_delete_repository",
  "mcp_my_server_delete_all",
  "MCP:delete_file",
  "mcp__context7__purge_cache",
  "mcp__github__get_issue_and_delete", -- an allowed prefix does not cover a destructive tool
  "mcp__github__list_then_drop_all",
  "github-delete_repository",              -- Copilot CLI's spelling
  "github-mcp-server-delete_file",
  "mcp__my_server__delete_all",
}

for _, tool in ipairs(denied) do
  test("denies " .. tool, function()
    expect.denied(call(tool), "deny list")
  end)
end

-- The usual spelling mcp__server__tool is read on a short path; these are
-- the names closest to it that it must hand to the full reading.
test("an empty server before the first __ is no server: the rest is read in every split", function()
  expect.denied(call("mcp____github__delete_repository"), "deny list")
  expect.denied(call("mcp___x__delete_all"), "deny list")
end)

test("a name ending in __ has no tool there: the rest is read in every split", function()
  expect_asked(call("mcp__github__"))
  expect.denied(call("mcp__github_delete__"), "deny list")
end)

test("the server ends at the first __: a later __ belongs to the tool", function()
  expect.denied(call("mcp__github__get__delete_all"), "deny list")
  expect.no_objection(call("mcp__github__list__labels"))
  expect_asked(call("mcp__github_x__get_issue"))
end)

test("a NUL byte in a server does not split the server from the tool", function()
  -- read as server "a\0delete" and tool "list": not the deny list's delete*
  expect_asked(call("mcp__a\0delete__list"))
  expect_asked(call("mcp__github\0x__get_issue"))
  expect.denied(call("mcp__git\0hub__delete_repository"), "deny list")
end)

test("upper case is read as lower case on every path", function()
  expect.no_objection(call("MCP__GITHUB__GET_ISSUE"))
  expect.denied(call("Mcp_GitHub_Drop_Table"), "deny list")
  expect.denied(call("GitHub-Force_Push"), "deny list")
end)

test("shell, file and web tools are not its business", function()
  expect.no_objection(fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" },
    toolInput = { command = "gh repo delete acme/app" }, cwd = "/home/dev/app" }))
  expect.no_objection(fire("PreToolUse", { toolName = "Write", toolCapabilities = { "fs.write" },
    toolInput = { file_path = "/home/dev/app/mcp__x__delete.txt", content = "" }, cwd = "/home/dev/app" }))
end)
