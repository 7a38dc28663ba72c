package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/luabind"
)

// PermissionError refuses a hook file, or the hooks folder or its lib
// folder, that someone other than the process's user could change: whoever
// can write a hook file can run code in the host, as sshd refuses a key file
// that others can write. Options.AllowLoosePermissions and the config's
// [lua] allow_loose_permissions load them anyway. A refused file keeps its
// previous good version live, as a file that fails to load does.
type PermissionError struct {
	Path    string      // the file or folder refused
	Mode    fs.FileMode // its mode
	Problem string      // "writable by group", "owned by uid 1000", ...
	Fix     string      // what the operator can do
}

// Error names the path, the mode and the problem, and says how to fix it.
func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: refused: mode %s is %s; %s, or set [lua] allow_loose_permissions = true (--allow-loose-permissions) to load it anyway",
		e.Path, e.Mode, e.Problem, e.Fix)
}

// SymlinkError refuses a hook file that is a symbolic link to a file outside
// the hooks folder: what the folder holds is what an operator reviews. A
// link to a file inside the folder (a sub-folder of variants, say) is fine.
type SymlinkError struct {
	Path   string // the link in the hooks folder
	Target string // where it leads, all links resolved
	Dir    string // the hooks folder, all links resolved
}

// Error names the link, its target and the folder.
func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s: refused: symbolic link to %s, outside the hooks folder %s; copy the file into the folder or link to a file inside it",
		e.Path, e.Target, e.Dir)
}

// trust checks files and folders against the rules above. uid is the user
// the process runs as; files it or root owns are trusted.
type trust struct {
	loose bool // allow_loose_permissions
	uid   int  // -1: ownership is not checked (no such notion here)
}

func (e *Engine) trust() trust {
	return trust{loose: e.opts.AllowLoosePermissions || e.cfg.Lua.AllowLoosePermissions, uid: processUID()}
}

// check refuses fi, the status of path (links followed), when another user
// may change it.
func (t trust) check(path string, fi fs.FileInfo) error {
	if t.loose || t.uid < 0 {
		return nil
	}
	mode := fi.Mode()
	fix := "chmod go-w " + path
	switch {
	case mode.Perm()&0o022 == 0o022:
		return &PermissionError{Path: path, Mode: mode, Problem: "writable by group and others", Fix: fix}
	case mode.Perm()&0o020 != 0 && !privateGroup(fi):
		return &PermissionError{Path: path, Mode: mode, Problem: "writable by group", Fix: fix}
	case mode.Perm()&0o002 != 0:
		return &PermissionError{Path: path, Mode: mode, Problem: "writable by others", Fix: fix}
	}
	if owner, ok := fileOwner(fi); ok && owner != t.uid && owner != 0 {
		return &PermissionError{Path: path, Mode: mode,
			Problem: fmt.Sprintf("owned by uid %d, not by the user luahook runs as (uid %d) nor root", owner, t.uid),
			Fix:     fmt.Sprintf("chown %d %s", t.uid, path)}
	}
	return nil
}

// checkDir refuses a hooks or lib folder that another user may change. A
// folder that does not exist passes: there is nothing in it to load.
func (t trust) checkDir(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return t.check(path, fi)
}

// checkRoot refuses the hooks folder that root holds open, at path, when
// another user may change it; it is judged on the opened folder.
func (t trust) checkRoot(path string, root *os.Root) error {
	fi, err := root.Stat(".")
	if err != nil {
		return err
	}
	return t.check(path, fi)
}

// readHookFile opens the hook file name through root, the hooks folder's,
// and reads it. The open never blocks and never leaves the folder: a link
// is followed only to a file inside it (os.Root), a named pipe, device or
// folder is refused (regfile), and the opened file's own mode and owner are
// checked (when checks apply) before anything is read from it, so that the
// file checked is the file read whatever is swapped in meanwhile. It reads
// at most luabind.DefaultMaxSourceBytes; settle is readSettled's. vet,
// when set, is given the opened file's status too (the link rule of
// Options.Trust, notALink).
func readHookFile(root *os.Root, name, path string, settle time.Duration, t trust, vet func(string, fs.FileInfo) error) (src []byte, fresh bool, err error) {
	f, fi, err := regfile.OpenIn(root, name, path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			// Most likely a link the root would not follow out of the
			// folder: say so as the rule does.
			if lerr := linkOut(root.Name(), path); lerr != nil {
				return nil, false, lerr
			}
		}
		return nil, false, err
	}
	defer f.Close()
	if !t.loose && t.uid >= 0 {
		if err := t.check(path, fi); err != nil {
			return nil, false, err
		}
	}
	if vet != nil {
		if err := vet(path, fi); err != nil {
			return nil, false, err
		}
	}
	return readSettled(f, fi, path, luabind.DefaultMaxSourceBytes, settle)
}

// linkOut returns a *SymlinkError when path is a symbolic link leading
// outside dir, to explain a refusal by the folder's os.Root (which is what
// enforces the rule); nil otherwise.
func linkOut(dir, path string) error {
	lfi, err := os.Lstat(path)
	if err != nil || lfi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		if target, err = os.Readlink(path); err != nil {
			return nil
		}
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		root = dir
	}
	if isUnder(root, target) {
		return nil
	}
	return &SymlinkError{Path: path, Target: target, Dir: root}
}

// refused reports whether err refuses a hook file for what it is (its
// mode, owner or type, or where its link leads) rather than for failing to
// read it.
func refused(err error) bool {
	var pe *PermissionError
	var se *SymlinkError
	var le *LinkError
	var ne *regfile.NotRegularError
	return errors.As(err, &pe) || errors.As(err, &se) || errors.As(err, &le) || errors.As(err, &ne)
}

// libCheck returns the check luabind runs on the lib folder, each folder
// below it on the way to a module and the module's file, before require
// reads the module (nil when nothing is checked): every file that runs as
// code passes the rules of hook files, whenever it is first required. With
// the lib folder it checks the hooks folder above it again, so that a lib
// folder swapped in through a hooks folder gone loose since the last reload
// is refused too.
func (t trust) libCheck(hooksDir, libDir string) func(string, fs.FileInfo) error {
	if t.loose || t.uid < 0 {
		return nil
	}
	return func(path string, fi fs.FileInfo) error {
		if path == libDir {
			if err := t.checkDir(hooksDir); err != nil {
				return err
			}
		}
		return t.check(path, fi)
	}
}
