package bench

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// oneShotPayload is what an agent's PreToolUse command hook receives: a
// shell command the shipped policies read and allow.
const oneShotPayload = `{"event":"PreToolUse","toolName":"Bash","toolInput":{"command":"ls -la src"}}`

// oneShotClaudePayload is the same call as Claude Code sends it, for
// luahook-fire, which speaks the agents' protocols only.
const oneShotClaudePayload = `{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la src"}}`

// minimalHook is the floor a one-shot Go command hook cannot go under: a
// binary that reads the payload from standard input and writes one JSON line.
const minimalHook = `package main

import (
	"encoding/json"
	"os"
)

func main() {
	var in map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]string{"action": "allow"})
}
`

// BenchmarkOneShotFire measures `luahook fire` as an agent runs it, one
// process per payload, against the floors of a command hook: /bin/true and
// a minimal Go binary that reads the payload and writes one JSON line; and
// luahook-fire, the same command hook asking a resident `luahook serve
// --socket` on the same hooks. Each iteration runs the commands once, in a
// rotating order, so that every figure is taken under the same load; the
// metrics are the medians of the wall times (ms) and the ratios of those
// medians.
func BenchmarkOneShotFire(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("needs the go command to build luahook")
	}
	dir := b.TempDir()
	luahook := filepath.Join(dir, "luahook")
	// Built as the README installs it: a static binary (CGO_ENABLED=0).
	build := exec.Command("go", "build", "-o", dir, "github.com/luahook/luahook/cmd/luahook", "github.com/luahook/luahook/cmd/luahook-fire")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build luahook: %v\n%s", err, out)
	}
	src := filepath.Join(dir, "minimal")
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module minimal\n\ngo 1.22\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(minimalHook), 0o644); err != nil {
		b.Fatal(err)
	}
	minimal := filepath.Join(dir, "minimal-hook")
	build = exec.Command("go", "build", "-o", minimal, ".")
	build.Dir, build.Env = src, append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build the minimal hook: %v\n%s", err, out)
	}
	shipped, err := filepath.Abs("../../hooks.d")
	if err != nil {
		b.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		b.Fatal(err)
	}
	// fire runs as installed: with its compiled-chunk cache (a folder of
	// the benchmark's own, warmed by one fire before the rounds);
	// fire-nocache compiles every file, as the first fire after a change.
	cache := "LUAHOOK_CACHE_DIR=" + filepath.Join(dir, "chunks")
	socket := filepath.Join(dir, "run", "luahook.sock")
	payload, claude := []byte(oneShotPayload), []byte(oneShotClaudePayload)
	cmds := []struct {
		metric  string
		argv    []string
		env     string
		payload []byte
	}{
		{"true-ms", []string{"/bin/true"}, "", payload},
		{"gobin-ms", []string{minimal}, "", payload},
		{"fire-ms", []string{luahook, "--dir", shipped, "fire", "PreToolUse"}, cache, payload},
		{"fire-empty-ms", []string{luahook, "--dir", empty, "fire", "PreToolUse"}, cache, payload},
		{"fire-nocache-ms", []string{luahook, "--dir", shipped, "fire", "PreToolUse"}, "LUAHOOK_CACHE_DIR=off", payload},
		{"shim-ms", []string{luahook + "-fire", "--socket", socket, "--agent", "claude", "PreToolUse"}, "", claude},
	}
	warm := exec.Command(luahook, "--dir", shipped, "fire", "PreToolUse")
	warm.Dir, warm.Stdin, warm.Env = dir, bytes.NewReader(payload), append(os.Environ(), cache)
	if out, err := warm.CombinedOutput(); err != nil {
		b.Fatalf("first fire: %v\n%s", err, out)
	}
	stop := startSocketServe(b, luahook, shipped, socket)
	defer stop()
	// luahook-fire answers what luahook fire --agent claude answers, from
	// the server: an answer it could not get would be luahook's own (the
	// hand-over), and the figure would not be luahook-fire's.
	want := exec.Command(luahook, "--dir", shipped, "fire", "--agent", "claude", "PreToolUse")
	want.Dir, want.Stdin, want.Env = dir, bytes.NewReader(claude), append(os.Environ(), cache)
	wantOut, err := want.Output()
	if err != nil {
		b.Fatalf("luahook fire --agent claude: %v", err)
	}
	// A copy of luahook-fire alone in a folder, with an empty PATH, has no
	// luahook to hand the call to: its answer is the server's or a block.
	alone := filepath.Join(dir, "alone")
	if err := os.Mkdir(alone, 0o755); err != nil {
		b.Fatal(err)
	}
	shim, err := os.ReadFile(luahook + "-fire")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(alone, "luahook-fire"), shim, 0o755); err != nil {
		b.Fatal(err)
	}
	got := exec.Command(filepath.Join(alone, "luahook-fire"), "--socket", socket, "--agent", "claude", "PreToolUse")
	got.Dir, got.Stdin, got.Env = dir, bytes.NewReader(claude), []string{"PATH="}
	gotOut, err := got.Output()
	if err != nil || !bytes.Equal(gotOut, wantOut) {
		b.Fatalf("luahook-fire answered %q (%v), luahook fire %q", gotOut, err, wantOut)
	}
	b.Run("shipped", func(b *testing.B) {
		times := make([][]float64, len(cmds))
		i := 0
		for b.Loop() {
			for k := range cmds {
				c := cmds[(i+k)%len(cmds)]
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Dir, cmd.Stdin = dir, bytes.NewReader(c.payload)
				if c.env != "" {
					cmd.Env = append(os.Environ(), c.env)
				}
				start := time.Now()
				out, err := cmd.Output()
				d := time.Since(start)
				if err != nil {
					b.Fatalf("%v: %v\n%s", c.argv, err, out)
				}
				times[(i+k)%len(cmds)] = append(times[(i+k)%len(cmds)], float64(d)/1e6)
			}
			i++
		}
		med := make([]float64, len(cmds))
		for k, c := range cmds {
			med[k] = oneShotMedian(times[k])
			b.ReportMetric(med[k], c.metric)
		}
		b.ReportMetric(med[2]/med[0], "fire/true")
		b.ReportMetric(med[2]/med[1], "fire/gobin")
		b.ReportMetric(med[3]/med[0], "fire-empty/true")
		b.ReportMetric(med[4]/med[0], "fire-nocache/true")
		b.ReportMetric(med[5]/med[0], "shim/true")
		b.ReportMetric(med[5]/med[1], "shim/gobin")
	})
}

// startSocketServe starts `luahook serve --addr off --socket socket` on dir
// and returns once it listens; stop ends it.
func startSocketServe(b *testing.B, luahook, dir, socket string) (stop func()) {
	cmd := exec.Command(luahook, "--dir", dir, "serve", "--addr", "off", "--socket", socket, "--decision-log", "off")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case line <- sc.Text():
			default:
			}
		}
	}()
	select {
	case l := <-line:
		if !strings.Contains(l, "listening on unix:") {
			stop()
			b.Fatalf("luahook serve said %q", l)
		}
	case <-time.After(30 * time.Second):
		stop()
		b.Fatal("luahook serve --socket did not start within 30 s")
	}
	return stop
}

func oneShotMedian(vs []float64) float64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	if len(vs) == 0 {
		return 0
	}
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}
