package luabind

import (
	"context"
)

// This file is Lua 5.1's pattern matcher (lstrlib.c), ported so that a long
// match can be interrupted. gopher-lua's own matcher runs to completion inside
// one Go call: a pattern like ".-.-b" over a few KiB of text takes minutes
// that no deadline can stop. Here the matcher counts its steps and checks the
// call's context every few thousand of them. A step of the matcher is not one
// unit of work: a bracket class is walked for every character it is tried on,
// and a back-reference compares the whole capture, so these count the bytes
// they walk.

const (
	patEsc         = '%'
	patSpecials    = "^$*+?.([%-"
	maxCaptures    = 32
	capUnfinished  = -1
	capPosition    = -2
	maxMatchDepth  = 200 // nesting of the matcher's recursion, as Lua 5.2's MAXCCALLS
	patCheckPeriod = 1 << 12
)

// patternError is a malformed pattern or an interrupted match; the matcher
// panics with it and the Lua-facing function recovers it.
type patternError struct{ msg string }

type matchState struct {
	src     string
	pat     string
	level   int
	capture [maxCaptures]struct{ init, len int }
	depth   int
	steps   int             // work done so far
	check   int             // the steps at which to check the context next
	ctx     context.Context // nil: never interrupted
}

func (ms *matchState) fail(msg string) { panic(&patternError{msg}) }

// step counts one unit of work.
func (ms *matchState) step() { ms.work(1) }

// work counts n units of work (characters tried, bytes of a class or of a
// capture compared) and stops the match once the context is done.
func (ms *matchState) work(n int) {
	if ms.steps += n; ms.steps < ms.check {
		return
	}
	ms.check = ms.steps + patCheckPeriod
	if ms.ctx != nil && ms.ctx.Err() != nil {
		ms.fail(ms.ctx.Err().Error())
	}
}

// p returns the pattern byte at i, or 0 past the end (C's terminating NUL).
func (ms *matchState) p(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

// s returns the subject byte at i, or 0 past the end.
func (ms *matchState) s(i int) byte {
	if i < len(ms.src) {
		return ms.src[i]
	}
	return 0
}

func (ms *matchState) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.fail("invalid capture index")
	}
	return l
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.fail("invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p int) int {
	c := ms.p(p)
	p++
	switch c {
	case patEsc:
		if p >= len(ms.pat) {
			ms.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		start := p
		if ms.p(p) == '^' {
			p++
		}
		for { // look for a ']'
			if p >= len(ms.pat) {
				ms.fail("malformed pattern (missing ']')")
			}
			c := ms.pat[p]
			p++
			if c == patEsc && p < len(ms.pat) {
				p++ // skip escapes (e.g. '%]')
			}
			if ms.p(p) == ']' {
				break
			}
		}
		ms.work(p - start)
		return p + 1
	}
	return p
}

func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
func isCntrl(c byte) bool { return c < 0x20 || c == 0x7f }
func isPunct(c byte) bool { return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c) }
func isXDigit(c byte) bool {
	return isDigit(c) || ((c|0x20) >= 'a' && (c|0x20) <= 'f')
}

func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = isCntrl(c)
	case 'd':
		res = isDigit(c)
	case 'l':
		res = isLower(c)
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpace(c)
	case 'u':
		res = isUpper(c)
	case 'w':
		res = isAlpha(c) || isDigit(c)
	case 'x':
		res = isXDigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if isUpper(cl) {
		return !res
	}
	return res
}

// matchBracketClass matches c against the set [..] from p to ec (the ']').
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	ms.work(ec - p)
	sig := true
	if ms.p(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.pat[p] == patEsc:
			p++
			if matchClass(c, ms.p(p)) {
				return sig
			}
		case ms.p(p+1) == '-' && p+2 < ec:
			p += 2
			if ms.pat[p-2] <= c && c <= ms.pat[p] {
				return sig
			}
		case ms.pat[p] == c:
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.p(p) {
	case '.':
		return true
	case patEsc:
		return matchClass(c, ms.p(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.p(p) == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if p+1 >= len(ms.pat) {
		ms.fail("unbalanced pattern")
	}
	if s >= len(ms.src) || ms.src[s] != ms.pat[p] {
		return -1
	}
	b, e := ms.pat[p], ms.pat[p+1]
	cont := 1
	for s++; s < len(ms.src); s++ {
		ms.step()
		switch ms.src[s] {
		case e:
			cont--
			if cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		ms.step()
		i++
	}
	for ; i >= 0; i-- { // try with the most repetitions first
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++ // try with one more repetition
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	if ms.level >= maxCaptures {
		ms.fail("too many captures")
	}
	ms.capture[ms.level].init = s
	ms.capture[ms.level].len = what
	ms.level++
	res := ms.match(s, p)
	if res < 0 {
		ms.level-- // undo the capture
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) matchCapture(s int, l byte) int {
	i := ms.checkCapture(int(l))
	c := ms.capture[i]
	ms.work(c.len)
	if len(ms.src)-s >= c.len && ms.src[c.init:c.init+c.len] == ms.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match matches the pattern from p against the subject from s and returns
// the end of the match, or -1.
func (ms *matchState) match(s, p int) int {
	ms.depth++
	if ms.depth > maxMatchDepth {
		ms.fail("pattern too complex")
	}
	res := ms.doMatch(s, p)
	ms.depth--
	return res
}

func (ms *matchState) doMatch(s, p int) int {
	for {
		ms.step()
		if p >= len(ms.pat) {
			return s // end of pattern: match succeeded
		}
		switch ms.pat[p] {
		case '(':
			if ms.p(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case '$':
			if p+1 == len(ms.pat) {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		case patEsc:
			switch next := ms.p(p + 1); {
			case next == 'b':
				if s = ms.matchBalance(s, p+2); s < 0 {
					return -1
				}
				p += 4
				continue
			case next == 'f':
				p += 2
				if ms.p(p) != '[' {
					ms.fail("missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p)
				var prev byte
				if s > 0 {
					prev = ms.src[s-1]
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(ms.s(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			case isDigit(next):
				if s = ms.matchCapture(s, next); s < 0 {
					return -1
				}
				p += 2
				continue
			}
		}
		// A single-character class, possibly followed by a repetition.
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.p(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res >= 0 {
					return res
				}
			}
			p = ep + 1
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if !m {
				return -1
			}
			return ms.maxExpand(s+1, p, ep)
		case '-':
			return ms.minExpand(s, p, ep)
		default:
			if !m {
				return -1
			}
			s++
			p = ep
		}
	}
}

// find looks for the pattern from init on and returns the match's bounds,
// or start -1. A leading '^' anchors the pattern at init.
func (ms *matchState) find(init int) (start, end int) {
	anchor := len(ms.pat) > 0 && ms.pat[0] == '^'
	p := 0
	if anchor {
		p = 1
	}
	for s := init; s <= len(ms.src); s++ {
		ms.level = 0
		if e := ms.match(s, p); e >= 0 {
			return s, e
		}
		if anchor {
			break
		}
	}
	return -1, -1
}
