//go:build conformance

package conformance

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// wiringOutcome is what an agent does with a prompt whose hooks get no
// answer from luahook, as the results table says it.
type wiringOutcome string

const (
	// promptBlocked: no conversation request reaches the model.
	promptBlocked wiringOutcome = "yes"
	// callBlocked: the prompt goes on, but the shell call does not run.
	callBlocked wiringOutcome = "no: the call is blocked"
	// wentOn: the prompt goes on and the shell call runs.
	wentOn wiringOutcome = "no: the call runs"
)

// wiringAgent is what the wirings' tests know of an agent of agentCases:
// the release the suite runs, and what that release does with a prompt
// whose hooks get no answer: with luahook missing from PATH, with
// install --http and no server, with install --socket and no server.
type wiringAgent struct {
	pkg, version                  string
	missing, httpDown, socketDown wiringOutcome
}

// wiringAgents holds every agent of agentCases by name.
var wiringAgents = map[string]wiringAgent{
	"claude": {"@anthropic-ai/claude-code", claudeNew, promptBlocked, promptBlocked, promptBlocked},
	"gemini": {"@google/gemini-cli", geminiVersion, promptBlocked, promptBlocked, promptBlocked},
	// Codex goes on when its hook program cannot start, but luahook fire
	// --http and luahook-fire start, and answer a block themselves.
	"codex": {"@openai/codex", codexVersion, wentOn, promptBlocked, promptBlocked},
	// Copilot CLI lets a prompt whose hook cannot start through, but
	// denies a tool call whose preToolUse hook cannot start.
	"copilot": {copilotPkg, copilotVersion, callBlocked, promptBlocked, promptBlocked},
}

// wiringOf is a's entry in wiringAgents; an agent without one fails the
// test, naming what to add.
func wiringOf(t *testing.T, a agentCase) wiringAgent {
	t.Helper()
	w, ok := wiringAgents[a.name]
	if !ok {
		t.Fatalf("agent %q of agentCases has no entry in wiringAgents (wirings_test.go): add its npm package, its release, and what it does with the prompt with luahook missing from PATH and with serve down over --http and --socket", a.name)
	}
	return w
}

// luahookFireBin is luahook-fire, next to luahookBin, where the hooks
// install --socket writes look for it.
var luahookFireBin = buildOnce("luahook-fire")

// served is a luahook serve the test started in a project: where it
// listens, and what it wrote on standard output (its decision log).
type served struct {
	addr string // http://HOST:PORT, or unix:PATH

	mu  sync.Mutex
	out bytes.Buffer
}

// wrote reports whether serve wrote text on standard output.
func (s *served) wrote(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Contains(s.out.Bytes(), []byte(text))
}

// output is all serve wrote on standard output so far.
func (s *served) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// serve starts luahook serve with args in the project, as a user would
// there (so it runs the project's trusted hooks.d), until the test ends;
// it returns once serve said where it listens.
func (p *project) serve(t *testing.T, args ...string) *served {
	t.Helper()
	cmd := exec.Command(luahookBin(t), append([]string{"serve"}, args...)...)
	cmd.Dir, cmd.Env = p.dir, p.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{}
	listening := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.out.WriteString(line + "\n")
			s.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "luahook serve: listening on "); ok {
				select {
				case listening <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		stop := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		<-done
		cmd.Wait()
		stop.Stop()
	})
	select {
	case s.addr = <-listening:
	case <-done:
		cmd.Wait()
		t.Fatalf("luahook serve %s ended before it listened:\n%s%s", strings.Join(args, " "), s.output(), stderr.String())
	case <-time.After(time.Minute):
		t.Fatalf("luahook serve %s did not say where it listens in a minute:\n%s", strings.Join(args, " "), s.output())
	}
	return s
}

// socketPath is a path for a Unix socket in a folder of the test's own,
// short enough for the kernel's limit on a socket's path (108 bytes),
// which the test's temporary folder may pass.
func socketPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "luahook.sock")
}

// closedPort is the URL of a port on 127.0.0.1 that nothing listens on:
// one the kernel picked as free, closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// A deny from the policies of a running luahook serve, asked by the
// hooks install --http or --socket wrote: the call never runs, the model
// receives the policy's reason, and it is serve that decided (its
// decision log holds the reason).
func TestEveryAgentKeepsADeniedCallFromRunningThroughServe(t *testing.T) {
	luahookFireBin(t)
	wirings := []struct {
		name string
		c    check
		// start starts serve in the project and returns install's flags.
		start func(t *testing.T, p *project) (*served, []string)
	}{
		{"http", checkHTTPDeny, func(t *testing.T, p *project) (*served, []string) {
			// On loopback, serve needs no token (it warns), and the hooks
			// send none: no LUAHOOK_TOKEN is set.
			s := p.serve(t, "--addr", "127.0.0.1:0")
			return s, []string{"--http", s.addr}
		}},
		{"socket", checkSocketDeny, func(t *testing.T, p *project) (*served, []string) {
			path := socketPath(t)
			s := p.serve(t, "--addr", "off", "--socket", path)
			return s, []string{"--socket", path}
		}},
	}
	for _, a := range agentCases {
		for _, wiring := range wirings {
			t.Run(a.name+"/"+wiring.name, func(t *testing.T) {
				w := wiringOf(t, a)
				p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
				p.luahook(t, "trust")
				s, flags := wiring.start(t, p)
				p.luahook(t, append([]string{"install", a.name, "--project"}, flags...)...)
				marker := filepath.Join(t.TempDir(), "marker")
				model, out, err := a.run(t, p, a.call(marker), "create the marker")
				if err != nil {
					t.Fatalf("%s: %v\n%s", a.name, err, out)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("the denied call ran: the marker exists; %s said:\n%s", a.name, out)
				}
				if !model.received("conformance: no markers here") {
					t.Fatalf("the model never received the policy's reason; %s said:\n%s", a.name, out)
				}
				if !s.wrote("conformance: no markers here") {
					t.Fatalf("serve's decision log does not hold the deny: serve did not decide it; serve wrote:\n%s", s.output())
				}
				observe(w.pkg, w.version, wiring.c, "yes")
			})
		}
	}
}

// With the hooks install --http or --socket wrote and no server there,
// the prompt is blocked: no conversation request reaches the model, and no
// call runs. luahook fire --http and luahook-fire answer a block when they
// cannot reach the server, so even an agent that goes on when its hook
// program fails (Codex) gets a block here; an agent that does otherwise
// is held to what wiringAgents says it does.
func TestEveryAgentBlocksThePromptWithServeDown(t *testing.T) {
	luahookFireBin(t)
	wirings := []struct {
		name  string
		c     check
		want  func(w wiringAgent) wiringOutcome
		flags func(t *testing.T) []string
	}{
		{"http", checkHTTPDown, func(w wiringAgent) wiringOutcome { return w.httpDown },
			func(t *testing.T) []string { return []string{"--http", closedPort(t)} }},
		{"socket", checkSocketDown, func(w wiringAgent) wiringOutcome { return w.socketDown },
			func(t *testing.T) []string { return []string{"--socket", socketPath(t)} }},
	}
	for _, a := range agentCases {
		for _, wiring := range wirings {
			t.Run(a.name+"/"+wiring.name, func(t *testing.T) {
				w := wiringOf(t, a)
				p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
				p.luahook(t, append([]string{"install", a.name, "--project"}, wiring.flags(t)...)...)
				marker := filepath.Join(t.TempDir(), "marker")
				model, out, _ := a.run(t, p, a.call(marker), "create the marker")
				observe(w.pkg, w.version, wiring.c, string(outcomeAsExpected(t, a, wiring.want(w), model, marker, out)))
			})
		}
	}
}

// With luahook missing from PATH, the hooks install wrote cannot start,
// and an agent that takes a hook that fails for a block (Claude Code
// through onFailure "block", Gemini CLI) blocks the prompt. Codex is known
// to go on: each agent is held to what wiringAgents says it does.
func TestEveryAgentBlocksThePromptWithoutLuahook(t *testing.T) {
	for _, a := range agentCases {
		t.Run(a.name, func(t *testing.T) {
			w := wiringOf(t, a)
			p := newProject(t, map[string]string{"10-marker.lua": markerPolicy})
			p.luahook(t, "install", a.name, "--project")
			p.luahook(t, "trust")
			p.path = strings.Join(withoutDir(filepath.SplitList(p.path), filepath.Dir(luahookBin(t))), string(os.PathListSeparator))
			for _, dir := range filepath.SplitList(p.path) {
				if fi, err := os.Stat(filepath.Join(dir, "luahook")); err == nil && !fi.IsDir() {
					t.Fatalf("there is a luahook on PATH besides the one built for the test, in %s: the test needs a PATH without luahook", dir)
				}
			}
			marker := filepath.Join(t.TempDir(), "marker")
			model, out, _ := a.run(t, p, a.call(marker), "create the marker")
			observe(w.pkg, w.version, checkMissingLuahook, string(outcomeAsExpected(t, a, w.missing, model, marker, out)))
		})
	}
}

// outcomeAsExpected asserts that a's run did want with its prompt, its
// hooks getting no answer from luahook, and returns it.
func outcomeAsExpected(t *testing.T, a agentCase, want wiringOutcome, model fake, marker, out string) wiringOutcome {
	t.Helper()
	n := model.conversation()
	_, err := os.Stat(marker)
	ran := err == nil
	var got wiringOutcome
	switch {
	case n == 0 && !ran:
		got = promptBlocked
	case n > 0 && !ran:
		got = callBlocked
	case n > 0 && ran:
		got = wentOn
	default:
		t.Fatalf("the call ran although no conversation request reached the model; %s said:\n%s", a.name, out)
	}
	if got != want {
		t.Fatalf("%s did %q (%d conversation requests reached the model; the call ran: %v), where wiringAgents says %q; %s said:\n%s", a.name, got, n, ran, want, a.name, out)
	}
	return got
}
