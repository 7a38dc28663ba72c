package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/regfile"
)

// Bounds of what ReadContent digests: a folder past them cannot be trusted
// (and would make every decision in it slow).
const (
	// MaxContentFiles bounds the files ReadContent digests (10,000).
	MaxContentFiles = 10_000
	// MaxContentBytes bounds their total size (256 MiB).
	MaxContentBytes = 256 << 20
	// maxContentDepth bounds how deep ReadContent walks the lib folder,
	// links to folders followed (a loop of links ends here).
	maxContentDepth = 16
)

// Content is what an engine opened on a config file and a hooks folder
// reads and runs, digested: the config file, every *.lua file at the top of
// the hooks folder (hook files and their *_test.lua files) and every *.lua
// lib module below hooks/lib, by name and content. A change to any of them,
// a file added or removed, or a config that names another hooks folder
// changes Sum. Scripts that command hooks call are not part of it.
type Content struct {
	Config string   // the config file ("" when there is none)
	Dir    string   // the hooks folder, absolute
	Files  []string // the files digested, relative to Dir, in name order
	Sum    [32]byte
	// Sums holds the SHA-256 of each regular file digested (the config
	// and Files; not a symbolic link, which an engine under Options.Trust
	// refuses), by the name Options.Trust gives it: relative to the
	// config's folder, else to the folder above the hooks folder, slash-
	// separated ("luahook.toml", "hooks.d/10-x.lua", "hooks.d/lib/m.lua").
	Sums map[string][32]byte
}

// ReadContent digests what Open(Options{ConfigPath: configPath, Dir: dir})
// would read and run. dir "" is the config's hooks_dir, as for Open. A
// folder or file that does not exist counts as empty; one that cannot be
// read, or more than MaxContentFiles files or MaxContentBytes bytes, is an
// error. Files that are not regular (a FIFO, a device) count by name and
// type and are never opened.
func ReadContent(configPath, dir string) (*Content, error) {
	d := &digest{h: sha256.New(), sums: map[string][32]byte{}}
	c := &Content{Config: configPath, Sums: d.sums}
	var cfg *config.Config
	if configPath != "" {
		d.entry("config", configPath, filepath.Base(configPath))
		if dir == "" {
			data, err := regfile.Read(configPath, config.MaxFileBytes)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: %w", configPath, err)
			}
			cfg, _ = config.ParsePartial(configPath, data)
		}
	}
	dir = hooksDirOr(dir, cfg)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c.Dir = abs
	d.h.Write([]byte("dir\x00" + abs + "\x00"))
	ents, err := os.ReadDir(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("hooks folder %s: %w", abs, err)
	}
	for _, ent := range ents {
		if IsHookFile(ent.Name()) || IsTestFile(ent.Name()) {
			c.Files = append(c.Files, ent.Name())
		}
	}
	if err := d.lib(abs, "lib", 0, &c.Files); err != nil {
		return nil, err
	}
	sort.Strings(c.Files)
	base := trustBase(configPath, abs)
	for _, name := range c.Files {
		path := filepath.Join(abs, name)
		d.entry(name, path, trustName(base, path))
	}
	if d.err != nil {
		return nil, d.err
	}
	copy(c.Sum[:], d.h.Sum(nil))
	return c, nil
}

// digest accumulates entries: name, type, size and the SHA-256 of the
// content, each length-prefixed so that no two listings hash alike.
type digest struct {
	h     hash.Hash
	sums  map[string][32]byte // Content.Sums
	files int
	bytes int64
	err   error
}

// lib adds the *.lua files below root/rel to files, links followed.
func (d *digest) lib(root, rel string, depth int, files *[]string) error {
	ents, err := os.ReadDir(filepath.Join(root, rel))
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	case err != nil:
		return fmt.Errorf("lib folder %s: %w", filepath.Join(root, rel), err)
	case depth >= maxContentDepth:
		return fmt.Errorf("lib folder %s: more than %d levels deep", filepath.Join(root, rel), maxContentDepth)
	}
	for _, ent := range ents {
		name := filepath.Join(rel, ent.Name())
		if len(*files) >= MaxContentFiles {
			return fmt.Errorf("hooks folder %s: more than %d files", root, MaxContentFiles)
		}
		isDir := ent.IsDir()
		if ent.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(filepath.Join(root, name))
			isDir = err == nil && st.IsDir()
		}
		switch {
		case isDir:
			if err := d.lib(root, name, depth+1, files); err != nil {
				return err
			}
		case strings.HasSuffix(ent.Name(), ".lua"):
			*files = append(*files, name)
		}
	}
	return nil
}

// entry adds the file at path under name, and its sum to d.sums under
// trusted (Content.Sums) when it is a regular file.
func (d *digest) entry(name, path, trusted string) {
	if d.err != nil {
		return
	}
	sum, kind, err := d.fileSum(path)
	if err != nil {
		d.err = err
		return
	}
	if kind == "file" {
		if lfi, err := os.Lstat(path); err == nil && lfi.Mode().IsRegular() {
			d.sums[trusted] = [32]byte(sum)
		}
	}
	var n [8]byte
	for _, part := range [][]byte{[]byte(name), []byte(kind), sum} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		d.h.Write(n[:])
		d.h.Write(part)
	}
}

// fileSum returns the SHA-256 of a regular file's content, or only its
// type for anything else; a file that does not exist is "missing".
func (d *digest) fileSum(path string) (sum []byte, kind string, err error) {
	d.files++
	if d.files > MaxContentFiles {
		return nil, "", fmt.Errorf("%s: more than %d files to digest", path, MaxContentFiles)
	}
	// A FIFO swapped in after a look must not hang the open (regfile).
	f, _, err := regfile.Open(path)
	var notRegular *regfile.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "missing", nil
	case errors.As(err, &notRegular):
		return nil, notRegular.Mode.Type().String(), nil
	case err != nil:
		return nil, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxContentBytes-d.bytes+1))
	d.bytes += n
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if d.bytes > MaxContentBytes {
		return nil, "", fmt.Errorf("%s: more than %d MiB to digest", path, MaxContentBytes>>20)
	}
	return h.Sum(nil), "file", nil
}
