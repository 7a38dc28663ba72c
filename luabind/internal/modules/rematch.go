package modules

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// This file bounds the time the re module spends in Go's regexp. A search
// there is one Go call that the context cannot interrupt, and it costs up to
// the size of the pattern's program times the length of the text (about
// 100 ns per instruction and byte at worst, measured: a 1,000-instruction
// pattern over 40 KB takes 4 s). So a search whose worst case is small runs
// as it is; a larger one reads the text through a reader that checks the
// context as the search advances; the rare larger one that cannot be run that
// way (see steppable) is refused past maxRegexpWork.

const (
	// fastRegexpWork is the largest worst case (program instructions times
	// text bytes) searched in one uninterruptible call: about 0.1 s.
	fastRegexpWork = 1 << 20
	// maxRegexpWork is the largest worst case searched in one
	// uninterruptible call when the interruptible reader cannot be used:
	// about 1.5 s at worst, and far less for most patterns.
	maxRegexpWork = 1 << 24
	// reCheckPeriod is the work (instructions times runes) between two checks
	// of the context: about 10 ms at worst.
	reCheckPeriod = 1 << 17
)

// compiledRe is a compiled re pattern and what bounding its searches needs.
// Its Go regexps are compiled at their first use: a pattern that the
// automaton answers (re.match of most policies' patterns) never needs them.
type compiledRe struct {
	pattern string
	rxOnce  sync.Once
	rxVal   *regexp.Regexp
	insts   int  // instructions of its program
	literal bool // the pattern is a literal string: a search is strings.Index (set by rx)
	// anchored: it matches only at the start of the text (\A, or ^ outside
	// (?m)), as regexp knows from the program
	anchored bool
	// looksBehind is set when the program tests the text before a match's
	// start (^, \A, \b, \B). A reader always starts a text, so a search of
	// such a pattern from a later position reads from the rune before it,
	// with behind: the pattern after one rune, as capture 1 (see readAll).
	// An anchored pattern is never searched from a later position, so it
	// has no behind.
	looksBehind bool
	behindSrc   string // behind's pattern; "" for none
	behindOnce  sync.Once
	behindVal   *regexp.Regexp
	// needs are literals one of which every match holds (needsOf); nil:
	// none known
	needs []needLit
	// scan looks for several needs in one pass (newNeedScan); nil: one
	// by one
	scan *needScan
	// dfa answers whether it matches at all, when the pattern is one it
	// handles (newDFA); nil otherwise
	dfa *dfa
}

// rx is the pattern's Go regexp. regexp.Compile parses and compiles as
// compileRe did before it returned, so it cannot fail here.
func (c *compiledRe) rx() *regexp.Regexp {
	c.rxOnce.Do(func() {
		c.rxVal = regexp.MustCompile(c.pattern)
		_, c.literal = c.rxVal.LiteralPrefix()
	})
	return c.rxVal
}

// behind is the pattern wrapped to be searched from the rune before a
// position (see looksBehind), or nil. compileRe parsed it already.
func (c *compiledRe) behind() *regexp.Regexp {
	if c.behindSrc == "" {
		return nil
	}
	c.behindOnce.Do(func() { c.behindVal = regexp.MustCompile(c.behindSrc) })
	return c.behindVal
}

func compileRe(pattern string) (*compiledRe, error) {
	// regexp.Compile parses with syntax.Perl and compiles the simplified
	// tree: the same program, which regexp does not expose, and the same
	// errors.
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	simple := tree.Simplify()
	prog, err := syntax.Compile(simple)
	if err != nil {
		return nil, err
	}
	c := &compiledRe{pattern: pattern, insts: len(prog.Inst), needs: needsOf(simple, 0)}
	c.scan = newNeedScan(c.needs)
	c.anchored = prog.StartCond()&syntax.EmptyBeginText != 0
	c.dfa = newDFA(prog)
	const looksBehind = syntax.EmptyBeginLine | syntax.EmptyBeginText | syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&looksBehind != 0 {
			c.looksBehind = true
			if c.anchored {
				break
			}
			// The leftmost-first match of (?s:.)(?s:.*?)(P) from the rune
			// before pos is the one of P from pos: the lazy prefix puts P's
			// start as early as it can go, then P's own preferences decide.
			// P goes in as written (a flag set inside the group holds to its
			// end, as at P's top level; captures keep their names and order)
			// unless a \Q could swallow the closing paren: then as
			// tree.String() writes it back, which costs milliseconds on a
			// case-folded pattern. It is parsed now, so that a pattern it
			// cannot wrap is refused here, and compiled at its first use.
			p := pattern
			if strings.Contains(p, `\Q`) {
				p = tree.String()
			}
			c.behindSrc = `(?s:.)(?s:.*?)(` + p + `)`
			if _, err := syntax.Parse(c.behindSrc, syntax.Perl); err != nil {
				return nil, fmt.Errorf("wrapping the pattern to search it in steps: %w", err)
			}
			break
		}
	}
	return c, nil
}

// work is the worst case of searching s: instructions times bytes.
func (c *compiledRe) work(s string) int {
	// Asked only before a search, which needs the Go regexp anyway: rx
	// compiles it and learns whether the pattern is a literal.
	if c.rx(); c.literal {
		return len(s)
	}
	return c.insts * len(s)
}

// interrupted is the panic of a ctxReader whose context is done.
type interrupted struct{ err error }

// ctxReader reads a string from an offset as runes, as regexp decodes a
// string, and panics with interrupted once the context is done: it checks
// every period runes.
type ctxReader struct {
	s      string
	pos    int
	n      int
	period int
	ctx    context.Context
}

func (r *ctxReader) ReadRune() (rune, int, error) {
	if r.n++; r.n >= r.period {
		r.n = 0
		if r.ctx != nil && r.ctx.Err() != nil {
			panic(interrupted{r.ctx.Err()})
		}
	}
	if r.pos >= len(r.s) {
		return 0, 0, io.EOF
	}
	c, size := utf8.DecodeRuneInString(r.s[r.pos:])
	r.pos += size
	return c, size, nil
}

// searcher runs the searches of one re call.
type searcher struct {
	L  *lua.LState
	fn string // the Lua function, for errors
	re *compiledRe
	s  string
	rd ctxReader // one reader for every search, so that it counts them all
	// work done outside regexp (writing replacements), and when to check
	// the context next
	work, check int
}

// spend counts n units of work done outside regexp and stops the call once
// the context is done.
func (sr *searcher) spend(n int) {
	if sr.work += n; sr.work < sr.check {
		return
	}
	sr.check = sr.work + reCheckPeriod
	raiseIfDone(sr.L, "re."+sr.fn)
}

func newSearcher(L *lua.LState, fn string, re *compiledRe, s string) *searcher {
	sr := &searcher{}
	initSearcher(sr, L, fn, re, s)
	return sr
}

func initSearcher(sr *searcher, L *lua.LState, fn string, re *compiledRe, s string) {
	*sr = searcher{L: L, fn: fn, re: re, s: s, rd: ctxReader{s: s, period: max(1, reCheckPeriod/re.insts), ctx: L.Context()}}
}

// from returns the reader set to read s from pos.
func (sr *searcher) from(pos int) *ctxReader {
	sr.rd.pos = pos
	return &sr.rd
}

// reader reports whether searches of s must go through a ctxReader, and
// refuses a search that is too costly either way; from0: only the first
// search, from the text's start, is needed.
func (sr *searcher) reader(from0 bool) bool {
	w := sr.re.work(sr.s)
	switch {
	case w <= fastRegexpWork:
		return false
	case from0 || !sr.re.looksBehind || sr.steppable():
		return true
	case w <= maxRegexpWork:
		return false
	}
	sr.L.RaiseError("re.%s: a pattern of %d instructions over %d bytes of invalid UTF-8 is over the work limit of %d instructions × bytes",
		sr.fn, sr.re.insts, len(sr.s), maxRegexpWork)
	return false
}

// steppable reports whether s decodes to the same runes read backward as
// read forward, so that the rune before any position readAll searches from
// is the one regexp would look at: always true of valid UTF-8.
func (sr *searcher) steppable() bool { return utf8.ValidString(sr.s) }

// guard runs fn and turns a reader's interruption into a Lua error.
func (sr *searcher) guard(fn func()) {
	var stop *interrupted
	func() {
		defer func() {
			if r := recover(); r != nil {
				i, ok := r.(interrupted)
				if !ok {
					panic(r)
				}
				stop = &i
			}
		}()
		fn()
	}()
	if stop != nil {
		sr.L.RaiseError("re.%s: %v", sr.fn, stop.err)
	}
}

// matches reports whether the pattern matches s.
func (sr *searcher) matches() (ok bool) {
	if !sr.reader(true) {
		return sr.re.rx().MatchString(sr.s)
	}
	sr.guard(func() { ok = sr.re.rx().MatchReader(sr.from(0)) })
	return ok
}

// first returns the first match with its submatches, or nil.
func (sr *searcher) first() (loc []int) {
	if !sr.reader(true) {
		return sr.re.rx().FindStringSubmatchIndex(sr.s)
	}
	sr.guard(func() { loc = sr.re.rx().FindReaderSubmatchIndex(sr.from(0)) })
	return loc
}

// all returns up to n matches (n < 0: all) with their submatch indexes, as
// regexp's FindAllStringSubmatchIndex; more than maxMatches is an error.
func (sr *searcher) all(n int) [][]int {
	if n < 0 || n > maxMatches {
		n = maxMatches + 1
	}
	var locs [][]int
	if !sr.reader(false) {
		locs = sr.re.rx().FindAllStringSubmatchIndex(sr.s, n)
	} else {
		sr.guard(func() { locs = sr.readAll(n) })
	}
	if len(locs) > maxMatches {
		sr.L.RaiseError("re.%s: more than %d matches", sr.fn, maxMatches)
	}
	return locs
}

// readAll is regexp's allMatches loop with each search read from its
// position by a ctxReader.
func (sr *searcher) readAll(n int) [][]int {
	s := sr.s
	var out [][]int
	for pos, prevEnd := 0, -1; len(out) < n && pos <= len(s); {
		loc := sr.next(pos)
		if loc == nil {
			break
		}
		accept := true
		if loc[1] == pos { // an empty match
			if loc[0] == prevEnd {
				accept = false // none right after a match
			}
			if _, width := utf8.DecodeRuneInString(s[pos:]); width > 0 {
				pos += width
			} else {
				pos = len(s) + 1
			}
		} else {
			pos = loc[1]
		}
		prevEnd = loc[1]
		if accept {
			out = append(out, loc)
		}
	}
	return out
}

// next returns the first match from pos, as regexp finds it in s from pos.
func (sr *searcher) next(pos int) []int {
	re, start := sr.re.rx(), pos
	if pos > 0 && sr.re.anchored {
		return nil
	}
	wrapped := false
	if pos > 0 {
		if b := sr.re.behind(); b != nil {
			_, w := utf8.DecodeLastRuneInString(sr.s[:pos])
			re, start, wrapped = b, pos-w, true
		}
	}
	loc := re.FindReaderSubmatchIndex(sr.from(start))
	if loc == nil {
		return nil
	}
	if wrapped {
		loc = loc[2:] // capture 1 is the pattern's match
	}
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += start
		}
	}
	return loc
}
