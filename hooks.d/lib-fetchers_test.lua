-- Tests for lib/fetchers.lua, which options of curl, wget and the other
-- fetchers take the next word as their value.
-- Run them with: luahook test ./hooks.d (or luahook test hooks.d/lib-fetchers_test.lua)

local fetchers = require("fetchers")

local COMMON = { ["-o"] = true, ["-i"] = true, ["-c"] = true, ["-a"] = true, ["--output"] = true, ["--header"] = true }
local takes_value = fetchers.value_taker(COMMON)

test("curl's and wget's own short options decide for them", function()
  for _, c in ipairs({ { "curl", "-i", false }, { "wget", "-i", true }, { "curl", "-c", true }, { "wget", "-c", false },
    { "curl", "-a", false }, { "wget", "-a", true }, { "curl", "-o", true }, { "wget", "-o", true },
    { "wget", "-d", false }, { "curl", "-d", true }, { "wget", "-r", false }, { "curl", "-r", true },
    { "wget", "-m", false }, { "curl", "-m", true }, { "wget", "-O", true }, { "curl", "-O", false } }) do
    expect.eq(takes_value(c[1], c[2]), c[3], c[1] .. " " .. c[2])
  end
end)

test("another program takes the common options but those curl and wget differ on", function()
  expect.eq(takes_value("http", "-o"), true, "http -o")
  expect.eq(takes_value("http", "-i"), false, "http -i (curl and wget differ)")
  expect.eq(takes_value("aria2c", "-c"), false, "aria2c -c (curl and wget differ)")
  expect.eq(takes_value("http", "-x"), false, "http -x (not in the common list)")
end)

test("a long option takes a value when the common list says so, whatever the program", function()
  expect.eq(takes_value("wget", "--output"), true, "wget --output")
  expect.eq(takes_value("curl", "--header"), true, "curl --header")
  expect.eq(takes_value("curl", "--include"), false, "curl --include")
end)

local shell = require("shell")

local function saved(line)
  return fetchers.saved(shell.parse(line)[1])
end

test("saved reads the file a fetcher writes, however it is named", function()
  expect.eq(saved("curl -o a.sh https://x.example/i")[1], "a.sh")
  expect.eq(saved("curl -sSLo ./b.sh https://x.example/i")[1], "b.sh")
  expect.eq(saved("curl --output=c.sh https://x.example/i")[1], "c.sh")
  expect.eq(saved("curl -fsSLO https://x.example/rel/d.sh?v=1")[1], "d.sh")
  expect.eq(saved("curl --output-dir /tmp -O https://x.example/e.sh")[1], "/tmp/e.sh")
  expect.eq(saved("wget https://x.example/f.py")[1], "f.py")
  expect.eq(saved("wget https://x.example/")[1], "index.html")
  expect.eq(saved("wget -qO g.sh https://x.example/i")[1], "g.sh")
  expect.eq(saved("wget -P dl https://x.example/h.sh")[1], "dl/h.sh")
  expect.eq(saved("aria2c -d /tmp -o i.sh https://x.example/x")[1], "/tmp/i.sh")
  expect.eq(saved("curl https://x.example/x > j.sh")[1], "j.sh")
  expect.eq(saved("Invoke-WebRequest -Uri https://x.example/k.ps1 -OutFile k.ps1")[1], "k.ps1")
  -- the path cleaned as the kernel reads it
  expect.eq(saved("curl -o /../tmp//./l.sh https://x.example/x")[1], "/tmp/l.sh")
  expect.eq(saved("curl -o sub/../m.sh https://x.example/x")[1], "m.sh")
  expect.eq(saved("curl -o ../n.sh https://x.example/x")[1], "../n.sh")
end)

test("saved reads no file where the fetcher writes none", function()
  expect.eq(#saved("curl https://x.example/a.sh"), 0)
  expect.eq(#saved("curl -o - https://x.example/a.sh"), 0)
  expect.eq(#saved("wget -qO- https://x.example/a.sh"), 0)
  expect.eq(#saved("curl -T up.sh https://x.example/"), 0)
  expect.eq(#saved("grep -o x f.txt"), 0)
end)

test("runs_saved finds a later command that runs a saved file, and only that", function()
  local f, run, path = fetchers.runs_saved(shell.parse("curl -O https://x.example/a.sh && cd . && sh ./a.sh"))
  expect.eq(f.name, "curl")
  expect.eq(run.name, "sh")
  expect.eq(path, "a.sh")
  expect.eq(fetchers.runs_saved(shell.parse("sh a.sh; curl -O https://x.example/a.sh")), nil)
  expect.eq(fetchers.runs_saved(shell.parse("curl -O https://x.example/a.sh && cat a.sh")), nil)
  expect.eq(fetchers.runs_saved(shell.parse("curl -O https://x.example/a.sh && cd sub && sh a.sh")), nil)
  -- a program saved on the PATH runs by its bare name or from another bin folder
  expect.eq(select(3, fetchers.runs_saved(shell.parse("curl -o /usr/local/bin/t https://x.example/t; t -v"))),
    "/usr/local/bin/t")
  expect.eq(select(3, fetchers.runs_saved(shell.parse("curl -o /usr/local/bin/t https://x.example/t; /usr/bin/t"))),
    "/usr/local/bin/t")
  expect.eq(fetchers.runs_saved(shell.parse("curl -o ./t https://x.example/t; t -v")), nil)
end)

test("pwsh_runs_saved finds a later PowerShell command that runs an -OutFile, and only that", function()
  local pwsh = require("pwsh")
  local f, run, path = fetchers.pwsh_runs_saved(pwsh.parse("iwr https://x.example/a.ps1 -OutFile A.ps1; .\\a.ps1"))
  expect.eq(f.name, "invoke-webrequest")
  expect.eq(run.word.text, "./a.ps1")
  expect.eq(path, "a.ps1")
  expect.eq(fetchers.pwsh_runs_saved(pwsh.parse("iwr https://x.example/a.ps1 -OutFile a.ps1; Get-Content a.ps1")), nil)
  expect.eq(fetchers.pwsh_runs_saved(pwsh.parse(".\\a.ps1; iwr https://x.example/a.ps1 -OutFile a.ps1")), nil)
end)
