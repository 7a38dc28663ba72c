// Package lpattern is Lua 5.1's pattern matcher (lstrlib.c), ported so that
// a long match can be interrupted: the matcher counts its work and stops,
// with an *Error, once its context is done. It knows nothing of Lua values;
// luabind's string.find, match, gmatch and gsub are built on it.
package lpattern

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

// Esc is the pattern escape character; Specials are the characters that make
// a pattern more than a plain string.
const (
	Esc      = '%'
	Specials = "^$*+?.([%-"
)

const (
	maxCaptures    = 32
	capUnfinished  = -1
	capPosition    = -2
	maxMatchDepth  = 200 // nesting of the matcher's recursion, as Lua 5.2's MAXCCALLS
	patCheckPeriod = 1 << 12
)

// Error is a malformed pattern or an interrupted match. The matcher panics
// with it; Catch recovers it.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Catch runs fn, which runs matches, and returns the *Error a match panicked
// with, or nil; any other panic goes on.
func Catch(fn func()) (err *Error) {
	defer func() {
		if r := recover(); r != nil {
			var ok bool
			if err, ok = r.(*Error); !ok {
				panic(r)
			}
		}
	}()
	fn()
	return nil
}

// Matcher is one match of a pattern over a text.
type Matcher struct {
	src     string
	pat     string
	level   int
	capture [maxCaptures]struct{ init, len int }
	depth   int
	steps   int             // work done so far
	check   int             // the steps at which to check the context next
	ctx     context.Context // nil: never interrupted
}

// New prepares matches of pat in src that stop once ctx (nil: never) is done.
func New(ctx context.Context, src, pat string) *Matcher {
	return &Matcher{src: src, pat: pat, ctx: ctx}
}

func (ms *Matcher) fail(msg string) { panic(&Error{msg}) }

// step counts one unit of work.
func (ms *Matcher) step() { ms.work(1) }

// Work counts n units of work (characters tried, bytes of a class or of a
// capture compared) and stops the match once the context is done.
func (ms *Matcher) Work(n int) { ms.work(n) }

func (ms *Matcher) work(n int) {
	if ms.steps += n; ms.steps < ms.check {
		return
	}
	ms.check = ms.steps + patCheckPeriod
	if ms.ctx != nil && ms.ctx.Err() != nil {
		ms.fail(ms.ctx.Err().Error())
	}
}

// p returns the pattern byte at i, or 0 past the end (C's terminating NUL).
func (ms *Matcher) p(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

// s returns the subject byte at i, or 0 past the end.
func (ms *Matcher) s(i int) byte {
	if i < len(ms.src) {
		return ms.src[i]
	}
	return 0
}

func (ms *Matcher) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.fail("invalid capture index")
	}
	return l
}

func (ms *Matcher) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.fail("invalid pattern capture")
	return 0
}

func (ms *Matcher) classEnd(p int) int {
	c := ms.p(p)
	p++
	switch c {
	case Esc:
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
			if c == Esc && p < len(ms.pat) {
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
func (ms *Matcher) matchBracketClass(c byte, p, ec int) bool {
	ms.work(ec - p)
	sig := true
	if ms.p(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.pat[p] == Esc:
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

func (ms *Matcher) singleMatch(c byte, p, ep int) bool {
	switch ms.p(p) {
	case '.':
		return true
	case Esc:
		return matchClass(c, ms.p(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.p(p) == c
}

func (ms *Matcher) matchBalance(s, p int) int {
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

func (ms *Matcher) maxExpand(s, p, ep int) int {
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

func (ms *Matcher) minExpand(s, p, ep int) int {
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

func (ms *Matcher) startCapture(s, p, what int) int {
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

func (ms *Matcher) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

func (ms *Matcher) matchCapture(s int, l byte) int {
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
func (ms *Matcher) match(s, p int) int {
	ms.depth++
	if ms.depth > maxMatchDepth {
		ms.fail("pattern too complex")
	}
	res := ms.doMatch(s, p)
	ms.depth--
	return res
}

func (ms *Matcher) doMatch(s, p int) int {
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
		case Esc:
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

// Find looks for the pattern from init on and returns the match's bounds,
// or start -1. A leading '^' anchors the pattern at init.
func (ms *Matcher) Find(init int) (start, end int) {
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

// MatchAt matches the pattern from its byte p at the text's byte s, and
// returns the end of the match, or -1.
func (ms *Matcher) MatchAt(s, p int) int {
	ms.level = 0
	return ms.match(s, p)
}

// Captures returns the number of captures of the last match.
func (ms *Matcher) Captures() int { return ms.level }

// Capture returns capture i of the last match s..e: its text, or its
// position (1-based) for a position capture "()". Capture 0 of a pattern
// without captures is the whole match.
func (ms *Matcher) Capture(i, s, e int) (text string, pos int, isPos bool) {
	if i >= ms.level {
		if i != 0 {
			ms.fail("invalid capture index")
		}
		return ms.src[s:e], 0, false
	}
	c := ms.capture[i]
	switch c.len {
	case capUnfinished:
		ms.fail("unfinished capture")
	case capPosition:
		return "", c.init + 1, true
	}
	return ms.src[c.init : c.init+c.len], 0, false
}

// Text returns the text the matcher runs over.
func (ms *Matcher) Text() string { return ms.src }
