package selfguard

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// checkShell judges a shell tool's command: the cheap look first (scan),
// the parse only when it finds something worth it.
func (g *Guard) checkShell(in *luahook.Input) (bool, string) {
	cwd := g.cwdOf(in)
	parse, mention := g.scan(in.ToolInput, cwd)
	if !parse {
		return false, ""
	}
	line, workdir, ok := shellLine(in.ToolInput)
	if !ok {
		if mention {
			return true, g.reason(&finding{unsure: "its command could not be read"})
		}
		return false, ""
	}
	cwds := []string{cwd}
	if workdir != "" {
		w := g.expandHome(workdir)
		switch {
		case isAbsText(w):
			cwds = append(cwds, slashClean(w))
		case cwd != "":
			cwds = append(cwds, join(cwd, w))
		}
	}
	if f := g.analyze(line, cwds, mention); f != nil {
		return true, g.reason(f)
	}
	return false, ""
}

// analyze parses a command line run in one of cwds ("" unknown) and
// returns why it is denied, or nil. mention says that the line names
// something protected: only then is a line that cannot be judged denied
// (or when it runs in a protected folder).
func (g *Guard) analyze(line string, cwds []string, mention bool) *finding {
	return g.parse(line, cwds, mention).found
}

// parse is analyze, returning the parser (its counters are the work done).
func (g *Guard) parse(line string, cwds []string, mention bool) *parser {
	p := &parser{g: g, s: line, mention: mention, res: newResolver()}
	for _, c := range cwds {
		p.addCwd(c)
	}
	if len(line) > maxLineBytes {
		p.unsure("the command is longer than the 64 KiB luahook reads")
		return p
	}
	p.charge(len(line))
	p.readList(0)
	p.readHeredocs()
	if p.found == nil && p.err != "" {
		p.unsure(p.err)
	}
	return p
}

// shellLine returns a shell tool's command line (its command or cmd key:
// a string, or an argv list quoted back into one line) and the folder it
// runs in when the input names one.
func shellLine(data []byte) (line, workdir string, ok bool) {
	members(data, func(key string, val []byte) bool {
		switch key {
		case "command", "cmd":
			if len(val) > 6*maxLineBytes+2 {
				// a JSON escape is at most 6 bytes for 1: no need to
				// decode it to know it is over maxLineBytes
				line, ok = strings.Repeat(" ", maxLineBytes+1), true
			} else if s, isStr := jsonString(val); isStr {
				line, ok = s, true
			} else if argv := jsonStrings(val); argv != nil {
				quoted := make([]string, len(argv))
				for i, a := range argv {
					quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
				}
				line, ok = strings.Join(quoted, " "), true
			}
		case "workdir", "working_directory", "cwd", "dir", "directory":
			if s, isStr := jsonString(val); isStr {
				workdir = s
			}
		}
		return true
	})
	return line, workdir, ok
}

// mentions reports whether s names one of the guard's needles: a
// protected path's name or luahook's.
func (g *Guard) mentions(s string) bool {
	if s == "" {
		return false
	}
	if g.fold {
		s = strings.ToLower(s)
	}
	for _, n := range g.needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// scan is the cheap look at a shell tool's raw input: parse says whether
// the command is worth parsing, mention whether it names a needle. One
// pass reads the input's strings with the shell's quote characters and
// JSON's escapes taken out (so that hoo'ks'.d names hooks.d), without
// decoding the JSON, through a window of fixed size (the input may be
// megabytes: nothing of its size is allocated), and notes on the way the
// constructs that could spell a name without naming it (brace expansion,
// $'…', a variable set on the line, a glob) and the words that remove or
// move what they are pointed at (rm, mv, git reset, ...).
func (g *Guard) scan(raw []byte, cwd string) (parse, mention bool) {
	var s scanner
	s.read(g, raw)
	if s.mention {
		return true, true
	}
	return s.spelled || s.destroys && g.near(cwd), false
}

// mentionsRaw reports whether a raw JSON text names a needle, read as scan
// reads it.
func (g *Guard) mentionsRaw(raw []byte) bool {
	var s scanner
	s.read(g, raw)
	return s.mention
}

// scanWindow is the size of the window scanner reads through; it keeps a
// quarter of it when it slides, so a needle longer than that may be cut
// (the parse compares whole names).
const scanWindow = 1024

// scanner is scan's state.
type scanner struct {
	g    *Guard
	buf  [scanWindow]byte
	n    int
	word int // where the word being read starts in buf; -1: none; -2: one too long to matter

	mention, spelled, destroys, git, gitSub bool
}

func (s *scanner) read(g *Guard, raw []byte) {
	s.g, s.word = g, -1
	fold := g.fold
	for i := 0; i < len(raw) && !s.mention; i++ {
		c := raw[i]
		switch scanClass[c] {
		case classWord:
			if fold && c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if s.word == -1 {
				s.word = s.n
			}
			s.put(c)
			continue
		case classQuote:
			if c == '\'' && i > 0 && raw[i-1] == '$' {
				s.spelled = true // $'…'
			}
			continue // the word goes on: hoo"ks".d
		case classEscape:
			var r rune
			r, i = unescape(raw, i)
			switch {
			case r < 0: // the shell's quote or escape: the word goes on
			case r < 0x80 && wordBytes[byte(r)]:
				b := byte(r)
				if fold && b >= 'A' && b <= 'Z' {
					b += 'a' - 'A'
				}
				if s.word == -1 {
					s.word = s.n
				}
				s.put(b)
			default:
				s.endWord()
				var enc [utf8.UTFMax]byte
				for _, b := range enc[:utf8.EncodeRune(enc[:], r)] {
					s.put(b)
				}
			}
			continue
		case classSpell:
			switch c {
			case '{':
				s.spelled = s.spelled || i > 0
			case '$':
				s.spelled = s.spelled || bytes.IndexByte(raw, '=') >= 0
			default: // * ? [
				s.spelled = true
			}
		}
		s.endWord()
		s.put(c)
	}
	s.endWord()
	s.mention = s.mention || s.g.hasNeedle(s.buf[:s.n])
	s.destroys = s.destroys || s.git && s.gitSub
}

// put appends c to the window; a full window is searched for needles and
// slides, keeping what a needle or a word running on may start with.
func (s *scanner) put(c byte) {
	if s.n == len(s.buf) {
		if s.g.hasNeedle(s.buf[:s.n]) {
			s.mention = true
		}
		keep := scanWindow / 4
		copy(s.buf[:keep], s.buf[s.n-keep:s.n])
		if s.word >= 0 {
			if s.word -= s.n - keep; s.word < 0 {
				s.word = -2
			}
		}
		s.n = keep
	}
	s.buf[s.n] = c
	s.n++
}

// endWord ends the word being read, noting a destructive program's name.
func (s *scanner) endWord() {
	if s.word >= 0 && s.n-s.word >= 2 && s.n-s.word <= 8 {
		d, g, sub := destructiveWord(s.buf[s.word:s.n])
		s.destroys, s.git, s.gitSub = s.destroys || d, s.git || g, s.gitSub || sub
	}
	s.word = -1
}

// The classes of bytes scan tells apart.
const (
	classOther  = iota
	classWord   // letters, digits, '_', '-', '.'
	classQuote  // " and ': taken out
	classEscape // \: a JSON escape
	classSpell  // {, $, *, ?, [: may spell a name
)

var scanClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case wordBytes[c]:
			t[c] = classWord
		case c == '"' || c == '\'':
			t[c] = classQuote
		case c == '\\':
			t[c] = classEscape
		case c == '{' || c == '$' || c == '*' || c == '?' || c == '[':
			t[c] = classSpell
		}
	}
	return t
}()

// destructiveWord says whether w names a program that removes or moves
// what it is pointed at, is git, or is a git subcommand that resets the
// working tree.
func destructiveWord(w []byte) (destroys, git, gitSub bool) {
	switch w[0] {
	case 'c', 'f', 'g', 'm', 'r', 's', 't', 'u':
	default:
		return false, false, false
	}
	switch string(w) {
	case "rm", "rmdir", "mv", "unlink", "shred", "chmod", "chown", "chgrp", "find", "rsync", "tar", "unzip":
		return true, false, false
	case "git":
		return false, true, false
	case "checkout", "restore", "reset", "stash", "clean", "switch":
		return false, false, true
	}
	return false, false, false
}

// unescape decodes the JSON escape at raw[i]: the character it stands
// for, -1 for the shell's quote characters and escape (taken out), and
// the index of its last byte.
func unescape(raw []byte, i int) (rune, int) {
	if i+1 >= len(raw) {
		return -1, i
	}
	i++
	switch raw[i] {
	case 'n':
		return '\n', i
	case 't':
		return '\t', i
	case '/':
		return '/', i
	case 'b', 'f', 'r':
		return ' ', i
	case 'u':
		if i+4 < len(raw) && isHex(raw[i+1]) && isHex(raw[i+2]) && isHex(raw[i+3]) && isHex(raw[i+4]) {
			r := rune(hexVal(raw[i+1]))<<12 | rune(hexVal(raw[i+2]))<<8 | rune(hexVal(raw[i+3]))<<4 |
				rune(hexVal(raw[i+4]))
			if r == '"' || r == '\'' || r == '\\' {
				return -1, i + 4
			}
			return r, i + 4
		}
	}
	return -1, i // \" and \\: the shell's quote and escape
}

// near reports whether a command run in cwd may reach a protected path
// without naming it (rm -rf ., git clean): cwd is in the folder holding
// one, or holds one.
func (g *Guard) near(cwd string) bool {
	if cwd == "" {
		return false
	}
	for _, n := range g.nearDirs {
		if g.under(cwd, n) {
			return true
		}
	}
	for i := range g.roots {
		if r := &g.roots[i]; r.path != "" && g.under(r.path, cwd) && !g.catastrophic(cwd) {
			return true
		}
	}
	return false
}

func wordByte(c byte) bool { return wordBytes[c] }

// wordBytes marks the bytes of a word: letters, digits, '_', '-', '.'.
var wordBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return t
}()
