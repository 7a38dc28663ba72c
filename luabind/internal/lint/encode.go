package lint

import (
	"sort"

	"github.com/luahook/luahook/luabind/internal/binenc"
)

// Encode appends f to w, for the compiled-chunk cache.
func (f *Facts) Encode(w *binenc.Writer) {
	w.String(f.path)
	encodeRefs(w, f.reads)
	encodeRefs(w, f.assigns)
	encodeRefs(w, f.upvalues)
	names := make([]string, 0, len(f.defined))
	for n, ok := range f.defined {
		if ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	w.Uint(uint64(len(names)))
	for _, n := range names {
		w.String(n)
	}
	lines := make([]int, 0, len(f.ignores))
	for l := range f.ignores {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	w.Uint(uint64(len(lines)))
	for _, l := range lines {
		w.Int(l)
		rules := f.ignores[l]
		w.Uint(uint64(len(rules)))
		for _, r := range rules {
			w.String(r)
		}
	}
	w.Uint(uint64(len(f.bad)))
	for _, b := range f.bad {
		w.String(b.Path)
		w.Int(b.Line)
		w.String(b.Rule)
		w.String(b.Message)
	}
}

func encodeRefs(w *binenc.Writer, refs []globalRef) {
	w.Uint(uint64(len(refs)))
	for _, r := range refs {
		w.String(r.name)
		w.Int(r.line)
		w.Bool(r.inFunc)
		w.Uint(uint64(len(r.fields)))
		for _, fl := range r.fields {
			w.String(fl.name)
			w.Int(fl.line)
		}
	}
}

// Decode reads the facts Encode wrote. A damaged input is an error (the
// reader's), never a panic.
func Decode(r *binenc.Reader) (*Facts, error) {
	f := &Facts{path: r.String()}
	f.reads = decodeRefs(r)
	f.assigns = decodeRefs(r)
	f.upvalues = decodeRefs(r)
	n := r.Count(1)
	f.defined = make(map[string]bool, n)
	for range n {
		f.defined[r.String()] = true
	}
	n = r.Count(2)
	f.ignores = make(ignores, n)
	for range n {
		l := r.Int()
		rules := make([]string, r.Count(1))
		for i := range rules {
			rules[i] = r.String()
		}
		f.ignores[l] = rules
	}
	if n = r.Count(4); n > 0 {
		f.bad = make([]Warning, n)
		for i := range f.bad {
			f.bad[i] = Warning{Path: r.String(), Line: r.Int(), Rule: r.String(), Message: r.String()}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

func decodeRefs(r *binenc.Reader) []globalRef {
	n := r.Count(4)
	if n == 0 {
		return nil
	}
	refs := make([]globalRef, n)
	for i := range refs {
		refs[i] = globalRef{name: r.String(), line: r.Int(), inFunc: r.Bool()}
		if m := r.Count(2); m > 0 {
			refs[i].fields = make([]field, m)
			for j := range refs[i].fields {
				refs[i].fields[j] = field{name: r.String(), line: r.Int()}
			}
		}
	}
	return refs
}
