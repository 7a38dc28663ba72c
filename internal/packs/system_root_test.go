package packs_test

import (
	"strings"
	"testing"
)

// systemRootCases are shell calls for the system pack's as-root and
// service-stop rules under a changed setting: check(line, want) fires the
// line and wants "ask", "deny" (each naming the rule) or "pass".
const systemRootCases = `
local function check(line, want, rule)
  local r = fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, cwd = "/home/dev/project",
    toolInput = { command = line } })
  if want == "pass" then
    expect.no_objection(r)
  elseif want == "ask" then
    expect.truthy(r.verdict == "ask", line .. ": asked about, got " .. tostring(r.verdict))
    expect.contains(r.reason, "[rule " .. rule .. "]")
  else
    expect.denied(r, "[rule " .. rule .. "]")
  end
end
`

// systemSetting runs the system pack's suite-less cases with one setting
// changed and wants every case to pass.
func systemSetting(t *testing.T, was, to, cases string, want int) {
	t.Helper()
	sum, out := runWithSetting(t, "system", was, to, systemRootCases+cases)
	if sum.Failed > 0 || sum.Passed != want {
		t.Errorf("system pack, %s: %v, want %d passed\n%s", to, sum, want, out)
	}
}

// TestSystemPackDeniesRootCommandsWhenSetTo: as_root = "deny" turns the
// as-root ask into a denial naming the rule; reads run as root still pass,
// and a service stop is still only asked about.
func TestSystemPackDeniesRootCommandsWhenSetTo(t *testing.T) {
	systemSetting(t, `as_root = "ask",`, `as_root = "deny",`, `
test("a root write is denied", function()
  check("sudo cp ./tool /opt/tool", "deny", "as-root")
  check("doas make install", "deny", "as-root")
  check("sudo sh -c 'cd /opt && tar -xzf /tmp/app.tgz'", "deny", "as-root")
end)
test("a root read passes", function()
  check("sudo git status", "pass")
  check("sudo journalctl -u nginx", "pass")
end)
test("a service stop is still asked", function() check("systemctl stop nginx", "ask", "service-stop") end)
`, 3)
}

// TestSystemPackLetsRootCommandsPassWhenAllowed: as_root = "allow" (or the
// rule named in allow) lets a root command through, while the stronger
// denials of privileged shells and escapes stay.
func TestSystemPackLetsRootCommandsPassWhenAllowed(t *testing.T) {
	cases := `
test("a root write passes", function()
  check("sudo cp ./tool /opt/tool", "pass")
  check("sudo make install", "pass")
end)
test("a root shell is still denied", function()
  check("sudo bash", "deny", "root-shell")
  check("sudo vim /etc/hosts", "deny", "root-shell")
  check("sudo bash -c 'enable -f /tmp/lib.so x'", "deny", "root-shell")
end)
`
	systemSetting(t, `as_root = "ask",`, `as_root = "allow",`, cases, 2)
	systemSetting(t, `allow = {},`, `allow = { "as-root" },`, cases, 2)
}

// TestSystemPackReadsItsRootReadList: what passes as root is
// SETTINGS.as_root_reads, a program with the operands and options an entry
// names; the rest is asked about.
func TestSystemPackReadsItsRootReadList(t *testing.T) {
	systemSetting(t, `as_root_reads = { "ls", "dir",`, `as_root_reads = { "make install", "certbot --dry-run", "ls", "dir",`, `
test("an entry with an operand", function()
  check("sudo make install", "pass")
  check("sudo make -j4 install", "pass")
  check("sudo make clean", "ask", "as-root")
  check("sudo make", "ask", "as-root")
end)
test("an entry with an option", function()
  check("sudo certbot renew --dry-run", "pass")
  check("sudo certbot renew", "ask", "as-root")
end)
`, 2)
}

// TestSystemPackServiceStopsSetting: service_stops = "deny" denies any
// service stop naming the rule, "allow" lets it pass; a critical service
// stays denied either way.
func TestSystemPackServiceStopsSetting(t *testing.T) {
	systemSetting(t, `service_stops = "ask",`, `service_stops = "deny",`, `
test("a stop is denied", function()
  check("systemctl stop nginx", "deny", "service-stop")
  check("nginx -s quit", "deny", "service-stop")
end)
test("a restart passes", function() check("systemctl restart nginx", "pass") end)
`, 2)
	systemSetting(t, `service_stops = "ask",`, `service_stops = "allow",`, `
test("a stop passes", function()
  check("systemctl stop nginx", "pass")
  check("service redis-server stop", "pass")
end)
test("a critical service is still denied", function() check("systemctl stop sshd", "deny", "services") end)
`, 2)
}

// TestSystemPackRefusesAnUnknownVerdict: a misspelt verdict is a load
// error naming the valid values, never a pack that silently judges nothing.
func TestSystemPackRefusesAnUnknownVerdict(t *testing.T) {
	sum, out := runWithSetting(t, "system", `as_root = "ask",`, `as_root = "never",`, systemRootCases+`
test("loads", function() check("sudo git status", "pass") end)
`)
	if sum.Passed != 0 || sum.Failed == 0 {
		t.Errorf("system pack, as_root = never: %v, want every case failing on the load error\n%s", sum, out)
	}
	if want := `SETTINGS.as_root is never; want "ask", "deny" or "allow"`; !strings.Contains(out, want) {
		t.Errorf("the report does not say %q:\n%s", want, out)
	}
}
