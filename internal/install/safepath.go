package install

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/safefile"
)

// checkProjectPath refuses the settings file path of the project folder
// project when it would not be written inside the project through no link:
// a link on the way from the project folder to the file (.claude linked to
// the user's ~/.claude would have install rewrite the user's own settings
// and say it wrote the project's), the file itself a link, a folder on the
// way or the file that is another user's or that others can write, or
// anything but a folder or a regular file. The error names the file and
// the link. What does not exist yet passes: Write makes it in the project.
// The project folder itself is the operator's working folder: a link to it
// is followed.
func checkProjectPath(project, path string) error {
	rel, err := filepath.Rel(project, path)
	if err != nil {
		return err
	}
	scope := safefile.Scope{Dir: project, Follow: true, What: "the project"}
	if real, err := filepath.EvalSymlinks(project); err == nil {
		scope.Dir = real
	}
	if err := safefile.Check(scope, rel); err != nil {
		var se *safefile.Error
		if errors.As(err, &se) && scope.Dir != project {
			// Name the file as the operator knows it.
			if r, err := filepath.Rel(scope.Dir, se.Path); err == nil && filepath.IsLocal(r) {
				se.Path = filepath.Join(project, r)
			}
		}
		return err
	}
	return nil
}

// openSettings opens the settings file path for reading, refusing a link
// at its name (Plan has followed one of the user's own to its target
// already), anything but a regular file, and a file safefile.CheckFile
// refuses.
func openSettings(path string) (*os.File, fs.FileInfo, error) {
	f, fi, err := regfile.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ELOOP) {
		if lfi, lerr := os.Lstat(path); lerr == nil {
			return nil, nil, safefile.CheckFile(path, lfi)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if err := safefile.CheckFile(path, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
