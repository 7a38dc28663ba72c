package modules

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/internal/regfile"
)

// The fs module's bounds.
const (
	// FSReadDefault is what fs.read reads at most when no max is given.
	FSReadDefault = 64 << 10
	// FSReadMax is the largest max fs.read accepts.
	FSReadMax = 1 << 20
	// FSGlobDefault is how many paths fs.glob returns at most when no max
	// is given.
	FSGlobDefault = 256
	// FSGlobMax is the largest max fs.glob accepts.
	FSGlobMax = 4096
	// FSGlobVisits is how many entries one fs.glob may visit (each name it
	// looks up, each entry of each folder it lists) before it gives up.
	FSGlobVisits = 10_000
	// FSCallBytes is how many bytes fs.read may read in one hook call.
	FSCallBytes = 4 << 20
	// FSCallEntries is how many entries the fs module may look up in one
	// hook call: one per fs.exists, fs.stat and fs.read, and every entry
	// a glob visits.
	FSCallEntries = 20_000
	// FSInFlight bounds the fs operations running in the process at once:
	// an operation stuck in a hung file system keeps its slot (and its
	// thread) until the system answers, and the calls that find no slot
	// wait on their deadlines instead of piling up threads.
	FSInFlight = 32

	fsPathMax    = 4096 // the longest path or pattern (PATH_MAX)
	fsCheckEvery = 64   // a glob looks at its context every so many entries
	fsListBatch  = 128  // entries read from a folder at once
)

// fsSpent is what the fs module spent in the call in progress.
type fsSpent struct {
	bytes   int64 // read by fs.read
	entries int   // looked up and visited
}

// BeginCall starts a hook call's budgets (the fs module's bytes and
// entries): the state calls it as each hook call starts.
func (m *Modules) BeginCall() { m.fs = fsSpent{} }

// OpenFS opens the fs module: read-only facts about the project folder,
// the payload's cwd, without the io library.
//
//	fs.exists(path) -> bool
//	fs.stat(path) -> {type = "file"|"dir"|"link"|"other", size, mtime} | nil, err
//	fs.read(path[, max]) -> string | nil, err     (regular files, max bytes: 64 KiB, at most 1 MiB)
//	fs.glob(pattern[, max]) -> {paths}, truncated  (max paths: 256, at most 4096)
//
// Paths are relative to the project folder, or absolute below it; a path
// that leaves it ('..', an absolute path elsewhere, a symbolic link whose
// target is outside or absolute) is refused, and so is a file that is not
// a regular one for fs.read (opened without blocking, judged on the
// opened descriptor). fs.exists and fs.glob raise what they cannot
// answer; fs.stat and fs.read return nil and the reason. Every function
// raises outside a hook call, for a payload without a cwd, past its
// call's budgets (FSCallBytes, FSCallEntries) and once the call's context
// is done: each operation runs off the Lua goroutine and is waited for
// under the context, so that a hung file system does not hold the hook
// past its deadline.
func (m *Modules) OpenFS() {
	L := m.L
	mod := L.CreateTable(0, 4)
	mod.RawSetString("exists", L.NewFunction(m.fsExists))
	mod.RawSetString("stat", L.NewFunction(m.fsStat))
	mod.RawSetString("read", L.NewFunction(m.fsRead))
	mod.RawSetString("glob", L.NewFunction(m.fsGlob))
	L.G.Global.RawSetString("fs", mod)
}

// fsProject returns the project folder of the call in progress (the
// payload's cwd, made absolute), checks the call's context, and charges
// entries to the call's budget; it raises fn's error when there is none
// or the budget is spent.
func (m *Modules) fsProject(L *lua.LState, fn string, entries int) (dir string, ctx context.Context) {
	var cwd string
	var inCall bool
	if m.host != nil {
		cwd, inCall = m.host.CallCwd()
		ctx = m.host.CallContext()
	}
	switch {
	case !inCall:
		L.RaiseError("%s: the project's files are only available inside a hook call (not while the file loads)", fn)
	case cwd == "":
		L.RaiseError("%s: this call's payload has no cwd, so there is no project folder to read", fn)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	m.fsCharge(L, fn, entries)
	dir, err := filepath.Abs(cwd)
	if err != nil {
		L.RaiseError("%s: the payload's cwd %q: %v", fn, cwd, err)
	}
	return dir, ctx
}

// fsCharge charges n entries to the call's budget, raising fn's error when
// it would pass FSCallEntries.
func (m *Modules) fsCharge(L *lua.LState, fn string, n int) {
	if m.fs.entries+n > FSCallEntries {
		L.RaiseError("%s: this hook call has used the %d file system entries the fs module may look up in one call (one per exists, stat and read, and every entry a glob visits)",
			fn, FSCallEntries)
	}
	m.fs.entries += n
}

// fsPath checks a path argument: a string of 1 to 4096 bytes without NUL.
func fsPath(L *lua.LState, n int, fn string) string {
	p := L.CheckString(n)
	switch {
	case p == "":
		L.ArgError(n, "an empty path")
	case len(p) > fsPathMax:
		L.ArgError(n, fmt.Sprintf("a path of %d bytes (at most %d)", len(p), fsPathMax))
	case strings.IndexByte(p, 0) >= 0:
		L.ArgError(n, "a path with a NUL byte")
	}
	return p
}

// fsMax reads the optional max argument n: def when absent, else an
// integer from 1 to limit.
func fsMax(L *lua.LState, n int, def, limit int, what string) int {
	v := L.Get(n)
	if v == lua.LNil {
		return def
	}
	num, ok := v.(lua.LNumber)
	if !ok || float64(num) != float64(int64(num)) || num < 1 || int64(num) > int64(limit) {
		L.ArgError(n, fmt.Sprintf("max must be a whole number of %s from 1 to %d, got %s", what, limit, lua.LVAsString(v)))
	}
	return int(num)
}

// fsLocal returns p as a path inside the project folder dir, relative to
// it ("." for dir itself), or why it is refused: an absolute path must be
// dir or below it as the payload's cwd spells it, and '..' must not climb
// out of it (judged on the path's text: the links on the way are the
// file system's to judge, fsOpen).
func fsLocal(dir, p string) (rel, refused string) {
	if filepath.IsAbs(p) {
		c := filepath.Clean(p)
		switch {
		case c == dir:
			return ".", ""
		case strings.HasPrefix(c, dir) && (strings.HasSuffix(dir, string(filepath.Separator)) || c[len(dir)] == filepath.Separator):
			return strings.TrimPrefix(c[len(dir):], string(filepath.Separator)), ""
		}
		return "", "refused: it is outside the project folder " + dir + " (the payload's cwd: fs reaches it and what is below it)"
	}
	c := filepath.Clean(p)
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", "refused: '..' leads out of the project folder " + dir
	}
	return c, ""
}

// fsSlots holds a token for each fs operation in flight (FSInFlight).
var fsSlots = make(chan struct{}, FSInFlight)

// fsRun runs op on a goroutine of its own and waits for it or for ctx,
// whichever comes first; op must end by itself (a file system call returns
// when the system answers) and watch ctx if it is long. Without a
// deadline or cancellation to wait on, op runs on the caller's goroutine.
func fsRun[T any](ctx context.Context, op func(context.Context) T) (T, error) {
	if ctx.Done() == nil {
		return op(ctx), nil
	}
	var zero T
	select {
	case fsSlots <- struct{}{}:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	done := make(chan T, 1)
	go func() {
		defer func() { <-fsSlots }()
		done <- op(ctx)
	}()
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// fsRoot opens the project folder dir; what goes wrong is the call's
// (a cwd that is not a folder), not the path's.
func fsRoot(dir string) (*os.Root, error) {
	root, err := regfile.OpenRoot(dir)
	if err != nil {
		return nil, &fsRootError{err}
	}
	return root, nil
}

// fsRootError is a project folder that cannot be opened.
type fsRootError struct{ err error }

func (e *fsRootError) Error() string {
	return "the project folder (the payload's cwd): " + e.err.Error()
}

// fsWhy classifies an error of a path: absent (no such file, or a file
// where a folder was expected), refused (a link out of the project folder,
// not a regular file) or neither, with what to say.
func fsWhy(err error) (absent, refused bool, why string) {
	var nr *regfile.NotRegularError
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return true, false, "no such file or folder"
	case errors.As(err, &nr):
		return false, true, "refused: not a regular file: it is " + regfile.Kind(nr.Mode)
	case fsEscapes(err):
		return false, true, "refused: a symbolic link on the way leads out of the project folder, or is absolute (fs follows relative links that stay inside it)"
	case errors.Is(err, syscall.ELOOP):
		return false, false, "too many symbolic links"
	case errors.As(err, &pe):
		return false, false, pe.Err.Error()
	}
	return false, false, err.Error()
}

// fsEscapes reports whether err is os.Root's refusal of a path that leads
// out of the root (its error value is not exported; its text is checked
// by this package's tests).
func fsEscapes(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// fsRaise raises fn's error for an error of the operation on p: the
// call's context, the project folder, or the path's.
func fsRaise(L *lua.LState, fn, p string, err error) {
	var re *fsRootError
	if errors.As(err, &re) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		L.RaiseError("%s: %v", fn, err)
	}
	_, _, why := fsWhy(err)
	L.RaiseError("%s: %s: %s", fn, p, why)
}

// fsFail returns nil and fn's reason for an error on p, raising instead
// for the call's context and the project folder (fsRaise).
func fsFail(L *lua.LState, fn, p string, err error) int {
	var re *fsRootError
	if errors.As(err, &re) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		fsRaise(L, fn, p, err)
	}
	_, _, why := fsWhy(err)
	L.Push(lua.LNil)
	L.Push(lua.LString(fn + ": " + p + ": " + why))
	return 2
}

// fsLook opens the project folder dir and runs look in it, through fsRun:
// the error is the context's, the folder's (*fsRootError) or look's.
func fsLook[T any](ctx context.Context, dir string, look func(*os.Root) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	r, err := fsRun(ctx, func(context.Context) result {
		root, err := fsRoot(dir)
		if err != nil {
			return result{err: err}
		}
		defer root.Close()
		v, err := look(root)
		return result{v, err}
	})
	if err != nil {
		return r.v, err
	}
	return r.v, r.err
}

// fsExists is fs.exists(path) -> bool: whether path names something
// (links followed, inside the project folder). A refused path raises: a
// boolean cannot say so.
func (m *Modules) fsExists(L *lua.LState) int {
	const fn = "fs.exists"
	p := fsPath(L, 1, fn)
	dir, ctx := m.fsProject(L, fn, 1)
	rel, refused := fsLocal(dir, p)
	if refused != "" {
		L.RaiseError("%s: %s: %s", fn, p, refused)
	}
	_, err := fsLook(ctx, dir, func(root *os.Root) (fs.FileInfo, error) { return root.Stat(rel) })
	if err != nil {
		if absent, _, _ := fsWhy(err); absent && !errors.As(err, new(*fsRootError)) {
			L.Push(lua.LFalse)
			return 1
		}
		fsRaise(L, fn, p, err)
	}
	L.Push(lua.LTrue)
	return 1
}

// fsStat is fs.stat(path) -> {type, size, mtime} | nil, err: what path is,
// itself (a link is a "link", not followed), size in bytes and mtime in
// seconds since the epoch, as os.time counts.
func (m *Modules) fsStat(L *lua.LState) int {
	const fn = "fs.stat"
	p := fsPath(L, 1, fn)
	dir, ctx := m.fsProject(L, fn, 1)
	rel, refused := fsLocal(dir, p)
	if refused != "" {
		L.Push(lua.LNil)
		L.Push(lua.LString(fn + ": " + p + ": " + refused))
		return 2
	}
	fi, err := fsLook(ctx, dir, func(root *os.Root) (fs.FileInfo, error) { return root.Lstat(rel) })
	if err != nil {
		return fsFail(L, fn, p, err)
	}
	kind := "other"
	switch t := fi.Mode().Type(); {
	case t == 0:
		kind = "file"
	case t == fs.ModeDir:
		kind = "dir"
	case t == fs.ModeSymlink:
		kind = "link"
	}
	t := L.CreateTable(0, 3)
	t.RawSetString("type", lua.LString(kind))
	t.RawSetString("size", lua.LNumber(fi.Size()))
	t.RawSetString("mtime", lua.LNumber(fi.ModTime().Unix()))
	L.Push(t)
	return 1
}

// fsReadResult is what reading a file found: its size, as the opened
// descriptor said before anything was read, and its bytes.
type fsReadResult struct {
	size int64
	data []byte
}

// fsRead is fs.read(path[, max]) -> string | nil, err: a regular file's
// bytes, at most max. The file is looked at first (a named pipe, a device
// or a folder is refused unopened), opened without blocking and judged
// again on the opened descriptor; its size is checked against max and the
// call's budget before a byte is read.
func (m *Modules) fsRead(L *lua.LState) int {
	const fn = "fs.read"
	p := fsPath(L, 1, fn)
	limit := min(FSReadMax, m.cfg.MaxStringBytes)
	max := fsMax(L, 2, min(FSReadDefault, limit), limit, "bytes")
	dir, ctx := m.fsProject(L, fn, 1)
	left := FSCallBytes - m.fs.bytes
	if left <= 0 {
		L.RaiseError("%s: this hook call has read the %s fs.read may read in one call", fn, regfile.Size(FSCallBytes))
	}
	rel, refused := fsLocal(dir, p)
	if refused != "" {
		L.Push(lua.LNil)
		L.Push(lua.LString(fn + ": " + p + ": " + refused))
		return 2
	}
	most := min(int64(max), left)
	r, err := fsLook(ctx, dir, func(root *os.Root) (fsReadResult, error) {
		fi, err := root.Stat(rel)
		if err != nil {
			return fsReadResult{}, err
		}
		if !fi.Mode().IsRegular() {
			return fsReadResult{}, &regfile.NotRegularError{Path: rel, Mode: fi.Mode()}
		}
		f, fi, err := regfile.OpenIn(root, rel, rel)
		if err != nil {
			return fsReadResult{}, err
		}
		defer f.Close()
		if fi.Size() > most {
			return fsReadResult{size: fi.Size()}, nil
		}
		data, err := regfile.ReadAll(f, fi, rel, most)
		var tl *regfile.TooLargeError
		if errors.As(err, &tl) {
			return fsReadResult{size: most + 1}, nil // it grew while it was read
		}
		return fsReadResult{size: fi.Size(), data: data}, err
	})
	if err != nil {
		return fsFail(L, fn, p, err)
	}
	switch {
	case r.data == nil && r.size > int64(max):
		L.Push(lua.LNil)
		L.Push(lua.LString(fmt.Sprintf("%s: %s: the file holds %d bytes, more than the max of %d", fn, p, r.size, max)))
		return 2
	case r.data == nil && r.size > most:
		L.RaiseError("%s: %s: reading its %d bytes would pass the %s fs.read may read in one hook call (%d left)",
			fn, p, r.size, regfile.Size(FSCallBytes), left)
	}
	m.fs.bytes += int64(len(r.data))
	L.Push(lua.LString(r.data))
	return 1
}

// fsGlob is fs.glob(pattern[, max]) -> {paths}, truncated: the paths below
// the project folder that pattern matches, relative to it with '/'
// between elements, sorted, at most max of them (truncated says whether
// more matched).
func (m *Modules) fsGlob(L *lua.LState) int {
	const fn = "fs.glob"
	pattern := fsPath(L, 1, fn)
	max := fsMax(L, 2, FSGlobDefault, FSGlobMax, "paths")
	segs, err := globSegments(pattern)
	if err != nil {
		L.ArgError(1, err.Error())
	}
	dir, ctx := m.fsProject(L, fn, 0)
	limit := min(FSGlobVisits, FSCallEntries-m.fs.entries)
	if limit <= 0 {
		m.fsCharge(L, fn, 1) // raises
	}
	type result struct {
		w   *globWalk
		err error
	}
	r, err := fsRun(ctx, func(ctx context.Context) result {
		root, err := fsRoot(dir)
		if err != nil {
			return result{err: err}
		}
		defer root.Close()
		w := &globWalk{ctx: ctx, root: root, segs: segs, limit: limit}
		w.walk(".", 0)
		return result{w: w, err: w.err}
	})
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	if r.w != nil {
		m.fs.entries += min(r.w.visits, limit)
	}
	switch {
	case errors.Is(r.err, errGlobLimit) && limit == FSGlobVisits:
		L.RaiseError("%s: %s: visited %d entries without finishing (a glob visits at most %d: name the folders to walk, src/**/*.go rather than **/*.go)",
			fn, pattern, FSGlobVisits, FSGlobVisits)
	case errors.Is(r.err, errGlobLimit):
		m.fsCharge(L, fn, 1) // raises: the call's budget ran out
	case r.err != nil:
		fsRaise(L, fn, pattern, r.err)
	}
	found := r.w.found
	slices.Sort(found)
	found = slices.Compact(found)
	if len(found) > 0 && found[0] == "." && !slices.Equal(segs, []string{"."}) {
		found = found[1:] // "**" matched the folder itself: not a path below it
	}
	n := min(len(found), max)
	t := L.CreateTable(n, 0)
	for _, p := range found[:n] {
		t.Append(lua.LString(p))
	}
	t.Metatable = m.codec.ArrayMT
	L.Push(t)
	L.Push(lua.LBool(len(found) > n))
	return 2
}

// globSegments splits a pattern into its elements, refusing what fs.glob
// does not take: an absolute pattern, one that climbs out with '..', a
// '**' that is not a whole element and a malformed one (path.Match's
// syntax: *, ?, [class], \ escapes).
func globSegments(pattern string) ([]string, error) {
	if strings.HasPrefix(pattern, "/") || filepath.IsAbs(pattern) {
		return nil, errors.New("patterns are relative to the project folder (the payload's cwd), got an absolute one")
	}
	c := path.Clean(pattern)
	if c == ".." || strings.HasPrefix(c, "../") {
		return nil, errors.New("refused: '..' leads out of the project folder")
	}
	segs := strings.Split(c, "/")
	for _, s := range segs {
		if s != "**" && strings.Contains(s, "**") {
			return nil, fmt.Errorf("'**' must be a whole path element (in %q)", s)
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, fmt.Errorf("malformed pattern element %q: %v", s, err)
		}
	}
	return segs, nil
}

// errGlobLimit stops a walk that has visited its limit of entries.
var errGlobLimit = errors.New("too many entries visited")

// globWalk is one fs.glob's walk of the project folder. It never follows
// a symbolic link into a folder (a link may be matched, not walked
// through), reads each folder it lists in batches, and stops at limit
// entries visited or once ctx is done (looked at every fsCheckEvery
// entries).
type globWalk struct {
	ctx    context.Context
	root   *os.Root
	segs   []string
	limit  int
	visits int
	found  []string
	err    error
	// onVisit, if set, is called with the count of each visit (tests).
	onVisit func(n int)
}

// visit counts one entry, and reports whether the walk goes on.
func (w *globWalk) visit() bool {
	w.visits++
	if w.onVisit != nil {
		w.onVisit(w.visits)
	}
	switch {
	case w.visits > w.limit:
		w.err = errGlobLimit
	case w.visits%fsCheckEvery == 0 && w.ctx.Err() != nil:
		w.err = w.ctx.Err()
	}
	return w.err == nil
}

func globJoin(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// literal reports whether a pattern element matches only itself.
func literal(seg string) bool { return !strings.ContainsAny(seg, `*?[\`) }

// walk matches segs[i:] below dir, and reports whether the walk goes on.
func (w *globWalk) walk(dir string, i int) bool {
	if i == len(w.segs) {
		w.found = append(w.found, dir)
		return true
	}
	seg, last := w.segs[i], i == len(w.segs)-1
	switch {
	case seg == "**":
		if !w.walk(dir, i+1) {
			return false
		}
		return w.each(dir, func(name string, isDir bool) bool {
			switch {
			case isDir:
				return w.walk(globJoin(dir, name), i)
			case last:
				w.found = append(w.found, globJoin(dir, name))
			}
			return true
		})
	case literal(seg):
		if !w.visit() {
			return false
		}
		child := globJoin(dir, seg)
		if seg == "." {
			child = dir
		}
		fi, err := w.root.Lstat(child)
		if err != nil {
			if absent, _, _ := fsWhy(err); !absent {
				w.err = err
				return false
			}
			return true
		}
		if last {
			w.found = append(w.found, child)
			return true
		}
		return !fi.IsDir() || w.walk(child, i+1)
	}
	return w.each(dir, func(name string, isDir bool) bool {
		if ok, _ := path.Match(seg, name); !ok {
			return true
		}
		if last {
			w.found = append(w.found, globJoin(dir, name))
			return true
		}
		return !isDir || w.walk(globJoin(dir, name), i+1)
	})
}

// each lists the folder dir (every entry a visit), closes it, then calls
// fn with each entry's name and whether it is a folder (a link to one is
// not), until fn returns false; it reports whether the walk goes on.
func (w *globWalk) each(dir string, fn func(name string, isDir bool) bool) bool {
	f, _, err := regfile.OpenDirIn(w.root, dir, dir)
	if err != nil {
		if absent, _, _ := fsWhy(err); absent {
			return true // gone meanwhile
		}
		w.err = err
		return false
	}
	type entry struct {
		name  string
		isDir bool
	}
	var entries []entry
	for {
		batch, err := f.ReadDir(fsListBatch)
		for _, d := range batch {
			if !w.visit() {
				f.Close()
				return false
			}
			entries = append(entries, entry{d.Name(), d.Type() == fs.ModeDir})
		}
		if err == io.EOF || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			f.Close()
			w.err = err
			return false
		}
	}
	f.Close()
	for _, e := range entries {
		if !fn(e.name, e.isDir) {
			return false
		}
	}
	return true
}
