-- Helpers for the network policies: find the commands of a shell line that
-- reach the network, and the hosts of the URLs they name.
local M = {}

-- segments splits a shell command line into its simple commands (at ;, &, |,
-- newlines, $( and backquotes), so that "cd x && curl ..." is seen whole.
function M.segments(cmd)
  return re.split([[[;&|\n]+|\$\(|`]], cmd)
end

-- hosts returns the lower-cased host of every URL with a scheme in s.
function M.hosts(s)
  local out = {}
  for _, url in ipairs(re.find_all([[(?i)\b[a-z][a-z0-9+.-]*://[^\s'"]+]], s)) do
    local _, host = re.find([=[(?i)^[a-z][a-z0-9+.-]*://(?:[^@/\s]*@)?(\[[^\]]*\]|[^:/?#\s]+)]=], url)
    if host then
      table.insert(out, host:lower())
    end
  end
  return out
end

-- allowed reports whether host is on the list, or a subdomain of a host on it.
function M.allowed(host, list)
  for _, h in ipairs(list) do
    if host == h or host:sub(-(#h + 1)) == "." .. h then
      return true
    end
  end
  return false
end

return M
