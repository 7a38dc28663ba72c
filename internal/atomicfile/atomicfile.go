// Package atomicfile replaces a file's content so that readers see the old
// content or the new, never a part of it.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/luahook/luahook/internal/regfile"
)

// WriteFile replaces path with data: written to a hidden temporary file in
// the same folder (".NAME.luahook-*", never taken for a hook file), given
// mode, synced, then renamed over path. On an error the temporary file is
// removed and path is left as it was.
func WriteFile(path string, data []byte, mode fs.FileMode) error {
	root, err := regfile.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteIn(root, filepath.Base(path), data, mode)
}

// WriteIn replaces the file name of root's folder with data, as WriteFile
// does: the temporary file is made in that folder with O_EXCL (which never
// follows a link), and the rename replaces whatever is at name (a link
// itself, never its target).
func WriteIn(root *os.Root, name string, data []byte, mode fs.FileMode) (err error) {
	var f *os.File
	var tmp string
	for range 100 {
		tmp = "." + name + ".luahook-" + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, name)
}
