package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// The zip holds what the go command would put in it, and leaves out the
// rest: a nested module, vendored packages, version-control folders,
// links, files listed but gone.
func TestModuleFilesLeaveOutWhatTheGoCommandLeavesOut(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":                    "module example.com/m\n",
		"a.go":                      "package m\n",
		"testdata/x.txt":            "x",
		"sub/go.mod":                "module example.com/m/sub\n",
		"sub/s.go":                  "package sub\n",
		"sub/deeper/d.go":           "package deeper\n",
		"vendor/modules.txt":        "",
		"vendor/example.com/v/v.go": "package v\n",
		"internal/vendor/w/w.go":    "package w\n",
		".git/config":               "",
		".ci/run":                   "#!/bin/sh\n",
	})
	if err := os.Symlink("a.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	names := []string{"go.mod", "a.go", "testdata/x.txt", "sub/go.mod", "sub/s.go", "sub/deeper/d.go",
		"vendor/modules.txt", "vendor/example.com/v/v.go", "internal/vendor/w/w.go", ".git/config", ".ci/run",
		"link.go", "gone.go"}
	files, omitted, err := moduleFiles(root, names)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".ci/run", "a.go", "go.mod", "testdata/x.txt", "vendor/modules.txt"}
	slices.Sort(files)
	if !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if len(omitted) != len(names)-len(want) {
		t.Errorf("left out %v, want the %d others", omitted, len(names)-len(want))
	}
}

func TestModuleFilesRefuseWhatTheGoCommandRefuses(t *testing.T) {
	for name, files := range map[string][]string{
		"names that differ only in case": {"go.mod", "README", "readme"},
		"a name with a colon":            {"go.mod", "a:b.go"},
		"a trailing dot":                 {"go.mod", "x./a.go"},
		"a Windows device name":          {"go.mod", "aux.go"},
		"no go.mod":                      {"a.go"},
	} {
		t.Run(name, func(t *testing.T) {
			tree := map[string]string{}
			for _, f := range files {
				tree[f] = "x"
			}
			root := writeTree(t, tree)
			if got, _, err := moduleFiles(root, files); err == nil {
				t.Errorf("accepted %v", got)
			}
		})
	}
}

// The proxy folder has the list, .info, .mod and .zip of the version, the
// zip's files under module@version/.
func TestWriteLaysOutTheProxyProtocol(t *testing.T) {
	root := writeTree(t, map[string]string{"go.mod": "module example.com/Big/m\n", "a.go": "package m\n"})
	proxy := t.TempDir()
	const version = "v0.0.0-00010101000000-000000000000"
	if err := write(proxy, "example.com/Big/m", version, root, []string{"a.go", "go.mod"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proxy, "example.com", "!big", "m", "@v")
	for _, name := range []string{"list", version + ".info", version + ".mod", version + ".zip"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	zr, err := zip.OpenReader(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var got []string
	for _, f := range zr.File {
		got = append(got, f.Name)
	}
	want := []string{"example.com/Big/m@" + version + "/a.go", "example.com/Big/m@" + version + "/go.mod"}
	if !slices.Equal(got, want) {
		t.Errorf("zip holds %v, want %v", got, want)
	}
	info, err := os.ReadFile(filepath.Join(dir, version+".info"))
	if err != nil || !strings.Contains(string(info), `"Version":"`+version+`"`) {
		t.Errorf(".info %s %v", info, err)
	}
}
