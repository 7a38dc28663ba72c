package engine

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestHookAndTestFilesAreToldApartByName(t *testing.T) {
	for _, c := range []struct {
		name       string
		hook, test bool
	}{
		{"10-no-rm.lua", true, false},
		{"10-no-rm_test.lua", false, true},
		{".10-no-rm.lua", false, false},
		{".#10-no-rm_test.lua", false, false},
		{"10-no-rm.lua.swp", false, false},
		{"notes.txt", false, false},
	} {
		if IsHookFile(c.name) != c.hook || IsTestFile(c.name) != c.test {
			t.Errorf("%s: hook %v test %v, want %v %v", c.name, IsHookFile(c.name), IsTestFile(c.name), c.hook, c.test)
		}
	}
}

func TestTestFilesListsAFoldersTestFilesInNameOrderAndAFileAsGiven(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"20-b_test.lua": "", "10-a_test.lua": "", "10-a.lua": "", ".x_test.lua": "", "lib/c_test.lua": "",
	})
	other := filepath.Join(t.TempDir(), "one_test.lua")
	writeFile(t, other, "")
	got, err := TestFiles([]string{dir, other})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "10-a_test.lua"), filepath.Join(dir, "20-b_test.lua"), other}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if _, err := TestFiles([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("a path that does not exist is no error")
	}
}

func TestHooksDirIsWhatOpenLoads(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "luahook.toml")
	writeFile(t, conf, "hooks_dir = \"policies\"\n")
	broken := filepath.Join(t.TempDir(), "luahook.toml")
	writeFile(t, broken, "hooks_dir = \n")
	for _, c := range []struct {
		dir, config, want string
	}{
		{"", "", DefaultHooksDir},
		{"mine", "", "mine"},
		{"mine", conf, "mine"},
		{"", conf, filepath.Join(filepath.Dir(conf), "policies")},
	} {
		got, err := HooksDir(c.dir, c.config)
		if err != nil || got != c.want {
			t.Errorf("HooksDir(%q, %q) = %q, %v; want %q", c.dir, c.config, got, err, c.want)
		}
		if c.config == "" {
			continue
		}
		e := openEngine(t, Options{Dir: c.dir, ConfigPath: c.config, NoWatch: true})
		if e.Dir() != got {
			t.Errorf("Open loads %q, HooksDir says %q", e.Dir(), got)
		}
	}
	if _, err := HooksDir("", broken); err == nil {
		t.Error("a config that does not load is no error")
	}
}
