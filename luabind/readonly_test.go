package luabind

import (
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// moduleFields are the module tables of the sandbox, each with a field a
// poisoning hook would replace.
var moduleFields = []struct{ module, field, what string }{
	{"string", "find", "the string module"}, {"table", "insert", "the table module"},
	{"math", "floor", "the math module"}, {"os", "time", "the os module"},
	{"json", "encode", "the json module"}, {"hook", "deny", "the hook module"},
	{"log", "info", "the log module"}, {"store", "get", "the store module"},
	{"env", "get", "the env module"}, {"re", "match", "the re module"},
	{"hook.events", "PreToolUse", "the hook.events table"},
}

// Module tables are read-only, as the globals are once the file has
// loaded: a hook that replaces re.match (or any field of any module)
// raises an error naming the module, and the next call on the same state
// sees the module as it was.
func TestModuleTablesAreReadOnly(t *testing.T) {
	for _, m := range moduleFields {
		t.Run(m.module, func(t *testing.T) {
			f := load(t, `hook.register("Stop", nil, function(input)
  if input.prompt == "write" then
    `+m.module+`.`+m.field+` = function() return "poisoned" end
  elseif input.prompt == "new" then
    `+m.module+`.added = 1
  elseif input.prompt == "rawset" then
    rawset(`+m.module+`, "`+m.field+`", 1)
  elseif input.prompt == "insert" then
    table.insert(`+m.module+`, 1)
  elseif input.prompt == "pcall" then
    pcall(function() `+m.module+`.`+m.field+` = 1 end)
    pcall(rawset, `+m.module+`, "`+m.field+`", 1)
    pcall(table.insert, `+m.module+`, 1)
  end
  local ok, added = pcall(function() return `+m.module+`.added end)
  return hook.context(type(`+m.module+`.`+m.field+`) .. " " .. tostring(ok and added or nil) .. " " .. tostring(rawget(`+m.module+`, 1)))
end)`, Options{MaxStates: 1})
			want := []string{
				"hooks.d/test.lua:3: " + m.what + " is read-only (assignment to " + m.module + "." + m.field + ")",
				"hooks.d/test.lua:5: " + m.what + " is read-only (assignment to " + m.module + ".added)",
				"rawset: " + m.what + " is read-only",
				"table.insert: " + m.what + " is read-only",
			}
			for i, prompt := range []string{"write", "new", "rawset", "insert"} {
				_, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop, Prompt: prompt})
				if err == nil || !strings.Contains(err.Error(), want[i]) {
					t.Errorf("%s: %v, want an error %q", prompt, err, want[i])
				}
			}
			typ := "function"
			if m.module == "hook.events" {
				typ = "string"
			}
			for _, prompt := range []string{"pcall", "read"} {
				out, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop, Prompt: prompt})
				if err != nil || out == nil || out.AdditionalContext != typ+" nil nil" {
					t.Errorf("%s: %+v, %v; want the module unchanged (%q)", prompt, out, err, typ+" nil nil")
				}
			}
		})
	}
}

// A file's top level cannot change a module either: the modules belong to
// the sandbox, not to the file.
func TestModuleTablesAreReadOnlyWhileLoading(t *testing.T) {
	le := loadError(t, `function string.startswith(s, p) return s:sub(1, #p) == p end`, Options{})
	if le.Line != 1 || !strings.Contains(le.Message, "the string module is read-only (assignment to string.startswith)") {
		t.Errorf("load error %v", le)
	}
}

// Read-only modules keep working as modules: string methods on strings,
// pairs over a module, the os library's refusals, and the session's
// completion and printing of module fields.
func TestReadOnlyModulesStillWorkAsModules(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function()
  assert(("abc"):upper() == "ABC" and ("a,b"):find(",", 1, true) == 2)
  local names = {}
  for k in pairs(re) do names[#names + 1] = k end
  table.sort(names)
  assert(#names >= 5, "pairs(re) found " .. #names .. " fields")
  assert(not pcall(function() return os.exit end))
  assert(getmetatable(string) == "protected")
  return hook.context(table.concat(names, ","))
end)`, Options{})
	out, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
	if err != nil || out == nil || !strings.Contains(out.AdditionalContext, "find,find_all,gsub,match,match_any") {
		t.Fatalf("%+v, %v", out, err)
	}
	s, err := NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, c := s.Complete("re.ma"); !slices.Equal(c, []string{"re.match", "re.match_any"}) {
		t.Errorf(`Complete("re.ma") = %q`, c)
	}
	if _, c := s.Complete("string.up"); !slices.Equal(c, []string{"string.upper"}) {
		t.Errorf(`Complete("string.up") = %q`, c)
	}
	if got := s.Format(s.st.L.G.Global.RawGetString("env")); !strings.Contains(got, "get = function: builtin") {
		t.Errorf("Format(env) = %s, want its fields", got)
	}
	if _, c := s.Complete("hook.events.Pre"); !slices.Contains(c, "hook.events.PreToolUse") {
		t.Errorf(`Complete("hook.events.Pre") = %q`, c)
	}
}
