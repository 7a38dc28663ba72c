package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/chzyer/readline"
)

// errInterrupted is Ctrl-C: at the prompt it drops the line being typed,
// while a chunk or :fire runs it cancels it.
var errInterrupted = errors.New("interrupted")

// lineReader is where the prompt's lines come from.
type lineReader interface {
	// readLine returns the next line without its end, io.EOF at the end of
	// the input, or errInterrupted.
	readLine(prompt string) (string, error)
	// save adds an entry to the history.
	save(entry string)
}

// terminalReader reads lines from a terminal with readline: line editing,
// history, completion; Ctrl-C clears the line and Ctrl-D on an empty line
// ends the input.
type terminalReader struct {
	rl    *readline.Instance
	stdin *readline.CancelableStdin
	stop  func() bool
	hist  *history // nil: no history file
}

func newTerminalReader(ctx context.Context, opts Options, c readline.AutoCompleter) (*terminalReader, error) {
	f, ok := opts.In.(*os.File)
	if !ok || !readline.IsTerminal(int(f.Fd())) {
		return nil, fmt.Errorf("repl: interactive mode needs a terminal as input")
	}
	// The history file is ours to open and write, not readline's: readline
	// would open it by path, blocking on a named pipe, and read all of it.
	var hist *history
	var entries []string
	if opts.HistoryPath != "" {
		var err error
		if hist, entries, err = openHistory(opts.HistoryPath); err != nil {
			fmt.Fprintf(opts.Err, "repl: history not kept: %v\n", err)
		}
	}
	fd := int(f.Fd())
	raw := &rawMode{fd: fd}
	stdin := readline.NewCancelableStdin(f)
	cfg := &readline.Config{
		Prompt:                 "> ",
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true,
		HistorySearchFold:      true,
		AutoComplete:           c,
		EOFPrompt:              "\n", // readline's way of saying: no "^D", just the new line
		Stdin:                  stdin,
		Stdout:                 opts.Out,
		Stderr:                 opts.Err,
		FuncIsTerminal:         func() bool { return readline.IsTerminal(fd) },
		FuncMakeRaw:            raw.enter,
		FuncExitRaw:            raw.exit,
	}
	if o, ok := opts.Out.(*os.File); ok && readline.IsTerminal(int(o.Fd())) {
		ofd := int(o.Fd())
		cfg.FuncGetWidth = func() int {
			w, _, err := readline.GetSize(ofd)
			if err != nil {
				return 80
			}
			return w
		}
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		if hist != nil {
			hist.close()
		}
		return nil, err
	}
	for _, e := range entries {
		rl.SaveHistory(e)
	}
	t := &terminalReader{rl: rl, stdin: stdin, hist: hist}
	t.stop = context.AfterFunc(ctx, t.shut)
	return t, nil
}

func (t *terminalReader) readLine(prompt string) (string, error) {
	t.rl.SetPrompt(prompt)
	line, err := t.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", errInterrupted
	}
	return line, err
}

func (t *terminalReader) save(entry string) {
	t.rl.SaveHistory(entry)
	if t.hist != nil {
		t.hist.add(entry)
	}
}

func (t *terminalReader) close() {
	t.stop()
	t.shut()
	if t.hist != nil {
		t.hist.close()
	}
}

// shut ends a Readline in progress (it returns io.EOF) and restores the
// terminal. The input is closed first: readline's own Close closes only its
// wrapper, and would wait for a read of the terminal that never ends.
func (t *terminalReader) shut() {
	t.stdin.Close()
	t.rl.Close()
}

// rawMode switches one terminal in and out of raw mode.
type rawMode struct {
	fd    int
	mu    sync.Mutex
	state *readline.State
}

func (r *rawMode) enter() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, err := readline.MakeRaw(r.fd)
	if err != nil {
		return err
	}
	r.state = st
	return nil
}

func (r *rawMode) exit() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		return nil
	}
	err := readline.Restore(r.fd, r.state)
	r.state = nil
	return err
}

// scriptReader reads the lines of a script (input that is not a terminal).
// An interrupt between lines, or the end of ctx, ends the script.
type scriptReader struct {
	lines      chan scriptLine
	interrupts <-chan os.Signal
	done       <-chan struct{}
}

type scriptLine struct {
	text string
	err  error
}

func newScriptReader(ctx context.Context, in io.Reader, interrupts <-chan os.Signal) *scriptReader {
	s := &scriptReader{lines: make(chan scriptLine), interrupts: interrupts, done: ctx.Done()}
	go func() {
		br := bufio.NewReader(in)
		for {
			text, err := br.ReadString('\n')
			if text != "" || err == nil {
				select {
				case s.lines <- scriptLine{text: strings.TrimRight(text, "\r\n")}:
				case <-s.done:
					return
				}
			}
			if err != nil {
				select {
				case s.lines <- scriptLine{err: err}:
				case <-s.done:
				}
				return
			}
		}
	}()
	return s
}

func (s *scriptReader) readLine(string) (string, error) {
	select {
	case l := <-s.lines:
		return l.text, l.err
	case <-s.interrupts:
		return "", errors.New("interrupted")
	case <-s.done:
		return "", io.EOF
	}
}

func (s *scriptReader) save(string) {}

// historyEntries makes the history entries of a chunk's lines: one entry,
// the lines joined by spaces, when that means the same Lua, so that the whole
// chunk comes back with one key; the lines as typed when a comment or a long
// string makes line ends count.
func historyEntries(lines []string) []string {
	if len(lines) == 1 {
		return lines
	}
	for _, l := range lines {
		if strings.Contains(l, "--") || strings.Contains(l, "[[") || strings.Contains(l, "[=") {
			return lines
		}
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strings.TrimSpace(l)
	}
	return []string{strings.Join(parts, " ")}
}
