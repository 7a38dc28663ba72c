package decisionlog_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/decisionlog"
)

// writeChained writes n records through a Logger (Deliver, as a door does)
// to a file sink at path with fopts, closes it and returns the file's lines.
func writeChained(t *testing.T, path string, n int, fopts decisionlog.FileOptions) []string {
	t.Helper()
	sink, err := decisionlog.File(path, fopts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := decisionlog.New(decisionlog.Options{Sink: sink, Queue: 4 * n})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		l.Deliver(bash(fmt.Sprintf("echo %d", i)), "PreToolUse", nil, decisionlog.Delivered{Verdict: "allow"})
		if i%7 == 6 {
			waitWritten(t, l, uint64(i+1)) // several batches, not one
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Written != uint64(n) {
		t.Fatalf("wrote %+v, want %d records", s, n)
	}
	return fileLines(t, path)
}

func waitWritten(t *testing.T, l *decisionlog.Logger, n uint64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for l.Stats().Written < n {
		if time.Now().After(deadline) {
			t.Fatalf("the writer wrote %d of %d records in 20s", l.Stats().Written, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func fileLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func putLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func newKey(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

func verifyFile(t *testing.T, path string, key ed25519.PublicKey) *decisionlog.VerifyReport {
	t.Helper()
	files, err := decisionlog.LogFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := decisionlog.Verify(files, decisionlog.VerifyOptions{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// wantProblem fails t unless rep's problem is kind at path:line.
func wantProblem(t *testing.T, rep *decisionlog.VerifyReport, path string, line int, kind string) {
	t.Helper()
	p := rep.Problem
	if p == nil {
		t.Fatalf("verify found no problem (%+v), want %s at %s:%d", rep, kind, path, line)
	}
	if p.File != path || p.Line != line || p.Kind != kind {
		t.Fatalf("verify reports %v, want %s at %s:%d", p, kind, path, line)
	}
}

// TestEveryRecordChainsToTheLineBeforeIt: a log written through the Logger
// numbers its records 1, 2, 3..., the first chains to the genesis of its
// log id and each other's prev is the digest of the exact bytes of the line
// before it; verify reports it OK, with its counts.
func TestEveryRecordChainsToTheLineBeforeIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	lines := writeChained(t, path, 20, decisionlog.FileOptions{})
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20 records and no checkpoint (no key)", len(lines))
	}
	var id string
	for i, line := range lines {
		var r decisionlog.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			id = r.LogID
			if r.Prev != decisionlog.Genesis(id) || !strings.HasPrefix(line, `{"seq":1,"logId":"`+id+`","prev":`) {
				t.Fatalf("first line %s: want seq 1 chained to the genesis of its log id", line)
			}
		} else if want := sha([]byte(lines[i-1])); r.Prev != want || r.LogID != id {
			t.Fatalf("line %d prev %s log %s, want %s of log %s", i+1, r.Prev, r.LogID, want, id)
		}
		if r.Seq != uint64(i+1) {
			t.Fatalf("line %d has seq %d", i+1, r.Seq)
		}
	}
	rep := verifyFile(t, path, nil)
	if !rep.OK() || rep.Records != 20 || rep.FirstSeq != 1 || rep.LastSeq != 20 || len(rep.Logs) != 1 {
		t.Fatalf("report %+v, want OK, 20 records, seq 1 to 20, one log", rep)
	}
	if !hasNote(rep, "has no successor") {
		t.Errorf("notes %q: want the unchecked last line said", rep.Notes)
	}
}

func hasNote(rep *decisionlog.VerifyReport, s string) bool {
	for _, n := range rep.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// TestVerifyFindsEachTampering edits, removes, reorders, duplicates and
// truncates records of a real log (10 records, no key) and checks that
// verify reports each at the right line, with the right kind.
func TestVerifyFindsEachTampering(t *testing.T) {
	dir := t.TempDir()
	orig := writeChained(t, filepath.Join(dir, "orig.jsonl"), 10, decisionlog.FileOptions{})
	cases := []struct {
		name   string
		tamper func([]string) []string
		line   int
		kind   string
	}{
		{"edit a byte of a middle record", func(l []string) []string {
			l[4] = strings.Replace(l[4], "echo 4", "echo 5", 1)
			return l
		}, 5, decisionlog.ProblemEdited},
		{"edit a record's seq", func(l []string) []string {
			l[4] = strings.Replace(l[4], `{"seq":5,`, `{"seq":6,`, 1)
			return l
		}, 5, decisionlog.ProblemEdited},
		{"delete a record", func(l []string) []string { return append(l[:4:4], l[5:]...) }, 5, decisionlog.ProblemRemoved},
		{"delete two records", func(l []string) []string { return append(l[:4:4], l[6:]...) }, 5, decisionlog.ProblemRemoved},
		{"delete the first record", func(l []string) []string { return l[1:] }, 1, decisionlog.ProblemRemoved},
		{"swap two records", func(l []string) []string {
			l[3], l[4] = l[4], l[3]
			return l
		}, 4, decisionlog.ProblemReordered},
		{"move a record back", func(l []string) []string {
			return []string{l[0], l[1], l[5], l[2], l[3], l[4], l[6], l[7], l[8], l[9]}
		}, 3, decisionlog.ProblemReordered},
		{"duplicate a record", func(l []string) []string {
			return append(l[:5:5], append([]string{l[4]}, l[5:]...)...)
		}, 6, decisionlog.ProblemDuplicated},
		{"a record without the chain inserted", func(l []string) []string {
			return append(l[:5:5], append([]string{`{"time":"2026-01-01T00:00:00Z","event":"PreToolUse","input":null,"hooks":[],"decision":{"outcome":null}}`}, l[5:]...)...)
		}, 6, decisionlog.ProblemUnchained},
		{"edit a middle record so it is not JSON", func(l []string) []string {
			l[6] = l[6][:len(l[6])-1]
			return l
		}, 7, decisionlog.ProblemUnreadable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.jsonl")
			putLines(t, path, c.tamper(append([]string(nil), orig...)))
			wantProblem(t, verifyFile(t, path, nil), path, c.line, c.kind)
		})
	}
	t.Run("truncate the file mid-line", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "d.jsonl")
		data := strings.Join(orig[:6], "\n") + "\n" + orig[6][:40]
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		wantProblem(t, verifyFile(t, path, nil), path, 7, decisionlog.ProblemTruncated)
	})
	t.Run("edit the last record, no checkpoint after it", func(t *testing.T) {
		// What the chain alone cannot see: the last line has no successor.
		// verify says so, and reports no problem.
		path := filepath.Join(t.TempDir(), "d.jsonl")
		l := append([]string(nil), orig...)
		l[9] = strings.Replace(l[9], "echo 9", "echo X", 1)
		putLines(t, path, l)
		rep := verifyFile(t, path, nil)
		if !rep.OK() || !hasNote(rep, "d.jsonl:10, seq 10) has no successor") {
			t.Fatalf("report %+v: want OK with the unchecked last line named", rep)
		}
	})
}

// signedLog writes 10 records with a checkpoint every 4 and returns the
// lines: r1-r4, cp, r5-r8, cp, r9, r10, cp (at close).
func signedLog(t *testing.T, priv ed25519.PrivateKey) []string {
	t.Helper()
	lines := writeChained(t, filepath.Join(t.TempDir(), "d.jsonl"), 10,
		decisionlog.FileOptions{Chain: decisionlog.ChainOptions{SigningKey: priv, CheckpointEvery: 4}})
	for _, i := range []int{4, 9, 12} {
		if !strings.HasPrefix(lines[i], `{"checkpoint":`) {
			t.Fatalf("line %d: %s, want a checkpoint (lines %q)", i+1, lines[i], lines)
		}
	}
	if len(lines) != 13 {
		t.Fatalf("%d lines, want 13", len(lines))
	}
	return lines
}

// rechain recomputes every record's prev and every checkpoint's digest from
// line 0 on, as someone without the key would after an edit; the
// signatures stay as they were.
func rechain(t *testing.T, lines []string) []string {
	t.Helper()
	out := make([]string, len(lines))
	prev := ""
	for i, line := range lines {
		if i > 0 {
			prev = sha([]byte(out[i-1]))
			if strings.HasPrefix(line, `{"checkpoint":`) {
				line = regexp.MustCompile(`"digest":"sha256:[0-9a-f]+"`).ReplaceAllString(line, `"digest":"`+prev+`"`)
			} else {
				line = regexp.MustCompile(`"prev":"sha256:[0-9a-f]+"`).ReplaceAllString(line, `"prev":"`+prev+`"`)
			}
		}
		out[i] = line
	}
	return out
}

// TestSignedCheckpointsCatchWhatTheChainAloneCannot: with a key, an edit of
// the last record is caught by the checkpoint after it; a rewrite that
// recomputes the whole chain after an edit is caught by the first
// checkpoint's signature after the edit (without the key, verify passes
// it: the chain alone proves nothing against whoever can rewrite it all);
// a log stripped of its checkpoints is a problem; the untouched log is OK
// with every signature checked.
func TestSignedCheckpointsCatchWhatTheChainAloneCannot(t *testing.T) {
	pub, priv := newKey(t)
	orig := signedLog(t, priv)
	check := func(t *testing.T, lines []string, key ed25519.PublicKey) (*decisionlog.VerifyReport, string) {
		path := filepath.Join(t.TempDir(), "d.jsonl")
		putLines(t, path, lines)
		return verifyFile(t, path, key), path
	}
	t.Run("untouched", func(t *testing.T) {
		rep, _ := check(t, orig, pub)
		if !rep.OK() || rep.Records != 10 || rep.Checkpoints != 3 || !rep.SignaturesChecked || len(rep.Notes) != 0 {
			t.Fatalf("report %+v, want OK: 10 records, 3 signed checkpoints, nothing unvouched", rep)
		}
	})
	t.Run("edit the last record, a checkpoint after it", func(t *testing.T) {
		l := append([]string(nil), orig...)
		l[11] = strings.Replace(l[11], "echo 9", "echo X", 1)
		rep, path := check(t, l, pub)
		wantProblem(t, rep, path, 12, decisionlog.ProblemEdited)
	})
	t.Run("recompute the chain after an edit", func(t *testing.T) {
		l := append([]string(nil), orig...)
		l[2] = strings.Replace(l[2], "echo 2", "echo X", 1)
		l = rechain(t, l)
		rep, path := check(t, l, pub)
		wantProblem(t, rep, path, 5, decisionlog.ProblemSignature)
		if rep, _ := check(t, l, nil); !rep.OK() {
			t.Fatalf("without the key: %v; the chain alone cannot see a recomputed chain", rep.Problem)
		}
	})
	t.Run("remove every checkpoint and recompute the chain", func(t *testing.T) {
		var l []string
		for _, line := range orig {
			if !strings.HasPrefix(line, `{"checkpoint":`) {
				l = append(l, line)
			}
		}
		rep, path := check(t, rechain(t, l), pub)
		wantProblem(t, rep, path, 10, decisionlog.ProblemUnsigned)
	})
	t.Run("remove the last checkpoints and recompute the chain", func(t *testing.T) {
		// more records after the last checkpoint than a checkpoint covers
		l := append(append([]string(nil), orig[:5]...), orig[5], orig[6], orig[7], orig[8], orig[10], orig[11])
		rep, path := check(t, rechain(t, l), pub)
		wantProblem(t, rep, path, 11, decisionlog.ProblemUnsigned)
	})
	t.Run("a checkpoint signed by another key", func(t *testing.T) {
		other, _ := newKey(t)
		rep, path := check(t, orig, other)
		wantProblem(t, rep, path, 5, decisionlog.ProblemSignature)
	})
	t.Run("remove a checkpoint", func(t *testing.T) {
		l := append(append([]string(nil), orig[:4]...), orig[5:]...)
		rep, path := check(t, l, pub)
		wantProblem(t, rep, path, 4, decisionlog.ProblemEdited) // r4's successor no longer names it
	})
}

// fakeClock is a clock tests move.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) add(d time.Duration) { c.ns.Add(int64(d)) }
func newClock(at time.Time) *fakeClock   { c := &fakeClock{}; c.ns.Store(at.UnixNano()); return c }
func seqs(rep *decisionlog.VerifyReport) string {
	return fmt.Sprintf("%d-%d", rep.FirstSeq, rep.LastSeq)
}

// TestRotationBySizeUnderConcurrentWritesLosesAndRepeatsNoRecord: 8
// goroutines deliver 400 records to a log rotating every few KiB; every
// record is in the files once, seq 1 to 400 in order across them (verify
// checks each line's seq and prev), and each file after the first begins
// with a continues line.
func TestRotationBySizeUnderConcurrentWritesLosesAndRepeatsNoRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	_, priv := newKey(t)
	sink, err := decisionlog.File(path, decisionlog.FileOptions{MaxBytes: 8 << 10, MaxFiles: 1000,
		Chain: decisionlog.ChainOptions{SigningKey: priv, CheckpointEvery: 7}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := decisionlog.New(decisionlog.Options{Sink: sink, Queue: 10000})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				l.Deliver(bash(fmt.Sprintf("echo %d-%d", g, i)), "PreToolUse", nil, decisionlog.Delivered{Verdict: "allow"})
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Written != 400 {
		t.Fatalf("stats %+v, want 400 written", s)
	}
	files, err := decisionlog.LogFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("%d files, want the log rotated several times", len(files))
	}
	for _, f := range files[1:] {
		if l := fileLines(t, f); !strings.HasPrefix(l[0], `{"continues":`) {
			t.Fatalf("%s begins with %s, want a continues line", f, l[0])
		}
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Size() > 8<<10 {
			t.Errorf("%s has %d bytes, over max_bytes", f, fi.Size())
		}
	}
	pub := priv.Public().(ed25519.PublicKey)
	rep, err := decisionlog.Verify(files, decisionlog.VerifyOptions{Key: pub})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Records != 400 || seqs(rep) != "1-400" || len(rep.Logs) != 1 {
		t.Fatalf("report %+v, want OK: 400 records, seq 1-400, one log", rep)
	}
	// Removing a middle file breaks the chain at the next file's first line.
	os.Remove(files[2])
	rep, _ = decisionlog.Verify(append(files[:2:2], files[3:]...), decisionlog.VerifyOptions{Key: pub})
	wantProblem(t, rep, files[3], 1, decisionlog.ProblemRemoved)
}

// TestRotationByAgeAndRemovedOldFiles: with max_age an hour, a record that
// comes an hour after the file's first goes to a fresh file (a file that
// takes no record is not rotated); when rotation removed the oldest files,
// verify starts at the first present file's continues line and says so.
func TestRotationByAgeAndRemovedOldFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	clock := newClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sink, err := decisionlog.File(path, decisionlog.FileOptions{MaxAge: time.Hour, MaxFiles: 2, Chain: decisionlog.ChainOptions{Now: clock.now}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(i int) *decisionlog.Record {
		return &decisionlog.Record{Time: clock.now(), Event: "PreToolUse", InputDigest: fmt.Sprint(i), Input: json.RawMessage(`{}`)}
	}
	n := 0
	for range 5 {
		for range 3 {
			n++
			if err := sink.Write(rec(n)); err != nil {
				t.Fatal(err)
			}
			clock.add(10 * time.Minute)
		}
		clock.add(time.Hour - 30*time.Minute + time.Second)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := decisionlog.LogFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 { // PATH.2, PATH.1, PATH: the two oldest hours removed
		t.Fatalf("files %q, want 3", files)
	}
	for _, f := range files {
		if got := len(fileLines(t, f)); got != 4 { // a continues line and 3 records
			t.Errorf("%s has %d lines, want a continues line and one hour's 3 records", f, got)
		}
	}
	rep, err := decisionlog.Verify(files, decisionlog.VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Records != 9 || seqs(rep) != "7-15" || !hasNote(rep, "start after seq 6") {
		t.Fatalf("report %+v, want OK: seq 7-15, noting the start after seq 6", rep)
	}
}

// TestReopeningALogContinuesItsChain: a sink opened on a file that holds a
// chained log (a restart) goes on with its seq and prev; one opened on an
// empty file whose PATH.1 holds the log (renamed aside) continues it after
// a continues line; two sinks open on one path at once (a reload) share
// its chain. The whole verifies as one log.
func TestReopeningALogContinuesItsChain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.jsonl")
	writeChained(t, path, 5, decisionlog.FileOptions{})
	writeChained(t, path, 5, decisionlog.FileOptions{})
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	a, err := decisionlog.File(path, decisionlog.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := decisionlog.File(path, decisionlog.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		s := a
		if i%2 == 1 {
			s = b
		}
		if err := s.Write(&decisionlog.Record{Time: time.Now(), Event: "PreToolUse", Input: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	if err := b.Write(&decisionlog.Record{Time: time.Now(), Event: "PreToolUse", Input: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	rep := verifyFile(t, path, nil)
	if !rep.OK() || rep.Records != 17 || seqs(rep) != "1-17" || len(rep.Logs) != 1 || len(rep.Files) != 2 {
		t.Fatalf("report %+v (%v), want OK: one log of 17 records in 2 files", rep, rep.Problem)
	}
}

// TestALogWrittenBeforeTheChain: records without seq are a problem
// (unchained) unless AllowUnchained, which counts them; a sink opened on
// such a file starts a new log after them.
func TestALogWrittenBeforeTheChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	old := `{"time":"2025-01-01T00:00:00Z","luahookVersion":"0.1","event":"PreToolUse","inputDigest":"","input":null,"hooks":[],"decision":{"outcome":null}}`
	putLines(t, path, []string{old, old})
	wantProblem(t, verifyFile(t, path, nil), path, 1, decisionlog.ProblemUnchained)
	writeChained(t, path, 3, decisionlog.FileOptions{})
	rep, err := decisionlog.Verify([]string{path}, decisionlog.VerifyOptions{AllowUnchained: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Unchained != 2 || rep.Records != 3 || seqs(rep) != "1-3" {
		t.Fatalf("report %+v, want OK: 2 unchained records, then seq 1-3", rep)
	}
}

// TestKeysLoadFromPEM: a PKCS #8 private key and a PKIX public key load;
// a private key others can read is refused.
func TestKeysLoadFromPEM(t *testing.T) {
	dir := t.TempDir()
	pub, priv := newKey(t)
	privPath, pubPath := writeKeys(t, dir, pub, priv)
	k, err := decisionlog.LoadSigningKey(privPath)
	if err != nil || !k.Equal(priv) {
		t.Fatalf("LoadSigningKey: %v", err)
	}
	p, err := decisionlog.LoadPublicKey(pubPath)
	if err != nil || !p.Equal(pub) {
		t.Fatalf("LoadPublicKey: %v", err)
	}
	os.Chmod(privPath, 0o644)
	if _, err := decisionlog.LoadSigningKey(privPath); err == nil || !strings.Contains(err.Error(), "lets others read it") {
		t.Fatalf("a readable private key: %v, want refused", err)
	}
	if _, err := decisionlog.LoadPublicKey(privPath); err == nil || !strings.Contains(err.Error(), `not a PEM "PUBLIC KEY"`) {
		t.Fatalf("a private key as the public one: %v, want refused", err)
	}
}
