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
