-- This repository uses pnpm: rewrite npm commands into their pnpm form instead
-- of letting the agent create a package-lock.json. A mutate-stage hook: the
-- validators (and the tool's schema) see the rewritten command.

local rewrites = {
  { "^npm install$", "pnpm install" },
  { "^npm i$", "pnpm install" },
  { "^npm install ", "pnpm add " },
  { "^npm i ", "pnpm add " },
  { "^npm ci$", "pnpm install --frozen-lockfile" },
  { "^npm run ", "pnpm run " },
  { "^npx ", "pnpm dlx " },
}

-- ANY matches where one of the rewrites' patterns does: a command that
-- runs neither npm nor npx costs one match instead of one per rewrite.
local parts = {}
for i, r in ipairs(rewrites) do parts[i] = "(?:" .. r[1] .. ")" end
local ANY = table.concat(parts, "|")

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" or not re.match(ANY, cmd) then return nil end
  for _, r in ipairs(rewrites) do
    local new, n = re.gsub(cmd, r[1], r[2])
    if n > 0 then
      -- The input table is this call's own copy: change the command, keep the rest.
      local rewritten = args
      rewritten.command = new
      return hook.mutate(rewritten, "this repository uses pnpm")
    end
  end
end, { name = "prefer-pnpm", stage = "mutate" })
