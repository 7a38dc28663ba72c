//go:build conformance

package conformance

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/creack/pty"
)

// screen is what an agent's interactive mode wrote to its terminal (a real
// pty), its escape sequences and every blank taken out: a full-screen
// program places its words with cursor moves, not spaces.
type screen struct {
	mu   sync.Mutex
	text bytes.Buffer
	done chan struct{}
}

// escapes are the terminal's control sequences: CSI, OSC (ended by BEL or
// ST), and two-byte escapes.
var escapes = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]`)

func readScreen(f *os.File) *screen {
	s := &screen{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		var raw []byte
		b := make([]byte, 32<<10)
		for {
			n, err := f.Read(b)
			raw = append(raw, b[:n]...)
			s.mu.Lock()
			s.text.Reset()
			s.text.WriteString(squeeze(escapes.ReplaceAllString(string(raw), "")))
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// squeeze takes every blank out of s.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// waitFor waits until the screen shows every one of texts (compared
// without blanks), the program ends, or two minutes pass: it reports
// whether it saw them all.
func (s *screen) waitFor(texts ...string) bool {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		got := s.text.String()
		s.mu.Unlock()
		all := true
		for _, text := range texts {
			all = all && strings.Contains(got, squeeze(text))
		}
		if all {
			return true
		}
		select {
		case <-s.done:
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
	return false
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.String()
}

// interactive is one agent's interactive mode, started in a real pty on a
// prompt, asking a fake model for call: its program, and what its own
// permission prompt says.
type interactive struct {
	name, pkg, version string
	call               func(marker string) toolCall
	// start returns the agent's command, the model started; the project
	// is installed and trusted.
	start func(t *testing.T, p *project, call toolCall, prompt string) *exec.Cmd
	// asks is what the agent's own permission prompt shows, whatever the
	// call.
	asks string
	// trust is the question the agent asks first in a folder it does not
	// know, answered yes; "" when it asks none.
	trust string
	// seen is what the table says the agent did.
	seen string
}

// ownPrompt is what the table says of an agent that asks about the
// rewritten call itself.
const ownPrompt = "its own prompt, with the reason and the rewritten call; yes runs the rewrite"

var interactives = []interactive{
	{"claude", "@anthropic-ai/claude-code", claudeNew, markerCall, func(t *testing.T, p *project, call toolCall, prompt string) *exec.Cmd {
		model := startFakeModel(t, call)
		// The first run's questions (its theme, the API key, trusting the
		// folder) answered beforehand, as for a user who has run it before.
		state := `{"hasCompletedOnboarding":true,"theme":"dark","customApiKeyResponses":{"approved":["sk-conformance"],"rejected":[]},` +
			`"projects":{"` + p.dir + `":{"hasTrustDialogAccepted":true,"allowedTools":[]}}}`
		if err := os.WriteFile(filepath.Join(p.home, ".claude.json"), []byte(state), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(agentBin(t, "@anthropic-ai/claude-code", claudeNew, "claude"), prompt)
		cmd.Env = p.env("ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-conformance",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
		return cmd
	}, "Do you want to proceed?", "", ownPrompt},
	{"gemini", geminiPkg, geminiVersion, shellCall, func(t *testing.T, p *project, call toolCall, prompt string) *exec.Cmd {
		model := startFakeGemini(t, call)
		p.geminiHome(t)
		cmd := exec.Command(agentBin(t, geminiPkg, geminiVersion, "gemini"), "-i", prompt)
		cmd.Env = p.env("GEMINI_API_KEY=conformance", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_NO_RELAUNCH=true")
		return cmd
	}, "Allow execution of", "", ownPrompt},
	// Copilot CLI would ask about the original call: the call is blocked
	// with the rewritten one, which the model (doing as it is told) makes,
	// and Copilot asks about that one as it is.
	{"copilot", copilotPkg, copilotVersion, copilotCall, func(t *testing.T, p *project, call toolCall, prompt string) *exec.Cmd {
		rewritten := toolCall{Name: call.Name, Input: maps.Clone(call.Input)}
		rewritten.Input["command"] = strings.Replace(call.Input["command"].(string), "original", "rewritten", 1)
		model := startFakeCompletionsOf(t, call, rewritten)
		cmd := exec.Command(agentBin(t, copilotPkg, copilotVersion, "copilot"), "-i", prompt, "--no-auto-update")
		cmd.Env = p.env("COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+model.URL,
			"COPILOT_PROVIDER_API_KEY=conformance", "COPILOT_MODEL=fake-model")
		return cmd
	}, "Do you want to allow this tool call?", "Do you trust the files in this folder?",
		"blocked, with the rewritten call for the model to make; its own prompt for that call, with the reason; yes runs it"},
}

// A policy's ask of a rewritten call, in each agent's interactive mode,
// is the agent's own permission prompt: it shows the rewritten command
// and the ask's reason, nothing runs while it waits, and the user's yes
// (its first choice) runs the rewritten command, never the original.
func TestEveryAgentsAskIsItsOwnPromptInInteractiveMode(t *testing.T) {
	for _, a := range interactives {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"10-rewrite.lua": rewritePolicy, "20-ask.lua": askPolicy})
			p.luahook(t, "install", a.name, "--project")
			p.luahook(t, "trust")
			dir := t.TempDir()
			cmd := a.start(t, p, rewriteCall(a.call, dir), "create the file")
			cmd.Dir = p.dir
			cmd.Env = append(cmd.Env, "TERM=xterm-256color")
			f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// The pty's session leader and everything it started (Copilot's
			// npm program runs a native one that writes under the home).
			defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
			scr := readScreen(f)
			if a.trust != "" {
				if !scr.waitFor(a.trust) {
					t.Fatalf("%s never asked %q; its screen:\n%s", a.name, a.trust, scr)
				}
				if _, err := f.Write([]byte("\r")); err != nil { // yes
					t.Fatal(err)
				}
			}
			if !scr.waitFor(a.asks, "conformance: confirm 33aa", "touch "+filepath.Join(dir, "rewritten")) {
				t.Fatalf("%s never showed its own prompt with the ask's reason and the rewritten command; its screen:\n%s", a.name, scr)
			}
			for _, name := range []string{"original", "rewritten"} {
				if ran(dir, name) {
					t.Fatalf("the %s command ran before anyone answered", name)
				}
			}
			if _, err := f.Write([]byte("\r")); err != nil { // the first choice: yes
				t.Fatal(err)
			}
			deadline := time.Now().Add(2 * time.Minute)
			for !ran(dir, "rewritten") && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if !ran(dir, "rewritten") {
				t.Fatalf("the user's yes did not run the rewritten command; %s's screen:\n%s", a.name, scr)
			}
			if ran(dir, "original") {
				t.Fatalf("the original command ran")
			}
			observe(a.pkg, a.version, checkAskInteractive, a.seen)
		})
	}
}
