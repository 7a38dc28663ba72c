package engine

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestOnLoadErrorIsTheChoiceElseTheConfigsElseDeny(t *testing.T) {
	for _, choice := range []string{"", OnLoadErrorDeny, OnLoadErrorSkip, OnLoadErrorFail} {
		if err := CheckOnLoadError(choice); err != nil {
			t.Errorf("%q: %v", choice, err)
		}
	}
	if err := CheckOnLoadError("ignore"); err == nil || err.Error() != `"ignore": want deny, skip, fail` {
		t.Errorf("ignore: %v", err)
	}
	var none *Engine
	if got := none.OnLoadError(""); got != OnLoadErrorDeny {
		t.Errorf("nothing opened: %q", got)
	}
	conf := filepath.Join(t.TempDir(), "luahook.toml")
	writeFile(t, conf, "[runner]\non_load_error = \"skip\"\n")
	e := openEngine(t, Options{Dir: t.TempDir(), ConfigPath: conf, NoWatch: true})
	if got := e.OnLoadError(""); got != OnLoadErrorSkip {
		t.Errorf("the config's: %q", got)
	}
	if got := e.OnLoadError(OnLoadErrorFail); got != OnLoadErrorFail {
		t.Errorf("the choice: %q", got)
	}
	if got := openEngine(t, Options{Dir: t.TempDir(), NoWatch: true}).OnLoadError(""); got != OnLoadErrorDeny {
		t.Errorf("no config: %q", got)
	}
}

func TestProblemsSplitAConfigErrorIntoItsProblems(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "luahook.toml")
	writeFile(t, conf, "[runner]\non_load_error = \"ignore\"\nmax_context_bytes = \"x\"\n")
	dir := hooksDir(t, map[string]string{"10-broken.lua": "hook.register(\n"})
	e := openEngine(t, Options{Dir: dir, ConfigPath: conf, PartialConfig: true, NoWatch: true})
	if n := len(e.Errors()); n != 2 {
		t.Fatalf("%d errors, want the config's and the file's: %v", n, e.Errors())
	}
	probs := e.Problems()
	if len(probs) != 3 {
		t.Fatalf("%d problems, want 3: %q", len(probs), probs)
	}
	for i, want := range []string{"luahook.toml:2", "luahook.toml:3", "10-broken.lua:"} {
		if !strings.Contains(probs[i].Error(), want) {
			t.Errorf("problem %d %q does not name %s", i+1, probs[i], want)
		}
	}
}
