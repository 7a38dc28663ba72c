package trust

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// trustNow records folder as trusted with its current content.
func trustNow(t *testing.T, s *Store, folder string) Record {
	t.Helper()
	c, err := Content(folder)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRecord(folder, c)
	if err := s.Put(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A record holds each file's sum; Files trusts exactly those contents,
// follows the record as it changes on disk, and says what to do otherwise.
func TestFilesTrustEachFileWithTheContentTrusted(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "luahook.toml"), "hooks_dir = \"policies\"\n")
	writeFile(t, filepath.Join(folder, "policies", "10-a.lua"), "-- a\n")
	writeFile(t, filepath.Join(folder, "policies", "lib", "m.lua"), "-- m\n")
	tr := s.Files(folder)
	var ue *UntrustedError
	if err := tr.Check("policies/10-a.lua", sum("-- a\n")); !errors.As(err, &ue) || !ue.Since.IsZero() ||
		!strings.Contains(err.Error(), "./policies/10-a.lua (in "+folder+") not loaded: the folder is not trusted") {
		t.Fatalf("Check before any record = %v", err)
	}

	r := trustNow(t, s, folder)
	if len(r.FileSums) != 3 {
		t.Errorf("FileSums %v, want the config, the hook file and the module", r.FileSums)
	}
	for name, content := range map[string]string{"luahook.toml": "hooks_dir = \"policies\"\n", "policies/10-a.lua": "-- a\n", "policies/lib/m.lua": "-- m\n"} {
		if err := tr.Check(name, sum(content)); err != nil {
			t.Errorf("Check(%s) after trust = %v", name, err)
		}
	}
	err := tr.Check("policies/10-a.lua", sum("-- edited\n"))
	if !errors.As(err, &ue) || ue.New || ue.File != "policies/10-a.lua" ||
		!strings.Contains(err.Error(), "./policies/10-a.lua (in "+folder+") not loaded: it changed since you trusted the folder on ") ||
		!strings.HasSuffix(err.Error(), "review it, then run: luahook trust "+folder) {
		t.Errorf("Check of an edit = %v", err)
	}
	if err := tr.Check("policies/20-new.lua", sum("-- new\n")); !errors.As(err, &ue) || !ue.New ||
		!strings.Contains(err.Error(), "it is new since you trusted the folder on ") {
		t.Errorf("Check of a new file = %v", err)
	}
	var wr engine.WholeReason
	if !errors.As(err, &wr) {
		t.Errorf("%T is not a whole reason", err)
	}

	// Trusted anew: Files reads the record again.
	writeFile(t, filepath.Join(folder, "policies", "10-a.lua"), "-- edited\n")
	trustNow(t, s, folder)
	if err := tr.Check("policies/10-a.lua", sum("-- edited\n")); err != nil {
		t.Errorf("Check after trusting the edit = %v", err)
	}
	if err := tr.Check("policies/10-a.lua", sum("-- a\n")); err == nil {
		t.Error("the content trusted before is still trusted")
	}
	if ok, err := s.Delete(folder); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := tr.Check("policies/10-a.lua", sum("-- edited\n")); !errors.As(err, &ue) || !ue.Since.IsZero() {
		t.Errorf("Check after untrust = %v", err)
	}
	if got := tr.TrustFiles(); len(got) != 1 || got[0] != s.recordFile(folder) {
		t.Errorf("TrustFiles = %v", got)
	}
}

// A record from before per-file sums trusts the files as they are while
// the folder's content is the content trusted, and nothing once it is not.
func TestARecordWithoutFileSumsTrustsTheFolderAsItMatches(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "hooks.d", "10-a.lua"), "-- a\n")
	r := trustNow(t, s, folder)
	r.FileSums = nil
	if err := s.Put(r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.recordFile(folder))
	if strings.Contains(string(data), "fileSums") {
		t.Fatalf("record %s still has file sums", data)
	}
	if err := s.Files(folder).Check("hooks.d/10-a.lua", sum("-- a\n")); err != nil {
		t.Errorf("Check with a matching old record = %v", err)
	}
	if err := s.Files(folder).Check("hooks.d/10-a.lua", sum("-- b\n")); err == nil {
		t.Error("other content trusted")
	}
	writeFile(t, filepath.Join(folder, "hooks.d", "20-b.lua"), "-- b\n")
	var ue *UntrustedError
	if err := s.Files(folder).Check("hooks.d/10-a.lua", sum("-- a\n")); !errors.As(err, &ue) || ue.New ||
		!strings.Contains(err.Error(), "it changed since you trusted the folder") {
		t.Errorf("Check with an old record the folder no longer matches = %v", err)
	}
}

// A record file that others could change decides nothing: every file is
// refused, saying why.
func TestFilesRefuseALooseRecord(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "hooks.d", "10-a.lua"), "-- a\n")
	trustNow(t, s, folder)
	if err := os.Chmod(s.recordFile(folder), 0o666); err != nil {
		t.Fatal(err)
	}
	var pe *engine.PermissionError
	if err := s.Files(folder).Check("hooks.d/10-a.lua", sum("-- a\n")); !errors.As(err, &pe) ||
		!strings.Contains(err.Error(), "./hooks.d/10-a.lua (in "+folder+"): cannot check whether it is trusted") {
		t.Errorf("Check with a loose record = %v", err)
	}
}

// The engine under a project's record, with hot reload: an untrusted edit
// keeps the trusted version and is named by Errors; luahook trust (a new
// record) loads it, the watcher seeing the record change; a new untrusted
// file denies what can block, telling how to trust it.
func TestAnEngineFollowsTheRecord(t *testing.T) {
	s := &Store{Dir: filepath.Join(t.TempDir(), "trust")}
	folder := t.TempDir()
	hooks := filepath.Join(folder, "hooks.d")
	deny := func(reason string) string {
		return `hook.register("PreToolUse", "bash", function() return hook.deny("` + reason + `") end, { name = "v" })` + "\n"
	}
	writeFile(t, filepath.Join(hooks, "10-v.lua"), deny("v1"))
	trustNow(t, s, folder)
	e, err := engine.Open(context.Background(), engine.Options{Dir: hooks, Trust: s.Files(folder), Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	in := &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`), SessionID: "s", Cwd: folder}
	decide := func() string {
		res, err := e.Decide(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return res.Reason
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("after 5s: %s (errors %v)", what, e.Errors())
			}
		}
	}
	if got := decide(); got != "v1" {
		t.Fatalf("Decide = %q", got)
	}

	writeFile(t, filepath.Join(hooks, "10-v.lua"), deny("v2"))
	waitFor("the edit awaits trust", func() bool {
		errs := e.Errors()
		return len(errs) == 1 && strings.Contains(errs[0].Error(), "./hooks.d/10-v.lua (in "+folder+") not loaded: it changed since you trusted the folder")
	})
	if got := decide(); got != "v1" {
		t.Errorf("Decide after an untrusted edit = %q, want v1", got)
	}

	trustNow(t, s, folder)
	waitFor("the edit loads once trusted", func() bool { return decide() == "v2" && len(e.Errors()) == 0 })

	writeFile(t, filepath.Join(hooks, "20-new.lua"), `hook.register("PreToolUse", "bash", function() return hook.allow() end)`)
	waitFor("the new file fails closed", func() bool { return len(e.FailClosed()) == 1 })
	got := decide()
	if !strings.Contains(got, "v2\nluahook denied the action because not every policy loaded: ./hooks.d/20-new.lua (in "+folder+
		") not loaded: it is new since you trusted the folder on ") || !strings.Contains(got, "review it, then run: luahook trust "+folder+".") {
		t.Errorf("Decide with a new untrusted file = %q", got)
	}
}
