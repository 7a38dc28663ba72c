package selfguard

import (
	"strings"
)

// opts is a command line parsed as a GNU program parses it.
type opts struct {
	flags map[string]string // "-x" and "--name" (as given, or the long option it abbreviates) -> value
	vals  map[string]word   // the same, for the options whose value is a word of its own
	ops   []word
}

// parseOpts parses args: shortArg are the letters of options that take a
// value, longArg the long options that do. A word that is not known where
// an option could stand is an operand.
func parseOpts(args []word, shortArg string, longArg []string) opts {
	o := opts{flags: map[string]string{}, vals: map[string]word{}}
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		switch {
		case a.unk != srcNone:
			o.ops = append(o.ops, a)
		case t == "--":
			o.ops = append(o.ops, args[k+1:]...)
			return o
		case strings.HasPrefix(t, "--"):
			name, _, eq := strings.Cut(t[2:], "=")
			full := longMatch(name, longArg)
			if full != "" {
				name = full
			}
			key := "--" + name
			if eq {
				o.flags[key] = t[strings.IndexByte(t, '=')+1:]
				o.vals[key] = suffixWord(a, strings.IndexByte(t, '=')+1)
			} else if full != "" && k+1 < len(args) {
				k++
				o.flags[key], o.vals[key] = args[k].text, args[k]
			} else {
				o.flags[key] = ""
			}
		case len(t) > 1 && t[0] == '-':
			for j := 1; j < len(t); j++ {
				c := t[j]
				key := "-" + string(c)
				if strings.IndexByte(shortArg, c) < 0 {
					o.flags[key] = ""
					continue
				}
				if j+1 < len(t) {
					o.flags[key], o.vals[key] = t[j+1:], suffixWord(a, j+1)
				} else if k+1 < len(args) {
					k++
					o.flags[key], o.vals[key] = args[k].text, args[k]
				} else {
					o.flags[key] = ""
				}
				break
			}
		default:
			o.ops = append(o.ops, a)
		}
	}
	return o
}

// has reports whether any of names was given (a long option also when
// abbreviated).
func (o *opts) has(names ...string) bool {
	_, ok := o.value(names...)
	return ok
}

// value returns the word of the first of names that was given.
func (o *opts) value(names ...string) (word, bool) {
	for _, n := range names {
		if _, ok := o.flags[n]; ok {
			if w, ok := o.vals[n]; ok {
				return w, true
			}
			return plainWord(o.flags[n]), true
		}
		if strings.HasPrefix(n, "--") {
			for k := range o.flags {
				if len(k) > 3 && strings.HasPrefix(k, "--") && strings.HasPrefix(n, k) {
					if w, ok := o.vals[k]; ok {
						return w, true
					}
					return plainWord(o.flags[k]), true
				}
			}
		}
	}
	return word{}, false
}

// suffixWord returns the part of w after its first n bytes (an option's
// attached value).
func suffixWord(w word, n int) word {
	out := word{text: w.text[n:], unk: w.unk, subst: w.subst}
	if w.unk != srcNone && strings.IndexByte(out.text, 0) < 0 {
		out.unk, out.subst = srcNone, ""
	}
	out.whole = out.unk != srcNone && strings.Trim(out.text, "\x00") == ""
	if strings.HasPrefix(w.pat, w.text[:n]) {
		out.pat, out.glob = w.pat[n:], w.glob
	} else {
		out.pat = escGlob(out.text)
	}
	return out
}

// baseWord returns the last component of a path word.
func baseWord(w word) word {
	t := strings.TrimRight(w.text, "/")
	pt := strings.TrimRight(w.pat, "/")
	out := word{text: t[strings.LastIndexByte(t, '/')+1:], pat: pt[strings.LastIndexByte(pt, '/')+1:], glob: w.glob,
		unk: w.unk, subst: w.subst}
	if strings.IndexByte(out.text, 0) < 0 {
		out.unk = srcNone
	}
	out.whole = out.unk != srcNone && strings.Trim(out.text, "\x00") == ""
	return out
}

// joinWords returns the path word dir/name.
func joinWords(dir, name word) word {
	out := word{text: dir.text + "/" + name.text, pat: dir.pat + "/" + name.pat, glob: dir.glob || name.glob,
		unk: dir.unk, subst: dir.subst + name.subst}
	if out.unk == srcNone {
		out.unk = name.unk
	}
	return out
}

// remote reports whether an rsync or scp operand names another host
// (host:path, rsync://).
func remote(w word) bool {
	t := w.text
	colon := strings.IndexByte(t, ':')
	return colon > 0 && (strings.IndexByte(t[:colon], '/') < 0 || strings.HasPrefix(t, "rsync://"))
}

// editors are programs that edit the files they are given.
var editors = map[string]bool{"vi": true, "vim": true, "nvim": true, "nano": true, "pico": true, "emacs": true,
	"ed": true, "ex": true, "code": true, "subl": true, "gedit": true, "kate": true, "micro": true, "hx": true,
	"helix": true, "joe": true, "mcedit": true, "vis": true, "kak": true, "sudoedit": true}

// writer judges the programs that write, move, remove, link or change the
// mode of the files they are given.
func (p *parser) writer(name string, args []word, x *call) {
	switch name {
	case "rm", "rmdir", "srm", "rename", "remove-item", "rename-item", "del", "erase":
		p.judgeAll(parseOpts(args, "", nil).ops, true)
	case "unlink", "tee", "sponge", "link", "mkfifo", "mknod", "set-content", "add-content", "out-file",
		"clear-content", "tee-object", "set-item", "new-item":
		p.judgeAll(parseOpts(args, "", []string{"output-error", "mode", "context"}).ops, false)
	case "shred":
		p.judgeAll(parseOpts(args, "ns", []string{"iterations", "size", "random-source"}).ops, false)
	case "touch":
		p.judgeAll(parseOpts(args, "rdt", []string{"reference", "date", "time"}).ops, false)
	case "truncate":
		p.judgeAll(parseOpts(args, "sr", []string{"size", "reference"}).ops, false)
	case "mkdir":
		p.judgeAll(parseOpts(args, "m", []string{"mode", "context"}).ops, false)
	case "chmod", "chown", "chgrp", "chattr", "chflags", "chcon", "setfacl", "xattr":
		o := parseOpts(args, "mxMX", []string{"reference", "from", "modify", "remove", "set"})
		p.judgeAll(o.ops, o.has("-R", "--recursive"))
	case "cp", "install", "ln", "mv", "rsync", "scp", "copy-item", "move-item", "gcp", "gmv":
		p.copy(name, args)
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a.text, "of=") {
				p.judge(suffixWord(a, 3), false)
			}
		}
	case "sed", "gsed":
		o := parseOpts(args, "efl", []string{"expression", "file", "line-length"})
		if !o.has("-i", "--in-place") {
			return
		}
		files := o.ops
		if !o.has("-e", "-f", "--expression", "--file") && len(files) > 0 {
			files = files[1:]
		}
		p.judgeAll(files, false)
	case "perl":
		o := parseOpts(args, "eEIMx", nil)
		files := o.ops
		if !o.has("-e", "-E") && len(files) > 0 {
			files = files[1:]
		}
		p.judgeAll(files, false)
	case "patch", "gpatch":
		p.patch(args, x)
	case "curl":
		p.download(args, "AbCcDdEeFHhKmoPQrTtUuwXxYyz", "oDc", []string{"output", "cookie-jar", "dump-header", "trace",
			"trace-ascii", "stderr", "etag-save", "hsts", "alt-svc"}, "O", []string{"remote-name", "remote-name-all"},
			[]string{"output-dir"})
	case "wget":
		p.download(args, "AabBeiIlOoPQRtTUwXD", "Ooa", []string{"output-document", "output-file", "append-output"},
			"", nil, []string{"directory-prefix"})
	case "tar", "gtar", "bsdtar":
		p.tar(args)
	case "unzip":
		o := parseOpts(args, "dxP", nil)
		if o.has("-l", "-t", "-v", "-Z", "-p", "-c", "-z") {
			return
		}
		dir, ok := o.value("-d")
		if !ok {
			dir = plainWord(".")
		}
		p.judge(dir, false)
	default:
		if editors[name] {
			for _, a := range args {
				if !strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "+") {
					p.judge(a, false)
				}
			}
		}
	}
}

// copy judges cp, mv, install, ln, rsync and scp: the destination, and
// the path each source lands at in it; mv's sources (moved away) and
// ln's (a link to a protected path is a way to change it).
func (p *parser) copy(name string, args []word) {
	short, long := "tS", []string{"target-directory", "suffix", "backup"}
	switch name {
	case "install":
		short, long = "tmogS", []string{"target-directory", "mode", "owner", "group", "suffix", "strip-program"}
	case "rsync":
		short = "efTB"
		long = []string{"rsh", "filter", "exclude", "include", "exclude-from", "include-from", "files-from",
			"temp-dir", "partial-dir", "compare-dest", "copy-dest", "link-dest", "backup-dir", "suffix", "chmod",
			"chown", "rsync-path", "out-format", "log-file", "password-file", "max-size", "min-size", "timeout"}
	case "scp":
		short, long = "cFiJloPS", nil
	}
	o := parseOpts(args, short, long)
	var ops []word
	for _, w := range o.ops {
		if !remote(w) {
			ops = append(ops, w)
		}
	}
	dest, hasT := o.value("-t", "--target-directory")
	if name == "install" && o.has("-d", "--directory") {
		p.judgeAll(ops, false)
		return
	}
	srcs := ops
	if !hasT {
		switch len(ops) {
		case 0:
			return
		case 1:
			if name == "ln" { // ln -s TARGET: a link named after it, here
				p.judge(ops[0], false)
				p.judge(baseWord(ops[0]), false)
			}
			if name == "mv" || name == "move-item" {
				p.judge(ops[0], true)
			}
			return
		}
		dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
	}
	p.judge(dest, name == "rsync" && o.has("--delete", "--delete-before", "--delete-during", "--delete-after",
		"--delete-delay", "--delete-excluded", "--del"))
	if !o.has("-T", "--no-target-directory") {
		for _, s := range srcs {
			p.judge(joinWords(dest, baseWord(s)), false)
		}
	}
	switch name {
	case "mv", "gmv", "move-item":
		p.judgeAll(srcs, true)
	case "ln":
		p.judgeAll(srcs, false)
	}
}

// patch judges the files patch changes: its operand, -o and -r, or the
// files the diff's headers name, in -d's folder.
func (p *parser) patch(args []word, x *call) {
	o := parseOpts(args, "BdDFgioprVYz", []string{"directory", "input", "output", "strip", "reject-file", "prefix",
		"suffix", "define", "fuzz", "get", "version-control", "basename-prefix", "quoting-style"})
	dir, hasDir := o.value("-d", "--directory")
	var d *word
	if hasDir {
		d = &dir
	}
	p.withCwd(d, func() {
		if len(o.ops) > 0 {
			p.judge(o.ops[0], false)
		}
		for _, n := range [][2]string{{"-o", "--output"}, {"-r", "--reject-file"}} {
			if w, ok := o.value(n[0], n[1]); ok && w.text != "-" {
				p.judge(w, false)
			}
		}
		if len(o.ops) > 0 || o.has("-o", "--output") {
			return
		}
		texts := x.stdin
		if len(texts) == 0 && x.upKnown {
			texts = []string{x.upOut}
		}
		if len(texts) == 0 || o.has("-i", "--input") {
			p.unsure("the files a patch changes are not known")
			return
		}
		for _, t := range texts {
			diffFiles(t, func(f string) { p.judge(plainWord(f), false) })
		}
	})
}

// diffFiles calls look with each file a unified or context diff's headers
// name, as written and without its first component (a/, b/).
func diffFiles(t string, look func(string)) {
	for len(t) > 0 {
		line := t
		if i := strings.IndexByte(t, '\n'); i >= 0 {
			line, t = t[:i], t[i+1:]
		} else {
			t = ""
		}
		name, ok := strings.CutPrefix(line, "+++ ")
		if !ok {
			name, ok = strings.CutPrefix(line, "--- ")
		}
		if !ok {
			name, ok = strings.CutPrefix(line, "*** ")
		}
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "\t")
		name = strings.TrimSpace(name)
		if name == "" || name == "/dev/null" {
			continue
		}
		look(name)
		if _, rest, ok := strings.Cut(name, "/"); ok && rest != "" {
			look(rest)
		}
	}
}

// download judges curl and wget: the files their options name (fileShort,
// fileLong), and with remote naming (remoteShort, remoteLong) or for wget
// by default, the folder (dirLong, else the working folder) files of
// names the server gives are written in.
func (p *parser) download(args []word, valueShort, fileShort string, fileLong []string, remoteShort string,
	remoteLong, dirLong []string) {
	long := append(append([]string{}, fileLong...), dirLong...)
	o := parseOpts(args, valueShort, long)
	named := false
	for _, c := range fileShort {
		if w, ok := o.value("-" + string(c)); ok && w.text != "-" {
			p.judge(w, false)
			named = named || c == 'O' || c == 'o'
		}
	}
	for _, n := range fileLong {
		if w, ok := o.value("--" + n); ok && w.text != "-" {
			p.judge(w, false)
			named = named || n == "output" || n == "output-document"
		}
	}
	remoteNames := remoteShort == "" && !named // wget names files itself
	for _, c := range remoteShort {
		remoteNames = remoteNames || o.has("-"+string(c))
	}
	for _, n := range remoteLong {
		remoteNames = remoteNames || o.has("--"+n)
	}
	if !remoteNames {
		return
	}
	dir := plainWord(".")
	for _, n := range dirLong {
		if w, ok := o.value("--" + n); ok {
			dir = w
		}
	}
	if w, ok := o.value("-P"); ok && remoteShort == "" {
		dir = w
	}
	p.judge(dir, false)
}

// tar judges tar: extracting writes below -C's folder (else the working
// folder); creating writes -f's archive.
func (p *parser) tar(args []word) {
	extract, create := false, false
	var file, dir *word
	for k := 0; k < len(args); k++ {
		a := args[k]
		t := a.text
		next := func() *word {
			if k+1 < len(args) {
				k++
				return &args[k]
			}
			return nil
		}
		switch {
		case a.unk != srcNone:
		case t == "--extract" || t == "--get":
			extract = true
		case t == "--create" || t == "--append" || t == "--update":
			create = true
		case t == "--directory" || t == "--file":
			if w := next(); w != nil && t == "--directory" {
				dir = w
			} else {
				file = w
			}
		case strings.HasPrefix(t, "--directory="):
			w := suffixWord(a, len("--directory="))
			dir = &w
		case strings.HasPrefix(t, "--file="):
			w := suffixWord(a, len("--file="))
			file = &w
		case strings.HasPrefix(t, "--"):
		case k == 0 || strings.HasPrefix(t, "-"):
			letters := strings.TrimPrefix(t, "-")
			for j := 0; j < len(letters); j++ {
				switch letters[j] {
				case 'x':
					extract = true
				case 'c', 'r', 'u':
					create = true
				case 'f', 'C':
					var w *word
					if j+1 < len(letters) && t[0] == '-' {
						v := suffixWord(a, len(t)-len(letters)+j+1)
						w = &v
					} else {
						w = next()
					}
					if letters[j] == 'f' {
						file = w
					} else {
						dir = w
					}
					j = len(letters)
				}
			}
		}
	}
	if extract {
		if dir == nil {
			d := plainWord(".")
			dir = &d
		}
		p.judge(*dir, false)
	}
	if create && file != nil && file.text != "-" {
		p.judge(*file, false)
	}
}
