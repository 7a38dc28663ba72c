package decisionlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luahook/luahook/internal/logconf"
	"github.com/luahook/luahook/internal/safefile"
)

// Defaults of the file sink.
const (
	// DefaultMaxBytes is the size past which the file is rotated (16 MiB).
	DefaultMaxBytes = logconf.DefaultMaxBytes
	// DefaultMaxFiles is how many rotated files are kept (5).
	DefaultMaxFiles = logconf.DefaultMaxFiles
	// MaxMaxFiles bounds how many rotated files may be kept (1000).
	MaxMaxFiles = logconf.MaxMaxFiles
)

// FileOptions configure a file sink.
type FileOptions struct {
	// MaxBytes is the size a file may reach: a record that would take it
	// past MaxBytes goes to a fresh file after rotation (a record larger
	// than MaxBytes gets a file of its own). 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxFiles is how many rotated files are kept: PATH.1 (the newest)
	// to PATH.N; rotation drops the oldest. 0 means DefaultMaxFiles; a
	// negative value keeps none (the file is cut when it is full).
	MaxFiles int
}

// File returns a Sink that appends to the file at path (created with mode
// 0600: records hold payloads), rotating it by size: PATH becomes PATH.1,
// PATH.1 becomes PATH.2, ..., and at most MaxFiles rotated files are kept.
//
// The file is opened as internal/safefile opens the files luahook writes:
// its folder (reached as path says) is held open for the sink's life and
// must be the user's or root's, closed to others' writes; the file is
// opened in it never through a link (a record carries text an agent chose,
// which a link would append to the file it names) and never blocking, and
// must be a regular file of the user's own that neither group nor others
// can write (others may read it, if the operator made it so). A refusal is
// an error naming the path and what is wrong.
func File(path string, opts FileOptions) (Sink, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	switch {
	case opts.MaxFiles == 0:
		opts.MaxFiles = DefaultMaxFiles
	case opts.MaxFiles < 0:
		opts.MaxFiles = 0
	case opts.MaxFiles > MaxMaxFiles:
		return nil, fmt.Errorf("decision log %s: keeps at most %d rotated files, not %d", path, MaxMaxFiles, opts.MaxFiles)
	}
	dir, err := safefile.OpenDir(safefile.Scope{Dir: filepath.Dir(path), Follow: true, What: "the decision log's folder"}, "", 0)
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	s := &fileSink{path: path, name: filepath.Base(path), dir: dir, opts: opts}
	if err := s.open(); err != nil {
		dir.Close()
		return nil, err
	}
	return s, nil
}

type fileSink struct {
	path string
	name string        // the file's name in dir
	dir  *safefile.Dir // the file's folder: the file and its rotations stay in it
	opts FileOptions
	f    *os.File
	size int64  // bytes written to f
	buf  []byte // records not written yet
}

// open opens (or creates) the file in its folder, as File says.
func (s *fileSink) open() error {
	if s.dir == nil {
		return fmt.Errorf("decision log %s: closed", s.path)
	}
	f, fi, err := s.dir.OpenFile(s.name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	s.f, s.size = f, fi.Size()
	return nil
}

// fileBuffer is how many bytes of records the file sink gathers before it
// writes them; Flush writes them sooner, when the queue is empty.
const fileBuffer = 64 << 10

func (s *fileSink) Write(rec *Record) error {
	n := len(s.buf)
	s.buf = AppendLine(s.buf, rec)
	line := int64(len(s.buf) - n)
	if s.size+int64(n) > 0 && s.size+int64(n)+line > s.opts.MaxBytes {
		// The record goes to a fresh file: what precedes it to this one.
		rest := append([]byte(nil), s.buf[n:]...)
		s.buf = s.buf[:n]
		if err := s.Flush(); err != nil {
			s.buf = s.buf[:0]
			return err
		}
		if err := s.rotate(); err != nil {
			return err
		}
		s.buf = append(s.buf[:0], rest...)
	}
	if len(s.buf) >= fileBuffer {
		return s.Flush()
	}
	return nil
}

// Flush writes the records gathered so far.
func (s *fileSink) Flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	defer func() {
		s.buf = s.buf[:0]
		if cap(s.buf) > 1<<20 {
			s.buf = nil // one huge record does not pin its buffer
		}
	}()
	if s.f == nil { // a rotation failed to reopen: try again
		if err := s.open(); err != nil {
			return err
		}
	}
	n, err := s.f.Write(s.buf)
	s.size += int64(n)
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	return nil
}

// rotate shifts PATH.i to PATH.i+1 (dropping PATH.N), PATH to PATH.1, and
// opens a fresh PATH.
func (s *fileSink) rotate() error {
	err := s.f.Close()
	s.f = nil
	n := s.opts.MaxFiles
	// Within the folder held open, by name: a rename or removal acts on a
	// link itself, never on the file it names.
	if n == 0 {
		err = errors.Join(err, ignoreMissing(s.dir.Remove(s.name)))
	} else {
		err = errors.Join(err, ignoreMissing(s.dir.Remove(fmt.Sprintf("%s.%d", s.name, n))))
		for i := n - 1; i >= 1; i-- {
			err = errors.Join(err, ignoreMissing(s.dir.Rename(fmt.Sprintf("%s.%d", s.name, i), fmt.Sprintf("%s.%d", s.name, i+1))))
		}
		err = errors.Join(err, ignoreMissing(s.dir.Rename(s.name, s.name+".1")))
	}
	if err != nil {
		return fmt.Errorf("decision log: rotate %s: %w", s.path, err)
	}
	return s.open()
}

func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (s *fileSink) Close() error {
	err := s.Flush()
	if s.f != nil {
		err = errors.Join(err, s.f.Close())
		s.f = nil
	}
	if s.dir != nil {
		err = errors.Join(err, s.dir.Close())
		s.dir = nil
	}
	return err
}
