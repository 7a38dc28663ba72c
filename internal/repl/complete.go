package repl

import (
	"strings"

	"github.com/luahook/luahook"
)

// completer completes the prompt's commands, the events of :fire, and Lua
// names: globals, and fields after '.' or ':' (hook.reg -> hook.register).
type completer struct{ r *repl }

// Do returns the candidates' remaining text after what is typed, and the
// length of what is typed, as readline wants them.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	text := string(line[:pos])
	var typed string
	var cands []string
	if strings.HasPrefix(strings.TrimLeft(text, " "), ":") {
		typed, cands = completeCommand(strings.TrimLeft(text, " "))
	} else {
		typed, cands = c.r.sess.Complete(text)
	}
	out := make([][]rune, 0, len(cands))
	for _, cand := range cands {
		if strings.HasPrefix(cand, typed) {
			out = append(out, []rune(cand[len(typed):]))
		}
	}
	return out, len([]rune(typed))
}

// completeCommand completes a command name, or the argument of :fire,
// :explain and :trace.
func completeCommand(text string) (typed string, cands []string) {
	name, arg, hasArg := strings.Cut(text[1:], " ")
	if !hasArg {
		for _, c := range commands {
			if strings.HasPrefix(c.name, name) {
				cands = append(cands, ":"+c.name+" ")
			}
		}
		return text, cands
	}
	if strings.Contains(arg, " ") {
		return arg, nil
	}
	var words []string
	switch name {
	case "fire", "explain":
		for _, e := range luahook.Events() {
			words = append(words, string(e)+" ")
		}
	case "trace":
		words = []string{"on", "off"}
	}
	for _, w := range words {
		if strings.HasPrefix(w, arg) {
			cands = append(cands, w)
		}
	}
	return arg, cands
}
