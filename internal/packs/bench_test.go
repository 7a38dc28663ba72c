package packs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

// benchPayload is one kind of tool call a pack may judge, in a typical and
// a large size.
type benchPayload struct {
	kind, size string
	in         luahook.Input
}

func toolCall(tool string, caps []string, input any) luahook.Input {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return luahook.Input{Event: luahook.PreToolUse, ToolName: tool, ToolCapabilities: caps, ToolInput: raw,
		Cwd: "/home/dev/app", SessionID: "bench"}
}

// toolOutput is a PostToolUse payload: the call of toolCall and the
// output the tool printed.
func toolOutput(tool string, caps []string, input any, content string) luahook.Input {
	in := toolCall(tool, caps, input)
	in.Event = luahook.PostToolUse
	in.ToolResult = &luahook.ToolResult{Content: content}
	return in
}

// everydayOutput is n bytes of what a test run prints: package lines,
// paths, durations and hex ids, no secret.
func everydayOutput(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "ok  \tgithub.com/acme/app/internal/pkg%03d\t0.%03ds\tcoverage: 81.%d%% of statements (run 3f2a9c8b%04x)\n", i, i%1000, i%10, i)
	}
	return b.String()[:n]
}

// large4K is a 4 KiB command line of the everyday kind: builds, greps and
// quoted arguments chained (the shape of hooks.d's own benchmark).
func large4K() string {
	var b strings.Builder
	for b.Len() < 4096 {
		b.WriteString(`cd ./src && go test -run 'TestX|TestY' ./... 2>&1 | grep -v "^ok" ; echo "$HOME/build done" && `)
	}
	b.WriteString("true")
	return b.String()
}

func benchPayloads() []benchPayload {
	shell := []string{"shell"}
	content64K := strings.Repeat("func f() { return x + y } // some Go code\n", 64<<10/42)
	select64K := "SELECT id, name FROM users WHERE id IN (" + strings.Repeat("1234567, ", 64<<10/9) + "1)"
	test := map[string]string{"command": "go test ./..."}
	typical := everydayOutput(2 << 10)
	cut := strings.LastIndexByte(typical[:1<<10], '\n') + 1 // a line of its own
	secret := typical[:cut] + "GITHUB_TOKEN=ghp_R7vK2mQ9xL4pW8nT3bY6cJ1dF5hS0gA2zE7u\n" + typical[cut:]
	return []benchPayload{
		{"shell", "typical", toolCall("Bash", shell, map[string]string{"command": "git status"})},
		{"shell", "large", toolCall("Bash", shell, map[string]string{"command": large4K()})},
		{"write", "typical", toolCall("Write", []string{"fs.write"}, map[string]string{
			"file_path": "/home/dev/app/main.go", "content": "package main\n\nfunc main() {}\n"})},
		{"write", "large", toolCall("Write", []string{"fs.write"}, map[string]string{
			"file_path": "/home/dev/app/gen.go", "content": content64K})},
		{"mcp", "typical", toolCall("mcp__github__get_issue", []string{"mcp"}, map[string]any{
			"owner": "acme", "repo": "app", "issue_number": 42})},
		{"mcp", "large", toolCall("mcp__postgres__query", []string{"mcp"}, map[string]string{"sql": select64K})},
		// PostToolUse: what a shell command printed, 2 KiB without and
		// with a secret, and 1 MiB
		{"output", "typical", toolOutput("Bash", shell, test, typical)},
		{"output", "secret", toolOutput("Bash", shell, test, secret)},
		{"output", "large", toolOutput("Bash", shell, test, everydayOutput(1<<20))},
	}
}

// openPack opens an engine on a hooks folder holding the lib modules and
// one policy file: a pack of this folder, or a file of ../hooks.d.
func openPack(b *testing.B, file string) *engine.Engine {
	b.Helper()
	dir := hooksFolder(b, file)
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Err(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkPack measures one tool call through each pack alone, the
// real engine and runner as a host calls them, for each payload kind and
// size: BenchmarkPack/<pack>/<kind>/<size> (PreToolUse calls; the output
// kind is a PostToolUse call, a tool's output, whose rewrites are counted
// in rewritten/op). The lean floor (BenchmarkPack/floor/<kind>/<size>: one
// hook on every tool call that reads one field, testdata/bench/floor.lua)
// is what any Lua hook costs on that payload; floor-ledger adds one count
// in the session ledger (testdata/bench/floor-ledger.lua), what a pack that
// remembers the session cannot do without; the baseline is the shipped
// dangerous-commands policy. Each pack
// should cost at most 2x the floor on its typical payloads. A
// pack that keeps per-session counts gets a new session id every 20
// calls, so that its budget is never spent and the measured path is the
// ordinary one.
func BenchmarkPack(b *testing.B) {
	files := []string{"testdata/bench/floor.lua", "testdata/bench/floor-ledger.lua", "../../hooks.d/10-dangerous-commands.lua"}
	labels := []string{"floor", "floor-ledger", "baseline"}
	for _, name := range packNames(b) {
		files = append(files, name+".lua")
		labels = append(labels, name)
	}
	payloads := benchPayloads()
	for i, file := range files {
		b.Run(labels[i], func(b *testing.B) {
			seq := 0 // session ids are never reused
			for _, p := range payloads {
				b.Run(p.kind+"/"+p.size, func(b *testing.B) {
					// an engine of its own: the sessions a ledger pack opens
					// fill the store's keys, which would cap a long run
					e := openPack(b, file)
					in := p.in
					ctx := context.Background()
					n, denied, rewritten, why := 0, 0, 0, ""
					seq += 20 - seq%20
					in.SessionID = "bench-" + strconv.Itoa(seq)
					b.ReportAllocs()
					for b.Loop() {
						seq++
						if n++; n%20 == 0 {
							// a fresh id for packs that budget sessions; the store
							// keeps the old ones until their expiry
							in.SessionID = "bench-" + strconv.Itoa(seq)
						}
						res := e.Runner().Fire(ctx, &in)
						if res.Denied() {
							denied++
							why = res.Reason
						}
						if res.Output != nil {
							rewritten++
						}
					}
					// Denials are reported, not fatal: on a loaded machine a
					// large payload may pass a hook's deadline (fail closed).
					b.ReportMetric(float64(denied)/float64(n), "denied/op")
					if p.kind == "output" {
						b.ReportMetric(float64(rewritten)/float64(n), "rewritten/op")
					}
					if denied > 0 {
						b.Logf("%s denied %d of %d calls: %s", labels[i], denied, n, why)
					}
				})
			}
		})
	}
}

// BenchmarkAllPacks measures one PreToolUse call through every pack
// installed together (what `luahook add` of all of them writes), the real
// engine and runner as a host calls them: BenchmarkAllPacks/<kind>/<size>
// for the payloads of BenchmarkPack, BenchmarkAllPacks/shell/everyday
// for a round of everyday shell commands (one call each, in turn), and
// BenchmarkAllPacks/shell/parsed for a round of lines the parser reads,
// each new to the process (the payload is built inside the timed loop).
func BenchmarkAllPacks(b *testing.B) {
	names := packNames(b)
	files := make([]string, 0, 2*len(names))
	for _, n := range names {
		files = append(files, n+".lua")
	}
	dir := hooksFolder(b, files...)
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	payloads := benchPayloads()
	var everyday []luahook.Input
	for _, c := range []string{"git status", "git diff", "ls -la", "npm test", "go test ./...", "cat README.md",
		"make build", "git log --oneline -5"} {
		everyday = append(everyday, toolCall("Bash", []string{"shell"}, map[string]string{"command": c}))
	}
	payloads = append(payloads, benchPayload{"shell", "everyday", luahook.Input{}},
		benchPayload{"shell", "parsed", luahook.Input{}})
	// lines that need the parser (quotes, chains, pipes, redirections), each
	// made new on every call (a number in it) so that no call finds the
	// line read before: the packs of one call share one reading (memo.call)
	parsed := []string{`git commit -m "fix the parser, call %d" && git push`, `cd src && go test ./... 2>&1 | tee out-%d.txt`,
		`grep -rn "TODO %d" src | head -20`, `npm run build -- --mode=prod%d && ls dist`}
	seq := 0
	for _, p := range payloads {
		b.Run(p.kind+"/"+p.size, func(b *testing.B) {
			ctx := context.Background()
			in := p.in
			n, denied, why := 0, 0, ""
			b.ReportAllocs()
			for b.Loop() {
				switch p.size {
				case "everyday":
					in = everyday[n%len(everyday)]
				case "parsed":
					in = toolCall("Bash", []string{"shell"}, map[string]string{
						"command": fmt.Sprintf(parsed[n%len(parsed)], seq)})
				}
				// a fresh session every 20 calls: the session pack's budget is never spent
				in.SessionID = "all-" + strconv.Itoa(seq/20)
				seq++
				n++
				if res := e.Runner().Fire(ctx, &in); res.Denied() {
					denied++
					why = res.Reason
				}
			}
			b.ReportMetric(float64(denied)/float64(n), "denied/op")
			if denied > 0 {
				b.Logf("all packs denied %d of %d calls: %s", denied, n, why)
			}
		})
	}
}
