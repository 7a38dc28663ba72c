package parity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/trust"
)

// door is one way luahook can be asked.
type door struct {
	name string
	// claude: the door takes Claude Code's payload, else luahook's.
	claude    bool
	ask       func(ctx context.Context, s *site, payload []byte) answer
	normalise func(answer) verdict
}

var doors = []door{
	{name: "fire", ask: askFire, normalise: normalisePlainFire},
	{name: "fire --agent claude", claude: true, ask: askFireClaude, normalise: normaliseClaudeCommand},
	{name: "serve POST /", ask: askServePlain, normalise: normalisePlainHTTP},
	{name: "serve POST /agent/claude", claude: true, ask: askServeClaude, normalise: normaliseClaudeHTTP},
	{name: "luahook-fire --socket", claude: true, ask: askSocket, normalise: normaliseClaudeCommand},
	{name: "Go host", ask: askGoHost, normalise: normaliseGoHost},
}

// The binaries, built once per test run (build).
var bins struct {
	once    sync.Once
	dir     string
	luahook string // cmd/luahook
	fire    string // cmd/luahook-fire, next to luahook, which it hands over to
	err     error
}

// build builds luahook and luahook-fire into one folder, once.
func build(t *testing.T) {
	t.Helper()
	bins.once.Do(func() {
		dir, err := os.MkdirTemp("", "luahook-parity-bin-")
		if err != nil {
			bins.err = err
			return
		}
		bins.dir = dir
		cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator),
			"github.com/luahook/luahook/cmd/luahook", "github.com/luahook/luahook/cmd/luahook-fire")
		if out, err := cmd.CombinedOutput(); err != nil {
			bins.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		bins.luahook, bins.fire = filepath.Join(dir, "luahook"), filepath.Join(dir, "luahook-fire")
	})
	if bins.err != nil {
		t.Fatal(bins.err)
	}
}

// site is a setup made real: its folder, the environment its processes
// run with, its serve and its Go host's engine.
type site struct {
	setup
	folder string   // the fixture's folder, every process's current folder
	env    []string // the environment of every process
	global []string // the global flags naming the hooks folder (none for a project)

	baseURL     string // serve's http://127.0.0.1:PORT
	socket      string // serve's Unix socket
	serveFailed string // why serve is not answering ("" when it is)

	eng       *engine.Engine
	engFailed string // why the Go host has no engine
}

// prepare lays out st in a folder of its own, opens the Go host's engine
// on it and starts its serve; both are closed when t ends.
func prepare(t *testing.T, st setup) *site {
	t.Helper()
	root := t.TempDir()
	s := &site{setup: st, folder: filepath.Join(root, st.name)}
	home := filepath.Join(root, "home")
	hooks := filepath.Join(s.folder, "hooks.d")
	for _, d := range []string{home, hooks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range st.files {
		copyFile(t, filepath.Join("testdata", "policies", f.from), filepath.Join(hooks, f.as))
	}
	if st.project {
		copyFile(t, filepath.Join("testdata", "luahook.toml"), filepath.Join(s.folder, "luahook.toml"))
	} else {
		s.global = []string{"--dir", hooks}
	}
	s.env = processEnv(home)

	eng, err := openGoHost(context.Background(), s)
	if err != nil {
		s.engFailed = "engine.Open: " + err.Error()
	} else {
		s.eng = eng
		t.Cleanup(func() { eng.Close() })
	}
	startServe(t, s)
	return s
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// processEnv is the test's environment with home as HOME, and without
// luahook's own variables and the XDG folders, which would point the
// processes at other hooks, configs, caches or trust records.
func processEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "LUAHOOK") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home)
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var (
	httpLine = regexp.MustCompile(`listening on (http://\S+)`)
	unixLine = regexp.MustCompile(`listening on unix:(\S+)`)
)

// startServe runs luahook serve for s on a free loopback port (port 0: serve
// prints the address) and on a Unix socket, the decision log off, and waits
// until it is listening on both and answers /healthz. A serve that exits
// instead leaves the reason in s.serveFailed: its doors answer nothing.
func startServe(t *testing.T, s *site) {
	t.Helper()
	// A short folder of its own: a socket's path is limited to 108 bytes.
	sockDir, err := os.MkdirTemp("", "lhp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	s.socket = filepath.Join(sockDir, "serve.sock")
	args := append(slices.Clone(s.global), "serve", "--addr", "127.0.0.1:0", "--socket", s.socket, "--decision-log", "off")
	cmd := exec.Command(bins.luahook, args...)
	cmd.Dir, cmd.Env = s.folder, s.env
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		out := stdout.String()
		h, u := httpLine.FindStringSubmatch(out), unixLine.FindStringSubmatch(out)
		if h != nil && u != nil {
			s.baseURL = h[1]
			break
		}
		select {
		case <-exited:
			s.serveFailed = fmt.Sprintf("serve exited before it listened (%v): %s", waitErr, strings.TrimSpace(stderr.String()))
			return
		case <-deadline.C:
			t.Fatalf("setup %s: serve did not listen within 30s; stdout %q, stderr %q", s.name, out, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	for {
		resp, err := httpClient.Get(s.baseURL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			s.serveFailed = fmt.Sprintf("serve exited before /healthz answered (%v): %s", waitErr, strings.TrimSpace(stderr.String()))
			return
		case <-deadline.C:
			t.Fatalf("setup %s: serve's /healthz did not answer 200 within 30s (%v)", s.name, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

var httpClient = &http.Client{Timeout: 60 * time.Second}

// run runs bin with args in s's folder and environment, payload on its
// standard input.
func run(ctx context.Context, s *site, bin string, args []string, payload []byte) answer {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = s.folder, s.env
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	a := answer{exit: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		a.failed = err.Error()
	}
	if ctx.Err() != nil {
		a.failed = "killed: " + ctx.Err().Error()
	}
	return a
}

// askFire is door 1: luahook fire, luahook's payload on standard input. The
// payload names its event, as POST / reads it: no EVENT on the command line.
func askFire(ctx context.Context, s *site, payload []byte) answer {
	return run(ctx, s, bins.luahook, append(slices.Clone(s.global), "fire"), payload)
}

// askFireClaude is door 2: luahook fire --agent claude, the command line
// luahook install claude writes, with Claude Code's payload.
func askFireClaude(ctx context.Context, s *site, payload []byte) answer {
	return run(ctx, s, bins.luahook, append(slices.Clone(s.global), "fire", "--agent", "claude"), payload)
}

// askSocket is door 4: luahook-fire --agent claude --socket PATH, the
// command line luahook install claude --socket writes, asking s's serve.
func askSocket(ctx context.Context, s *site, payload []byte) answer {
	return run(ctx, s, bins.fire, []string{"--agent", "claude", "--socket", s.socket}, payload)
}

// post sends payload to s's serve at path.
func post(ctx context.Context, s *site, path string, payload []byte) answer {
	a := answer{exit: -1}
	if s.serveFailed != "" {
		a.failed = s.serveFailed
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.baseURL+path, bytes.NewReader(payload))
	if err != nil {
		a.failed = err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		a.failed = err.Error()
		return a
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		a.failed = "reading the body: " + err.Error()
	}
	a.status, a.stdout, a.exitHdr = resp.StatusCode, string(body), resp.Header.Get("Luahook-Exit-Code")
	return a
}

// askServePlain is door 3a: serve's POST /, luahook's payload.
func askServePlain(ctx context.Context, s *site, payload []byte) answer {
	return post(ctx, s, "/", payload)
}

// askServeClaude is door 3b: serve's POST /agent/claude, Claude Code's
// payload, as Claude Code's HTTP hook sends it.
func askServeClaude(ctx context.Context, s *site, payload []byte) answer {
	return post(ctx, s, "/agent/claude", payload)
}

// openGoHost opens the Go host's engine on s: its hooks folder, or for a
// project the folder's luahook.toml (whose hooks_dir is its hooks.d), as a
// host given that folder would; a project's files checked against the
// operator's trust records (engine.Options.Trust).
func openGoHost(ctx context.Context, s *site) (*engine.Engine, error) {
	opts := engine.Options{Dir: filepath.Join(s.folder, "hooks.d"), NoWatch: true}
	if s.project {
		// A host that runs a repository's own policies checks each file
		// against the operator's trust records, as luahook does: here a
		// store that holds no record for the folder.
		records := &trust.Store{Dir: filepath.Join(filepath.Dir(s.folder), "trust-records")}
		opts = engine.Options{ConfigPath: filepath.Join(s.folder, "luahook.toml"), NoWatch: true, PartialConfig: true,
			Trust: records.Files(s.folder)}
	}
	return engine.Open(ctx, opts)
}

// askGoHost is door 5: a Go host with s's engine, deciding payload.
func askGoHost(ctx context.Context, s *site, payload []byte) answer {
	a := answer{exit: -1}
	if s.eng == nil {
		a.failed = s.engFailed
		return a
	}
	res, err := goHostDecide(ctx, s.eng, payload)
	if err != nil {
		a.failed = err.Error()
		return a
	}
	a.result = &res
	summary := res
	summary.Trace = nil
	if b, err := summary.MarshalJSON(); err == nil {
		a.stdout = string(b)
	}
	return a
}

// goHostDecide is how a Go host decides a payload in luahook's own format:
// eng.DecidePayload (strict decoding, an undecodable payload of an event
// that can block denied, the engine's fail-closed state applied).
func goHostDecide(ctx context.Context, eng *engine.Engine, payload []byte) (engine.Result, error) {
	return eng.DecidePayload(ctx, payload)
}
