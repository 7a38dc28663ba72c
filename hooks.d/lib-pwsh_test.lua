-- Tests for lib/pwsh.lua's reading of Windows paths and of what a command
-- does to the files it names (pwsh.files).
-- Run them with: luahook test ./hooks.d (or luahook test hooks.d/lib-pwsh_test.lua)

local pwsh = require("pwsh")

local function first(line)
  local cmds, err = pwsh.parse(line)
  expect.eq(err, nil)
  return cmds[1]
end

local function texts(words)
  local out = {}
  for _, w in ipairs(words) do out[#out + 1] = w.text end
  return table.concat(out, " ")
end

test("a backslash separates folders and the device and provider prefixes fold away", function()
  for _, c in ipairs({ { "gc C:\\Users\\dev\\.ssh\\id_rsa", "C:/Users/dev/.ssh/id_rsa" },
    { "gc \\\\?\\C:\\Users\\dev\\.ssh\\id_rsa", "C:/Users/dev/.ssh/id_rsa" },
    { "gc \\\\.\\C:\\x", "C:/x" },
    { "gc Microsoft.PowerShell.Core\\FileSystem::C:\\Windows\\win.ini", "C:/Windows/win.ini" },
    { "gc FileSystem::\\\\srv\\share\\x", "//srv/share/x" },
    { "gc '~\\.aws\\credentials'", "~/.aws/credentials" } }) do
    local w = first(c[1]).args[1]
    expect.eq(w.text, c[2])
    expect.eq(w.pat, c[2])
  end
end)

test("a word keeps what was written, for a reason", function()
  expect.eq(first("gc $HOME\\.aws\\credentials").args[1].raw, "$HOME\\.aws\\credentials")
end)

test("C:x is x in the working folder when it is on drive C", function()
  local w = first("gc C:notes.txt").args[1]
  expect.eq(pwsh.resolve(w, "C:\\Users\\dev\\project"), "/c:/users/dev/project/notes.txt")
  expect.eq(pwsh.resolve(w, "D:\\work"), "/c:/notes.txt")
  expect.eq(pwsh.target(w), nil)
  expect.eq(pwsh.target(first("Remove-Item C:\\Windows").args[1]), "root")
end)

test("files tells reads, writes and deletes apart", function()
  local r, w, d = pwsh.files(first("Copy-Item ~\\.ssh\\id_rsa $env:TEMP\\k"))
  expect.eq(texts(r), "~/.ssh/id_rsa")
  expect.eq(texts(w), "/tmp/k")
  expect.eq(#d, 0)
  r = pwsh.files(first("Select-String -Pattern '\\d+' -Path .\\CHANGELOG.md"))
  expect.eq(texts(r), "./CHANGELOG.md")
  r = pwsh.files(first("gc -Path:.\\.env"))
  expect.eq(texts(r), "-Path ./.env")
  local rec
  r, w, d, rec = pwsh.files(first("Remove-Item -Recurse -Force ~\\.ssh"))
  expect.eq(#r, 0)
  expect.eq(texts(d), "~/.ssh")
  expect.eq(rec, true)
  r, w = pwsh.files(first("[IO.File]::WriteAllText('C:\\Windows\\x.txt', 'x')"))
  expect.eq(texts(w), "C:/Windows/x.txt")
  expect.eq(#r, 0)
  r = pwsh.files(first("Test-Path ~\\.ssh\\id_rsa"))
  expect.eq(#r, 0)
  local code
  r, w, d, rec, code = pwsh.files(first("python -c \"print(1)\""))
  expect.eq(code, true)
end)

test("an expression's output redirected to a file is a write", function()
  local cmds = pwsh.parse("'x' > C:\\Windows\\x.txt")
  expect.eq(#cmds, 1)
  local _, w = pwsh.files(cmds[1])
  expect.eq(texts(w), "C:/Windows/x.txt")
end)
