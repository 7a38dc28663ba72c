package runner

import (
	"strconv"
	"strings"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/defaults"
)

// DefaultMaxContextBytes is the default of Options.MaxContextBytes: the
// bytes of additionalContext one event delivers, joined from every hook and
// the session's buffered background context (64 KiB).
const DefaultMaxContextBytes = defaults.MaxContextBytes

// minContextBytes leaves room for the marker that says what was left out.
const minContextBytes = 1 << 10

// joiner joins context parts with "\n" and works out contextAs. It keeps
// the parts themselves until result, which sizes the join before it
// allocates it: each part is cut to luahook.MaxContextChars, and the parts
// that would take the join past the limit are left out, counted in a marker
// at its end. A single part within the caps is kept without copying.
type joiner struct {
	limit int // bytes, at least minContextBytes
	first [8]string
	more  []string
	n     int
	as    luahook.ContextAs
}

// newJoiner returns a joiner within the runner's limit.
func (r *Runner) newJoiner() joiner { return joiner{limit: r.maxContext} }

// contextLimit is Options.MaxContextBytes as the runner applies it.
func contextLimit(opt int) int {
	switch {
	case opt == 0:
		return DefaultMaxContextBytes
	case opt < minContextBytes:
		return minContextBytes
	}
	return opt
}

// add appends a non-empty part.
func (j *joiner) add(text string) {
	if text == "" {
		return
	}
	if j.n < len(j.first) {
		j.first[j.n] = text
	} else {
		j.more = append(j.more, text)
	}
	j.n++
}

func (j *joiner) part(i int) string {
	if i < len(j.first) {
		return j.first[i]
	}
	return j.more[i-len(j.first)]
}

// note records a hook's contextAs: separate wins, inline only fills a gap.
func (j *joiner) note(as luahook.ContextAs) {
	switch as {
	case luahook.ContextSeparate:
		j.as = as
	case luahook.ContextInline:
		if j.as == "" {
			j.as = as
		}
	}
}

// contribute adds a hook's context; its contextAs counts only with text.
func (j *joiner) contribute(o *luahook.Outcome) {
	if o == nil || o.AdditionalContext == "" {
		return
	}
	j.add(o.AdditionalContext)
	j.note(o.ContextAs)
}

// deliveredLen is the length of part as it is delivered, cut and marked.
func deliveredLen(part string) int {
	head, cut := luahook.CutContext(part)
	if cut {
		return len(head) + len(luahook.ContextCutMarker)
	}
	return len(head)
}

// result returns the joined text and its contextAs ("" when there is no text).
func (j *joiner) result() (string, luahook.ContextAs) {
	if j.n == 0 {
		return "", ""
	}
	limit := j.limit
	// Count the parts that fit whole, before allocating anything.
	size, fit := 0, 0
	for ; fit < j.n; fit++ {
		n := deliveredLen(j.part(fit))
		if fit > 0 {
			n++
		}
		if size+n > limit {
			break
		}
		size += n
	}
	var marker string
	if fit < j.n {
		// Leave out more parts until the marker fits too.
		for {
			marker = j.leftOut(fit, limit)
			if fit == 0 || size+len(marker) <= limit {
				break
			}
			fit--
			size -= deliveredLen(j.part(fit))
			if fit > 0 {
				size--
			}
		}
	}
	if fit == 1 && marker == "" {
		if head, cut := luahook.CutContext(j.part(0)); !cut {
			return head, j.contextAs()
		}
	}
	var b strings.Builder
	b.Grow(size + len(marker))
	for i := range fit {
		if i > 0 {
			b.WriteByte('\n')
		}
		head, cut := luahook.CutContext(j.part(i))
		b.WriteString(head)
		if cut {
			b.WriteString(luahook.ContextCutMarker)
		}
	}
	if fit == 0 {
		marker = marker[1:] // no part before it to separate from
	}
	b.WriteString(marker)
	return b.String(), j.contextAs()
}

// leftOut is the marker that ends a join whose parts from the from'th on are
// left out, preceded by its "\n".
func (j *joiner) leftOut(from, limit int) string {
	bytes := 0
	for i := from; i < j.n; i++ {
		bytes += len(j.part(i))
	}
	parts := "parts"
	if j.n-from == 1 {
		parts = "part"
	}
	return "\n[luahook: " + strconv.Itoa(j.n-from) + " more context " + parts + " (" + strconv.Itoa(bytes) +
		" bytes) left out, over the " + strconv.Itoa(limit) + "-byte limit on one event's context]"
}

func (j *joiner) contextAs() luahook.ContextAs {
	if j.as == "" {
		return luahook.ContextInline
	}
	return j.as
}
