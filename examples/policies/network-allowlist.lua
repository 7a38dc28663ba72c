-- Lets the agent download only from hosts the team trusts. A curl or wget
-- command must name its URLs with a scheme (https://...), and the host of
-- every URL must be on the list below or a subdomain of one. Other ways out
-- of the machine (nc, python -c, ...) are not covered here: sandbox the
-- network for those.
local urls = require("urls")

local ALLOWED = {
  "github.com", "githubusercontent.com",
  "proxy.golang.org", "sum.golang.org",
  "registry.npmjs.org", "pypi.org", "files.pythonhosted.org",
}

hook.register("PreToolUse", "@shell", function(input)
  local cmd = input.toolInput.command
  if type(cmd) ~= "string" then
    return nil
  end
  for _, seg in ipairs(urls.segments(cmd)) do
    if re.match([[(^|[\s/])(curl|wget)(\s|$)]], seg) then
      local hosts = urls.hosts(seg)
      if #hosts == 0 then
        return hook.deny("name the URL with its scheme (https://host/...) so that the network allowlist can check it")
      end
      for _, host in ipairs(hosts) do
        if not urls.allowed(host, ALLOWED) then
          return hook.deny("network access to " .. host .. " is not allowed (allowed: " ..
            table.concat(ALLOWED, ", ") .. "). Ask the user to fetch it, or to add the host to the allowlist.")
        end
      end
    end
  end
end, {
  name = "network-allowlist",
  stage = "validate",
  policy = true,
  failure_policy = "closed",
})
