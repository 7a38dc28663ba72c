package packs_test

import "testing"

// imageSettingCases run with the packages pack's settings changed: a
// registry the operator names in local_registries is on this machine, and
// publish = "ask" asks about an image push instead of denying it.
const imageSettingCases = `
local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = command },
    cwd = "/home/dev/project", sessionId = "t" })
end

test("a registry named in local_registries takes a push", function()
  expect.no_objection(sh("docker push registry.box.lan:5000/api:3"))
  expect.no_objection(sh("helm push api.tgz oci://registry.box.lan/charts"))
end)

test("local_registries replaces the list: localhost is no longer taken for this machine", function()
  expect.denied(sh("docker push localhost:5000/api:3"), "the image localhost:5000/api:3 to localhost:5000")
end)

test("a registry not in the list is still publishing", function()
  expect.denied(sh("docker push ghcr.io/team/api:3"), "to ghcr.io (docker push) [rule publish]")
end)
`

// publishAskCases run with publish = "ask": an image push is asked about,
// not denied, and a local one still passes.
const publishAskCases = `
local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = command },
    cwd = "/home/dev/project", sessionId = "t" })
end

test("with publish = ask an image push is asked about", function()
  local r = sh("docker push team/api:3")
  expect.asked(r, "publishing the image team/api:3 to docker.io (docker push)")
  expect.asked(sh("crane copy alpine ghcr.io/team/alpine"), "to ghcr.io (crane copy)")
end)

test("with publish = ask a push to this machine still passes", function()
  expect.no_objection(sh("docker push localhost:5000/api:3"))
end)
`

// TestPackagesPackLocalRegistriesSetting runs the packages pack with
// local_registries set to an operator's own registry: a push there passes,
// and the list replaces the default one.
func TestPackagesPackLocalRegistriesSetting(t *testing.T) {
	const dflt = `local_registries = { "localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal",
    "host.containers.internal", "kind-registry" },`
	const on = `local_registries = { "registry.box.lan" },`
	sum, out := runWithSetting(t, "packages", dflt, on, imageSettingCases)
	if sum.Failed > 0 || sum.Passed < 3 {
		t.Errorf("packages pack with local_registries set: %v\n%s", sum, out)
	}
}

// TestPackagesPackAsksAboutImagePushesWhenPublishIsAsk runs the packages
// pack with publish = "ask": the image push rule follows SETTINGS.publish.
func TestPackagesPackAsksAboutImagePushesWhenPublishIsAsk(t *testing.T) {
	sum, out := runWithSetting(t, "packages", `publish = "deny",`, `publish = "ask",`, publishAskCases)
	if sum.Failed > 0 || sum.Passed < 2 {
		t.Errorf("packages pack with publish = ask: %v\n%s", sum, out)
	}
}
