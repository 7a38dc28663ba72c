package selfguard

import (
	"strconv"
	"strings"
)

// word is a word after expansion: one value the shell may pass.
type word struct {
	text  string   // the value; unknown parts are "\x00"
	pat   string   // the value as a path.Match pattern: quoted glob characters escaped
	glob  bool     // it holds an active *, ? or [
	unk   uint8    // the source of its first unknown part; srcNone: all known
	whole bool     // nothing of it is known
	subst string   // the text of the substitutions it holds (bounded)
	find  *findCtx // {} of find -exec, and what -delete removes
}

// wordCost is what each value of a word costs the parse's work, beyond
// its bytes: the memory of a word.
const wordCost = 64

// maxSubstText bounds the substitution text a word keeps (for mentions).
const maxSubstText = 4096

// overflow stands for an expansion past the bounds.
var overflow = word{text: "\x00", pat: "\x00", unk: srcOverflow, whole: true}

// plainWord returns a known word of text s with no active glob.
func plainWord(s string) word { return word{text: s, pat: escGlob(s)} }

// escGlob escapes the glob characters of s (and backslashes).
func escGlob(s string) string {
	if !strings.ContainsAny(s, `\*?[]`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '*', '?', '[', ']':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// wb builds one value of a word.
type wb struct {
	text, pat strings.Builder
	glob      bool
	unk       uint8
	known     bool
	subst     string
}

func (b *wb) copy() *wb {
	c := &wb{glob: b.glob, unk: b.unk, known: b.known, subst: b.subst}
	c.text.WriteString(b.text.String())
	c.pat.WriteString(b.pat.String())
	return c
}

func (b *wb) addText(s string, q bool) {
	b.text.WriteString(s)
	if q {
		b.pat.WriteString(escGlob(s))
	} else {
		b.pat.WriteString(strings.ReplaceAll(s, `\`, `\\`))
		if strings.ContainsAny(s, "*?[") {
			b.glob = true
		}
	}
	if s != "" {
		b.known = true
	}
}

func (b *wb) addUnknown(src uint8, text string) {
	b.text.WriteByte(0)
	b.pat.WriteByte(0)
	if b.unk == srcNone {
		b.unk = src
	}
	b.addSubst(text)
}

func (b *wb) addSubst(text string) {
	if text != "" && len(b.subst) < maxSubstText {
		b.subst += text[:min(len(text), maxSubstText-len(b.subst))]
	}
}

func (b *wb) addWord(w word, q bool) {
	b.text.WriteString(w.text)
	if q {
		b.pat.WriteString(escGlob(w.text))
	} else {
		b.pat.WriteString(w.pat)
		b.glob = b.glob || w.glob
	}
	if w.unk != srcNone && b.unk == srcNone {
		b.unk = w.unk
	}
	if strings.Trim(w.text, "\x00") != "" {
		b.known = true
	}
	b.addSubst(w.subst)
}

func (b *wb) word() word {
	return word{text: b.text.String(), pat: b.pat.String(), glob: b.glob, unk: b.unk,
		whole: b.unk != srcNone && !b.known, subst: b.subst}
}

// expand returns the values a word may take: brace expansion, then
// tilde, variable and substitution expansion, then (with split) the
// splitting of an unquoted variable's value at blanks. Past maxFields
// values it returns overflow.
func (p *parser) expand(raw []piece, split bool) []word {
	lists := [][]piece{raw}
	groups := 0
	for _, pc := range raw {
		if pc.k == pBrace && pc.s == "{" {
			groups++
		}
	}
	if groups > 0 {
		lists = nil
		if groups > 32 || !p.braces(raw, &lists) {
			return []word{overflow}
		}
	}
	var out []word
	for _, l := range lists {
		for _, w := range p.fields(l, split) {
			out = append(out, w)
			if len(out) > maxFields || !p.charge(wordCost) {
				return []word{overflow}
			}
		}
	}
	return out
}

// braces expands the brace groups of pieces into out, the first group
// that expands first; false past maxFields or the work bound.
func (p *parser) braces(pieces []piece, out *[][]piece) bool {
	for i, pc := range pieces {
		if pc.k != pBrace || pc.s != "{" {
			continue
		}
		depth, end := 0, -1
		var commas []int
		for j := i; j < len(pieces) && end < 0; j++ {
			if pieces[j].k != pBrace {
				continue
			}
			switch pieces[j].s {
			case "{":
				depth++
			case "}":
				depth--
				if depth == 0 {
					end = j
				}
			case ",":
				if depth == 1 {
					commas = append(commas, j)
				}
			}
		}
		if end < 0 {
			continue
		}
		var alts [][]piece
		if len(commas) > 0 {
			from := i + 1
			for _, c := range commas {
				alts = append(alts, pieces[from:c])
				from = c + 1
			}
			alts = append(alts, pieces[from:end])
		} else {
			seq, ok := sequence(pieces[i+1 : end])
			if !ok {
				return false
			}
			if seq == nil {
				continue // {x}: literal
			}
			alts = seq
		}
		for _, a := range alts {
			if !p.charge(8 * (len(pieces) + len(a))) {
				return false
			}
			np := make([]piece, 0, i+len(a)+len(pieces)-end-1)
			np = append(np, pieces[:i]...)
			np = append(np, a...)
			np = append(np, pieces[end+1:]...)
			if !p.braces(np, out) {
				return false
			}
		}
		return len(*out) <= maxFields
	}
	*out = append(*out, pieces)
	return len(*out) <= maxFields
}

// sequence expands the inside of {x..y[..step]}: nil when it is not one,
// false when it holds more than maxFields values.
func sequence(in []piece) ([][]piece, bool) {
	if len(in) != 1 || in[0].k != pLit || in[0].q {
		return nil, true
	}
	parts := strings.Split(in[0].s, "..")
	if len(parts) != 2 && len(parts) != 3 {
		return nil, true
	}
	step := 1
	if len(parts) == 3 {
		s, err := strconv.Atoi(parts[2])
		if err != nil {
			return nil, true
		}
		step = max(s, -s, 1)
	}
	x, errx := strconv.Atoi(parts[0])
	y, erry := strconv.Atoi(parts[1])
	chars := false
	if errx != nil || erry != nil {
		if len(parts[0]) != 1 || len(parts[1]) != 1 || !isNameStart(parts[0][0]) || !isNameStart(parts[1][0]) {
			return nil, true
		}
		x, y, chars = int(parts[0][0]), int(parts[1][0]), true
	}
	if (max(x, y)-min(x, y))/step+1 > maxFields {
		return nil, false
	}
	dir := step
	if y < x {
		dir = -step
	}
	var out [][]piece
	for v := x; (dir > 0 && v <= y) || (dir < 0 && v >= y); v += dir {
		s := strconv.Itoa(v)
		if chars {
			s = string(rune(v))
		}
		out = append(out, []piece{{k: pLit, s: s}})
	}
	return out, true
}

// fields expands one brace-free piece list.
func (p *parser) fields(pieces []piece, split bool) []word {
	alts := []*wb{{}}
	for _, pc := range pieces {
		switch pc.k {
		case pLit:
			if !p.charge(len(pc.s) * len(alts)) {
				return []word{overflow}
			}
			for _, a := range alts {
				a.addText(pc.s, pc.q)
			}
		case pBrace:
			for _, a := range alts {
				a.addText(pc.s, true)
			}
		case pTilde:
			for _, a := range alts {
				switch {
				case pc.s == "" && p.g.home != "":
					a.addText(p.g.home, true)
				case pc.s == "+" && p.knownCwd() != "":
					a.addText(p.knownCwd(), true)
				default:
					a.addUnknown(srcEnv, "~"+pc.s)
				}
			}
		case pVar:
			vals := p.values(pc)
			if vals == nil {
				for _, a := range alts {
					a.addUnknown(srcEnv, "$"+pc.s)
				}
				continue
			}
			if len(vals) == 1 {
				if !p.charge(len(vals[0].text) * len(alts)) {
					return []word{overflow}
				}
				for _, a := range alts {
					a.addWord(vals[0], pc.q)
				}
				continue
			}
			var next []*wb
			for _, a := range alts {
				for _, v := range vals {
					if len(next) >= maxFields || !p.charge(a.text.Len()+len(v.text)) {
						return []word{overflow}
					}
					b := a.copy()
					b.addWord(v, pc.q)
					next = append(next, b)
				}
			}
			alts = next
		case pUnk:
			for _, a := range alts {
				a.addUnknown(pc.src, pc.text)
			}
		}
	}
	out := make([]word, 0, len(alts))
	single := split && len(pieces) == 1 && pieces[0].k == pVar && !pieces[0].q
	for _, a := range alts {
		w := a.word()
		if single && w.unk == srcNone && strings.ContainsAny(w.text, " \t\n") {
			for _, f := range strings.Fields(w.text) {
				out = append(out, word{text: f, pat: f, glob: strings.ContainsAny(f, "*?[")})
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

// knownCwd returns the working folder when the line can be in one only.
func (p *parser) knownCwd() string {
	if len(p.cwds) == 1 {
		return p.cwds[0]
	}
	return ""
}

// values returns the values a $name or ${name op arg} may take, or nil
// when unknown.
func (p *parser) values(pc piece) []word {
	var v []word
	switch name := pc.s; {
	case name == "HOME" && p.g.home != "":
		v = []word{plainWord(p.g.home)}
	case name == "PWD" && p.knownCwd() != "":
		v = []word{plainWord(p.knownCwd())}
	case name == "@" || name == "*":
		if p.hasPos && len(p.pos) > 1 {
			v = p.pos[1:]
		}
	case name[0] >= '0' && name[0] <= '9':
		if n, err := strconv.Atoi(name); err == nil && p.hasPos && n < len(p.pos) {
			v = []word{p.pos[n]}
		}
	default:
		v = p.vars[name]
	}
	switch pc.op {
	case "", ":?", "?":
		return v
	case ":-", "-", ":=", "=":
		if v != nil {
			return v
		}
		alts := append([]word{{text: "\x00", pat: "\x00", unk: srcEnv, whole: true}}, p.expand(pc.arg, false)...)
		if pc.op == ":=" || pc.op == "=" {
			p.assign(pc.s, alts)
		}
		return alts
	case ":+", "+":
		return append([]word{{}}, p.expand(pc.arg, false)...)
	}
	return nil
}

// assign records values given to a variable: every value it was given on
// the line, so that no branch hides one; past maxValues it is unknown.
func (p *parser) assign(name string, vals []word) {
	if name == "" {
		return
	}
	if p.vars == nil {
		p.vars = map[string][]word{}
	}
	cur := p.vars[name]
	if len(cur) == 1 && cur[0].unk == srcOverflow {
		return
	}
	for _, w := range vals {
		dup := false
		for _, x := range cur {
			if x.text == w.text && x.pat == w.pat {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if len(cur) >= maxValues {
			cur = []word{overflow}
			break
		}
		cur = append(cur, w)
	}
	if len(vals) == 0 && cur == nil {
		cur = []word{{}}
	}
	p.vars[name] = cur
}
