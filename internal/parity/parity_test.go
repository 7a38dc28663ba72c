package parity

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

// result is one door's answer to one fixture.
type result struct {
	door door
	raw  answer
	got  verdict
}

// TestOneDecisionEveryDoor sends each fixture's payload through every door
// and fails when (a) two doors' verdicts differ or (b) a door's verdict is
// not the fixture's, printing, per fixture, every door's verdict and raw
// answer.
func TestOneDecisionEveryDoor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds luahook and starts a serve per hooks folder")
	}
	start := time.Now()
	build(t)
	built := time.Since(start)
	sites := map[string]*site{}
	for _, st := range setups {
		sites[st.name] = prepare(t, st)
	}
	table := map[string][]result{}
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			s := sites[fx.setup]
			if s == nil {
				t.Fatalf("fixture %q: no setup %q", fx.name, fx.setup)
			}
			plain, claude := fx.payload.plain(s.folder), fx.payload.claude(s.folder)
			var results []result
			for _, d := range doors {
				p := plain
				if d.claude {
					p = claude
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				raw := d.ask(ctx, s, p)
				cancel()
				results = append(results, result{door: d, raw: raw, got: d.normalise(raw)})
			}
			table[fx.name] = results
			problems := check(fx, results)
			report := describe(fx, s, results, problems)
			if len(problems) > 0 {
				t.Error(report)
			} else {
				t.Log(report)
			}
		})
	}
	t.Logf("build %s, whole test %s\n%s", built.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), matrix(table))
}

// check returns what is wrong with one fixture's results: (a) doors that
// disagree, then (b) each door whose verdict is not the fixture's.
func check(fx fixture, results []result) []string {
	if fx.want == "" {
		// Recorded, not held: the fixture names no verdict.
		return nil
	}
	var problems []string
	groups := groupByVerdict(results)
	if len(groups) > 1 {
		var parts []string
		for _, g := range groups {
			parts = append(parts, fmt.Sprintf("%s <- %s", g.key, strings.Join(g.doors, ", ")))
		}
		problems = append(problems, "(a) doors disagree: "+strings.Join(parts, " | "))
	}
	for _, r := range results {
		if p := doorProblem(fx, r); p != "" {
			problems = append(problems, "(b) "+r.door.name+": "+p)
		}
	}
	return problems
}

// doorProblem says how one door's verdict is not the fixture's: another
// kind, a reason that does not name the cause (of a deny or an ask) or
// what was taken out (of an output), another rewrite, another output for
// the model. "" when it is the fixture's, or the fixture holds the doors
// to nothing.
func doorProblem(fx fixture, r result) string {
	g := r.got
	switch {
	case fx.want == "":
		return ""
	case g.kind != fx.want:
		return fmt.Sprintf("%s, want %s", g.kind, fx.want)
	case fx.reason != "" && (g.kind == kindDeny || g.kind == kindAsk || g.kind == kindOutput) && !strings.Contains(g.reason, fx.reason):
		return fmt.Sprintf("%s, but its reason %q does not name %q", g.kind, clip(g.reason, 200), fx.reason)
	case fx.want == kindMutate && g.input != fx.input:
		return fmt.Sprintf("mutate to %s, want %s", g.input, fx.input)
	case fx.want == kindOutput && g.output != fx.output:
		return fmt.Sprintf("output %q, want %q", clip(g.output, 200), fx.output)
	}
	return ""
}

// group is the doors that gave one verdict.
type group struct {
	key   string
	doors []string
}

// groupByVerdict groups the doors by the verdict they gave (sameAs), in
// the order the doors are listed.
func groupByVerdict(results []result) []group {
	var groups []group
	var firsts []verdict
next:
	for _, r := range results {
		for i, v := range firsts {
			if v.sameAs(r.got) {
				groups[i].doors = append(groups[i].doors, r.door.name)
				continue next
			}
		}
		key := string(r.got.kind)
		if r.got.input != "" {
			key += " " + r.got.input
		}
		if r.got.kind == kindOutput {
			key += " " + strconv.Quote(clip(r.got.output, 120))
		}
		firsts = append(firsts, r.got)
		groups = append(groups, group{key: key, doors: []string{r.door.name}})
	}
	return groups
}

// describe is one fixture's report: what it is, what is expected, what is
// wrong, and a table of door, verdict and raw answer.
func describe(fx fixture, s *site, results []result, problems []string) string {
	var b strings.Builder
	var files []string
	for _, f := range s.files {
		files = append(files, f.as)
	}
	where := "--dir hooks.d"
	if s.project {
		where = "hooks.d and luahook.toml in the current folder, untrusted, no --dir"
	}
	fmt.Fprintf(&b, "fixture %q: setup %q (hooks.d: %s; %s); payload %s\n", fx.name, s.name, strings.Join(files, ", "), where, fx.payload)
	switch {
	case fx.want == "":
		b.WriteString("expected: nothing held; what each door does is recorded\n")
	default:
		fmt.Fprintf(&b, "expected: %s", fx.want)
		if fx.reason != "" {
			fmt.Fprintf(&b, ", the reason naming %q", fx.reason)
		}
		if fx.input != "" {
			fmt.Fprintf(&b, ", input %s", fx.input)
		}
		if fx.want == kindOutput {
			fmt.Fprintf(&b, ", the model reading %q", fx.output)
		}
		b.WriteString("\n")
	}
	if fx.want != "" {
		for _, p := range problems {
			fmt.Fprintf(&b, "  %s\n", p)
		}
	} else if groups := groupByVerdict(results); len(groups) > 1 {
		fmt.Fprintf(&b, "  (recorded) the doors differ: %d verdicts\n", len(groups))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  door\tverdict\tok\traw answer")
	for _, r := range results {
		ok := "-"
		if fx.want != "" {
			ok = "ok"
			if doorProblem(fx, r) != "" {
				ok = "FAIL"
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.door.name, verdictCell(r.got), ok, r.raw)
	}
	tw.Flush()
	return b.String()
}

// verdictCell is a verdict for a table cell: its kind, rewrite, the start
// of the output the model reads and the start of its reason.
func verdictCell(v verdict) string {
	s := string(v.kind)
	if v.input != "" {
		s += " " + v.input
	}
	if v.kind == kindOutput {
		s += " " + strconv.Quote(clip(v.output, 60))
	}
	if v.reason != "" {
		s += " " + strconv.Quote(clip(v.reason, 60))
	}
	return s
}

// matrix is the summary of the run: one line per fixture, one column per
// door, each cell the door's verdict kind, marked with * where it is not
// the fixture's (another kind, a reason not naming the cause, another
// rewrite, another output).
func matrix(table map[string][]result) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := "fixture\twant"
	for _, d := range doors {
		head += "\t" + d.name
	}
	fmt.Fprintln(tw, head)
	for _, fx := range fixtures {
		results, ok := table[fx.name]
		if !ok {
			continue
		}
		want := string(fx.want)
		if want == "" {
			want = "(record)"
		}
		line := fx.name + "\t" + want
		for _, r := range results {
			cell := string(r.got.kind)
			if doorProblem(fx, r) != "" {
				cell += "*"
			}
			line += "\t" + cell
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	return b.String()
}
