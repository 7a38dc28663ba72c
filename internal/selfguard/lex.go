package selfguard

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The bounds of one parse. Every loop of the lexer advances its position or
// stops at one of them, and every string it builds is charged to work
// before it is built, so that a parse costs time and memory linear in the
// line (times a small constant: nested strings are read again, and words
// expand to at most maxFields values).
const (
	maxLineBytes = 64 << 10 // bytes of a command line parsed
	maxWork      = 2 << 20  // bytes read and built, nested strings and expansions included
	maxTokens    = 8192     // words, redirections and operators
	maxCommands  = 1024     // simple commands
	maxDepth     = 12       // nesting of $(…), sh -c, eval, subshells
	maxFields    = 64       // values one word expands to
	maxValues    = 16       // values one variable may hold
	maxCwds      = 8        // working folders a line may have reached
)

// The kinds of word pieces.
const (
	pLit   = iota // text; q: quoted, its glob characters inactive
	pBrace        // an unquoted {, , or } (s)
	pTilde        // an unquoted ~ or ~user (s: the user) at a word's start
	pVar          // $name or ${name op arg}
	pUnk          // a value not followed (src), with the text it came from
)

// The sources of an unknown value.
const (
	srcNone     = iota
	srcEnv      // a variable the line does not set
	srcSubst    // $(…), `…`, <(…), >(…)
	srcArith    // $((…)) and other values not followed
	srcStdin    // the items xargs reads
	srcFind     // {} of find -exec
	srcOverflow // an expansion past maxFields
)

// piece is one part of a word as the lexer read it.
type piece struct {
	k    uint8
	q    bool
	src  uint8
	s    string  // text, brace character, variable name or user
	op   string  // a variable's operator (":-", "+", ...); "" for none
	arg  []piece // the operator's argument
	text string  // a substitution's source text
}

// redirection is one redirection of a command.
type redirection struct {
	op    string // ">", ">>", ">|", "&>", "&>>", "<>", ">&", "<", "<&", "<<", "<<<"
	word  []piece
	delim string // a here-document's delimiter
	strip bool   // <<-: leading tabs are stripped
	body  string // a here-document's text, once read
}

// rawCmd is one simple command as the lexer read it.
type rawCmd struct {
	words   [][]piece
	redirs  []*redirection
	pipeIn  bool
	pipeOut bool
}

// parser reads a command line and hands each simple command to judge.
type parser struct {
	g *Guard
	s string
	i int

	depth   int
	work    int
	tokens  int
	cmds    int
	err     string // a bound passed or a line that cannot be read: unsure
	found   *finding
	mention bool // the whole line names something protected

	vars     map[string][]word
	pos      []word // $0, $1, ... of a sh -c string
	hasPos   bool
	cwds     []string // the working folders the line may be in ("": unknown)
	heredocs []*redirection
	deferred []*rawCmd

	caseDepth   int
	casePattern bool
	pipe        bool   // the previous command ended with |
	lastOut     string // what the previous command prints, when known
	lastKnown   bool
	judged      int // paths judged
	res         *resolver
	walked      int  // entries of protected folders find filters looked at
	inside      bool // a working folder of the line is in a protected folder (inProtected)
	// insideChecked counts the cwds inProtected has looked at
	insideChecked int
}

func (p *parser) fail(format string, args ...any) {
	if p.err == "" {
		p.err = fmt.Sprintf(format, args...)
	}
}

// done reports whether the parse can stop: a finding or an error.
func (p *parser) done() bool { return p.found != nil || p.err != "" }

// charge counts n bytes of work; false once past maxWork.
func (p *parser) charge(n int) bool {
	p.work += n
	if p.work > maxWork {
		p.fail("the command expands to more than %d bytes", maxWork)
		return false
	}
	return true
}

func (p *parser) token() bool {
	p.tokens++
	if p.tokens > maxTokens {
		p.fail("the command has more than %d words", maxTokens)
		return false
	}
	return true
}

// nest runs fn one level deeper; the working folders a subshell reaches
// are its own.
func (p *parser) nest(fn func()) {
	if p.depth >= maxDepth {
		p.fail("its commands nest more than %d deep", maxDepth)
		return
	}
	saved := p.cwds
	p.cwds = append([]string(nil), saved...)
	p.depth++
	fn()
	p.depth--
	p.cwds = saved
}

// withSource parses src (a sh -c string, eval's words, a here-document
// fed to a shell) as a nested command list.
func (p *parser) withSource(src string) {
	if !p.charge(len(src)) {
		return
	}
	p.nest(func() {
		s, i, docs, deferred, pipe := p.s, p.i, p.heredocs, p.deferred, p.pipe
		caseDepth, casePattern := p.caseDepth, p.casePattern
		p.s, p.i, p.heredocs, p.deferred, p.pipe = src, 0, nil, nil, false
		p.caseDepth, p.casePattern = 0, false
		p.readList(0)
		p.readHeredocs()
		p.s, p.i, p.heredocs, p.deferred, p.pipe = s, i, docs, deferred, pipe
		p.caseDepth, p.casePattern = caseDepth, casePattern
	})
}

// readList reads commands until the end of the source or, with closer
// ')', an unmatched ')', which it consumes.
func (p *parser) readList(closer byte) {
	for !p.done() {
		p.skipBlanks()
		if p.i >= len(p.s) {
			return
		}
		switch c := p.s[p.i]; c {
		case '\n':
			p.i++
			p.pipe = false
			p.readHeredocs()
			continue
		case '#':
			p.skipComment()
			continue
		case ')':
			p.i++
			if closer == ')' {
				return
			}
			continue
		case ';', '&', '|':
			p.operator()
			continue
		}
		p.readCommand()
	}
}

// skipBlanks skips spaces, tabs and line continuations.
func (p *parser) skipBlanks() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r':
			p.i++
		case '\\':
			if p.i+1 < len(p.s) && p.s[p.i+1] == '\n' {
				p.i += 2
				continue
			}
			return
		default:
			return
		}
	}
}

func (p *parser) skipComment() {
	if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
		p.i += j
	} else {
		p.i = len(p.s)
	}
}

// operator consumes a control operator at p.i (;, ;;, ;&, ;;&, &, &&, |,
// ||, |&) and reports whether it pipes into the next command.
func (p *parser) operator() bool {
	s, i := p.s, p.i
	p.token()
	switch s[i] {
	case ';':
		p.i++
		if p.i < len(s) && (s[p.i] == ';' || s[p.i] == '&') {
			p.i++
			if p.i < len(s) && s[p.i] == '&' {
				p.i++
			}
			if p.caseDepth > 0 {
				p.casePattern = true
			}
		}
		p.pipe = false
	case '&':
		p.i++
		if p.i < len(s) && s[p.i] == '&' {
			p.i++
		}
		p.pipe = false
	case '|':
		p.i++
		if p.i < len(s) && s[p.i] == '|' {
			p.i++
			p.pipe = false
			return false
		}
		if p.i < len(s) && s[p.i] == '&' {
			p.i++
		}
		p.pipe = true
		return true
	}
	return false
}

// The reserved words skipped at a command's start.
var reserved = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true,
	"done": true, "while": true, "until": true, "!": true, "time": true, "coproc": true, "{": true, "}": true,
	"esac": true}

// readCommand reads one simple command (with the reserved words and
// compound-command heads before it) and hands it to finish.
func (p *parser) readCommand() {
	cmd := &rawCmd{pipeIn: p.pipe}
	p.pipe = false
	start := true
	test := false // inside [[ … ]]: < and > compare
	for !p.done() {
		p.skipBlanks()
		if p.i >= len(p.s) {
			break
		}
		c := p.s[p.i]
		if c == '\n' || c == ')' {
			break
		}
		if c == ';' || c == '|' || (c == '&' && !p.at("&>")) {
			cmd.pipeOut = p.operator()
			break
		}
		if c == '#' {
			p.skipComment()
			break
		}
		if c == '(' && p.casePattern && start {
			p.i++ // (pattern) of a case
			continue
		}
		if c == '(' {
			p.parenInCommand(cmd)
			start = len(cmd.words) == 0
			continue
		}
		if !test && p.redirection(cmd) {
			continue
		}
		if !p.token() {
			break
		}
		w := p.readWord(false)
		if w == nil {
			p.i++ // a byte no rule takes: never loop on it
			continue
		}
		if start {
			if p.casePattern {
				p.casePattern = false
				if literal(w) == "esac" {
					p.caseDepth--
					continue
				}
				p.skipPattern()
				continue
			}
			switch lw := literal(w); {
			case reserved[lw]:
				if lw == "esac" && p.caseDepth > 0 {
					p.caseDepth--
				}
				continue
			case lw == "for" || lw == "select":
				p.forLoop()
				return
			case lw == "case":
				p.caseHead()
				return
			case lw == "function":
				p.skipBlanks()
				if p.i < len(p.s) && !isMeta(p.s[p.i]) {
					p.readWord(false)
				}
				p.skipParens()
				continue
			case lw == "[[":
				test = true
			}
		}
		if test && literal(w) == "]]" {
			test = false
		}
		cmd.words = append(cmd.words, w)
		start = start && isAssignment(w)
	}
	p.finish(cmd)
}

// at reports whether the source continues with s at p.i.
func (p *parser) at(s string) bool { return strings.HasPrefix(p.s[p.i:], s) }

// parenInCommand reads a '(' inside a command: a subshell or arithmetic
// command at its start, an array assignment after NAME=, a function
// definition after its name.
func (p *parser) parenInCommand(cmd *rawCmd) {
	n := len(cmd.words)
	switch {
	case n == 0 && p.at("(("):
		p.i += 2
		p.arith()
	case n == 0:
		p.i++
		p.nest(func() { p.readList(')') })
	case isArrayHead(cmd.words[n-1]):
		p.i++
		name := strings.TrimSuffix(strings.TrimSuffix(cmd.words[n-1][0].s, "="), "+")
		var items []word
		for !p.done() {
			p.skipSpace()
			if p.i >= len(p.s) || p.s[p.i] == ')' {
				p.i++
				break
			}
			if isMeta(p.s[p.i]) {
				p.i++
				continue
			}
			items = append(items, p.expand(p.readWord(false), false)...)
		}
		p.assign(name, items)
		cmd.words = cmd.words[:n-1]
	default:
		// name() { …; }: a function definition; its body is read as
		// commands, as if it ran
		before := p.i
		p.skipParens()
		if p.i == before {
			p.i++
			p.nest(func() { p.readList(')') })
		}
		cmd.words = cmd.words[:0]
	}
}

// skipParens skips "( )" after a function's name.
func (p *parser) skipParens() {
	j := p.i
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	if j < len(p.s) && p.s[j] == '(' {
		j++
		for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
			j++
		}
		if j < len(p.s) && p.s[j] == ')' {
			p.i = j + 1
		}
	}
}

// skipSpace skips blanks and newlines (inside an array's parentheses).
func (p *parser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// skipPattern skips a case pattern up to and including its ')'.
func (p *parser) skipPattern() {
	for !p.done() && p.i < len(p.s) {
		p.skipBlanks()
		if p.i >= len(p.s) {
			return
		}
		switch p.s[p.i] {
		case ')':
			p.i++
			return
		case '\n', ';':
			return
		case '|', '(':
			p.i++
		default:
			if !p.token() || p.readWord(false) == nil {
				p.i++
			}
		}
	}
}

// forLoop reads the rest of "for NAME in WORDS" (or "for ((…))") up to the
// end of its head: NAME takes each of WORDS.
func (p *parser) forLoop() {
	p.skipBlanks()
	if p.at("((") {
		p.i += 2
		p.arith()
		return
	}
	var ws [][]piece
	for !p.done() {
		p.skipBlanks()
		if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == ';' || p.s[p.i] == '&' || p.s[p.i] == '|' ||
			p.s[p.i] == ')' || p.s[p.i] == '(' || p.s[p.i] == '<' || p.s[p.i] == '>' {
			break
		}
		if !p.token() {
			return
		}
		w := p.readWord(false)
		if w == nil {
			p.i++
			continue
		}
		ws = append(ws, w)
	}
	if len(ws) >= 2 && literal(ws[1]) == "in" {
		var vals []word
		for _, w := range ws[2:] {
			vals = append(vals, p.expand(w, true)...)
		}
		p.assign(literal(ws[0]), vals)
	}
}

// caseHead reads "case WORD in"; the patterns that follow are skipped.
func (p *parser) caseHead() {
	for k := 0; k < 2 && !p.done(); k++ {
		p.skipBlanks()
		if p.i >= len(p.s) || isMeta(p.s[p.i]) || !p.token() {
			return
		}
		if p.readWord(false) == nil {
			p.i++
		}
	}
	p.caseDepth++
	p.casePattern = true
}

// arith skips an arithmetic expression after "((" or "$((" up to its "))";
// a command substitution inside it is not followed.
func (p *parser) arith() string {
	start, depth := p.i, 2
	for p.i < len(p.s) && depth > 0 {
		switch p.s[p.i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		p.i++
	}
	text := p.s[start:p.i]
	if strings.Contains(text, "$(") || strings.Contains(text, "`") {
		p.unsure("a command substitution inside an arithmetic expression")
	}
	return text
}

// isMeta reports whether c ends an unquoted word.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

// redirection reads a redirection at p.i, if there is one, into cmd.
func (p *parser) redirection(cmd *rawCmd) bool {
	s, j := p.s, p.i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j < len(s) && s[j] == '{' && j == p.i { // {var}> : a descriptor in a variable
		if k := strings.IndexByte(s[j:], '}'); k > 0 && j+k+1 < len(s) && (s[j+k+1] == '>' || s[j+k+1] == '<') {
			j += k + 1
		}
	}
	rest := s[j:]
	var op string
	switch {
	case strings.HasPrefix(rest, "&>>"):
		op = "&>>"
	case strings.HasPrefix(rest, "&>"):
		op = "&>"
	case strings.HasPrefix(rest, ">("), strings.HasPrefix(rest, "<("):
		return false // a process substitution: a word
	case strings.HasPrefix(rest, ">>"):
		op = ">>"
	case strings.HasPrefix(rest, ">|"):
		op = ">|"
	case strings.HasPrefix(rest, ">&"):
		op = ">&"
	case strings.HasPrefix(rest, ">"):
		op = ">"
	case strings.HasPrefix(rest, "<<<"):
		op = "<<<"
	case strings.HasPrefix(rest, "<<-"):
		op = "<<-"
	case strings.HasPrefix(rest, "<<"):
		op = "<<"
	case strings.HasPrefix(rest, "<>"):
		op = "<>"
	case strings.HasPrefix(rest, "<&"):
		op = "<&"
	case strings.HasPrefix(rest, "<"):
		op = "<"
	default:
		return false
	}
	if op[0] == '&' && j != p.i {
		return false // 2&> is not a redirection
	}
	if !p.token() {
		return true
	}
	p.i = j + len(op)
	p.skipBlanks()
	if p.i >= len(p.s) || isMeta(p.s[p.i]) {
		return true // no target: the shell refuses the line
	}
	w := p.readWord(false)
	if w == nil {
		p.i++
		return true
	}
	r := &redirection{op: op, word: w}
	if op == "<<" || op == "<<-" {
		r.op, r.strip = "<<", op == "<<-"
		r.delim = heredocDelim(w)
		p.heredocs = append(p.heredocs, r)
	}
	cmd.redirs = append(cmd.redirs, r)
	return true
}

// heredocDelim returns a here-document's delimiter: its word with quotes
// removed.
func heredocDelim(w []piece) string {
	var b strings.Builder
	for _, pc := range w {
		switch pc.k {
		case pLit, pBrace, pTilde:
			if pc.k == pTilde {
				b.WriteString("~")
			}
			b.WriteString(pc.s)
		case pVar:
			b.WriteString("$" + pc.s)
		}
	}
	return b.String()
}

// readHeredocs reads the bodies of the here-documents pending, from the
// start of the line after their command, then judges the commands that
// waited for them.
func (p *parser) readHeredocs() {
	for _, r := range p.heredocs {
		var b strings.Builder
		for p.i < len(p.s) {
			end := strings.IndexByte(p.s[p.i:], '\n')
			line := p.s[p.i:]
			if end >= 0 {
				line = p.s[p.i : p.i+end]
				p.i += end + 1
			} else {
				p.i = len(p.s)
			}
			if r.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == r.delim {
				break
			}
			if !p.charge(len(line) + 1) {
				return
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
		r.body = b.String()
	}
	p.heredocs = nil
	p.flush()
}

// flush judges the commands that waited for their here-documents.
func (p *parser) flush() {
	d := p.deferred
	p.deferred = nil
	for _, c := range d {
		if p.done() {
			return
		}
		p.judgeCommand(c)
	}
}

// finish judges cmd, or keeps it until the here-documents pending are read.
func (p *parser) finish(cmd *rawCmd) {
	if len(cmd.words) == 0 && len(cmd.redirs) == 0 {
		return
	}
	p.cmds++
	if p.cmds > maxCommands {
		p.fail("the command line holds more than %d commands", maxCommands)
		return
	}
	if len(p.heredocs) > 0 {
		p.deferred = append(p.deferred, cmd)
		return
	}
	p.judgeCommand(cmd)
}

// wordBuf builds a word's pieces, merging adjacent literals of the same
// quoting in one buffer (never by concatenating strings again and again).
type wordBuf struct {
	pieces []piece
	cur    []byte
	q      bool
	open   bool // cur holds a literal being built
}

func (b *wordBuf) text(s string, q bool) {
	if b.open && b.q != q {
		b.flush()
	}
	b.cur = append(b.cur, s...)
	b.q, b.open = q, true
}

func (b *wordBuf) add(pc piece) {
	b.flush()
	b.pieces = append(b.pieces, pc)
}

func (b *wordBuf) flush() {
	if b.open {
		b.pieces = append(b.pieces, piece{k: pLit, s: string(b.cur), q: b.q})
		b.cur, b.open = b.cur[:0], false
	}
}

// assignHead reports whether the word so far is NAME= (a tilde after it
// is expanded).
func (b *wordBuf) assignHead() bool {
	return len(b.pieces) == 0 && b.open && !b.q && isAssignName(string(b.cur))
}

// readWord reads one word at p.i; nil when there is none there. inArg:
// the word is a ${…} operator's argument, which ends at an unquoted '}'
// and holds blanks.
func (p *parser) readWord(inArg bool) []piece {
	var b wordBuf
	start := p.i
	for p.i < len(p.s) && !p.done() {
		c := p.s[p.i]
		if inArg {
			if c == '}' {
				break
			}
		} else if isMeta(c) {
			if (c == '<' || c == '>') && p.i == start && p.i+1 < len(p.s) && p.s[p.i+1] == '(' {
				p.i += 2
				b.add(p.substitution(func() { p.nest(func() { p.readList(')') }) }, false))
				continue
			}
			break
		}
		switch c {
		case '\\':
			if p.i+1 < len(p.s) {
				if p.s[p.i+1] == '\n' {
					p.i += 2
					continue
				}
				_, n := utf8.DecodeRuneInString(p.s[p.i+1:])
				b.text(p.s[p.i+1:p.i+1+n], true)
				p.i += 1 + n
			} else {
				p.i++
			}
		case '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				p.fail("the command has a quote that is not closed")
				return b.result()
			}
			b.text(p.s[p.i+1:p.i+1+end], true)
			p.i += end + 2
		case '"':
			p.i++
			p.readDQ(&b)
		case '$':
			p.readDollar(&b, false)
		case '`':
			b.add(p.backquote(false))
		case '~':
			if p.i == start || (!inArg && b.assignHead()) {
				j := p.i + 1
				for j < len(p.s) && (isNameByte(p.s[j]) || p.s[j] == '.' || p.s[j] == '-' || p.s[j] == '+') {
					j++
				}
				if j == len(p.s) || p.s[j] == '/' || isMeta(p.s[j]) || (inArg && p.s[j] == '}') {
					b.add(piece{k: pTilde, s: p.s[p.i+1 : j]})
					p.i = j
					continue
				}
			}
			b.text("~", false)
			p.i++
		case '{', ',', '}':
			b.add(piece{k: pBrace, s: p.s[p.i : p.i+1]})
			p.i++
		default:
			j := p.i + 1
			for j < len(p.s) && !isSpecial(p.s[j]) && !(inArg && p.s[j] == '}') {
				j++
			}
			b.text(p.s[p.i:j], false)
			p.i = j
		}
	}
	if p.i == start {
		return nil
	}
	w := b.result()
	if w == nil {
		w = []piece{} // a word of nothing ("")
	}
	return w
}

func (b *wordBuf) result() []piece {
	b.flush()
	return b.pieces
}

// isSpecial reports whether c has a meaning in an unquoted word.
func isSpecial(c byte) bool {
	switch c {
	case '\\', '\'', '"', '$', '`', '~', '{', ',', '}':
		return true
	}
	return isMeta(c)
}

// readDQ reads the inside of "…" from after its opening quote.
func (p *parser) readDQ(b *wordBuf) {
	b.text("", true) // "" is a word of its own
	for p.i < len(p.s) && !p.done() {
		switch c := p.s[p.i]; c {
		case '"':
			p.i++
			return
		case '\\':
			if p.i+1 < len(p.s) {
				switch n := p.s[p.i+1]; n {
				case '\n':
				case '$', '`', '"', '\\':
					b.text(p.s[p.i+1:p.i+2], true)
				default:
					b.text(p.s[p.i:p.i+2], true)
				}
				p.i += 2
			} else {
				p.i++
			}
		case '$':
			p.readDollar(b, true)
		case '`':
			b.add(p.backquote(true))
		default:
			j := p.i + 1
			for j < len(p.s) && p.s[j] != '"' && p.s[j] != '\\' && p.s[j] != '$' && p.s[j] != '`' {
				j++
			}
			b.text(p.s[p.i:j], true)
			p.i = j
		}
	}
	p.fail("the command has a quote that is not closed")
}

// readDollar reads an expansion at a '$'.
func (p *parser) readDollar(b *wordBuf, q bool) {
	s, i := p.s, p.i
	if i+1 >= len(s) {
		p.i++
		b.text("$", q)
		return
	}
	switch c := s[i+1]; {
	case c == '\'' && !q:
		text, end, ok := ansiC(s, i+2)
		if !ok {
			p.fail("the command has a quote that is not closed")
		}
		p.i = end
		b.text(text, true)
	case c == '"' && !q:
		p.i += 2
		p.readDQ(b)
	case c == '(' && i+2 < len(s) && s[i+2] == '(':
		p.i += 3
		text := p.arith()
		b.add(piece{k: pUnk, src: srcArith, q: q, text: text})
	case c == '(':
		p.i += 2
		b.add(p.substitution(func() { p.nest(func() { p.readList(')') }) }, q))
	case c == '{':
		p.i += 2
		b.add(p.braceParam(q))
	case isNameStart(c):
		j := i + 2
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		p.i = j
		b.add(piece{k: pVar, s: s[i+1 : j], q: q})
	case c >= '0' && c <= '9', strings.IndexByte("@*#?$!-", c) >= 0:
		p.i += 2
		b.add(piece{k: pVar, s: string(c), q: q})
	default:
		p.i++
		b.text("$", q)
	}
}

// substitution reads $(…), <(…) or >(…) with read, the commands inside
// judged as they are read; its value is unknown.
func (p *parser) substitution(read func(), q bool) piece {
	start := p.i
	read()
	end := min(p.i, len(p.s))
	return piece{k: pUnk, src: srcSubst, q: q, text: p.s[start:end]}
}

// backquote reads `…` from its opening backquote.
func (p *parser) backquote(q bool) piece {
	var b strings.Builder
	i := p.i + 1
	for i < len(p.s) {
		c := p.s[i]
		if c == '`' {
			i++
			break
		}
		if c == '\\' && i+1 < len(p.s) {
			if n := p.s[i+1]; n == '`' || n == '\\' || n == '$' {
				b.WriteByte(n)
			} else {
				b.WriteString(p.s[i : i+2])
			}
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	p.i = i
	text := b.String()
	p.withSource(text)
	return piece{k: pUnk, src: srcSubst, q: q, text: text}
}

// braceParam reads ${…} from after "${".
func (p *parser) braceParam(q bool) piece {
	s := p.s
	i := p.i
	unknown := func() piece {
		start := p.i
		p.skipBraced()
		return piece{k: pUnk, src: srcEnv, q: q, text: s[start:min(p.i, len(s))]}
	}
	if i < len(s) && (s[i] == '#' || s[i] == '!') && i+1 < len(s) && s[i+1] != '}' {
		return unknown() // ${#x}, ${!x}
	}
	j := i
	switch {
	case j < len(s) && isNameStart(s[j]):
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
	case j < len(s) && s[j] >= '0' && s[j] <= '9':
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	case j < len(s) && strings.IndexByte("@*#?$!-", s[j]) >= 0:
		j++
	default:
		return unknown()
	}
	name := s[i:j]
	p.i = j
	if j < len(s) && s[j] == '}' {
		p.i++
		return piece{k: pVar, s: name, q: q}
	}
	for _, op := range []string{":-", ":=", ":+", ":?", "-", "=", "+", "?"} {
		if strings.HasPrefix(s[j:], op) {
			p.i = j + len(op)
			arg := p.readWord(true)
			if p.i < len(s) && s[p.i] == '}' {
				p.i++
			} else {
				p.fail("the command has a ${ that is not closed")
			}
			return piece{k: pVar, s: name, op: op, arg: arg, q: q}
		}
	}
	return unknown() // ${x#pat}, ${x/a/b}, ${x:1:2}, ...
}

// skipBraced skips to after the '}' closing a ${…}, past quotes and
// nested braces.
func (p *parser) skipBraced() {
	depth := 1
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i++
		case '\'':
			if end := strings.IndexByte(p.s[p.i+1:], '\''); end >= 0 {
				p.i += end + 1
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				p.i++
				return
			}
		}
		p.i++
	}
	p.i = len(p.s)
	p.fail("the command has a ${ that is not closed")
}

// ansiC decodes $'…' from just after its opening quote: the text, the
// position after the closing quote, and whether there was one. A NUL ends
// the value, as in bash.
func ansiC(s string, i int) (string, int, bool) {
	var b strings.Builder
	cut := false
	add := func(t string) {
		if !cut {
			if strings.IndexByte(t, 0) >= 0 {
				t, _, _ = strings.Cut(t, "\x00")
				cut = true
			}
			b.WriteString(t)
		}
	}
	for i < len(s) {
		j := strings.IndexAny(s[i:], `'\`)
		if j < 0 {
			add(s[i:])
			return b.String(), len(s), false
		}
		add(s[i : i+j])
		i += j
		if s[i] == '\'' {
			return b.String(), i + 1, true
		}
		if i+1 >= len(s) {
			return b.String(), len(s), false
		}
		c := s[i+1]
		switch c {
		case 'a':
			add("\a")
		case 'b':
			add("\b")
		case 'e', 'E':
			add("\x1b")
		case 'f':
			add("\f")
		case 'n':
			add("\n")
		case 'r':
			add("\r")
		case 't':
			add("\t")
		case 'v':
			add("\v")
		case '\\', '\'', '"', '?':
			add(string(c))
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			k, v := i+2, rune(0)
			for k < len(s) && k < i+2+max && isHex(s[k]) {
				v = v*16 + rune(hexVal(s[k]))
				k++
			}
			if k == i+2 {
				add(s[i : i+2])
				i += 2
				continue
			}
			if c == 'x' {
				add(string([]byte{byte(v)}))
			} else {
				if v > utf8.MaxRune {
					v = utf8.RuneError
				}
				add(string(v))
			}
			i = k
			continue
		case 'c':
			if i+2 < len(s) {
				add(string([]byte{s[i+2] % 32}))
				i += 3
				continue
			}
			add(`\c`)
		default:
			if c >= '0' && c <= '7' {
				k, v := i+1, 0
				for k < len(s) && k < i+4 && s[k] >= '0' && s[k] <= '7' {
					v = v*8 + int(s[k]-'0')
					k++
				}
				add(string([]byte{byte(v)}))
				i = k
				continue
			}
			add(s[i : i+2])
		}
		i += 2
	}
	return b.String(), len(s), false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

// isAssignName reports whether s is "NAME=" or "NAME+=" (a literal
// before a value).
func isAssignName(s string) bool {
	s, ok := strings.CutSuffix(s, "=")
	if !ok {
		return false
	}
	s = strings.TrimSuffix(s, "+")
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w []piece) bool {
	if len(w) == 0 || w[0].k != pLit || w[0].q {
		return false
	}
	name, _, ok := strings.Cut(w[0].s, "=")
	return ok && isAssignName(name+"=")
}

// isArrayHead reports whether w is "NAME=" with nothing after it, before
// an array's '('.
func isArrayHead(w []piece) bool {
	return len(w) == 1 && w[0].k == pLit && !w[0].q && isAssignName(w[0].s)
}

// literal returns w's text when it is one unquoted literal, else "".
func literal(w []piece) string {
	if len(w) == 1 && w[0].k == pLit && !w[0].q {
		return w[0].s
	}
	if len(w) == 1 && w[0].k == pBrace {
		return w[0].s
	}
	return ""
}
