package selfguard

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/luahook/luahook"
)

// The tool-input keys that name the files a file tool acts on, across the
// agents (the keys of hooks.d/lib/paths.lua).
var (
	pathKeys = []string{"file_path", "path", "notebook_path", "target_file", "filePath", "absolute_path", "file",
		"filename", "dir_path", "directory", "source", "destination"}
	listKeys  = []string{"paths", "files", "file_paths"}
	patchKeys = []string{"command", "input", "patch"}
)

// maxPaths bounds the paths one call may name; a call naming more is
// denied when it names anything protected.
const maxPaths = 256

// checkWrite judges a file tool: each path it names, resolved against the
// payload's cwd with its links followed; an apply_patch text's file
// headers.
func (g *Guard) checkWrite(in *luahook.Input) (bool, string) {
	cwd := g.cwdOf(in)
	var f *finding
	n := 0
	r := newResolver()
	look := func(p string) {
		if f != nil || p == "" {
			return
		}
		if n++; n > maxPaths {
			f = &finding{unsure: "the call names more than 256 files"}
			return
		}
		f = g.judgeToolPath(p, cwd, r)
	}
	ok := members(in.ToolInput, func(key string, val []byte) bool {
		switch {
		case slices.Contains(pathKeys, key):
			// a path over maxPathBytes cannot be opened (each JSON escape
			// is at most 6 bytes for 1): not decoded
			if len(val) <= 6*maxPathBytes+2 {
				if s, ok := jsonString(val); ok {
					look(s)
				}
			}
		case slices.Contains(listKeys, key):
			for _, s := range jsonStrings(val) {
				look(s)
			}
		case slices.Contains(patchKeys, key):
			if s, ok := jsonString(val); ok && strings.Contains(s, "*** ") {
				patchFiles(s, look)
			}
		}
		return f == nil
	})
	if f == nil && r.spent {
		f = &finding{unsure: "it names more paths than luahook checks"}
	}
	if f == nil && !ok && g.mentionsRaw(in.ToolInput) {
		f = &finding{unsure: "its input is not a JSON object luahook can read"}
	}
	if f != nil && f.unsure != "" && !g.mentionsRaw(in.ToolInput) {
		f = nil // too many paths, none of them protected
	}
	if f == nil {
		return false, ""
	}
	return true, g.reason(f)
}

// judgeToolPath judges one path a file tool writes.
func (g *Guard) judgeToolPath(p, cwd string, r *resolver) *finding {
	p = g.expandHome(p)
	if !isAbsText(p) && !filepath.IsAbs(p) {
		if cwd == "" {
			if g.mentions(p) {
				return &finding{unsure: "it names a relative path and no working folder"}
			}
			return nil
		}
	}
	if h, ok := g.matchPath(join(cwd, p), true, r); ok {
		return &finding{hit: h}
	}
	return nil
}

// expandHome replaces a leading ~ or $HOME with the home folder.
func (g *Guard) expandHome(p string) string {
	if g.home == "" {
		return p
	}
	for _, pre := range []string{"~", "$HOME", "${HOME}"} {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return g.home + p[len(pre):]
		}
	}
	return p
}

// patchFiles calls look with each file an apply_patch text's headers name
// (*** Add File:, *** Update File:, *** Delete File:, *** Move to:).
func patchFiles(t string, look func(string)) {
	for len(t) > 0 {
		line := t
		if i := strings.IndexByte(t, '\n'); i >= 0 {
			line, t = t[:i], t[i+1:]
		} else {
			t = ""
		}
		if !strings.HasPrefix(line, "*** ") {
			continue
		}
		for _, h := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if name, ok := strings.CutPrefix(line, h); ok {
				look(strings.TrimSpace(name))
				break
			}
		}
	}
}
