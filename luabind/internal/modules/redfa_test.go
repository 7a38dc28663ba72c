package modules

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// dfaCases are patterns of the shapes the shipped policies match with (a
// line of one class, an alternation of case-folded names after a prefix,
// a set of file names between separators, an anchored literal) and the
// corners of RE2's reading: folded runes outside ASCII, invalid UTF-8,
// empty texts, ^ and $ inside the pattern.
var dfaCases = []struct{ pattern, subject string }{
	{`^[A-Za-z0-9 ._/=,:@+%-]*$`, "go test ./... -run TestRunner -count=1"},
	{`^[A-Za-z0-9 ._/=,:@+%-]*$`, "echo $HOME"},
	{`^[A-Za-z0-9 ._/=,:@+%-]*$`, ""},
	{`^[A-Za-z0-9 ._/=,:@+%-]*$`, "go\xfftest"},
	{`^ *(?:[^ ]*=[^ ]* +)*(?:[^ ]*[/=])?(?i:rm|sudo|bash[0-9.]*|mkfs[^ /]*)/*(?: |$)`, "X=1 /usr/bin/RM -rf /"},
	{`^ *(?:[^ ]*=[^ ]* +)*(?:[^ ]*[/=])?(?i:rm|sudo|bash[0-9.]*|mkfs[^ /]*)/*(?: |$)`, "go test ./..."},
	{`^ *(?:[^ ]*=[^ ]* +)*(?:[^ ]*[/=])?(?i:sudo|ks)/*(?: |$)`, "\u212As"},
	{`(?i)(?:(?:^|[ /=:@])(?:\.env|id_rsa|\.ssh)|\.pem)(?:[/ =:@]|$)`, "cat ~/.SSH/id"},
	{`(?i)(?:(?:^|[ /=:@])(?:\.env|id_rsa|\.ssh)|\.pem)(?:[/ =:@]|$)`, "go test ./..."},
	{`^npm install$`, "npm install"}, {`^npm i `, "npm i x"}, {`^npx `, "go npx "},
	{`(?i)ſ`, "S"}, {`x\x{FFFD}y`, "x\xffy"}, {`a$^b`, "ab"}, {`^$`, ""}, {`$`, "x"}, {`(?s).`, "\n"}, {`.`, "\n"},
	{`(a|b)*a(a|b){12}$`, strings.Repeat("ab", 40)},
}

func TestDFAAgreesWithRegexpOnItsCases(t *testing.T) {
	for _, c := range dfaCases {
		checkDFA(t, c.pattern, c.subject)
	}
}

// TestDFAServesThePolicyShapes: the shipped policies' shell patterns get an
// automaton that answers.
func TestDFAServesThePolicyShapes(t *testing.T) {
	for _, c := range dfaCases[:10] {
		re, err := compileRe(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if re.dfa == nil {
			t.Fatalf("%q: no automaton", c.pattern)
		}
		if _, ok := re.dfa.match(c.subject); !ok {
			t.Fatalf("%q: the automaton gave up on %q", c.pattern, c.subject)
		}
	}
}

// TestDFAServesAQuickPathOfHundredsOfNames: a quick path's pattern, an
// alternation of hundreds of program names between separators (the system
// pack's names 350 programs, over 4,096 instructions), gets an automaton
// that answers an everyday line without giving up: without it the pack's
// every call costs Go's NFA, several times the lean floor.
func TestDFAServesAQuickPathOfHundredsOfNames(t *testing.T) {
	names := make([]string, 600)
	for i := range names {
		names[i] = fmt.Sprintf("prog-%c%c-tool%d", 'a'+i%26, 'a'+i/26%26, i)
	}
	pattern := `(?:^|[ ;&|(/])(?:` + strings.Join(names, "|") + `)(?:$|[ ;&|)])`
	re, err := compileRe(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if re.insts <= 4096 {
		t.Fatalf("the pattern has %d instructions; the test wants more than 4,096", re.insts)
	}
	if re.dfa == nil {
		t.Fatalf("no automaton for %d names", len(names))
	}
	for _, s := range []string{"git status", "go test ./...", "sudo prog-bz-tool27 -x", "ls; prog-aa-tool0", "prog-aa-tool0x"} {
		checkDFA(t, pattern, s)
		if _, ok := re.dfa.match(s); !ok {
			t.Fatalf("the automaton gave up on %q", s)
		}
	}
}

// TestDFAGivesUpPastItsStates: a pattern whose automaton needs more than
// maxDFAStates states stops answering (the regexp does), for good.
func TestDFAGivesUpPastItsStates(t *testing.T) {
	re, err := compileRe(`(a|b)*a(a|b){12}$`)
	if err != nil {
		t.Fatal(err)
	}
	if re.dfa == nil {
		t.Fatal("no automaton")
	}
	var b strings.Builder
	for i := range 1 << 14 {
		fmt.Fprintf(&b, "%b", i)
	}
	s := strings.NewReplacer("0", "a", "1", "b").Replace(b.String())
	if _, ok := re.dfa.match(s); ok {
		t.Fatal("the automaton answered past its state bound")
	}
	if _, ok := re.dfa.match("a"); ok {
		t.Fatal("the automaton answered after giving up")
	}
	if !re.mayMatch(s) {
		t.Fatal("mayMatch ruled out a subject after the automaton gave up")
	}
}

// TestDFASharedAcrossGoroutines: states of one file match with one
// automaton at once (run with -race).
func TestDFASharedAcrossGoroutines(t *testing.T) {
	re, err := compileRe(dfaCases[4].pattern)
	if err != nil {
		t.Fatal(err)
	}
	subjects := []string{"X=1 /usr/bin/RM -rf /", "go test ./...", "A=b c=d sudo x", "bash5.2 -c x", "mkfs.ext4 /dev/sda", "rmdir x"}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				s := subjects[(g+i)%len(subjects)]
				got, ok := re.dfa.match(s)
				if !ok || got != re.rx().MatchString(s) {
					t.Errorf("%q: automaton %v (ok %v), regexp %v", s, got, ok, re.rx().MatchString(s))
					return
				}
			}
		}()
	}
	wg.Wait()
}

func checkDFA(t *testing.T, pattern, subject string) {
	t.Helper()
	re, err := compileRe(pattern)
	if err != nil {
		return
	}
	want := re.rx().MatchString(subject)
	if re.dfa != nil {
		if got, ok := re.dfa.match(subject); ok && got != want {
			t.Fatalf("%q on %q: automaton %v, regexp %v", pattern, subject, got, want)
		}
	}
	if want && !re.mayMatch(subject) {
		t.Fatalf("%q on %q: mayMatch says no, regexp matches", pattern, subject)
	}
}

// FuzzDFAAgreesWithRegexp: for any pattern and subject, the automaton's
// answer, when it gives one, is regexp's MatchString.
func FuzzDFAAgreesWithRegexp(f *testing.F) {
	for _, c := range dfaCases {
		f.Add(c.pattern, c.subject)
	}
	f.Fuzz(func(t *testing.T, pattern, subject string) {
		if len(pattern) > 200 || !utf8.ValidString(pattern) {
			return
		}
		if _, err := regexp.Compile(pattern); err != nil {
			return
		}
		checkDFA(t, pattern, subject)
	})
}

// BenchmarkDFAMatch measures re.match's answer for shell.quick's shapes on a
// build command: the automaton (once its states are built) beside Go's
// regexp on the same pattern and text.
func BenchmarkDFAMatch(b *testing.B) {
	line := "go test ./... -run TestRunner -count=1"
	for _, c := range []struct{ name, pattern string }{
		{"class-line", dfaCases[0].pattern},
		{"program", dfaCases[4].pattern},
		{"words", dfaCases[7].pattern},
	} {
		re, err := compileRe(c.pattern)
		if err != nil || re.dfa == nil {
			b.Fatalf("%s: no automaton (%v)", c.name, err)
		}
		want := re.rx().MatchString(line)
		b.Run(c.name+"/dfa", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, ok := re.dfa.match(line); !ok || got != want {
					b.Fatal("the automaton disagrees or gave up")
				}
			}
		})
		b.Run(c.name+"/regexp", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if re.rx().MatchString(line) != want {
					b.Fatal("regexp changed its mind")
				}
			}
		})
	}
}

// TestDFAsShareOneMemoryBudget: the states of all automata together stay
// within dfaBudget. Automata that would pass it give up (the regexp
// answers, rightly), and what collected automata held is given back.
func TestDFAsShareOneMemoryBudget(t *testing.T) {
	max := dfaBudget.max
	t.Cleanup(func() { dfaBudget.max = max })
	// The automata of earlier tests are given back by finalizers, which run
	// after a collection, on their own goroutine: the base is taken once
	// collections no longer change it (it moved under the loop, which then
	// had more than its 200 automata to fill the budget).
	base := dfaBudget.used.Load()
	for range 100 {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if used := dfaBudget.used.Load(); used == base {
			break
		} else {
			base = used
		}
	}
	dfaBudget.max = base + 64<<10
	subject := "go test ./... -run TestRunner -count=1"
	gaveUp := false
	var kept []*compiledRe
	for i := range 200 {
		re, err := compileRe(fmt.Sprintf(`^[a-z ./=-]*(?:%d)?[A-Za-z0-9 ._/=,:@+%%-]*$`, i))
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, re)
		_, ok := re.dfa.match(subject)
		if used := dfaBudget.used.Load(); used > dfaBudget.max {
			t.Fatalf("automata hold %d bytes, over the budget of %d", used, dfaBudget.max)
		}
		if !ok {
			gaveUp = true
			if !re.mayMatch(subject) || !re.rx().MatchString(subject) {
				t.Fatal("past the budget, the pattern no longer matches")
			}
			break
		}
	}
	if !gaveUp {
		t.Fatalf("200 automata never reached a budget of %d bytes", dfaBudget.max-base)
	}
	kept = nil
	for i := 0; dfaBudget.used.Load() > base; i++ {
		if i == 1000 {
			t.Fatalf("collected automata still hold %d bytes of the budget", dfaBudget.used.Load()-base)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
