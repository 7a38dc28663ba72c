package repl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

// script runs the REPL over a script with opts and returns its output, its
// errors and what Run returned.
func script(t *testing.T, opts Options, lines ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	opts.In = strings.NewReader(strings.Join(lines, "\n") + "\n")
	opts.Out, opts.Err = &out, &errb
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = Run(ctx, opts)
	return out.String(), errb.String(), err
}

// openEngine opens an engine, without hot reload, on a folder with files.
func openEngine(t *testing.T, files map[string]string) (*engine.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, dir
}

const denyRm = `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm -rf", 1, true) then return hook.deny("no rm -rf") end
end, { name = "no-rm", stage = "validate" })
`

func TestScriptModePrintsValuesAndRunsMultiLineChunks(t *testing.T) {
	out, errs, err := script(t, Options{},
		"=1 + 1",
		"40 + 2",
		"function add(a, b)",
		"  return a + b",
		"end",
		"add(20, 22)",
		"={ b = { 1, 2 }, a = 'x', ['end'] = true }",
		"t = {}; t.self = t",
		"=t",
		"=1, 'two', nil",
		"x = 5 -- a statement prints nothing",
		"",
		"print('printed', x)",
	)
	wantLines := []string{
		"2",
		"42",
		"42",
		`{ a = "x", b = { 1, 2 }, ["end"] = true }`,
		"{ self = <cycle> }",
		"1\t\"two\"\tnil",
		"printed\t5",
	}
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); !slices.Equal(got, wantLines) {
		t.Errorf("output\n%s\nwant\n%s", out, strings.Join(wantLines, "\n"))
	}
	if err != nil || errs != "" {
		t.Errorf("Run = %v, errors %q; want a clean run", err, errs)
	}
}

func TestScriptModeReportsErrorsAndFails(t *testing.T) {
	out, errs, err := script(t, Options{},
		"error('boom')",
		"x = = 1",
		"local t = nil; return t.x",
		":nope",
		"=1",
		"function unfinished()",
	)
	if !errors.Is(err, ErrFailed) {
		t.Errorf("Run = %v, want ErrFailed", err)
	}
	if out != "1\n" {
		t.Errorf("output %q, want the line after the errors to run", out)
	}
	for _, want := range []string{
		"stdin:1: boom\n",
		"stdin:1: syntax error near '='\n",
		"stdin:1: attempt to index",
		":nope: unknown command (:help lists them)\n",
		"stdin:2: syntax error at end of file\n", // the chunk left open at the end
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors\n%s\nwant %q", errs, want)
		}
	}
}

func TestFireRunsTheEnginesHooksAndThePromptsHooks(t *testing.T) {
	eng, _ := openEngine(t, map[string]string{"10-no-rm.lua": denyRm})
	out, errs, err := script(t, Options{Engine: eng},
		`:fire PreToolUse {"toolName":"bash","toolInput":{"command":"rm -rf /"}}`,
		`:fire PreToolUse {"toolName":"bash","toolInput":{"command":"ls"}}`,
		`hook.register("PreToolUse", "bash", function(input)`,
		`  return hook.mutate({ command = input.toolInput.command .. " -la" })`,
		`end, { name = "longer" })`,
		`:fire PreToolUse { toolName = "bash", toolInput = { command = "ls" } }`,
		`:fire SessionStart`,
		`r = fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm -rf x" } })`,
		`expect.denied(r, "no rm")`,
		`=r.trace[1].name`,
	)
	want := strings.Join([]string{
		`{"action":"deny","reason":"no rm -rf"}`,
		`{}`,
		`"repl#1"`,
		`{"action":"mutate","input":{"command":"ls -la"}}`,
		`{}`,
		`"longer"`,
	}, "\n") + "\n"
	if out != want || err != nil || errs != "" {
		t.Errorf("output\n%s\nerrors %q, Run %v\nwant\n%s", out, errs, err, want)
	}
	if n := eng.Registry().CountByOwner(Owner); n != 0 {
		t.Errorf("%d hooks of the prompt are still registered after Run, want 0", n)
	}
}

func TestFireRefusesBadPayloads(t *testing.T) {
	_, errs, err := script(t, Options{},
		":fire",
		":fire Nope",
		`:fire PreToolUse {"toolname":"bash"}`,
		`:fire PreToolUse not lua at all`,
	)
	if !errors.Is(err, ErrFailed) {
		t.Errorf("Run = %v, want ErrFailed", err)
	}
	for _, want := range []string{"which event?", `unknown event "Nope"`, `unknown key "toolname" (did you mean "toolName"?)`, "neither JSON nor a Lua table"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors\n%s\nwant %q", errs, want)
		}
	}
}

// Event names are case-sensitive everywhere (luahook.ParseEvent): the
// prompt refuses what fire, configs and hook.register refuse, and says the
// right spelling.
func TestEventNamesAreCaseSensitiveAtThePrompt(t *testing.T) {
	_, errs, err := script(t, Options{}, ":fire pretooluse", `fire("stop")`)
	if !errors.Is(err, ErrFailed) {
		t.Errorf("Run = %v, want ErrFailed", err)
	}
	if n := strings.Count(errs, "event names are case-sensitive: did you mean"); n != 2 {
		t.Errorf("errors\n%s\nwant both spellings refused with the right one", errs)
	}
}

// :list shows the hooks in the order they run, as luahook list does: on
// PreToolUse every mutate-stage hook before every validate-stage one.
func TestListShowsTheRunOrder(t *testing.T) {
	eng, _ := openEngine(t, map[string]string{"10-a.lua": `
hook.register("PreToolUse", "bash", function() end, { name = "guard", stage = "validate" })
hook.register("PreToolUse", "bash", function() end, { name = "rewrite", stage = "mutate" })
`})
	out, _, err := script(t, Options{Engine: eng}, ":list")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?ms)^PreToolUse\s+1\s+rewrite\s.*^PreToolUse\s+2\s+guard\s`).MatchString(out) {
		t.Errorf(":list output\n%s\nwant rewrite (mutate) as 1, guard (validate) as 2", out)
	}
}

// :explain fires the payload as :fire does and shows every hook of the
// event with why it matched or not, what it did and the hook that decided,
// as luahook explain shows it; the prompt's own hooks take part.
func TestExplainShowsEveryHookAndTheDecider(t *testing.T) {
	eng, dir := openEngine(t, map[string]string{"10-no-rm.lua": denyRm})
	out, errs, err := script(t, Options{Engine: eng},
		`hook.register("PreToolUse", "python", function() end, { name = "py" })`,
		`:explain PreToolUse { toolName = "bash", toolInput = { command = "rm -rf /" } }`,
		`:explain Stop`,
		`:explain`,
	)
	if !errors.Is(err, ErrFailed) || !strings.Contains(errs, ":explain EVENT [PAYLOAD]: which event?") {
		t.Errorf("Run %v, errors %q; want the bare :explain refused", err, errs)
	}
	src := filepath.Join(dir, "10-no-rm.lua")
	for _, want := range []string{
		`PreToolUse, tool name "bash": 2 hooks in run order`,
		"  1. py (lua, mutate, stdin:1)\n       not matched  tool name \"bash\" is not in the list python\n",
		"  2. no-rm (lua, validate, " + src + ":1)\n       matched      tool name \"bash\" is in the list bash\n",
		"deny: no rm -rf  <- decided\n",
		"decision: deny: no rm -rf\ndecided by: \"no-rm\" (" + src + ":1)\n",
		"Stop: no hooks registered\ndecision: no objection\ndecided by: no hook\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf(":explain output\n%s\nlacks %q", out, want)
		}
	}
}

func TestTraceListAndUnregister(t *testing.T) {
	eng, dir := openEngine(t, map[string]string{"10-no-rm.lua": denyRm})
	out, errs, err := script(t, Options{Engine: eng},
		`id = hook.register("Stop", nil, function() return hook.context("bye") end, { name = "farewell" })`,
		`hook.register("PreToolUse", "Bash(git push:*)", function() end, { name = "no-push" })`,
		`hook.register("PreToolUse", "Bash(git push:*", function() end)`,
		":trace on",
		":fire Stop",
		":list",
		":unregister repl#1",
		":fire Stop",
		":unregister repl#1",
	)
	if !strings.Contains(out, "trace on\n") || !regexp.MustCompile(`(?m)^  lua\s+farewell\s+-\s+\S+\s+\{"additionalContext":"bye"\}$`).MatchString(out) {
		t.Errorf("no trace line for the hook:\n%s", out)
	}
	// The matcher as parsed (issue 15: a matcher that means nothing must
	// show), in run order: the prompt's mutate-stage hook before the file's
	// validator.
	if !regexp.MustCompile(`(?m)^PreToolUse\s+1\s+no-push\s+Bash command prefix "git push"\s+mutate\s+lua\s+stdin:1$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^PreToolUse\s+2\s+no-rm\s+names bash\s+validate\s+lua\s+`+regexp.QuoteMeta(filepath.Join(dir, "10-no-rm.lua"))+`:1$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^Stop\s+1\s+farewell\s+\*\s+-\s+lua\s+stdin:1$`).MatchString(out) {
		t.Errorf(":list output\n%s\nwant the file's hook and the prompt's", out)
	}
	if !strings.HasSuffix(out, "  (no hook matched)\n{}\n") {
		t.Errorf("after :unregister the hook still runs:\n%s", out)
	}
	if !strings.Contains(errs, `stdin:1: hook.register: matcher "Bash(git push:*": Bash( is not closed`) {
		t.Errorf("errors %q, want the unclosed matcher refused with its line", errs)
	}
	if !strings.Contains(errs, ":unregister repl#1: no such hook") || !errors.Is(err, ErrFailed) {
		t.Errorf("errors %q, Run %v; want the second :unregister refused", errs, err)
	}
}

func TestLoadRunsAFileAndReplacesItsHooks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.lua")
	src := `loads = (loads or 0) + 1
local version = "v" .. loads
hook.register("SessionStart", nil, function() return hook.context(version) end)
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := script(t, Options{}, ":load "+path, ":fire SessionStart", ":load "+path, ":fire SessionStart", "=loads")
	loaded := "loaded " + path + "; 1 hook(s) registered at the prompt\n"
	want := loaded + `{"additionalContext":"v1","contextAs":"inline"}` + "\n" +
		loaded + `{"additionalContext":"v2","contextAs":"inline"}` + "\n" + "2\n"
	if out != want || errs != "" || err != nil {
		t.Errorf("output\n%s\nerrors %q, Run %v\nwant\n%s", out, errs, err, want)
	}
	_, errs, _ = script(t, Options{}, ":load "+filepath.Join(filepath.Dir(path), "missing.lua"), ":load")
	if !strings.Contains(errs, "missing.lua: no such file") || !strings.Contains(errs, ":load FILE: which file?") {
		t.Errorf("errors %q, want both bad loads reported", errs)
	}
}

func TestReloadPicksUpANewHookFile(t *testing.T) {
	eng, dir := openEngine(t, nil)
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), Options{In: in, Out: &out, Err: &errb, Engine: eng}) }()
	w.WriteString(`:fire PreToolUse {"toolName":"bash","toolInput":{"command":"rm -rf /"}}` + "\n")
	waitFor(t, &out, `{}`)
	if err := os.WriteFile(filepath.Join(dir, "10-no-rm.lua"), []byte(denyRm), 0o644); err != nil {
		t.Fatal(err)
	}
	w.WriteString(":reload\n" + `:fire PreToolUse {"toolName":"bash","toolInput":{"command":"rm -rf /"}}` + "\n")
	w.Close()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v (errors %q)", err, errb.String())
	}
	if !strings.Contains(out.String(), "reloaded "+dir+": 1 hooks\n"+`{"action":"deny","reason":"no rm -rf"}`) {
		t.Errorf("output\n%s\nwant the new file's hook to deny after :reload", out.String())
	}
	_, errs, _ := script(t, Options{}, ":reload")
	if !strings.Contains(errs, "no hooks folder") {
		t.Errorf(":reload without an engine: %q", errs)
	}
}

func TestInterruptCancelsTheRunningChunkNotTheREPL(t *testing.T) {
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	interrupts := make(chan os.Signal, 1)
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{In: in, Out: &out, Err: &errb, Interrupts: interrupts})
	}()
	w.WriteString(`hook.register("Stop", nil, function() print("spinning") while true do end end, { timeout_ms = 600000 })` + "\n")
	w.WriteString(":fire Stop\n")
	waitFor(t, &out, "spinning")
	interrupts <- os.Interrupt
	waitFor(t, &errb, "interrupted")
	w.WriteString("print('chunk') while true do end\n")
	waitFor(t, &out, "chunk")
	interrupts <- os.Interrupt
	w.WriteString("=20 + 22\n")
	waitFor(t, &out, "42\n")
	if got := strings.Count(errb.String(), "interrupted\n"); got != 2 {
		t.Errorf("errors %q, want two interruptions", errb.String())
	}
	interrupts <- os.Interrupt // between lines: ends the script
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("Run = %v after an interrupt between lines, want interrupted", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end after an interrupt between lines")
	}
	w.Close()
}

func TestCompleterCompletesNamesCommandsAndEvents(t *testing.T) {
	r := &repl{}
	if err := r.setupForTest(t); err != nil {
		t.Fatal(err)
	}
	c := completer{r}
	tests := []struct {
		line   string
		want   []string
		length int
	}{
		{"hook.reg", []string{"ister"}, 8},
		{"hook.as", []string{"k"}, 7},
		{"hook.con", []string{"text", "tinue"}, 8},
		{"x = json.dec", []string{"ode"}, 8},
		{":fi", []string{"re "}, 3},
		{":t", []string{"race "}, 2},
		{":fire PreT", []string{"oolUse "}, 4},
		{":ex", []string{"plain "}, 3},
		{":explain Sto", []string{"p "}, 3},
		{":fire Pre", []string{"ToolUse ", "Compact "}, 3},
		{":trace o", []string{"n", "ff"}, 1},
		{":fire PreToolUse {", nil, 1},
	}
	for _, tt := range tests {
		got, n := c.Do([]rune(tt.line), len([]rune(tt.line)))
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if !slices.Equal(gs, tt.want) || (tt.want != nil && n != tt.length) {
			t.Errorf("Do(%q) = %q, %d; want %q, %d", tt.line, gs, n, tt.want, tt.length)
		}
	}
}

func TestHistoryEntriesKeepAChunkTogether(t *testing.T) {
	tests := []struct {
		lines, want []string
	}{
		{[]string{"=1"}, []string{"=1"}},
		{[]string{"function f(a)", "  return a", "end"}, []string{"function f(a) return a end"}},
		{[]string{"function f(a) -- note", "  return a", "end"}, []string{"function f(a) -- note", "  return a", "end"}},
		{[]string{"s = [[a", "b]]"}, []string{"s = [[a", "b]]"}},
	}
	for _, tt := range tests {
		if got := historyEntries(tt.lines); !slices.Equal(got, tt.want) {
			t.Errorf("historyEntries(%q) = %q, want %q", tt.lines, got, tt.want)
		}
	}
}

func TestInteractiveModeNeedsATerminal(t *testing.T) {
	err := Run(context.Background(), Options{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Interactive: true})
	if err == nil || !strings.Contains(err.Error(), "needs a terminal") {
		t.Errorf("Run = %v, want an error saying a terminal is needed", err)
	}
}

// setupForTest prepares r as Run does, with no engine, closing it at the end.
func (r *repl) setupForTest(t *testing.T) error {
	r.out, r.errw = &bytes.Buffer{}, &bytes.Buffer{}
	if err := r.setup(context.Background()); err != nil {
		return err
	}
	t.Cleanup(r.close)
	return nil
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine,
// which it tells of every write.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written = make(chan struct{}, 1)
	}
	select {
	case b.written <- struct{}{}:
	default:
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) notify() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written = make(chan struct{}, 1)
	}
	return b.written
}

// waitFor waits until b contains want, for at most 20 seconds.
func waitFor(t *testing.T, b *syncBuffer, want string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for !strings.Contains(b.String(), want) {
		select {
		case <-b.notify():
		case <-timeout:
			t.Fatalf("waited 20s for %q; got %q", want, b.String())
		}
	}
}

// TestPromptSharesTheHooksStore: store values the engine's hooks keep are
// visible at the prompt, because the session uses the engine's Lua options.
func TestPromptSharesTheHooksStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "10-count.lua"), []byte(`hook.register("Stop", nil, function() store.incr("stops") end)`), 0o600); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	eng.Runner().Stop(context.Background(), &luahook.Input{Event: luahook.Stop})
	var out bytes.Buffer
	err = Run(context.Background(), Options{In: strings.NewReader("=store.get(\"stops\")\n"), Out: &out, Err: &out, Engine: eng})
	if err != nil {
		t.Fatal(err, out.String())
	}
	if strings.TrimSpace(out.String()) != "1" {
		t.Fatalf("the prompt sees store.get(\"stops\") = %q, want 1", out.String())
	}
}

// Without an engine the prompt runs on a private, file-less one: :list shows
// only the prompt's hooks, in the short table.
func TestListWithoutAnEngineShowsThePromptsHooks(t *testing.T) {
	out, errs, err := script(t, Options{}, ":list",
		`hook.register("Stop", nil, function() end)`, ":list")
	if err != nil || errs != "" {
		t.Fatalf("err %v, stderr %q", err, errs)
	}
	want := "no hooks registered\n\"repl#1\"\n" +
		"EVENT  #  NAME    MATCHER  STAGE  KIND  SOURCE\n" +
		"Stop   1  repl#1  *        -      lua   stdin:1\n"
	if out != want {
		t.Errorf("output\n%s\nwant\n%s", out, want)
	}
}
