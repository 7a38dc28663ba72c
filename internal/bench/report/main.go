// Command report runs luahook's benchmark suite and prints, for each
// performance target, the value measured, the target and whether it is met.
//
//	go run ./internal/bench/report [-count 3] [-benchtime 500ms]
//
// It builds the test binaries of runner, luabind, transports, server and
// bench once, then runs them in rounds, one package after the other, so that
// the two sides of every ratio are measured close together on a shared,
// noisy machine; each figure is the median of its rounds.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// suite is what each package contributes: the benchmarks (a -test.bench
// pattern) and the -cpu list.
type suite struct {
	pkg   string
	bench string
	cpu   string
}

var suites = []suite{
	{"runner", `^BenchmarkPreToolUseNonMatching$|^BenchmarkPreToolUseOneGoHook$|^BenchmarkPostToolUseFanOut4$`, ""},
	{"luabind", `^BenchmarkRunnerLuaValidate$|^BenchmarkRunnerGoValidate$|^BenchmarkRunnerGoBoundValidate$|^BenchmarkLuaHookVsNativeGo$`, ""},
	// a module of its own (go.work beside it), so that OPA stays out of go.mod
	{"internal/bench/opa", `^BenchmarkLuaHookVsOPA$`, ""},
	// Two runs: the HTTP pair measured right after thousands of exec'd
	// processes paid for their aftermath (1.28x then, 1.1x apart).
	{"transports", `^BenchmarkCommandHook$|^BenchmarkBareExec$|^BenchmarkCommandHookInterleaved$`, ""},
	{"transports", `^BenchmarkHTTPHook$|^BenchmarkRawPOST$|^BenchmarkHTTPHookInterleaved$`, ""},
	{"internal/server", `^BenchmarkServeHook$`, ""},
	{"internal/decisionlog", `^BenchmarkDecisionLog$|^BenchmarkDecisionLogShipped$`, ""},
	{"internal/bench", `^BenchmarkMatchingLuaHooks$|^BenchmarkTenLuaHooksOneMatching$|^BenchmarkPayloadSize$|^BenchmarkDecodeJSON$|` +
		`^BenchmarkPostToolUseFanOut$|^BenchmarkStateMemory$|^BenchmarkLoadFiles$|^BenchmarkServeThroughput$|^BenchmarkServeClaudeThroughput$|` +
		`^BenchmarkAgentFire$`, ""},
	{"internal/bench", `^BenchmarkLuaValidateParallel$|^BenchmarkLuaValidateParallelFire$|^BenchmarkCalibrateParallel$`, "1,2"},
	{"internal/bench", `^BenchmarkOneShotFire$`, ""},
	// serve against a bare net/http handler making the same decision
	{"internal/bench", `^BenchmarkServeBareThroughput$`, ""},
	// opening the shipped hooks.d in process
	{"engine", `^BenchmarkOpenShippedPolicies$`, ""},
	// shipped policies on the lean path: each beside its lean floor
	{"hooks.d", `^BenchmarkShippedPolicy$`, ""},
	// deny and mutate paths
	{"luabind", `^BenchmarkDenyPath$|^BenchmarkMutatePath$`, ""},
	// the session ledger: each operation in process and on Redis, and the
	// ledger packs' calls on Redis (a local redis-server; without one they
	// are skipped and their lines read n/a)
	{"ledger", `^BenchmarkLedgerMemory$`, ""},
	{"internal/redisstore", `^BenchmarkLedgerRedis$`, ""},
	{"internal/packs", `^BenchmarkLedgerPacksOnRedis$`, ""},
	// a 50 MB tool output read with its long strings cut
	{"internal/firstvalue", `^BenchmarkReadCut$`, ""},
	// the output firewall: redactions applied to a tool's output (the
	// root package: its results are keyed "..Benchmark…")
	{".", `^BenchmarkOutputChain$`, ""},
}

func main() {
	count := flag.Int("count", 3, "rounds; each figure is the median of its rounds")
	benchtime := flag.String("benchtime", "500ms", "-test.benchtime of each benchmark")
	flag.Parse()
	root, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "luahook-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	bins := map[string]string{}
	for _, s := range suites {
		if bins[s.pkg] != "" {
			continue
		}
		bin := filepath.Join(tmp, filepath.Base(s.pkg)+".test")
		// Built in its own folder: a module of its own there builds under
		// its go.work, every other package as part of luahook's module.
		cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
		cmd.Dir, cmd.Stderr = filepath.Join(root, s.pkg), os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("building %s: %w", s.pkg, err))
		}
		bins[s.pkg] = bin
	}
	res := results{}
	for round := 1; round <= *count; round++ {
		for _, s := range suites {
			fmt.Fprintf(os.Stderr, "round %d/%d: %s %s\n", round, *count, s.pkg, s.bench)
			args := []string{"-test.run", "^$", "-test.bench", s.bench, "-test.benchmem", "-test.benchtime", *benchtime}
			if s.cpu != "" {
				args = append(args, "-test.cpu", s.cpu)
			}
			cmd := exec.Command(bins[s.pkg], args...)
			cmd.Dir, cmd.Stderr = filepath.Join(root, s.pkg), os.Stderr
			out, err := cmd.Output()
			if err != nil {
				fail(fmt.Errorf("%s: %w\n%s", s.pkg, err, out))
			}
			res.parse(filepath.Base(s.pkg), out)
		}
	}
	printReport(os.Stdout, res, *count, *benchtime)
}

// results maps "pkg.BenchmarkName/sub" (with "@cpu" for -cpu runs) and a unit
// to the values of the rounds.
type results map[string]map[string][]float64

// parse reads benchmark lines: name, iterations, then value-unit pairs.
func (r results) parse(pkg string, out []byte) {
	procs := runtime.GOMAXPROCS(0)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name, cpu := f[0], 1
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if n, err := strconv.Atoi(name[i+1:]); err == nil {
				name, cpu = name[:i], n
			}
		}
		key := pkg + "." + name
		if cpu != procs || strings.Contains(name, "Parallel") {
			key += "@" + strconv.Itoa(cpu)
		}
		if r[key] == nil {
			r[key] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			r[key][f[i+1]] = append(r[key][f[i+1]], v)
		}
	}
}

// get returns the median of key's unit, or NaN-like -1 when missing.
func (r results) get(key, unit string) float64 {
	vs := slices.Clone(r[key][unit])
	if len(vs) == 0 {
		return -1
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

func (r results) ratio(a, b string) float64 {
	x, y := r.get(a, "ns/op"), r.get(b, "ns/op")
	if x < 0 || y <= 0 {
		return -1
	}
	return x / y
}

// target is one line of the report.
type target struct {
	what  string
	value float64
	unit  string
	op    string // "<=", "<", ">="
	limit float64
}

func (t target) verdict() string {
	switch {
	case t.value < 0:
		return "n/a"
	case t.op == "<=" && t.value <= t.limit, t.op == "<" && t.value < t.limit, t.op == ">=" && t.value >= t.limit:
		return "pass"
	case t.op == "":
		return "info"
	}
	return "MISS"
}

func targets(r results) []target {
	ns := func(k string) float64 { return r.get(k, "ns/op") }
	perHook := -1.0
	if a, b := ns("runner.BenchmarkPreToolUseNonMatching/hooks=100"), ns("runner.BenchmarkPreToolUseNonMatching/hooks=0"); a > 0 && b > 0 {
		perHook = (a - b) / 100
	}
	scale := -1.0
	if a, b := ns("bench.BenchmarkLuaValidateParallel@1"), ns("bench.BenchmarkLuaValidateParallel@2"); a > 0 && b > 0 {
		scale = a / b
	}
	scaleFire := -1.0
	if a, b := ns("bench.BenchmarkLuaValidateParallelFire@1"), ns("bench.BenchmarkLuaValidateParallelFire@2"); a > 0 && b > 0 {
		scaleFire = a / b
	}
	machine := -1.0
	if a, b := ns("bench.BenchmarkCalibrateParallel@1"), ns("bench.BenchmarkCalibrateParallel@2"); a > 0 && b > 0 {
		machine = a / b
	}
	worstAgent := -1.0
	for _, name := range []string{"claude", "codex", "copilot", "cursor", "gemini"} {
		worstAgent = max(worstAgent, r.ratio("bench.BenchmarkAgentFire/agent="+name, "bench.BenchmarkAgentFire/agent=plain"))
	}
	ledgerMem := -1.0 // the slowest of the in-process ledger's usual operations, in µs
	for _, op := range []string{"has", "count", "record", "mark"} {
		if v := ns("ledger.BenchmarkLedgerMemory/" + op); v > 0 {
			ledgerMem = max(ledgerMem, v/1000)
		}
	}
	redisTrips := -1.0 // the most round trips one ledger operation took on Redis
	for _, op := range []string{"has", "mark", "count", "record", "calls2", "calls"} {
		redisTrips = max(redisTrips, r.get("redisstore.BenchmarkLedgerRedis/scripted/"+op, "roundtrips/op"))
	}
	packTrips := -1.0 // the most round trips a ledger pack's usual call took on Redis
	for _, c := range []string{"flow/shell", "flow/read", "flow/post", "budget/shell", "budget/read", "budget/post"} {
		packTrips = max(packTrips, r.get("packs.BenchmarkLedgerPacksOnRedis/"+c, "roundtrips/call"))
	}
	return []target{
		{"Lua validate / Go hook (runner, typical payload)", r.ratio("luabind.BenchmarkRunnerLuaValidate", "luabind.BenchmarkRunnerGoValidate"), "x", "<=", 1.5},
		{"Lua hook (decode + FireInto) / native Go decision (JSON to map + check; interleaved)", r.get("luabind.BenchmarkLuaHookVsNativeGo/interleaved", "x_native"), "x", "<=", 1.5},
		{"  Lua hook allocations (decode + FireInto)", r.get("luabind.BenchmarkLuaHookVsNativeGo/lua", "allocs/op"), "allocs", "", 0},
		{"OPA prepared query / Lua hook, same decision (interleaved)", r.get("opa.BenchmarkLuaHookVsOPA/interleaved", "x_opa"), "x", ">=", 4},
		{"Lua validate / context-bound Go hook (inline)", r.ratio("luabind.BenchmarkRunnerLuaValidate", "luabind.BenchmarkRunnerGoBoundValidate"), "x", "", 0},
		{"empty path (PreToolUse, no hook for the event)", ns("runner.BenchmarkPreToolUseNonMatching/hooks=0"), "ns", "<", 50},
		{"empty path allocations", r.get("runner.BenchmarkPreToolUseNonMatching/hooks=0", "allocs/op"), "allocs", "<=", 0},
		{"each non-matching hook", perHook, "ns", "<", 20},
		{"10 matching Lua hooks / 1", r.ratio("bench.BenchmarkMatchingLuaHooks/hooks=10", "bench.BenchmarkMatchingLuaHooks/hooks=1"), "x", "", 0},
		{"100 matching Lua hooks / 1", r.ratio("bench.BenchmarkMatchingLuaHooks/hooks=100", "bench.BenchmarkMatchingLuaHooks/hooks=1"), "x", "<=", 110},
		{"10 Lua hooks, 1 matching / 1 matching hook", r.ratio("bench.BenchmarkTenLuaHooksOneMatching", "bench.BenchmarkMatchingLuaHooks/hooks=1"), "x", "", 0},
		{"100 B payload, hook reads one field / encoding/json", r.ratio("bench.BenchmarkPayloadSize/size=100B", "bench.BenchmarkDecodeJSON/size=100B"), "x", "", 0},
		{"10 KiB payload / encoding/json", r.ratio("bench.BenchmarkPayloadSize/size=10KiB", "bench.BenchmarkDecodeJSON/size=10KiB"), "x", "", 0},
		{"1 MiB payload / encoding/json", r.ratio("bench.BenchmarkPayloadSize/size=1MiB", "bench.BenchmarkDecodeJSON/size=1MiB"), "x", "<=", 2},
		{"PostToolUse fan-out 4 / 1 Lua hooks", r.ratio("bench.BenchmarkPostToolUseFanOut/hooks=4", "bench.BenchmarkPostToolUseFanOut/hooks=1"), "x", "", 0},
		{"PostToolUse fan-out 16 / 1 Lua hooks", r.ratio("bench.BenchmarkPostToolUseFanOut/hooks=16", "bench.BenchmarkPostToolUseFanOut/hooks=1"), "x", "", 0},
		{"command hook / bare exec (interleaved)", r.get("transports.BenchmarkCommandHookInterleaved", "hook/bare"), "x", "<=", 1.15},
		{"  the same from separate benchmarks, seconds apart", r.ratio("transports.BenchmarkCommandHook", "transports.BenchmarkBareExec"), "x", "", 0},
		{"HTTP hook / raw client POST (interleaved)", r.get("transports.BenchmarkHTTPHookInterleaved", "hook/raw"), "x", "<=", 1.25},
		{"  the same from separate benchmarks, seconds apart", r.ratio("transports.BenchmarkHTTPHook", "transports.BenchmarkRawPOST"), "x", "", 0},
		{"Lua hook throughput, 2 cores / 1 (FireInto: no allocation)", scale, "x", ">=", 1.7},
		{"  the same through Fire (a new trace every call, see docs/performance.md)", scaleFire, "x", "", 0},
		{"  the machine's own 2 cores / 1 right now (SHA-256 yardstick)", machine, "x", "", 0},
		{"serve, one Lua policy: decisions/s", r.get("bench.BenchmarkServeThroughput", "decisions/s"), "/s", ">=", 15000},
		{"serve p99 latency", r.get("bench.BenchmarkServeThroughput", "p99-ms"), "ms", "<", 5},
		{"serve, Claude Code's protocol (/agent/claude): decisions/s", r.get("bench.BenchmarkServeClaudeThroughput", "decisions/s"), "/s", ">=", 15000},
		{"serve p99 latency, Claude Code's protocol", r.get("bench.BenchmarkServeClaudeThroughput", "p99-ms"), "ms", "<", 5},
		{"fire path, slowest agent adapter / plain (decode, fire, encode; interleaved)", r.get("bench.BenchmarkAgentFire/interleaved", "worst/plain"), "x", "<=", 1.2},
		{"  the same from separate sub-benchmarks, seconds apart", worstAgent, "x", "", 0},
		{"decision log on (file sink) / off, the shipped policies deciding", r.ratio("decisionlog.BenchmarkDecisionLogShipped/file", "decisionlog.BenchmarkDecisionLogShipped/off"), "x", "<=", 1.3},
		{"  the same, one trivial hook deciding (both cores busy, see docs/performance.md)", r.ratio("decisionlog.BenchmarkDecisionLog/file", "decisionlog.BenchmarkDecisionLog/off"), "x", "", 0},
		{"heap per pooled state", r.get("bench.BenchmarkStateMemory", "heap-B/state") / 1024, "KiB", "<=", 64},
		{"load 1,000 hook files", ns("bench.BenchmarkLoadFiles") / 1e9, "s", "<", 2},
		{"one-shot luahook-fire to serve --socket, shipped hooks.d / /bin/true", r.get("bench.BenchmarkOneShotFire/shipped", "shim/true"), "x", "<=", 4},
		{"one-shot luahook-fire to serve --socket, shipped hooks.d / minimal Go binary", r.get("bench.BenchmarkOneShotFire/shipped", "shim/gobin"), "x", "<=", 2.5},
		{"  one-shot luahook fire, shipped hooks.d, in process / /bin/true", r.get("bench.BenchmarkOneShotFire/shipped", "fire/true"), "x", "", 0},
		{"  one-shot luahook fire, shipped hooks.d, in process / minimal Go binary", r.get("bench.BenchmarkOneShotFire/shipped", "fire/gobin"), "x", "", 0},
		{"  one-shot fire, empty folder / /bin/true", r.get("bench.BenchmarkOneShotFire/shipped", "fire-empty/true"), "x", "", 0},
		{"  one-shot fire, shipped hooks.d, compiled-chunk cache off / /bin/true", r.get("bench.BenchmarkOneShotFire/shipped", "fire-nocache/true"), "x", "", 0},
		// serve against a bare net/http handler making the same decision
		{"serve, one Lua policy / bare net/http handler (decisions/s)", r.get("bench.BenchmarkServeBareThroughput", "serve/bare"), "x", ">=", 0.85},
		{"serve p99 latency beside the bare handler", r.get("bench.BenchmarkServeBareThroughput", "serve-p99-ms"), "ms", "<", 3},
		{"  bare net/http handler p99 latency", r.get("bench.BenchmarkServeBareThroughput", "bare-p99-ms"), "ms", "", 0},
		// opening the shipped hooks.d in process
		{"  engine.Open of the shipped hooks.d, compiled-chunk cache warm", ns("engine.BenchmarkOpenShippedPolicies/cached") / 1e6, "ms", "", 0},
		{"  the same, allocations", r.get("engine.BenchmarkOpenShippedPolicies/cached", "allocs/op"), "allocs", "", 0},
		{"  engine.Open of the shipped hooks.d, every file compiled", ns("engine.BenchmarkOpenShippedPolicies/compile") / 1e6, "ms", "", 0},
		{"  the same, allocations", r.get("engine.BenchmarkOpenShippedPolicies/compile", "allocs/op"), "allocs", "", 0},
		// shipped policies on the lean path: each beside its lean floor
		{"shipped 10-dangerous-commands / lean floor (interleaved)", r.get("hooks.d.BenchmarkShippedPolicy/10-dangerous-commands/interleaved", "x_floor"), "x", "<=", 2},
		{"  10-dangerous-commands allocations beyond the floor's", shippedAllocs(r, "10-dangerous-commands"), "allocs", "<=", 0},
		{"shipped 20-protect-secrets / lean floor (interleaved)", r.get("hooks.d.BenchmarkShippedPolicy/20-protect-secrets/interleaved", "x_floor"), "x", "<=", 2},
		{"  20-protect-secrets allocations beyond the floor's", shippedAllocs(r, "20-protect-secrets"), "allocs", "<=", 0},
		{"shipped 30-prefer-pnpm / lean floor (interleaved)", r.get("hooks.d.BenchmarkShippedPolicy/30-prefer-pnpm/interleaved", "x_floor"), "x", "<=", 2},
		{"  30-prefer-pnpm allocations beyond the floor's", shippedAllocs(r, "30-prefer-pnpm"), "allocs", "<=", 0},
		{"shipped 40-session-context / lean floor (interleaved)", r.get("hooks.d.BenchmarkShippedPolicy/40-session-context/interleaved", "x_floor"), "x", "<=", 2},
		{"  40-session-context allocations beyond the floor's", shippedAllocs(r, "40-session-context"), "allocs", "<=", 0},
		{"shipped 50-rate-limit / lean floor (interleaved)", r.get("hooks.d.BenchmarkShippedPolicy/50-rate-limit/interleaved", "x_floor"), "x", "<=", 2},
		{"  50-rate-limit allocations beyond the floor's", shippedAllocs(r, "50-rate-limit"), "allocs", "<=", 0},
		{"shipped 60-prompt-secrets / lean floor (interleaved)", r.get("hooks.d.BenchmarkShippedPolicy/60-prompt-secrets/interleaved", "x_floor"), "x", "<=", 2},
		{"  60-prompt-secrets allocations beyond the floor's", shippedAllocs(r, "60-prompt-secrets"), "allocs", "<=", 0},
		// deny and mutate paths
		{"deny path allocs (lean Lua deny, constant reason, FireInto)", r.get("luabind.BenchmarkDenyPath/Constant/FireInto", "allocs/op"), "allocs", "<=", 3},
		{"  deny path allocs, reason built per call by ..", r.get("luabind.BenchmarkDenyPath/Concat/FireInto", "allocs/op"), "allocs", "", 0},
		{"  deny path allocs, a returned {action=\"deny\", ...} table", r.get("luabind.BenchmarkDenyPath/Table/FireInto", "allocs/op"), "allocs", "", 0},
		{"  deny path allocs through Fire (a new trace every call)", r.get("luabind.BenchmarkDenyPath/Constant/Fire", "allocs/op"), "allocs", "", 0},
		{"  mutate path allocs (hook.mutate of the input, FireInto)", r.get("luabind.BenchmarkMutatePath/HookMutate/FireInto", "allocs/op"), "allocs", "", 0},
		{"  mutate path allocs, a returned {action=\"mutate\", ...} table", r.get("luabind.BenchmarkMutatePath/Table/FireInto", "allocs/op"), "allocs", "", 0},
		// the session ledger
		{"session ledger in process: slowest of has, count, record, mark", ledgerMem, "µs", "<=", 5},
		{"  the last two calls read, in process", ns("ledger.BenchmarkLedgerMemory/calls2") / 1000, "µs", "", 0},
		{"session ledger on Redis: round trips of one operation, the most", redisTrips, "", "<=", 1},
		{"  has on Redis", ns("redisstore.BenchmarkLedgerRedis/scripted/has") / 1000, "µs", "", 0},
		{"  count on Redis / the same as separate calls", r.ratio("redisstore.BenchmarkLedgerRedis/scripted/count", "redisstore.BenchmarkLedgerRedis/generic/count"), "x", "", 0},
		{"flow and budget packs on Redis: round trips of a usual tool call, the most", packTrips, "", "<=", 1},
		{"  budget pack, a shell command on Redis", ns("packs.BenchmarkLedgerPacksOnRedis/budget/shell") / 1000, "µs", "", 0},
		{"  budget pack, a session's first call: round trips", r.get("packs.BenchmarkLedgerPacksOnRedis/budget/shell", "first-roundtrips"), "", "", 0},
		// a 50 MB tool output: read with its output cut to the 1 MiB kept
		{"50 MB output read and cut to 1 MiB", r.get("firstvalue.BenchmarkReadCut", "MB/s"), "MB/s", "", 0},
		{"  bytes allocated reading it (1 MiB kept)", mib(r.get("firstvalue.BenchmarkReadCut", "B/op")), "MiB", "<=", 4},
		// the output firewall's chain: free when no hook rewrites, and
		// redactions over the largest output a hook is given
		{"PostToolUse output chain, no hook rewriting: allocations", r.get("..BenchmarkOutputChain/untouched/4KiB", "allocs/op"), "", "<=", 0},
		{"  four redaction patterns over a clean 4 KiB output", ns("..BenchmarkOutputChain/redact/4KiB-clean") / 1000, "µs", "", 0},
		{"  the same over a 1 MiB output with two secrets (the largest a hook is given)", ns("..BenchmarkOutputChain/redact/1MiB-2secrets") / 1e6, "ms", "<=", 20},
	}
}

// mib is bytes in MiB, or -1 when missing.
func mib(b float64) float64 {
	if b < 0 {
		return -1
	}
	return b / (1 << 20)
}

// shippedAllocs is what a shipped policy's typical call allocates beyond
// its lean floor's call (BenchmarkShippedPolicy), or -1.
func shippedAllocs(r results, policy string) float64 {
	k := "hooks.d.BenchmarkShippedPolicy/" + policy
	a, b := r.get(k+"/policy", "allocs/op"), r.get(k+"/floor", "allocs/op")
	if a < 0 || b < 0 {
		return -1
	}
	return a - b
}

func printReport(w *os.File, r results, count int, benchtime string) {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "luahook benchmarks: %s, %s/%s, GOMAXPROCS=%d, %d rounds of -benchtime %s, medians (%s, host %s)\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), count, benchtime, time.Now().Format(time.DateOnly), host)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tmeasured\ttarget\tresult")
	for _, t := range targets(r) {
		limit := "-"
		if t.op != "" {
			limit = fmt.Sprintf("%s %s %s", t.op, num(t.limit), t.unit)
		}
		val := "n/a"
		if t.value >= 0 {
			val = num(t.value) + " " + t.unit
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.what, val, limit, t.verdict())
	}
	tw.Flush()
	fmt.Fprintln(w, "\nraw medians (ns/op, B/op, allocs/op and custom units):")
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range keys {
		units := make([]string, 0, len(r[k]))
		for u := range r[k] {
			units = append(units, u)
		}
		slices.Sort(units)
		var parts []string
		for _, u := range units {
			parts = append(parts, num(r.get(k, u))+" "+u)
		}
		fmt.Fprintf(tw, "%s\t%s\n", k, strings.Join(parts, "\t"))
	}
	tw.Flush()
}

func num(v float64) string {
	switch {
	case v >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// moduleRoot is the directory of the go.mod of the module being run in.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the luahook module")
	}
	return filepath.Dir(mod), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}
