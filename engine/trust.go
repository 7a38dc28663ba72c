package engine

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Trust decides whether the content the engine read from a file may load
// (Options.Trust). The engine asks it about every file it is about to
// parse or compile from a folder someone else may have written (the
// project folder an agent works in): the config file, each hook file, each
// lib module (at load, or first required during a call), every time it
// loads one (at Open, on each reload, :reload), with the SHA-256 of the
// very bytes it read and will parse or compile: the file is read once,
// hashed, checked, and loaded from those bytes, never opened again in
// between, so that nothing swapped in after the check runs. Nothing is
// looked up in the compiled-chunk cache before the check.
//
// name is the file's path relative to the project folder, slash-separated:
// the folder of the config file, else the folder above the hooks folder
// ("luahook.toml", "hooks.d/10-x.lua", "hooks.d/lib/util/strings.lua"); a
// file outside that folder is named by its absolute path. Content.Sums
// holds the same names.
//
// Check returns nil when the file may load, else the error that refuses
// it; a message that says what to do (review it, then trust it) is best
// given as a WholeReason, which a denial quotes as it is. It is called
// from any goroutine, concurrently.
//
// A refused file is not loaded: its last version that loaded stays in
// force, Errors lists the refusal (and /readyz with it), and a file with no
// version in force makes an event that can block deny, naming it
// (FailClosed), as a file that failed to load does. Trust gates loading
// only: what is in force stays in force when the trust is withdrawn, and a
// file removed from the folder is dropped, since removing a file runs
// nothing.
type Trust interface {
	Check(name string, sum [sha256.Size]byte) error
}

// TrustWatcher is implemented by a Trust whose decisions are read from
// files (the trust records of the CLI): the engine's watcher watches them
// too, and a change to one checks again, as Reload does, every file that
// awaits trust.
type TrustWatcher interface {
	TrustFiles() []string
}

// UntrustedFileError refuses a file whose content Options.Trust does not
// trust. Its message is Trust's when that says what to do (a WholeReason),
// else it names the file.
type UntrustedFileError struct {
	Path string // the file, as the engine opened it
	Name string // as Trust named it
	Err  error  // Trust's answer
}

// Error returns Trust's message when it is a whole reason, else names the
// file before it.
func (e *UntrustedFileError) Error() string {
	var wr WholeReason
	if errors.As(e.Err, &wr) {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s: not loaded: not trusted: %v", e.Path, e.Err)
}

// Unwrap returns Trust's answer.
func (e *UntrustedFileError) Unwrap() error { return e.Err }

// LinkError refuses a symbolic link where a file that must be trusted
// (Options.Trust) is expected: what is trusted is the content of the file
// the folder holds, never what a link leads to.
type LinkError struct {
	Path string
}

// Error names the link and says what to do.
func (e *LinkError) Error() string {
	return fmt.Sprintf("%s: refused: a symbolic link; the files of a folder that must be trusted load only as regular files, "+
		"not through links: replace the link with the file", e.Path)
}

// trustGate applies Options.Trust to the files of one engine: it names them
// as Trust expects and wraps its refusals.
type trustGate struct {
	t    Trust
	base string // the folder names are relative to, absolute
}

// newTrustGate returns the gate of t for an engine opened on configPath and
// the hooks folder dir (dir "" before it is known: the config's name needs
// only the config's folder); nil when t is nil (everything is trusted).
func newTrustGate(t Trust, configPath, dir string) *trustGate {
	if t == nil {
		return nil
	}
	return &trustGate{t: t, base: trustBase(configPath, dir)}
}

// trustBase is the folder Trust names files relative to: the config file's
// folder, else the folder above the hooks folder; absolute.
func trustBase(configPath, dir string) string {
	if configPath != "" {
		return filepath.Dir(abs(configPath))
	}
	return filepath.Dir(abs(dir))
}

// trustName names path relative to base, slash-separated, when it is inside
// it; else by its absolute path.
func trustName(base, path string) string {
	p := abs(path)
	if rel, err := filepath.Rel(base, p); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// check returns nil when the content of path, of SHA-256 sum, may load,
// else an *UntrustedFileError. A nil gate trusts everything.
func (g *trustGate) check(path string, sum [sha256.Size]byte) error {
	if g == nil {
		return nil
	}
	name := trustName(g.base, path)
	if err := g.t.Check(name, sum); err != nil {
		return &UntrustedFileError{Path: path, Name: name, Err: err}
	}
	return nil
}

// untrusted reports whether err refuses a file for its trust.
func untrusted(err error) bool {
	var ue *UntrustedFileError
	return errors.As(err, &ue)
}

// notALink returns a *LinkError when path, whose opened descriptor has
// status fi, is a symbolic link, and an error when the entry at path is not
// the file that was opened (replaced meanwhile): only the regular file the
// folder holds is read as a file that must be trusted. A file that is gone
// is fs.ErrNotExist.
func notALink(path string, fi fs.FileInfo) error {
	lfi, err := os.Lstat(path)
	switch {
	case err != nil:
		return err
	case lfi.Mode()&fs.ModeSymlink != 0:
		return &LinkError{Path: path}
	case !os.SameFile(lfi, fi):
		return fmt.Errorf("%s: replaced while it was being read; it is read again on its next change", path)
	}
	return nil
}

// libCheck returns the check luabind runs, before require reads a module,
// on the lib folder, each folder on the way and the module's file: the
// permission rules (trust.libCheck) and, with Options.Trust, the rule that
// a module is a regular file, not a link. nil when nothing is checked.
func (e *Engine) libCheck() func(string, fs.FileInfo) error {
	perm := e.trust().libCheck(e.dir, e.libDir())
	if e.gate == nil {
		return perm
	}
	return func(path string, fi fs.FileInfo) error {
		if perm != nil {
			if err := perm(path, fi); err != nil {
				return err
			}
		}
		if fi.IsDir() {
			return nil
		}
		return notALink(path, fi)
	}
}

// libVerify returns the check luabind runs on the bytes require read from a
// lib module, before it compiles them or looks them up in a cache: the
// content must be trusted (Options.Trust). nil without Options.Trust.
func (e *Engine) libVerify() func(string, [sha256.Size]byte) error {
	g := e.gate
	if g == nil {
		return nil
	}
	return g.check
}
