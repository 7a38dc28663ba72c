package decisionlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

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
	// than MaxBytes gets a file of its own). When a signing key is set,
	// the last 512 bytes are kept for the checkpoint that closes the file.
	// 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxFiles is how many rotated files are kept: PATH.1 (the newest)
	// to PATH.N; rotation drops the oldest. 0 means DefaultMaxFiles; a
	// negative value keeps none (the file is cut when it is full).
	MaxFiles int
	// MaxAge, when positive, is how long a file takes records: the first
	// record that comes MaxAge or more after the file's first record goes
	// to a fresh file after rotation. A file that takes no record is not
	// rotated. 0 rotates by size only.
	MaxAge time.Duration
	// Chain configures the hash chain's checkpoints (a signing key) and
	// the clock.
	Chain ChainOptions
}

// checkpointReserve is the room kept at the end of a file for the
// checkpoint that closes it when a signing key is set: a checkpoint line
// takes about 330 bytes.
const checkpointReserve = 512

// File returns a Sink that appends to the file at path (created with mode
// 0600: records hold payloads), rotating it by size and age: PATH becomes
// PATH.1, PATH.1 becomes PATH.2, ..., and at most MaxFiles rotated files are
// kept.
//
// The sink chains its records (see Record.Seq and chain.go's comment):
// opening a file that holds a chained log continues that log (its last
// line's seq and digest), and so does opening an empty file whose PATH.1
// does (a rotation the process did not outlive); a file whose last line is
// not chained (a log written before the chain, a torn last line) starts a
// new log. Every file after a rotation begins with a continues line. Two
// sinks open on the same path at once (a reload replacing the log's
// settings while the replaced log finishes) share one file and one chain:
// each record is written whole, in the order the sinks took them, and the
// settings of the sink opened last apply.
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
	if opts.MaxAge < 0 {
		return nil, fmt.Errorf("decision log %s: a negative max age (%s)", path, opts.MaxAge)
	}
	if err := opts.Chain.check(); err != nil {
		return nil, fmt.Errorf("decision log %s: %w", path, err)
	}
	key, err := filepath.Abs(path)
	if err != nil {
		key = filepath.Clean(path)
	}
	openFiles.Lock()
	defer openFiles.Unlock()
	if lf := openFiles.m[key]; lf != nil {
		lf.mu.Lock()
		lf.opts, lf.chain.opts = opts, opts.Chain
		lf.refs++
		lf.mu.Unlock()
		return &fileSink{lf: lf}, nil
	}
	dir, err := safefile.OpenDir(safefile.Scope{Dir: filepath.Dir(path), Follow: true, What: "the decision log's folder"}, "", 0)
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	lf := &logFile{path: path, key: key, name: filepath.Base(path), dir: dir, opts: opts, refs: 1}
	if err := lf.open(); err != nil {
		dir.Close()
		return nil, err
	}
	openFiles.m[key] = lf
	return &fileSink{lf: lf}, nil
}

// openFiles are the log files open, by absolute path: File shares one
// between the sinks opened on its path.
var openFiles = struct {
	sync.Mutex
	m map[string]*logFile
}{m: map[string]*logFile{}}

// fileSink is one holder of a shared log file.
type fileSink struct {
	lf     *logFile
	closed bool // guarded by lf.mu
}

// logFile is a log file and its chain, shared by the sinks open on it.
type logFile struct {
	path string
	key  string        // in openFiles
	name string        // the file's name in dir
	dir  *safefile.Dir // the file's folder: the file and its rotations stay in it
	refs int           // sinks open on it; guarded by openFiles

	mu    sync.Mutex
	opts  FileOptions
	f     *os.File
	size  int64     // bytes written to f
	buf   []byte    // lines not written yet
	chain *chain    // nil until the first open
	fresh bool      // the file continues the log: a continues line comes first
	born  time.Time // the time of the file's first line; zero while it has none
}

// open opens (or creates) the file in its folder, as File says, and on the
// first open finds the chain it continues.
func (s *logFile) open() error {
	if s.dir == nil {
		return fmt.Errorf("decision log %s: closed", s.path)
	}
	f, fi, err := s.dir.OpenFile(s.name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	s.f, s.size = f, fi.Size()
	if s.chain != nil {
		return nil
	}
	if s.size > 0 {
		last, complete, err := tailLine(f, s.size)
		if err == nil && !complete {
			// A torn last line (a write the process did not outlive):
			// ended here, so that the records after it are lines of their
			// own; it starts no chain.
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				s.f = nil
				return fmt.Errorf("decision log %s: end its torn last line: %w", s.path, err)
			}
			s.size++
		} else if err == nil {
			s.chain = resume(last, s.opts.Chain)
		}
		s.born = firstLineTime(f)
	} else if s.opts.MaxFiles > 0 {
		// An empty file after a rotation: the log goes on from PATH.1.
		if prev, pfi, err := s.dir.OpenFile(s.name+".1", os.O_RDONLY, 0); err == nil {
			if last, complete, err := tailLine(prev, pfi.Size()); err == nil && complete {
				if s.chain = resume(last, s.opts.Chain); s.chain != nil {
					s.fresh = true
				}
			}
			prev.Close()
		}
	}
	if s.chain == nil {
		s.chain = newChain(s.opts.Chain)
	}
	if s.born.IsZero() && s.size > 0 {
		s.born = s.opts.Chain.Now()
	}
	return nil
}

// fileBuffer is how many bytes of records the file sink gathers before it
// writes them; Flush writes them sooner, when the queue is empty.
const fileBuffer = 64 << 10

func (h *fileSink) Write(rec *Record) error {
	s := h.lf
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.closed {
		return fmt.Errorf("decision log %s: closed", s.path)
	}
	return s.write(rec)
}

func (s *logFile) write(rec *Record) error {
	var now time.Time
	if s.opts.MaxAge > 0 {
		now = s.opts.Chain.Now()
		if !s.born.IsZero() && now.Sub(s.born) >= s.opts.MaxAge && s.size+int64(len(s.buf)) > 0 {
			if err := s.rotateNow(); err != nil {
				return err
			}
		}
	}
	saved, fresh := *s.chain, s.fresh
	n := len(s.buf)
	s.buf = s.appendRecord(s.buf, rec)
	if s.size+int64(n) > 0 && s.size+int64(len(s.buf)) > s.limit() {
		// The record goes to a fresh file: what precedes it to this one.
		*s.chain, s.fresh, s.buf = saved, fresh, s.buf[:n]
		if err := s.rotateNow(); err != nil {
			return err
		}
		s.buf = s.appendRecord(s.buf, rec)
	}
	if s.born.IsZero() {
		if now.IsZero() {
			now = s.opts.Chain.Now()
		}
		s.born = now
	}
	if s.chain.due() {
		s.buf = s.chain.appendCheckpoint(s.buf)
	}
	if len(s.buf) >= fileBuffer {
		return s.flush()
	}
	return nil
}

// appendRecord appends rec's line, after the continues line a fresh file
// begins with.
func (s *logFile) appendRecord(b []byte, rec *Record) []byte {
	if s.fresh {
		b = s.chain.appendContinues(b)
		s.fresh = false
	}
	return s.chain.appendRecord(b, rec)
}

// limit is the size the records of a file may reach.
func (s *logFile) limit() int64 {
	if s.opts.Chain.SigningKey != nil && s.opts.MaxBytes > 2*checkpointReserve {
		return s.opts.MaxBytes - checkpointReserve
	}
	return s.opts.MaxBytes
}

// rotateNow ends the file with a checkpoint (when signing), writes it and
// rotates: the next line is the fresh file's continues line.
func (s *logFile) rotateNow() error {
	s.buf = s.chain.appendCheckpoint(s.buf)
	if err := s.flush(); err != nil {
		return err
	}
	s.fresh, s.born = true, time.Time{}
	return s.rotate()
}

// Flush writes the records gathered so far.
func (h *fileSink) Flush() error {
	s := h.lf
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flush()
}

func (s *logFile) flush() error {
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
func (s *logFile) rotate() error {
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

// Close writes what is gathered; the last sink open on the file ends it
// with a checkpoint (when signing) and closes it.
func (h *fileSink) Close() error {
	openFiles.Lock()
	defer openFiles.Unlock()
	s := h.lf
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	s.refs--
	if s.refs > 0 {
		return s.flush()
	}
	delete(openFiles.m, s.key)
	s.buf = s.chain.appendCheckpoint(s.buf)
	err := s.flush()
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

// tailLine returns the last line of the file (size bytes), without its
// newline, and whether it ends in one. A line longer than maxResumeLine is
// errLineTooLong.
func tailLine(f io.ReaderAt, size int64) (line []byte, complete bool, err error) {
	if size <= 0 {
		return nil, true, nil
	}
	end := size
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return nil, false, err
	}
	if last[0] == '\n' {
		complete, end = true, size-1
	}
	start := int64(0)
	var chunk [32 << 10]byte
	for pos := end; pos > 0; {
		n := min(int64(len(chunk)), pos)
		if _, err := f.ReadAt(chunk[:n], pos-n); err != nil {
			return nil, false, err
		}
		if i := bytes.LastIndexByte(chunk[:n], '\n'); i >= 0 {
			start = pos - n + int64(i) + 1
			break
		}
		pos -= n
		if end-pos > maxResumeLine {
			return nil, complete, errLineTooLong
		}
	}
	if end-start > maxResumeLine {
		return nil, complete, errLineTooLong
	}
	line = make([]byte, end-start)
	if _, err := f.ReadAt(line, start); err != nil {
		return nil, false, err
	}
	return line, complete, nil
}

// maxResumeLine bounds the last line a sink reads to continue its chain:
// a longer one starts a new log.
const maxResumeLine = 64 << 20

// firstLineTime returns the time of the file's first line (a record's, or
// a continues line's), zero when it has none within its first 64 KiB.
func firstLineTime(f io.ReaderAt) time.Time {
	var b [64 << 10]byte
	n, _ := f.ReadAt(b[:], 0)
	line := b[:n]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	} else {
		return time.Time{}
	}
	l, err := parseChainLine(line)
	switch {
	case err != nil:
		return time.Time{}
	case l.Continues != nil:
		return l.Continues.Time
	case l.Checkpoint != nil:
		return l.Checkpoint.Time
	}
	return l.Time
}
