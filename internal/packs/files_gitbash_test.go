package packs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/policytest"
)

// filesShellToolCases fire shell lines run in a Windows folder at the files
// pack, by the tool's name as each agent sends it: Claude Code's Bash runs
// Git Bash (a POSIX line: /c/Users/dev/x and C:/Users/dev/x are
// C:\Users\dev\x, ~ the Windows home folder, /tmp Git Bash's scratch
// folder), the PowerShell tool and a shell tool of another name (Cursor's
// Shell) run PowerShell. Each Git Bash case is one the two readings answer
// differently, so that it fails if the line is read as PowerShell.
const filesShellToolCases = `
local WCWD = "C:\\Users\\dev\\project"
local function run(tool, command)
  return fire("PreToolUse", { toolName = tool, toolCapabilities = { "shell" }, cwd = WCWD,
    toolInput = { command = command } })
end
local gitbash_denied = {
  { "cp .env /tmp/e", "reading .env, which may hold keys or credentials [rule secret-read]" },
  { "echo ssh-ed25519 AAAA >> /c/Users/dev/.ssh/authorized_keys",
    "(/c/users/dev/.ssh/authorized_keys), in a folder of keys and credentials [rule guarded]" },
  { "grep -ri password ~", "searching ~ for passwords or tokens [rule credential-hunt]" },
  { "mv ~/Documents/report.docx /tmp/", "deleting /c/users/dev/documents/report.docx, outside the project [rule remove]" },
  { "echo x >> ~/.bashrc", "a write outside the project (/c/users/dev/.bashrc) [rule outside]; write inside C:\\Users\\dev\\project," },
  { "cp -r src \"C:\\Users\\dev\\other\"", "a write outside the project (/c/users/dev/other) [rule outside]" },
}
for i, c in ipairs(gitbash_denied) do
  test("Git Bash reads as POSIX in a Windows folder " .. i, function() expect.denied(run("Bash", c[1]), c[2]) end)
end
local gitbash_allowed = {
  "cp dist/app.js /tmp/app.js", "echo x > /C/USERS/DEV/PROJECT/notes.txt", "touch C:/Users/dev/project/a.txt",
  "rsync -avn src/ /c/backup/", "mkdir -p /tmp/build && cp dist/app.js /tmp/build/",
}
for i, line in ipairs(gitbash_allowed) do
  test("everyday Git Bash passes in a Windows folder " .. i, function() expect.no_objection(run("Bash", line)) end)
end
-- PowerShell's tool, and Cursor's Shell on Windows: PowerShell
for _, tool in ipairs({ "PowerShell", "Shell" }) do
  for i, line in ipairs({ "'x' > .\\build\\log.txt", "Write-Output .env", "Get-ChildItem ~\\.ssh" }) do
    test(tool .. " reads as PowerShell in a Windows folder " .. i, function() expect.no_objection(run(tool, line)) end)
  end
  test(tool .. " writes to /tmp outside the project", function()
    expect.denied(run(tool, "cp dist/app.js /tmp/app.js"), "(/tmp/app.js) [rule outside]")
  end)
end
`

// filesShellToolCaseCount is the number of tests filesShellToolCases runs.
const filesShellToolCaseCount = 6 + 5 + 2*(3+1)

// TestFilesPackReadsAShellLineByItsTool runs filesShellToolCases as Claude
// Code's own payloads (the suites' run through every agent's native payload
// sends Claude Code's Bash as Cursor's Shell and Gemini's
// run_shell_command, which run PowerShell on Windows): a Windows folder
// makes a line PowerShell's for every shell tool but Claude Code's Bash.
func TestFilesPackReadsAShellLineByItsTool(t *testing.T) {
	dir := hooksFolder(t, "files.lua")
	if err := os.WriteFile(filepath.Join(dir, "files_test.lua"), []byte(filesShellToolCases), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := policytest.Run(context.Background(), policytest.Options{Paths: []string{dir}, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed > 0 || sum.Passed != filesShellToolCaseCount {
		t.Errorf("files pack, shell lines in a Windows folder: %v, want %d passed\n%s", sum, filesShellToolCaseCount,
			out.String())
	}
	if strings.Contains(out.String(), "FAIL") {
		t.Errorf("a case failed:\n%s", out.String())
	}
}
