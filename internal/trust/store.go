package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/safefile"
)

// maxRecordBytes bounds a record file (4 MiB: the names of
// engine.MaxContentFiles files fit).
const maxRecordBytes = 4 << 20

// Store keeps one record per folder, each in its own file of Dir named by
// the digest of the folder's path. Records are written atomically (a
// temporary file renamed over the old one) with mode 0600, in a folder of
// mode 0700; a record file or folder that others could change is refused,
// as a hook file would be (engine.CheckFileRule), since it decides what
// runs.
type Store struct {
	Dir string
}

// recordFile returns the file that holds folder's record.
func (s *Store) recordFile(folder string) string {
	sum := sha256.Sum256([]byte(folder))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+".json")
}

// Get returns folder's record, or nil when it has none.
func (s *Store) Get(folder string) (*Record, error) {
	if err := s.checkDir(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	r, err := s.read(s.recordFile(folder))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case r.Path != folder:
		return nil, nil // a digest collision of paths: not this folder's
	}
	return r, nil
}

// Put writes r, replacing the folder's previous record. The records
// folder is made (mode 0700) when missing and opened as internal/safefile
// opens the folders luahook writes in: not a link itself, the user's own or
// root's, closed to others' writes. The record is written whole (a
// temporary file renamed over it), and a record file that is there must be
// a regular file of the user's own closed to others' writes: a link, a
// named pipe, another user's file or a loose one is an error naming it,
// left as it is.
func (s *Store) Put(r Record) error {
	dir, err := safefile.OpenDir(safefile.Scope{Dir: s.Dir, What: "the trust records folder"}, "", 0o700)
	if err != nil {
		return fmt.Errorf("trust records: %w", err)
	}
	defer dir.Close()
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := dir.WriteFile(filepath.Base(s.recordFile(r.Path)), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust records: %w", err)
	}
	return nil
}

// Delete removes folder's record and reports whether there was one.
func (s *Store) Delete(folder string) (bool, error) {
	r, err := s.Get(folder)
	if err != nil || r == nil {
		return false, err
	}
	if err := os.Remove(s.recordFile(folder)); err != nil {
		return false, fmt.Errorf("trust records: %w", err)
	}
	return true, nil
}

// List returns every record, by folder.
func (s *Store) List() ([]Record, error) {
	if err := s.checkDir(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("trust records: %w", err)
	}
	var out []Record
	for _, ent := range ents {
		if strings.HasPrefix(ent.Name(), ".") || !strings.HasSuffix(ent.Name(), ".json") {
			continue
		}
		r, err := s.read(filepath.Join(s.Dir, ent.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// checkDir refuses a records folder that others could change, and a link
// in its place (Put writes through none).
func (s *Store) checkDir() error {
	fi, err := os.Lstat(s.Dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("trust records: %w", safefile.CheckDir(s.Dir, fi))
	}
	if err := engine.CheckFileRule(s.Dir, fi); err != nil {
		return fmt.Errorf("trust records: %w", err)
	}
	return nil
}

// read reads one record file, refusing a link, anything but a regular
// file, a file others could change, and more than maxRecordBytes.
func (s *Store) read(path string) (*Record, error) {
	f, fi, err := regfile.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	var notRegular *regfile.NotRegularError
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("trust record %s: refused: a symbolic link", path)
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("trust record %s: refused: not a regular file", path)
	case err != nil:
		return nil, err
	}
	defer f.Close()
	if err := engine.CheckFileRule(path, fi); err != nil {
		return nil, fmt.Errorf("trust record: %w", err)
	}
	data, err := regfile.ReadAll(f, fi, path, maxRecordBytes)
	if err != nil {
		return nil, fmt.Errorf("trust record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("trust record %s: %w", path, err)
	}
	return &r, nil
}
