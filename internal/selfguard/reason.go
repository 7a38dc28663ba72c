package selfguard

import (
	"strings"
	"unicode/utf8"
)

// finding is why the guard denies: a protected path reached, a luahook
// command, or a command it cannot judge.
type finding struct {
	hit hit
	// command is the luahook command refused ("luahook trust"), with
	// effect what it does.
	command, effect string
	// unsure says why the command cannot be judged.
	unsure string
}

const askUser = "ask the user to make this change"

// reason words the denial of f.
func (g *Guard) reason(f *finding) string {
	var b strings.Builder
	b.WriteString("luahook denied the action: ")
	switch {
	case f.command != "":
		b.WriteString("`")
		b.WriteString(shown(f.command))
		b.WriteString("` ")
		b.WriteString(f.effect)
		b.WriteString(", which the agent may not do; ask the user to run it")
	case f.hit.root != nil:
		r := f.hit.root
		b.WriteString(shown(f.hit.target))
		switch {
		case f.hit.glob:
			b.WriteString(" may match ")
			b.WriteString(r.what)
			b.WriteString(" (")
			b.WriteString(shown(r.shown))
			b.WriteString(")")
		case f.hit.rel == relAt:
			b.WriteString(" is ")
			b.WriteString(r.what)
		case f.hit.rel == relInside:
			b.WriteString(" is in ")
			b.WriteString(r.what)
			b.WriteString(" (")
			b.WriteString(shown(r.shown))
			b.WriteString(")")
		default:
			b.WriteString(" holds ")
			b.WriteString(r.what)
			b.WriteString(" (")
			b.WriteString(shown(r.shown))
			b.WriteString(")")
		}
		b.WriteString(", which the agent may not change; ")
		b.WriteString(askUser)
	default:
		b.WriteString("luahook cannot tell whether this command changes what it protects (")
		b.WriteString(g.protectedList())
		b.WriteString("): ")
		b.WriteString(f.unsure)
		b.WriteString("; the agent may not change those; ")
		b.WriteString(askUser)
		b.WriteString(", or use simpler commands that name the files they change")
	}
	b.WriteString(".")
	return b.String()
}

// protectedList names what the guard protects, each kind once.
func (g *Guard) protectedList() string {
	var whats []string
	for _, r := range g.roots {
		if len(whats) == 4 {
			whats = append(whats, "...")
			break
		}
		dup := false
		for _, w := range whats {
			dup = dup || w == r.what
		}
		if !dup {
			whats = append(whats, r.what)
		}
	}
	if len(whats) == 0 {
		return "the files luahook protects"
	}
	return strings.Join(whats, ", ")
}

// maxShown bounds a path or command a reason shows.
const maxShown = 200

// shown returns s fit for a reason: control characters and unknown parts
// of a word as "?", at most maxShown characters.
func shown(s string) string {
	if len(s) <= maxShown && strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) < 0 {
		return s
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxShown {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
