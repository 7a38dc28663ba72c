package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/decisionlog"
)

// verifyEnv is a hooks folder, a config whose decision log goes to a file
// signed with a key, and the public key's file.
type verifyEnv struct {
	dir, config, log, pub string
}

func newVerifyEnv(t *testing.T) *verifyEnv {
	t.Helper()
	root := t.TempDir()
	e := &verifyEnv{dir: filepath.Join(root, "hooks.d"), config: filepath.Join(root, "luahook.toml"),
		log: filepath.Join(root, "logs", "decisions.jsonl"), pub: filepath.Join(root, "log.pub")}
	writeFiles(t, e.dir, map[string]string{"10-guard.lua": guardHooks})
	os.MkdirAll(filepath.Dir(e.log), 0o700)
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	if err := os.WriteFile(filepath.Join(root, "log.key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	der, _ = x509.MarshalPKIXPublicKey(pub)
	if err := os.WriteFile(e.pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "[decision_log]\nenabled = true\npath = \"logs/decisions.jsonl\"\nsigning_key = \"log.key\"\ncheckpoint_every = 3\nmax_bytes = 4096\nmax_files = 100\n"
	if err := os.WriteFile(e.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// fire fires one PreToolUse through luahook fire, which logs it.
func (e *verifyEnv) fire(t *testing.T, command string) {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"event": "PreToolUse", "toolName": "bash", "toolInput": map[string]string{"command": command}})
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"fire", "--dir", e.dir, "--config", e.config}, bytes.NewReader(in), &out, &errb)
	if code != 0 && code != 2 {
		t.Fatalf("fire %q: exit %d\n%s%s", command, code, out.String(), errb.String())
	}
}

// TestVerifyCommand: records that luahook fire logged, over several
// processes and rotations, verify (exit 0, counts) with and without the
// key; an edited record is exit 1 with its file:line and seq, in text and
// JSON; no LOG, a missing log or a bad key is exit 2.
func TestVerifyCommand(t *testing.T) {
	e := newVerifyEnv(t)
	for i := range 20 {
		e.fire(t, strings.Repeat("x", 100)+" "+string(rune('a'+i)))
	}
	files, err := decisionlog.LogFiles(e.log)
	if err != nil || len(files) < 2 {
		t.Fatalf("log files %q (%v): want the log rotated", files, err)
	}
	code, out, errs := runArgs(t, "verify", "--key", e.pub, e.log)
	if code != 0 || !strings.HasPrefix(out, "OK 20 records (seq 1 to 20) in ") || !strings.Contains(out, "signatures checked") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := runArgs(t, "verify", e.log); code != 0 || !strings.Contains(out, "not checked") {
		t.Fatalf("verify without the key: exit %d\n%s", code, out)
	}

	// Edit the record of seq 3 (each fire's process closed the log with a
	// checkpoint after its record, so it is in the second or third file).
	var oldest string
	var lines []string
	at := -1
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines = strings.Split(string(data), "\n")
		if at = slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, `{"seq":3,`) }); at >= 0 {
			oldest = f
			break
		}
	}
	if at < 0 {
		t.Fatalf("no file of %q holds seq 3", files)
	}
	lines[at] = strings.Replace(lines[at], `"PreToolUse"`, `"PostToolUse"`, 1)
	os.WriteFile(oldest, []byte(strings.Join(lines, "\n")), 0o600)
	line := strconv.Itoa(at + 1)
	code, out, _ = runArgs(t, "verify", "--key", e.pub, e.log)
	if want := "PROBLEM " + oldest + ":" + line + ": seq 3: edited: "; code != 1 || !strings.HasPrefix(out, want) {
		t.Fatalf("verify of an edited log: exit %d\n%s\nwant %q", code, out, want)
	}
	code, out, _ = runArgs(t, "verify", "--json", e.log)
	var rep struct {
		OK      bool
		Problem struct {
			File string
			Line int
			Seq  uint64
			Kind string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || rep.Problem.File != oldest || rep.Problem.Line != at+1 || rep.Problem.Seq != 3 || rep.Problem.Kind != "edited" {
		t.Fatalf("verify --json: exit %d %s (%v)", code, out, err)
	}

	for _, args := range [][]string{
		{"verify"},
		{"verify", filepath.Join(t.TempDir(), "none.jsonl")},
		{"verify", "--key", e.config, e.log},
	} {
		if code, out, errs := runArgs(t, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (usage)\n%s%s", args, code, out, errs)
		}
	}
}
