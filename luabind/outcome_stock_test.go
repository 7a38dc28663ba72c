package luabind

import (
	"context"
	"fmt"
	"testing"
)

// leanOut loads src and reports, for its first registered function, what
// the reuse analysis decided once the globals froze: lean (it leaves its
// input) and leanOut (it leaves its outcome tables too).
func leanOut(t *testing.T, f *File) (lean, out bool) {
	t.Helper()
	st, err := f.pool.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.pool.put(st)
	return st.lean[0], st.leanOut[0]
}

// An outcome table that a hook keeps is never refilled by a later call:
// the stock provides hook.deny's table only to the hook function itself,
// called by the host, when the analysis proved that it keeps none. Each
// hook below keeps every table and checks, call after call, that the kept
// ones still hold what they were built with; leanOut says whether the
// analysis approved the function (so that only the runtime check stands
// between the table and the stock).
func TestKeptOutcomeTablesAreNeverRefilled(t *testing.T) {
	const check = `local keep, n = {}, 0
local function check()
  for i, t in ipairs(keep) do
    if t.action ~= "deny" or t.reason ~= "r" .. i then
      error("kept table " .. i .. " now holds " .. tostring(t.action) .. " " .. tostring(t.reason))
    end
  end
  n = n + 1
end
`
	cases := []struct {
		name, src string
		leanOut   bool
	}{
		{"kept directly", check + `hook.register("PreToolUse", nil, function(input)
  check()
  local d = hook.deny("r" .. n)
  keep[n] = d
  return d
end)`, false},
		{"built by a helper", check + `local function refuse(r) return hook.deny(r) end
hook.register("PreToolUse", nil, function(input)
  check()
  keep[n] = refuse("r" .. n)
  return hook.deny("r" .. n)
end)`, true},
		{"built by the hook called recursively", check + `local f
f = function(input, rt, inner)
  if inner then return hook.deny(inner) end
  check()
  keep[n] = f(nil, nil, "r" .. n)
  return hook.deny("r" .. n)
end
hook.register("PreToolUse", nil, f)`, true},
		{"built through pcall", check + `hook.register("PreToolUse", nil, function(input)
  check()
  local _, d = pcall(hook.deny, "r" .. n)
  keep[n] = d
  return hook.deny("r" .. n)
end)`, true},
		{"built by a metamethod", check + `local lazy = setmetatable({}, {__index = function() return hook.deny("r" .. n) end})
hook.register("PreToolUse", nil, function(input)
  check()
  keep[n] = lazy.deny
  return hook.deny("r" .. n)
end)`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := load(t, c.src, Options{MaxStates: 1})
			if lean, out := leanOut(t, f); !lean || out != c.leanOut {
				t.Fatalf("lean %v, leanOut %v; want lean, leanOut %v", lean, out, c.leanOut)
			}
			in := preToolUse("bash", `{"command":"ls","args":["-l"],"n":{"a":1}}`)
			for i := 1; i <= 5; i++ {
				out, err := call(t, f, 0, in)
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if want := fmt.Sprintf("r%d", i); out == nil || out.Reason != want {
					t.Fatalf("call %d: %+v, want reason %s", i, out, want)
				}
			}
		})
	}
}

// A lean hook returning hook.deny's, hook.ask's, hook.mutate's and
// hook.context's tables from the stock gives, call after call, the
// outcome it built in that call.
func TestStockedOutcomeTablesCarryEachCallsOutcome(t *testing.T) {
	f := load(t, `local n = 0
hook.register("PreToolUse", nil, function(input)
  n = n + 1
  local ti = input.toolInput
  if n % 4 == 1 then return hook.deny("deny " .. n) end
  if n % 4 == 2 then return hook.ask("ask " .. n) end
  if n % 4 == 3 then ti.command = "echo " .. tostring(n) return hook.mutate(ti, "mutate " .. n) end
  return hook.context("context " .. n, "separate")
end)`, Options{MaxStates: 1})
	if lean, out := leanOut(t, f); !lean || !out {
		t.Fatalf("lean %v, leanOut %v; want both", lean, out)
	}
	in := preToolUse("bash", `{"command":"ls"}`)
	for n := 1; n <= 12; n++ {
		out, err := call(t, f, 0, in)
		if err != nil {
			t.Fatalf("call %d: %v", n, err)
		}
		var got, want string
		switch n % 4 {
		case 1:
			got, want = string(out.Action)+" "+out.Reason, fmt.Sprintf("deny deny %d", n)
		case 2:
			got, want = string(out.Action)+" "+out.Reason, fmt.Sprintf("ask ask %d", n)
		case 3:
			got, want = string(out.Action)+" "+out.Reason+" "+string(out.Input), fmt.Sprintf(`mutate mutate %d {"command":"echo %d"}`, n, n)
		default:
			got, want = out.AdditionalContext+" "+string(out.ContextAs), fmt.Sprintf("context %d separate", n)
		}
		if got != want {
			t.Fatalf("call %d: %q, want %q", n, got, want)
		}
	}
}
