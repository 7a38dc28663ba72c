//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/agent"
)

// The file tools' runs: the fake model asks for a write of writtenText to
// writtenName in the project, or a read of secretName, which holds
// secretToken; filePolicy denies both by capability.
const (
	writtenName = "written.txt"
	writtenText = "conformance: written 1f2e"
	secretName  = "secret.txt"
	secretToken = "conformance-secret-5e9b71"
	writeDenied = "conformance: no writes here 4b1e"
	readDenied  = "conformance: no reading secrets 8c2d"
)

// filePolicy denies a file write that names writtenName and a file read
// that names secretName, whatever the agent calls its file tools and
// their arguments: the tools by capability, the file by any string of
// the tool's input (Codex's apply_patch names it inside the patch).
const filePolicy = `hook.register("PreToolUse", "@fs.write", function(input)
  if re.match_any("written[.]txt", input.toolInput) then return hook.deny("` + writeDenied + `") end
end)
hook.register("PreToolUse", "@fs.read", function(input)
  if re.match_any("secret[.]txt", input.toolInput) then return hook.deny("` + readDenied + `") end
end)
`

// fileAgent is one agent's file tools, as its requests offer them to the
// model (the names in writeTool and readTool) and as the fake model calls
// them.
type fileAgent struct {
	name, pkg, version string
	writeTool          string
	// readTool is "" for an agent that offers no tool reading files.
	readTool string
	// write runs a prompt in the project against a fake model that asks
	// for the agent's call writing text to path; read (nil without
	// readTool), for its call reading path.
	write func(t *testing.T, p *project, path, text string) (*recorder, string, error)
	read  func(t *testing.T, p *project, path string) (*recorder, string, error)
	// shellWrite, where the agent has one, runs a prompt whose call makes
	// the same write through the agent's shell tool in a form the agent
	// itself treats as a file edit.
	shellWrite func(t *testing.T, p *project, path, text string) (*recorder, string, error)
}

var fileAgents = []fileAgent{
	{name: "claude", pkg: "@anthropic-ai/claude-code", version: claudeNew, writeTool: "Write", readTool: "Read",
		write: func(t *testing.T, p *project, path, text string) (*recorder, string, error) {
			m := startFakeModel(t, toolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": text}})
			out, err := p.claudeFiles(t, m, "write the file")
			return &m.recorder, out, err
		},
		read: func(t *testing.T, p *project, path string) (*recorder, string, error) {
			m := startFakeModel(t, toolCall{Name: "Read", Input: map[string]any{"file_path": path}})
			out, err := p.claudeFiles(t, m, "read the file")
			return &m.recorder, out, err
		}},
	{name: "gemini", pkg: geminiPkg, version: geminiVersion, writeTool: "write_file", readTool: "read_file",
		write: func(t *testing.T, p *project, path, text string) (*recorder, string, error) {
			m := startFakeGemini(t, toolCall{Name: "write_file", Input: map[string]any{"file_path": path, "content": text}})
			out, err := p.gemini(t, m, "write the file")
			return &m.recorder, out, err
		},
		read: func(t *testing.T, p *project, path string) (*recorder, string, error) {
			m := startFakeGemini(t, toolCall{Name: "read_file", Input: map[string]any{"file_path": path}})
			out, err := p.gemini(t, m, "read the file")
			return &m.recorder, out, err
		}},
	// Copilot CLI offers create (path, file_text) and view (path), both
	// with absolute paths.
	{name: "copilot", pkg: copilotPkg, version: copilotVersion, writeTool: "create", readTool: "view",
		write: func(t *testing.T, p *project, path, text string) (*recorder, string, error) {
			m := startFakeCompletions(t, toolCall{Name: "create", Input: map[string]any{"path": path, "file_text": text}})
			out, err := p.copilot(t, m, "write the file")
			return &m.recorder, out, err
		},
		read: func(t *testing.T, p *project, path string) (*recorder, string, error) {
			m := startFakeCompletions(t, toolCall{Name: "view", Input: map[string]any{"path": path}})
			out, err := p.copilot(t, m, "read the file")
			return &m.recorder, out, err
		}},
	// Codex edits files with apply_patch and reads them with its shell: it
	// offers no tool that reads files. Its hooks see apply_patch as such,
	// its input's "command" the patch. Codex also runs a patch given to
	// its shell as `apply_patch <<'EOF' ... EOF`, itself, as the same
	// edit; its hooks see that call as Bash.
	{name: "codex", pkg: codexPkg, version: codexVersion, writeTool: "apply_patch",
		write: func(t *testing.T, p *project, path, text string) (*recorder, string, error) {
			m := startFakeCustomCall(t, "apply_patch", addFilePatch(path, text))
			out, err := p.codexPatching(t, m, "write the file")
			return &m.recorder, out, err
		},
		shellWrite: func(t *testing.T, p *project, path, text string) (*recorder, string, error) {
			m := startFakeResponses(t, toolCall{Name: "exec_command", Input: map[string]any{"cmd": "apply_patch <<'EOF'\n" + addFilePatch(path, text) + "EOF\n"}})
			out, err := p.codex(t, m, "write the file")
			return &m.recorder, out, err
		}},
}

// claudeFiles is p.claude with Claude Code's file tools allowed without
// its own prompt instead of Bash: print mode refuses a Write no rule
// allows, and only luahook is to stop a call.
func (p *project) claudeFiles(t *testing.T, model *fakeModel, prompt string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin(t, "@anthropic-ai/claude-code", claudeNew, "claude"), "-p", prompt, "--allowedTools", "Write,Read")
	cmd.Dir = p.dir
	cmd.Env = p.env("ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-conformance",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// codexPatchModel is the model the Codex runs of apply_patch ask for.
// Codex offers apply_patch only to a model whose metadata says so, and
// the fallback metadata of a model it does not know (p.codex's
// fake-model) offers none; gpt-5.5, of the catalog Codex ships, has it as
// a freeform tool, which the model calls with the patch as plain text.
const codexPatchModel = "gpt-5.5"

// codexPatching is p.codex asking codexPatchModel.
func (p *project) codexPatching(t *testing.T, model *fakeResponses, prompt string) (string, error) {
	t.Helper()
	return p.codexAsking(t, model, codexPatchModel, prompt, "")
}

// addFilePatch is the apply_patch patch creating path with the line text.
func addFilePatch(path, text string) string {
	return "*** Begin Patch\n*** Add File: " + path + "\n+" + text + "\n*** End Patch\n"
}

// startFakeCustomCall is startFakeResponses whose first answer calls the
// freeform (custom) tool name with input, as a model calls Codex's
// apply_patch.
func startFakeCustomCall(t *testing.T, name, input string) *fakeResponses {
	t.Helper()
	m := &fakeResponses{}
	m.answer = func(w http.ResponseWriter, _ *http.Request, _ []byte, before int) {
		item := `{"type":"message","role":"assistant","id":"msg_fake","content":[{"type":"output_text","text":"done"}]}`
		if before == 0 {
			quoted, _ := json.Marshal(input)
			item = fmt.Sprintf(`{"type":"custom_tool_call","id":"ctc_fake","call_id":"call_fake","name":%q,"input":%s}`, name, quoted)
		}
		sse(w,
			[2]string{"response.created", `{"type":"response.created","response":{"id":"resp_fake"}}`},
			[2]string{"response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":` + item + `}`},
			[2]string{"response.completed", `{"type":"response.completed","response":{"id":"resp_fake","usage":{"input_tokens":1,"input_tokens_details":null,"output_tokens":1,"output_tokens_details":null,"total_tokens":2}}}`})
	}
	m.start(t, "/v1")
	return m
}

// fileHolds reports whether path holds text (apply_patch ends the line).
func fileHolds(path, text string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.TrimSuffix(string(b), "\n") == text
}

// readTools are the tools offered in rec's requests that @fs.read selects.
func readTools(rec *recorder) []string {
	var out []string
	for _, name := range offeredTools(rec) {
		if slices.Contains(agent.Capabilities(name), agent.CapFSRead) {
			out = append(out, name)
		}
	}
	return out
}

// Without luahook the fake model's file write happens: the file holds the
// text. This is what the deny test's "the file was never created" stands
// on. The requests offer the agent's file tools under the names the suite
// calls them by; Codex's offer no tool that reads files.
func TestEveryAgentWritesTheFakeModelsFile(t *testing.T) {
	for _, a := range fileAgents {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, nil)
			path := filepath.Join(p.dir, writtenName)
			model, out, err := a.write(t, p, path, writtenText)
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if !fileHolds(path, writtenText) {
				t.Fatalf("the write did not happen; %s said:\n%s", a.name, out)
			}
			offered := offeredTools(model)
			for _, name := range []string{a.writeTool, a.readTool} {
				if name != "" && !slices.Contains(offered, name) {
					t.Errorf("the model was not offered %q (names in its requests: %q)", name, offered)
				}
			}
			if a.readTool != "" {
				return
			}
			if reads := readTools(model); len(reads) > 0 {
				t.Errorf("%s now offers tools that read files, %q: give it a read in fileAgents", a.name, reads)
			} else {
				observe(a.pkg, a.version, checkFileRead, "no file-read tool (it reads with its shell)")
			}
		})
	}
}

// A file write a policy denies by capability, with the hooks luahook
// install writes, never happens, and the model receives the policy's
// reason. Codex's patch given to its shell is a Bash call to its hooks,
// which luahook gives the fs.write capability too: it is denied as well.
func TestEveryAgentKeepsADeniedFileWriteFromHappeningAndTellsTheModel(t *testing.T) {
	for _, a := range fileAgents {
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"10-files.lua": filePolicy})
			p.luahook(t, "install", a.name, "--project")
			p.luahook(t, "trust")
			path := filepath.Join(p.dir, writtenName)
			model, out, err := a.write(t, p, path, writtenText)
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("the denied write happened: the file exists; %s said:\n%s", a.name, out)
			}
			if !model.received(writeDenied) {
				t.Fatalf("the model never received the policy's reason; %s said:\n%s", a.name, out)
			}
			if a.shellWrite == nil {
				observe(a.pkg, a.version, checkFileWrite, "yes")
				return
			}
			model, out, err = a.shellWrite(t, p, path, writtenText)
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("the denied write given to the shell happened: the file exists; %s said:\n%s", a.name, out)
			}
			if !model.received(writeDenied) {
				t.Fatalf("the model never received the policy's reason for the write given to the shell; %s said:\n%s", a.name, out)
			}
			observe(a.pkg, a.version, checkFileWrite, "yes (apply_patch, and a patch given to its shell)")
		})
	}
}

// Without luahook the fake model's file read delivers the file to the
// model. This is what the deny test's "the token never reached the model"
// stands on.
func TestEveryAgentReadsTheFakeModelsFile(t *testing.T) {
	for _, a := range fileAgents {
		if a.read == nil {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, nil)
			secret := writeSecret(t, p)
			model, out, err := a.read(t, p, secret)
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if !model.received(secretToken) {
				t.Fatalf("the file's content never reached the model; %s said:\n%s", a.name, out)
			}
		})
	}
}

// A file read a policy denies by capability, with the hooks luahook
// install writes, never delivers the file to the model (no request holds
// its token), and the model receives the policy's reason.
func TestEveryAgentKeepsADeniedFileReadFromTheModelAndTellsIt(t *testing.T) {
	for _, a := range fileAgents {
		if a.read == nil {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			p := newProject(t, map[string]string{"10-files.lua": filePolicy})
			p.luahook(t, "install", a.name, "--project")
			p.luahook(t, "trust")
			secret := writeSecret(t, p)
			model, out, err := a.read(t, p, secret)
			if err != nil {
				t.Fatalf("%s: %v\n%s", a.name, err, out)
			}
			if model.received(secretToken) {
				t.Fatalf("the denied read reached the model: a request holds the file's token; %s said:\n%s", a.name, out)
			}
			if !model.received(readDenied) {
				t.Fatalf("the model never received the policy's reason; %s said:\n%s", a.name, out)
			}
			observe(a.pkg, a.version, checkFileRead, "yes")
		})
	}
}

// writeSecret writes secretName, holding secretToken, into the project
// and returns its path.
func writeSecret(t *testing.T, p *project) string {
	t.Helper()
	path := filepath.Join(p.dir, secretName)
	if err := os.WriteFile(path, []byte(secretToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
