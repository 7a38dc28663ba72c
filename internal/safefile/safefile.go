// Package safefile opens the files luahook writes (the decision log, the
// trust records, the agents' settings files and their backups, the
// compiled-chunk cache, serve's socket folder, the REPL's history, the
// packs luahook add writes) so that what is written goes where the path
// says and to no one else's file: a record carries text an agent chose,
// and a link at the log's path would append it to whatever the link names
// (a shell's start-up file, say).
//
// Every write happens inside a Scope: a folder, reached as its path says
// (the way to it is the operator's, links on it followed), below which
// nothing is followed: each folder from the scope down to the file is
// checked with Lstat, opened, and held to what Lstat saw (the same device
// and inode), so that no component is a link and the file stays inside the
// scope whatever is swapped in meanwhile. The file itself is never opened
// through a link and never blocks (a named pipe is refused before it is
// opened). What is checked:
//
//   - a folder (CheckDir): a folder, owned by the user or root, that
//     neither others nor its group can write (a group that is its owner's
//     private group aside);
//   - a file (CheckFile): a regular file, owned by the user, that neither
//     others nor its group can write (the same exception); others may
//     read it, where the writer allows it.
//
// A refusal is an *Error naming the path and what is wrong with it.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/luahook/luahook/internal/atomicfile"
	"github.com/luahook/luahook/internal/regfile"
)

// Error refuses a file or folder luahook would write: Path names it,
// Problem says what is wrong ("is a symbolic link (to /root/.bashrc)",
// "not a regular file: it is a named pipe (FIFO)", "is owned by uid 65534,
// not by this user (uid 1000)", "mode 0666 lets others write it (chmod
// go-w FILE)", "leads out of the project through the link .claude ->
// /root/.claude").
type Error struct {
	Path    string
	Problem string
}

// Error returns "PATH: PROBLEM".
func (e *Error) Error() string { return e.Path + ": " + e.Problem }

// Scope is a folder luahook writes in.
type Scope struct {
	// Dir is the folder. The way to it is the operator's: the links on
	// it are followed.
	Dir string
	// Follow lets Dir itself be a link (the working folder, a folder the
	// operator named in a flag or a config). Without it Dir must be the
	// folder itself (the cache folder, the socket's folder, the trust
	// records), which nothing but luahook puts there.
	Follow bool
	// What names the scope in errors ("the project").
	What string
}

func (s Scope) what() string {
	if s.What == "" {
		return filepath.Clean(s.Dir)
	}
	return s.What
}

// Dir is a folder of a scope, opened and checked: the files opened through
// it are in that very folder, whatever is renamed or linked meanwhile.
type Dir struct {
	root *os.Root
	path string // the folder's path, for errors
}

// Path returns the folder's path.
func (d *Dir) Path() string { return d.path }

// Close closes the folder.
func (d *Dir) Close() error { return d.root.Close() }

// OpenDir opens the folder rel (a local path, "" for the scope's folder
// itself) of scope s. With perm, the folders missing on the way are made
// with perm (the scope's folder with os.MkdirAll, following the way to it;
// those below it one by one, never through a link). Each folder from the
// scope's down to rel is checked (CheckDir) and must not be a link (the
// scope's own folder may be with s.Follow).
func OpenDir(s Scope, rel string, perm fs.FileMode) (*Dir, error) {
	parts, err := split(s, rel)
	if err != nil {
		return nil, err
	}
	root, err := openScope(s, perm)
	if err != nil {
		return nil, err
	}
	cur := s.Dir
	for i, name := range parts {
		next := filepath.Join(cur, name)
		sub, err := descend(root, name, next, perm, func(target string) error {
			return linkOnTheWay(s, filepath.Join(parts[:i+1]...), next, target, next)
		})
		root.Close()
		if err != nil {
			return nil, err
		}
		root, cur = sub, next
	}
	return &Dir{root: root, path: cur}, nil
}

// split checks rel and returns its elements.
func split(s Scope, rel string) ([]string, error) {
	if rel == "" || rel == "." {
		return nil, nil
	}
	if !filepath.IsLocal(rel) {
		return nil, &Error{Path: filepath.Join(s.Dir, rel), Problem: "is not inside " + s.what()}
	}
	return strings.Split(filepath.Clean(rel), string(filepath.Separator)), nil
}

// openScope opens the scope's folder, making it when perm is set.
func openScope(s Scope, perm fs.FileMode) (*os.Root, error) {
	stat := os.Lstat
	if s.Follow {
		stat = os.Stat
	}
	lfi, err := stat(s.Dir)
	if errors.Is(err, fs.ErrNotExist) && perm != 0 {
		if err := os.MkdirAll(s.Dir, perm); err != nil {
			return nil, err
		}
		lfi, err = stat(s.Dir)
	}
	if err != nil {
		return nil, err
	}
	if lfi.Mode()&fs.ModeSymlink != 0 {
		return nil, linkError(s.Dir)
	}
	if !lfi.IsDir() {
		return nil, kindError(s.Dir, lfi.Mode(), "a folder")
	}
	root, err := regfile.OpenRoot(s.Dir)
	if err != nil {
		return nil, err
	}
	if err := held(root, s.Dir, lfi); err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// descend opens the folder name of root (path names it), making it with
// perm when it is missing and perm is set. A link there is refused with
// link's error.
func descend(root *os.Root, name, path string, perm fs.FileMode, link func(target string) error) (*os.Root, error) {
	lfi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && perm != 0 {
		// mkdirat never follows a link put there meanwhile: it fails
		// with EEXIST, and Lstat then sees the link.
		if err := root.Mkdir(name, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, pathError(err, path)
		}
		lfi, err = root.Lstat(name)
	}
	if err != nil {
		return nil, pathError(err, path)
	}
	if lfi.Mode()&fs.ModeSymlink != 0 {
		target, _ := root.Readlink(name)
		return nil, link(target)
	}
	if !lfi.IsDir() {
		return nil, kindError(path, lfi.Mode(), "a folder")
	}
	sub, err := root.OpenRoot(name)
	if err != nil {
		return nil, pathError(err, path)
	}
	if err := held(sub, path, lfi); err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// held checks the folder root holds: the folder lfi described (not one a
// link put there meanwhile led to), and one that passes CheckDir.
func held(root *os.Root, path string, lfi fs.FileInfo) error {
	fi, err := root.Stat(".")
	if err != nil {
		return pathError(err, path)
	}
	if !os.SameFile(lfi, fi) {
		return &Error{Path: path, Problem: "changed while it was being opened"}
	}
	return CheckDir(path, fi)
}

// linkOnTheWay is the refusal of a link met at rel (relative to the scope)
// on the way to path: one that leads out of the scope says so.
func linkOnTheWay(s Scope, rel, linkPath, target, path string) error {
	if target == "" {
		target = "?"
	}
	if leadsOut(s.Dir, linkPath, target) {
		return &Error{Path: path, Problem: fmt.Sprintf("leads out of %s through the link %s -> %s", s.what(), rel, target)}
	}
	return &Error{Path: path, Problem: fmt.Sprintf("goes through the link %s -> %s: luahook follows no link inside %s", rel, target, s.what())}
}

// leadsOut reports whether the link at linkPath, to target, leads outside
// the folder dir.
func leadsOut(dir, linkPath, target string) bool {
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(linkPath), target)
	}
	if t, err := filepath.EvalSymlinks(target); err == nil {
		target = t
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	rel, err := filepath.Rel(dir, target)
	return err != nil || !filepath.IsLocal(rel)
}

// linkError refuses the link at path, naming its target.
func linkError(path string) error {
	target, err := os.Readlink(path)
	if err != nil {
		return &Error{Path: path, Problem: "is a symbolic link"}
	}
	return &Error{Path: path, Problem: "is a symbolic link (to " + target + ")"}
}

// kindError refuses path, of mode m, where want ("a folder", "a regular
// file") was expected.
func kindError(path string, m fs.FileMode, want string) error {
	return &Error{Path: path, Problem: "not " + want + ": it is " + regfile.Kind(m)}
}

// pathError names path in err, an error of a root (which names the file
// relative to it).
func pathError(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// name checks that name is one element of a path and returns the file's
// path in d.
func (d *Dir) name(name string) (string, error) {
	path := filepath.Join(d.path, name)
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		return path, &Error{Path: path, Problem: "is not a file name of the folder " + d.path}
	}
	return path, nil
}

// OpenFile opens the file name of d with flag and perm (see os.OpenFile):
// never through a link, never blocking, and only when it is a regular file
// that passes CheckFile, judged on the descriptor opened. A file that
// exists is judged by Lstat before it is opened (a named pipe is never
// opened) and must be the file opened; a missing one is created with
// O_EXCL (which follows no link) when flag has O_CREATE.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	path, err := d.name(name)
	if err != nil {
		return nil, nil, err
	}
	var f *os.File
	var lfi fs.FileInfo
	for range 3 {
		if flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL {
			f, err = d.root.OpenFile(name, flag|regfile.OpenFlags, perm)
			break
		}
		lfi, err = d.root.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0 {
			f, err = d.root.OpenFile(name, flag|os.O_EXCL|regfile.OpenFlags, perm)
			if errors.Is(err, fs.ErrExist) {
				continue // made meanwhile: judge what is there now
			}
			lfi = nil
			break
		}
		if err != nil {
			break
		}
		if err := existing(path, lfi); err != nil {
			return nil, nil, err
		}
		f, err = d.root.OpenFile(name, flag&^os.O_CREATE|regfile.OpenFlags, 0)
		break
	}
	if err != nil {
		return nil, nil, pathError(err, path)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = pathError(err, path)
	case lfi != nil && !os.SameFile(lfi, fi):
		err = &Error{Path: path, Problem: "changed while it was being opened"}
	default:
		err = CheckFile(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// existing judges lfi, the Lstat of path: a link, anything but a regular
// file, or a file CheckFile refuses is an error.
func existing(path string, lfi fs.FileInfo) error {
	if lfi.Mode()&fs.ModeSymlink != 0 {
		return linkError(path)
	}
	return CheckFile(path, lfi)
}

// WriteFile replaces the file name of d with data and mode perm, whole or
// not at all (atomicfile.WriteIn): the file that is there, if any, must be
// one OpenFile would open (judged by Lstat: a link or a named pipe there is
// refused, not replaced); the new file is made in d, never through a link.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	path, err := d.name(name)
	if err != nil {
		return err
	}
	lfi, err := d.root.Lstat(name)
	switch {
	case err == nil:
		if err := existing(path, lfi); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return pathError(err, path)
	}
	if err := atomicfile.WriteIn(d.root, name, data, perm); err != nil {
		return pathError(err, path)
	}
	return nil
}

// Lstat returns the status of the file name of d, not following a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	path, err := d.name(name)
	if err != nil {
		return nil, err
	}
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil, pathError(err, path)
	}
	return fi, nil
}

// Remove removes the file name of d (a link itself, never its target).
func (d *Dir) Remove(name string) error {
	path, err := d.name(name)
	if err != nil {
		return err
	}
	if err := d.root.Remove(name); err != nil {
		return pathError(err, path)
	}
	return nil
}

// Rename renames the file oldname of d to newname of d, replacing what is
// there (a link itself, never its target).
func (d *Dir) Rename(oldname, newname string) error {
	from, err := d.name(oldname)
	if err != nil {
		return err
	}
	to, err := d.name(newname)
	if err != nil {
		return err
	}
	if err := d.root.Rename(oldname, newname); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			return &os.LinkError{Op: le.Op, Old: from, New: to, Err: le.Err}
		}
		return fmt.Errorf("rename %s %s: %w", from, to, err)
	}
	return nil
}

// Names returns the names of the files in d, in no order.
func (d *Dir) Names() ([]string, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, pathError(err, d.path)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, pathError(err, d.path)
	}
	return names, nil
}

// Check judges, without opening or making anything, the way from the
// scope's folder to the file rel (a local path) as OpenDir and OpenFile
// would: each folder that exists on the way (CheckDir, no link), and the
// file when it exists (CheckFile, not a link). What does not exist yet
// passes: it will be made inside the scope.
func Check(s Scope, rel string) error {
	parts, err := split(s, rel)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return &Error{Path: s.Dir, Problem: "is the scope's folder, not a file in it"}
	}
	stat := os.Lstat
	if s.Follow {
		stat = os.Stat
	}
	fi, err := stat(s.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return linkError(s.Dir)
	case !fi.IsDir():
		return kindError(s.Dir, fi.Mode(), "a folder")
	}
	if err := CheckDir(s.Dir, fi); err != nil {
		return err
	}
	path := filepath.Join(s.Dir, rel)
	cur := s.Dir
	for i, name := range parts {
		cur = filepath.Join(cur, name)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		}
		last := i == len(parts)-1
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(cur)
			if last && !leadsOut(s.Dir, cur, target) {
				return linkError(cur)
			}
			return linkOnTheWay(s, filepath.Join(parts[:i+1]...), cur, target, path)
		}
		if last {
			return CheckFile(cur, fi)
		}
		if !fi.IsDir() {
			return kindError(cur, fi.Mode(), "a folder")
		}
		if err := CheckDir(cur, fi); err != nil {
			return err
		}
	}
	return nil
}
