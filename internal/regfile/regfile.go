// Package regfile opens the files luahook reads (hook files, lib modules,
// the config file, schema files, test files, the REPL's history) so that a
// file swapped for something else cannot stall or flood it: the open never
// blocks (a named pipe would otherwise block open(2) until a writer comes),
// the opened descriptor must be a regular file, and at most a given number
// of bytes is read. Opening relative to an os.Root keeps the file, symbolic
// links included, inside the root's folder.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError refuses a path that is not a regular file: a named pipe,
// a device, a socket or a folder. It is judged on the opened descriptor.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error names the path and what it is.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file: it is %s (mode %s)", e.Path, Kind(e.Mode), e.Mode)
}

// TooLargeError refuses a file holding more than Limit bytes.
type TooLargeError struct {
	Path  string
	Limit int64
}

// Error names the path and the limit: "x.lua: file is larger than 4 MiB".
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: file is larger than %s", e.Path, Size(e.Limit))
}

// Kind names the type of file a mode describes, for errors: "a named pipe
// (FIFO)", "a character device", "a folder"...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// Size renders a byte count for errors: "4 MiB" when it is a whole number of
// MiB, "512 KiB" of KiB, else "N bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// OpenFile opens path with flag and perm (see os.OpenFile) without blocking
// on a named pipe or a device and without making a terminal the process's
// controlling terminal, and returns it with its status only when the opened
// descriptor is a regular file; anything else is closed unread and refused
// with a *NotRegularError. Symbolic links are followed.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|OpenFlags, perm)
	if err != nil {
		return nil, nil, err
	}
	return vet(f, path)
}

// Open opens path for reading, as OpenFile does.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return OpenFile(path, os.O_RDONLY, 0)
}

// OpenIn opens name for reading inside root, as Open does: neither ".." nor
// a symbolic link leads outside the root's folder (see os.Root). path names
// the file in errors.
func OpenIn(root *os.Root, name, path string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|OpenFlags, 0)
	if err != nil {
		return nil, nil, named(err, path)
	}
	return vet(f, path)
}

// OpenRoot opens the folder dir as an os.Root without blocking: os.OpenRoot
// opens its path without O_DIRECTORY, so a named pipe there would block it
// forever. The path is opened with a trailing separator, which makes the
// system refuse anything but a folder (ENOTDIR) before opening it; the error
// then says what dir is.
func OpenRoot(dir string) (*os.Root, error) {
	name := dir
	if name != "" && !os.IsPathSeparator(name[len(name)-1]) {
		name += string(os.PathSeparator)
	}
	root, err := os.OpenRoot(name)
	if errors.Is(err, syscall.ENOTDIR) {
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return nil, fmt.Errorf("%s: not a folder: it is %s (mode %s)", dir, Kind(fi.Mode()), fi.Mode())
		}
	}
	if err != nil {
		return nil, named(err, dir)
	}
	return root, nil
}

// OpenDirIn opens the folder name inside root without blocking, and returns
// it with the status of the opened descriptor; anything but a folder is
// closed and refused with an error naming path and what it is.
func OpenDirIn(root *os.Root, name, path string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|OpenFlags, 0)
	if err != nil {
		return nil, nil, named(err, path)
	}
	fi, err := f.Stat()
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s: not a folder: it is %s (mode %s)", path, Kind(fi.Mode()), fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// named gives an error of a root, which names the file relative to the
// root, the file's full path.
func named(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

func vet(f *os.File, path string) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadAll reads f to its end, refusing with a *TooLargeError a file that
// holds more than limit bytes; fi is f's status (for a first guess of the
// size) and path names it in errors. It never reads more than limit+1
// bytes.
func ReadAll(f *os.File, fi fs.FileInfo, path string, limit int64) ([]byte, error) {
	if limit < 0 {
		return nil, errors.New("regfile: negative limit")
	}
	if fi != nil && fi.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	size := int64(512)
	if fi != nil && fi.Size() >= size {
		size = fi.Size() + 1 // +1: the read that sees the end
	}
	buf := make([]byte, 0, size)
	data, err := readInto(buf, io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}

// readInto is io.ReadAll starting from buf's capacity.
func readInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				return b, nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// Read opens path as Open does and reads it as ReadAll does.
func Read(path string, limit int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, fi, path, limit)
}

// ReadIn opens name inside root as OpenIn does and reads it as ReadAll
// does; path names it in errors.
func ReadIn(root *os.Root, name, path string, limit int64) ([]byte, error) {
	f, fi, err := OpenIn(root, name, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, fi, path, limit)
}
