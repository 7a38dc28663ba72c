package selfguard

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// slashClean returns p cleaned, with forward slashes; "" stays "".
func slashClean(p string) string {
	if p == "" {
		return ""
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// split returns the components of a clean absolute path ("/" has none).
func split(abs string) []string {
	abs = strings.Trim(abs, "/")
	if abs == "" {
		return nil
	}
	return strings.Split(abs, "/")
}

// parent returns the folder holding the clean absolute path abs.
func parent(abs string) string {
	if i := strings.LastIndexByte(abs, '/'); i > 0 {
		return abs[:i]
	}
	return "/"
}

// join resolves p against the clean absolute folder dir and cleans it.
func join(dir, p string) string {
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) {
		return slashClean(p)
	}
	return slashClean(dir + "/" + p)
}

// Bounds of following symbolic links: a path longer than maxPathBytes
// cannot be opened (PATH_MAX) and is compared as written; maxResolveDepth
// bounds the components looked at; maxLookups the filepath.EvalSymlinks
// calls one Check makes.
const (
	maxPathBytes    = 4096
	maxResolveDepth = 256
	maxLookups      = 256
)

// resolver follows symbolic links within a budget of lookups. A nil
// resolver does not follow them.
type resolver struct {
	left  int
	spent bool // the budget ran out: a path was compared as written only
}

func newResolver() *resolver { return &resolver{left: maxLookups} }

// eval is filepath.EvalSymlinks on a slash path, counted.
func (r *resolver) eval(p string) (string, bool) {
	if r.left <= 0 {
		r.spent = true
		return "", false
	}
	r.left--
	if real, ok := realDir(filepath.FromSlash(p)); ok {
		return real, true
	}
	real, err := filepath.EvalSymlinks(filepath.FromSlash(p))
	return real, err == nil
}

// exists reports whether p exists (without following a final link), counted.
func (r *resolver) exists(p string) bool {
	if r.left <= 0 {
		r.spent = true
		return false
	}
	r.left--
	_, err := os.Lstat(filepath.FromSlash(p))
	return err == nil
}

// readDir returns the names in folder dir ("" is the root), counted as a
// lookup; false when the budget ran out, the folder holds more than
// maxGlobEntries names, or it exists and cannot be read (its names are not
// known). A path that is missing or no folder holds no names.
func (r *resolver) readDir(dir string) ([]string, bool) {
	if r.left <= 0 {
		r.spent = true
		return nil, false
	}
	r.left--
	if dir == "" {
		dir = "/"
	}
	f, err := openDir(filepath.FromSlash(dir))
	if err != nil {
		return nil, errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	defer f.Close()
	names, err := f.Readdirnames(maxGlobEntries + 1)
	switch {
	case len(names) > maxGlobEntries:
		return nil, false
	case err == nil || errors.Is(err, io.EOF):
		return names, true
	case errors.Is(err, syscall.ENOTDIR):
		return nil, true
	}
	return nil, false
}

// resolveExisting follows the symbolic links of the longest existing
// start of the clean absolute path abs and returns the result with the
// rest of abs after it: a file that does not exist yet, in a folder that
// is a link, resolves into the link's target, and so does a dangling link.
// The usual path, a file in an existing folder, costs the folder's
// resolution and one Lstat; a path whose folder does not exist finds its
// longest existing start by bisection (every start of an existing path
// exists), a few lookups whatever its depth.
func resolveExisting(abs string, r *resolver) string {
	if abs == "" || abs == "/" || len(abs) > maxPathBytes || r.spent {
		return abs
	}
	dir, base := parent(abs), abs[strings.LastIndexByte(abs, '/')+1:]
	if real, ok := r.eval(dir); ok {
		return r.final(slashClean(real), base, abs)
	}
	comps := split(abs)
	if len(comps) > maxResolveDepth || r.spent {
		return abs
	}
	lead := ""
	if strings.HasPrefix(abs, "/") {
		lead = "/"
	}
	lo, hi, realLo := 0, len(comps)-1, "" // comps[:lo] resolves (to realLo), comps[:hi] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		real, ok := r.eval(lead + strings.Join(comps[:mid], "/"))
		if r.spent {
			return abs
		}
		if ok {
			lo, realLo = mid, slashClean(real)
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return abs
	}
	return slashClean(realLo + "/" + strings.Join(comps[lo:], "/"))
}

// final resolves the last component name of abs in its folder's real path
// dir: a link is followed, dangling or not; anything else is dir/name.
func (r *resolver) final(dir, name, abs string) string {
	p := dir + "/" + name
	if dir == "/" {
		p = "/" + name
	}
	if !r.isLink(p) {
		return p
	}
	if real, ok := r.eval(abs); ok {
		return slashClean(real)
	}
	target, err := os.Readlink(filepath.FromSlash(p))
	if err != nil || r.spent {
		return p
	}
	target = filepath.ToSlash(target)
	if !strings.HasPrefix(target, "/") {
		target = dir + "/" + target
	}
	return resolveExisting(slashClean(target), r) // a dangling link: where a write lands
}

// isLink reports whether p is a symbolic link, counted.
func (r *resolver) isLink(p string) bool {
	if r.left <= 0 {
		r.spent = true
		return false
	}
	r.left--
	fi, err := os.Lstat(filepath.FromSlash(p))
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// The relations of a path to a protected one.
const (
	relNone   = iota
	relAt     // the protected path itself
	relInside // below it
	relHolds  // a folder holding it
)

// eq compares two path components as the file system does.
func (g *Guard) eq(a, b string) bool {
	if g.fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// hasPrefix reports whether s starts with prefix, folded as paths compare.
func (g *Guard) hasPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && g.eq(s[:len(prefix)], prefix)
}

// under reports whether the clean absolute p is r or below it.
func (g *Guard) under(p, r string) bool {
	if r == "/" {
		return true
	}
	return g.hasPrefix(p, r) && (len(p) == len(r) || p[len(r)] == '/')
}

// relation returns how the clean absolute path p stands to protected
// path r; holds only when holding counts (a removal, a move, a recursive
// change).
func (g *Guard) relation(p string, r *root, holding bool) int {
	if r.path != "" {
		switch {
		case g.under(p, r.path):
			if len(p) == len(r.path) {
				return relAt
			}
			return relInside
		case holding && g.under(r.path, p) && !g.catastrophic(p):
			return relHolds
		}
		return relNone
	}
	// a folder on the way to a relative entry holds it only where the
	// entry exists (matchPath looks)
	return g.relRelation(split(p), r, false, g.eq)
}

// relRelation returns how a path of components comps stands to the
// relative protected entry r, comparing components with eq (equality or a
// glob match): r's components within comps (at or inside), or, when
// holding counts, comps ending with the start of r's (a folder on the way
// to it).
func (g *Guard) relRelation(comps []string, r *root, holding bool, eq func(a, b string) bool) int {
	k := len(r.comps)
	best := relNone
	for o := range comps {
		n := min(k, len(comps)-o)
		ok := true
		for j := range n {
			if !eq(comps[o+j], r.comps[j]) {
				ok = false
				break
			}
		}
		switch {
		case !ok:
		case n == k && o+n == len(comps):
			return relAt
		case n == k:
			best = relInside
		case holding && best == relNone:
			best = relHolds
		}
	}
	return best
}

// catastrophic reports whether removing p removes far more than luahook's
// files: the file system's root, the home folder or a folder above it.
// The guard leaves those to the policies.
func (g *Guard) catastrophic(p string) bool {
	return p == "/" || g.home != "" && g.under(g.home, p)
}

// hit is a protected path a path reaches.
type hit struct {
	target string // the path that would change
	root   *root
	rel    int
	glob   bool // target is a pattern that may match root
}

// matchPath returns the first protected path the clean absolute p reaches,
// comparing p as written and, with a resolver, with its links followed.
func (g *Guard) matchPath(p string, holding bool, r *resolver) (hit, bool) {
	if h, ok := g.matchLexical(p, p, holding); ok {
		return h, true
	}
	if r == nil {
		return hit{}, false
	}
	if real := resolveExisting(p, r); real != p {
		if h, ok := g.matchLexical(real, p, holding); ok {
			return h, true
		}
	}
	if holding && !g.catastrophic(p) {
		// a folder holding an instance of a relative entry: p/a/b/c, or
		// for p ending in a (or a/b), p/b/c (p/c) that exists
		comps := split(p)
		for _, i := range g.rel {
			rt := &g.roots[i]
			for j := 0; j < len(rt.comps) && j <= len(comps); j++ {
				if j > 0 && !g.eq(comps[len(comps)-j], rt.comps[0]) {
					continue
				}
				if j > 0 && !g.endsWith(comps, rt.comps[:j]) {
					continue
				}
				if r.exists(p + "/" + strings.Join(rt.comps[j:], "/")) {
					return hit{target: p, root: rt, rel: relHolds}, true
				}
			}
		}
	}
	return hit{}, false
}

func (g *Guard) matchLexical(p, shown string, holding bool) (hit, bool) {
	for i := range g.roots {
		if rel := g.relation(p, &g.roots[i], holding); rel != relNone {
			return hit{target: shown, root: &g.roots[i], rel: rel}, true
		}
	}
	return hit{}, false
}

// matchPattern returns the first protected path the clean absolute glob
// pattern pat (path.Match syntax, components split at "/") may reach. A
// pattern that could only hold a relative entry (build/* holding
// build/x/.claude/settings.json) holds it only where such an entry exists,
// as a folder named plainly does (matchPath): the pattern is expanded on
// disk within r's budget, and an expansion r cannot finish counts as a hit.
func (g *Guard) matchPattern(pat string, holding bool, res *resolver) (hit, bool) {
	pc := split(pat)
	match := func(p, name string) bool {
		if g.fold {
			p, name = strings.ToLower(p), strings.ToLower(name)
		}
		ok, err := path.Match(p, name)
		if err != nil {
			return p == name
		}
		return ok
	}
	for i := range g.roots {
		r := &g.roots[i]
		if r.path == "" {
			if rel := g.relRelation(pc, r, false, match); rel != relNone {
				return hit{target: pat, root: r, rel: rel, glob: true}, true
			}
			continue
		}
		n, m := len(pc), len(r.comps)
		ok := true
		for j := range min(n, m) {
			if !match(pc[j], r.comps[j]) {
				ok = false
				break
			}
		}
		switch {
		case !ok:
		case n >= m:
			rel := relInside
			if n == m {
				rel = relAt
			}
			return hit{target: pat, root: r, rel: rel, glob: true}, true
		case holding && n > 0 && !g.catastrophic(literalPrefix(pc)):
			return hit{target: pat, root: r, rel: relHolds, glob: true}, true
		}
	}
	if holding && len(g.rel) > 0 && !g.catastrophic(literalPrefix(pc)) {
		if r, ok := g.patternHoldsExisting(pat, pc, match, res); ok {
			return hit{target: pat, root: r, rel: relHolds, glob: true}, true
		}
	}
	return hit{}, false
}

// Bounds of expanding a pattern on disk: a folder read for one component
// may hold maxGlobEntries names, an expansion maxGlobMatches paths; past
// either, or past the resolver's lookups, the expansion is unfinished.
const (
	maxGlobEntries = 4096
	maxGlobMatches = 256
)

// patternHoldsExisting returns the relative protected entry that a path
// the pattern pat (components pc) matches on disk holds, or, when that
// cannot be known within the bounds, the first relative entry (the guard
// stays on the safe side). Each folder read costs one of res's lookups.
func (g *Guard) patternHoldsExisting(pat string, pc []string, match func(p, name string) bool, res *resolver) (*root, bool) {
	unknown := &g.roots[g.rel[0]]
	if res == nil || res.spent || len(pat) > maxPathBytes {
		return unknown, true
	}
	paths := []string{""}
	for _, c := range pc {
		if !strings.ContainsAny(c, `*?[\`) {
			for i := range paths {
				paths[i] += "/" + c
			}
			continue
		}
		var next []string
		for _, dir := range paths {
			names, ok := res.readDir(dir)
			if !ok {
				return unknown, true
			}
			for _, name := range names {
				if match(c, name) {
					if len(next) == maxGlobMatches {
						return unknown, true
					}
					next = append(next, dir+"/"+name)
				}
			}
		}
		if len(next) == 0 {
			return nil, false
		}
		paths = next
	}
	for _, p := range paths {
		if h, ok := g.matchPath(p, true, res); ok {
			return h.root, true
		}
		if res.spent {
			return unknown, true
		}
	}
	return nil, false
}

// endsWith reports whether comps ends with tail.
func (g *Guard) endsWith(comps, tail []string) bool {
	if len(tail) > len(comps) {
		return false
	}
	for i, t := range tail {
		if !g.eq(comps[len(comps)-len(tail)+i], t) {
			return false
		}
	}
	return true
}

// literalPrefix returns the folder a pattern's components name before the
// first one holding a glob character.
func literalPrefix(pc []string) string {
	var b strings.Builder
	for _, c := range pc {
		if strings.ContainsAny(c, `*?[\`) {
			break
		}
		b.WriteString("/")
		b.WriteString(c)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}
