// Command modzip lays out a module as a Go module proxy serves it, from a
// list of its files, so that another module can require it through a
// file:// GOPROXY exactly as it would download it: .ci/host-module builds
// examples/embed that way, outside luahook's module.
//
//	git ls-files -z | modzip -module github.com/luahook/luahook \
//	    -version v0.0.0-00010101000000-000000000000 -root . -proxy /tmp/proxy
//
// It reads the file names (relative to -root, NUL-separated) on stdin and
// writes -proxy/<module>/@v/{list,<version>.info,.mod,.zip}. The zip holds
// what `go mod download` would: it leaves out what the go command leaves
// out of a module zip (the files of a folder that holds a go.mod of its own
// and of the folders below it, those of vendored packages, version-control
// folders, and anything that is not a regular file: links, named pipes), and it
// refuses, as the go command would on download, a file name that is not
// portable, two names that differ only in case, and the size limits.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The go command's limits on a module zip (golang.org/x/mod/zip).
const (
	maxZipFile     = 500 << 20 // the files, uncompressed, together
	maxGoMod       = 16 << 20
	maxLicense     = 16 << 20
	modTimeVersion = "0001-01-01T00:00:00Z"
)

func main() {
	module := flag.String("module", "", "the module path")
	version := flag.String("version", "", "the version to serve it as")
	root := flag.String("root", ".", "the folder the file names are relative to (the module's root)")
	proxy := flag.String("proxy", "", "the proxy folder to write")
	flag.Parse()
	if *module == "" || *version == "" || *proxy == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	names, err := readNames(os.Stdin)
	if err != nil {
		fail(err)
	}
	files, omitted, err := moduleFiles(*root, names)
	if err != nil {
		fail(err)
	}
	if err := write(*proxy, *module, *version, *root, files); err != nil {
		fail(err)
	}
	fmt.Printf("modzip: %s@%s: %d files, %d left out as the go command leaves them out\n", *module, *version, len(files), len(omitted))
	for _, o := range omitted {
		fmt.Printf("modzip:   left out %s\n", o)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "modzip:", err)
	os.Exit(1)
}

// readNames reads NUL-separated file names, dropping repeats.
func readNames(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(bufio.NewReader(r))
	if err != nil {
		return nil, err
	}
	var names []string
	for n := range bytes.SplitSeq(data, []byte{0}) {
		if len(n) > 0 {
			names = append(names, filepath.ToSlash(string(n)))
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// moduleFiles returns the names of the files that go in the zip, and why
// each of the others is left out.
func moduleFiles(root string, names []string) (files, omitted []string, err error) {
	subModule := map[string]bool{} // folder -> holds a go.mod of its own
	inSubModule := func(name string) bool {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			has, ok := subModule[dir]
			if !ok {
				_, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir), "go.mod"))
				has = err == nil
				subModule[dir] = has
			}
			if has {
				return true
			}
		}
		return false
	}
	folded := map[string]string{}
	var size int64
	for _, name := range names {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		switch {
		case errors.Is(err, os.ErrNotExist):
			omitted = append(omitted, name+" (listed, not on disk)")
			continue
		case err != nil:
			return nil, nil, err
		case vcsFolder(name):
			omitted = append(omitted, name+" (a version-control folder)")
			continue
		case inSubModule(name):
			omitted = append(omitted, name+" (in a module of its own)")
			continue
		case vendoredPackage(name):
			omitted = append(omitted, name+" (a vendored package)")
			continue
		case !fi.Mode().IsRegular():
			omitted = append(omitted, name+" (not a regular file: "+fi.Mode().Type().String()+")")
			continue
		}
		if err := checkFilePath(name); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		f := strings.ToLower(name)
		if other, ok := folded[f]; ok {
			return nil, nil, fmt.Errorf("%s and %s differ only in case", other, name)
		}
		folded[f] = name
		switch {
		case name == "go.mod" && fi.Size() > maxGoMod:
			return nil, nil, fmt.Errorf("go.mod: over %d bytes", maxGoMod)
		case name == "LICENSE" && fi.Size() > maxLicense:
			return nil, nil, fmt.Errorf("LICENSE: over %d bytes", maxLicense)
		}
		if size += fi.Size(); size > maxZipFile {
			return nil, nil, fmt.Errorf("the files are over %d bytes together", maxZipFile)
		}
		files = append(files, name)
	}
	if !slices.Contains(files, "go.mod") {
		return nil, nil, errors.New("no go.mod at the root")
	}
	return files, omitted, nil
}

// vcsFolder reports whether name is inside a version-control folder.
func vcsFolder(name string) bool {
	for elem := range strings.SplitSeq(path.Dir(name), "/") {
		switch elem {
		case ".git", ".hg", ".bzr", ".svn":
			return true
		}
	}
	return false
}

// vendoredPackage reports whether name is a file of a vendored package, as
// the go command tells (vendor/modules.txt is not one).
func vendoredPackage(name string) bool {
	var i int
	if strings.HasPrefix(name, "vendor/") {
		i += len("vendor/")
	} else if j := strings.Index(name, "/vendor/"); j >= 0 {
		i += len("/vendor/")
	} else {
		return false
	}
	return strings.Contains(name[i:], "/")
}

// checkFilePath holds a file name to the go command's rules for the names
// in a module zip (golang.org/x/mod/module.CheckFilePath).
func checkFilePath(name string) error {
	if !utf8.ValidString(name) {
		return errors.New("invalid UTF-8")
	}
	if name == "" || name[0] == '/' || strings.Contains(name, "//") || strings.HasSuffix(name, "/") {
		return errors.New("not a clean relative path")
	}
	for elem := range strings.SplitSeq(name, "/") {
		if elem == "." || elem == ".." {
			return fmt.Errorf("invalid path element %q", elem)
		}
		if strings.HasSuffix(elem, ".") {
			return fmt.Errorf("trailing dot in path element %q", elem)
		}
		for _, r := range elem {
			if !fileNameOK(r) {
				return fmt.Errorf("invalid char %q", r)
			}
		}
		short, _, _ := strings.Cut(elem, ".")
		for _, bad := range badWindowsNames {
			if strings.EqualFold(bad, short) {
				return fmt.Errorf("%q is a disallowed path element on Windows", elem)
			}
		}
	}
	return nil
}

func fileNameOK(r rune) bool {
	if r < utf8.RuneSelf {
		const allowed = "!#$%&()+,-.=@[]^_{}~ "
		return '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || strings.ContainsRune(allowed, r)
	}
	return unicode.IsLetter(r)
}

var badWindowsNames = []string{
	"CON", "PRN", "AUX", "NUL",
	"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
	"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
}

// write writes the proxy's files for module@version.
func write(proxy, module, version, root string, files []string) error {
	escaped, err := escapePath(module)
	if err != nil {
		return err
	}
	dir := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ev, err := escapePath(version)
	if err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	info := fmt.Sprintf("{\"Version\":%q,\"Time\":%q}\n", version, modTimeVersion)
	for name, data := range map[string][]byte{
		"list":       []byte(version + "\n"),
		ev + ".info": []byte(info),
		ev + ".mod":  gomod,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	out, err := os.Create(filepath.Join(dir, ev+".zip"))
	if err != nil {
		return err
	}
	zw := zip.NewWriter(out)
	prefix := module + "@" + version + "/"
	for _, name := range files {
		if err := addFile(zw, prefix+name, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			out.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func addFile(zw *zip.Writer, name, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}

// escapePath is the proxy protocol's case encoding of a module path or
// version: each upper-case letter becomes '!' and its lower case.
func escapePath(s string) (string, error) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '!' || r >= utf8.RuneSelf:
			return "", fmt.Errorf("%q: not a module path or version this tool escapes", s)
		case 'A' <= r && r <= 'Z':
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}
