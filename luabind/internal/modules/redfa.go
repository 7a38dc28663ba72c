package modules

import (
	"regexp/syntax"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// A dfa answers re.match (does the pattern match anywhere in s?) in one
// pass over s with no backtracking and no thread lists: Go's regexp runs
// its backtracker or its NFA even for a pattern like ^[a-z ]*$, at about
// 50 ns a byte, where a table step costs a few. The automaton is built
// lazily from the pattern's program as subjects reach new sets of threads,
// and shared by every state of the file (its transitions are published
// atomically, built under a lock). It only handles what is decided by the
// text read so far: patterns whose empty-width assertions are ^ and $ at
// the text's ends (\A, \z, and ^/$ outside (?m)). Its size and the work of
// building it are bounded (maxDFAStates, maxDFAEdges, maxDFAThreads,
// maxDFAWork), and so is the memory of all automata together (dfaBudget):
// past a bound it gives up for good and the regexp answers.
type dfa struct {
	prog *syntax.Prog
	// classes: runes that every instruction treats alike share a class;
	// bounds[i] is the first rune of class i (bounds[0] = 0)
	bounds []rune
	ascii  [utf8.RuneSelf]uint16

	mu      sync.Mutex
	states  map[string]*dstate
	start   atomic.Pointer[dstate] // the state before the first rune
	work    int                    // instructions visited building states so far
	threads int                    // threads held by the states
	failed  atomic.Bool
	// held is what the states take of dfaBudget, given back when the
	// automaton is collected
	held *atomic.Int64
}

// dfaBudget is the memory (bytes, estimated) that the states of every
// automaton in the process may take together: each automaton is bounded,
// but a file may hold hundreds of patterns and a process many files. Past
// it, an automaton that needs a new state gives up, as past its own bounds.
var dfaBudget = struct {
	used atomic.Int64
	max  int64
}{max: 64 << 20}

// stateBytes estimates what a state of threads pcs takes: its transitions
// (by class and by ASCII byte), its threads and its key in states.
func (d *dfa) stateBytes(pcs []uint32) int64 {
	return int64(8*len(d.bounds) + 8*len(pcs) + 8*utf8.RuneSelf + 128)
}

// dstate is one state: the threads of the program alive at a position.
type dstate struct {
	pcs   []uint32 // rune instructions, and $ instructions waiting for the end
	begin bool     // the position is the text's start
	// match: a match has ended at or before this position; atEnd: one
	// ends here if the text does; dead: none can, whatever follows
	match, atEnd, dead bool
	stop               bool                     // match || dead: the answer is known
	next               []atomic.Pointer[dstate] // by class; nil: not built yet
	// byByte is next by ASCII byte, filled from next as bytes come: one
	// load a byte instead of the byte's class and then its transition
	byByte [utf8.RuneSelf]atomic.Pointer[dstate]
}

const (
	// maxDFAStates bounds the states of one pattern's automaton, and
	// maxDFAEdges their transitions (states times classes, 8 bytes each).
	maxDFAStates = 512
	maxDFAEdges  = 1 << 15
	// maxDFAWork bounds the instructions visited building one pattern's
	// states (about 10 ms), and maxDFAThreads the threads they hold.
	maxDFAWork    = 1 << 21
	maxDFAThreads = 1 << 16
	// maxDFAClasses bounds the rune classes (each state has a transition
	// per class).
	maxDFAClasses = 256
	// maxDFAInsts bounds the program of a pattern given an automaton: a
	// pack's quick path names hundreds of programs (the system pack's,
	// over 4,096 instructions, ran on Go's NFA at 7x the lean floor); the
	// states and the work of building them stay bounded by the others.
	maxDFAInsts = 16384
)

// newDFA returns an automaton for prog, or nil when prog uses what it does
// not handle.
func newDFA(prog *syntax.Prog) *dfa {
	if len(prog.Inst) > maxDFAInsts {
		return nil
	}
	cuts := []rune{0}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
				return nil
			}
		case syntax.InstRune:
			if len(in.Rune) == 1 && syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				r0 := in.Rune[0]
				cuts = append(cuts, r0, r0+1)
				for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
					cuts = append(cuts, r, r+1)
				}
				continue
			}
			for i := 0; i+1 < len(in.Rune); i += 2 {
				cuts = append(cuts, in.Rune[i], in.Rune[i+1]+1)
			}
			if len(in.Rune) == 1 {
				cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
			}
		case syntax.InstRune1:
			cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
		case syntax.InstRuneAnyNotNL:
			cuts = append(cuts, '\n', '\n'+1)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	for len(cuts) > 0 && cuts[len(cuts)-1] > unicode.MaxRune {
		cuts = cuts[:len(cuts)-1]
	}
	if len(cuts) > maxDFAClasses {
		return nil
	}
	d := &dfa{prog: prog, bounds: cuts, states: make(map[string]*dstate), held: new(atomic.Int64)}
	runtime.AddCleanup(d, func(held *atomic.Int64) { dfaBudget.used.Add(-held.Load()) }, d.held)
	for r := rune(0); r < utf8.RuneSelf; r++ {
		d.ascii[r] = uint16(d.search(r))
	}
	return d
}

func (d *dfa) classOf(r rune) int {
	if r < utf8.RuneSelf {
		return int(d.ascii[r])
	}
	return d.search(r)
}

// search returns the class of r: the last one starting at or before it.
func (d *dfa) search(r rune) int {
	return sort.Search(len(d.bounds), func(i int) bool { return d.bounds[i] > r }) - 1
}

// match reports whether the pattern matches somewhere in s; ok is false
// when the automaton has given up (then the regexp must answer).
func (d *dfa) match(s string) (matched, ok bool) {
	if d.failed.Load() {
		return false, false
	}
	st := d.start.Load()
	if st == nil {
		if st = d.first(); st == nil {
			return false, false
		}
	}
	if st.stop {
		return st.match, true
	}
	for i := 0; i < len(s); {
		var c int
		if b := s[i]; b < utf8.RuneSelf {
			i++
			if next := st.byByte[b].Load(); next != nil {
				if st = next; st.stop {
					return st.match, true
				}
				continue
			}
			c = int(d.ascii[b])
			next := st.next[c].Load()
			if next == nil {
				if next = d.build(st, c); next == nil {
					return false, false
				}
			}
			st.byByte[b].Store(next)
			if st = next; st.stop {
				return st.match, true
			}
			continue
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			c = d.classOf(r)
			i += w
		}
		next := st.next[c].Load()
		if next == nil {
			if next = d.build(st, c); next == nil {
				return false, false
			}
		}
		st = next
		if st.stop {
			return st.match, true
		}
	}
	return st.match || st.atEnd, true
}

func (d *dfa) first() *dstate {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.start.Load(); st != nil || d.failed.Load() {
		return st
	}
	st := d.state([]uint32{uint32(d.prog.Start)}, true)
	d.start.Store(st)
	return st
}

// build returns the state after st reads a rune of class c, making it
// when it is new; nil once the automaton has given up.
func (d *dfa) build(st *dstate, c int) *dstate {
	d.mu.Lock()
	defer d.mu.Unlock()
	if next := st.next[c].Load(); next != nil {
		return next
	}
	if d.failed.Load() {
		return nil
	}
	r := d.bounds[c]
	var seeds []uint32
	for _, pc := range st.pcs {
		in := &d.prog.Inst[pc]
		if takes(in, r) {
			seeds = append(seeds, in.Out)
		}
	}
	// a match may start at any position: the program's start joins
	seeds = append(seeds, uint32(d.prog.Start))
	next := d.state(seeds, false)
	if next == nil {
		return nil
	}
	st.next[c].Store(next)
	return next
}

// anchored reports whether no thread starts past the text's start.
func (d *dfa) anchored() bool {
	return d.prog.StartCond()&syntax.EmptyBeginText != 0
}

func (d *dfa) fail() {
	d.failed.Store(true)
	d.states = nil // the states already reached stay reachable from their parents until the dfa goes
}

// takes reports whether the rune instruction in consumes r.
func takes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune, syntax.InstRune1:
		return in.MatchRune(r)
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return false
}

// state returns the state of the threads that follow seeds through the
// program's empty steps, at the text's start or not; nil once there are
// too many. Called with d.mu held.
func (d *dfa) state(seeds []uint32, begin bool) *dstate {
	if d.work += len(d.prog.Inst); d.work > maxDFAWork {
		d.fail()
		return nil
	}
	pcs, match := d.follow(seeds, begin, false)
	slices.Sort(pcs)
	key := make([]byte, 0, 1+4*len(pcs))
	key = append(key, boolByte(begin), boolByte(match))
	for _, pc := range pcs {
		key = append(key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if st, ok := d.states[string(key)]; ok {
		return st
	}
	if len(d.states) >= min(maxDFAStates, maxDFAEdges/len(d.bounds)) || d.threads+len(pcs) > maxDFAThreads {
		d.fail()
		return nil
	}
	n := d.stateBytes(pcs)
	if dfaBudget.used.Add(n) > dfaBudget.max {
		dfaBudget.used.Add(-n)
		d.fail()
		return nil
	}
	d.held.Add(n)
	d.threads += len(pcs)
	st := &dstate{pcs: pcs, begin: begin, match: match, next: make([]atomic.Pointer[dstate], len(d.bounds))}
	st.atEnd = match || d.endMatches(st)
	// no thread, and none starts past the text's start: ^ anchors the
	// pattern there
	st.dead = len(pcs) == 0 && !match && !begin && d.anchored()
	st.stop = st.match || st.dead
	d.states[string(key)] = st
	return st
}

// endMatches reports whether a match ends at st's position when the text
// ends there: the $ threads go on with both ends true of the position
// (the start only when it is one).
func (d *dfa) endMatches(st *dstate) bool {
	var ends []uint32
	for _, pc := range st.pcs {
		if d.prog.Inst[pc].Op == syntax.InstEmptyWidth {
			ends = append(ends, pc)
		}
	}
	_, match := d.follow(ends, st.begin, true)
	return match
}

// follow returns the threads that seeds reach through the program's empty
// steps at a position that is the text's start (begin), its end (end), or
// neither, and whether one of them reaches a match. Before the end, a $
// stays a thread, decided when the text ends.
func (d *dfa) follow(seeds []uint32, begin, end bool) (pcs []uint32, match bool) {
	seen := make([]bool, len(d.prog.Inst))
	stack := slices.Clone(seeds)
	slices.Reverse(stack) // the first seed is explored first
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			switch {
			case op&syntax.EmptyBeginText != 0 && !begin:
			case op&syntax.EmptyEndText != 0 && !end:
				pcs = append(pcs, pc)
			default:
				stack = append(stack, in.Out)
			}
		case syntax.InstMatch:
			match = true
		case syntax.InstFail:
		default:
			pcs = append(pcs, pc)
		}
	}
	return pcs, match
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
