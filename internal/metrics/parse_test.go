package metrics_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// family is one metric family of a parsed exposition.
type family struct {
	name, help, typ string
	samples         []sample
}

// sample is one sample line: its name, labels in the order written, value.
type sample struct {
	name   string
	labels [][2]string
	value  float64
}

func (s sample) label(name string) (string, bool) {
	for _, l := range s.labels {
		if l[0] == name {
			return l[1], true
		}
	}
	return "", false
}

// key is the sample's labels but extra, as one string.
func (s sample) key(extra string) string {
	var b strings.Builder
	for _, l := range s.labels {
		if l[0] != extra {
			fmt.Fprintf(&b, "%s=%q,", l[0], l[1])
		}
	}
	return b.String()
}

// parseExposition parses text as the text exposition format 0.0.4 and
// checks it strictly: every line a HELP, a TYPE or a sample; each family's
// HELP then TYPE before its samples, once, families sorted by name; label
// names valid, unique and sorted (le and quantile last); only the escapes
// the format defines; every sample named for its family's type; histograms
// with cumulative buckets in ascending le order that end in +Inf equal to
// _count, and a _sum.
func parseExposition(text string) ([]family, error) {
	if text == "" || !strings.HasSuffix(text, "\n") {
		return nil, fmt.Errorf("exposition is empty or does not end in a newline")
	}
	var fs []family
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if rest, ok := strings.CutPrefix(line, "# HELP "); ok {
			name, help, _ := strings.Cut(rest, " ")
			h, err := unescape(help, false)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			if !validName(name, true) {
				return nil, fmt.Errorf("line %d: bad metric name %q", i+1, name)
			}
			if n := len(fs); n > 0 && fs[n-1].name >= name {
				return nil, fmt.Errorf("line %d: family %s is not after %s", i+1, name, fs[n-1].name)
			}
			i++
			if i == len(lines) || lines[i] != "# TYPE "+name+" "+typeOf(lines[i]) || typeOf(lines[i]) == "" {
				return nil, fmt.Errorf("line %d: HELP of %s not followed by its TYPE", i, name)
			}
			fs = append(fs, family{name: name, help: h, typ: typeOf(lines[i])})
			continue
		}
		if strings.HasPrefix(line, "#") {
			return nil, fmt.Errorf("line %d: %q is neither HELP nor TYPE, or TYPE without HELP", i+1, line)
		}
		if len(fs) == 0 {
			return nil, fmt.Errorf("line %d: sample before any HELP", i+1)
		}
		s, err := parseSample(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		f := &fs[len(fs)-1]
		if err := checkSampleName(f, s); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		f.samples = append(f.samples, s)
	}
	for _, f := range fs {
		if len(f.samples) == 0 {
			return nil, fmt.Errorf("family %s has no samples", f.name)
		}
		if f.typ == "histogram" {
			if err := checkHistogram(f); err != nil {
				return nil, err
			}
		}
	}
	return fs, nil
}

func typeOf(line string) string {
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "#" || f[1] != "TYPE" {
		return ""
	}
	switch f[3] {
	case "counter", "gauge", "histogram", "summary", "untyped":
		return f[3]
	}
	return ""
}

func checkSampleName(f *family, s sample) error {
	suffix, ok := strings.CutPrefix(s.name, f.name)
	_, le := s.label("le")
	_, q := s.label("quantile")
	switch {
	case !ok:
		return fmt.Errorf("sample %s in family %s", s.name, f.name)
	case f.typ == "histogram" && (suffix == "_bucket" && le || (suffix == "_sum" || suffix == "_count") && !le):
	case f.typ == "summary" && (suffix == "" && q || (suffix == "_sum" || suffix == "_count") && !q):
	case (f.typ == "counter" || f.typ == "gauge") && suffix == "" && !le && !q:
	default:
		return fmt.Errorf("sample %s does not belong to the %s %s", s.name, f.typ, f.name)
	}
	return nil
}

func checkHistogram(f family) error {
	type series struct {
		les    []float64
		counts []float64
		count  float64
		sum    bool
		hasCnt bool
	}
	byKey := map[string]*series{}
	get := func(k string) *series {
		if byKey[k] == nil {
			byKey[k] = &series{}
		}
		return byKey[k]
	}
	for _, s := range f.samples {
		sr := get(s.key("le"))
		switch strings.TrimPrefix(s.name, f.name) {
		case "_bucket":
			le, _ := s.label("le")
			v, err := parseValue(le)
			if err != nil {
				return fmt.Errorf("%s: le %q: %v", f.name, le, err)
			}
			sr.les, sr.counts = append(sr.les, v), append(sr.counts, s.value)
		case "_sum":
			sr.sum = true
		case "_count":
			sr.count, sr.hasCnt = s.value, true
		}
	}
	for k, sr := range byKey {
		n := len(sr.les)
		switch {
		case n == 0 || !math.IsInf(sr.les[n-1], +1):
			return fmt.Errorf("%s{%s}: buckets do not end in +Inf", f.name, k)
		case !strictlyAscending(sr.les):
			return fmt.Errorf("%s{%s}: le not strictly ascending: %v", f.name, k, sr.les)
		case !slices.IsSorted(sr.counts):
			return fmt.Errorf("%s{%s}: buckets not cumulative: %v", f.name, k, sr.counts)
		case !sr.sum || !sr.hasCnt:
			return fmt.Errorf("%s{%s}: no _sum or _count", f.name, k)
		case sr.counts[n-1] != sr.count:
			return fmt.Errorf("%s{%s}: +Inf bucket %v, _count %v", f.name, k, sr.counts[n-1], sr.count)
		}
	}
	return nil
}

func strictlyAscending(xs []float64) bool {
	for i := 1; i < len(xs); i++ {
		if !(xs[i-1] < xs[i]) {
			return false
		}
	}
	return true
}

func parseSample(line string) (sample, error) {
	var s sample
	i := 0
	for i < len(line) && line[i] != '{' && line[i] != ' ' {
		i++
	}
	s.name = line[:i]
	if !validName(s.name, true) {
		return s, fmt.Errorf("bad metric name %q", s.name)
	}
	rest := line[i:]
	if strings.HasPrefix(rest, "{") {
		rest = rest[1:]
		for {
			eq := strings.Index(rest, `="`)
			if eq < 0 {
				return s, fmt.Errorf("label without =\"")
			}
			name := rest[:eq]
			if !validName(name, false) || strings.HasPrefix(name, "__") {
				return s, fmt.Errorf("bad label name %q", name)
			}
			rest = rest[eq+2:]
			end := 0
			for end < len(rest) && rest[end] != '"' {
				if rest[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(rest) {
				return s, fmt.Errorf("unterminated label value")
			}
			v, err := unescape(rest[:end], true)
			if err != nil {
				return s, err
			}
			s.labels = append(s.labels, [2]string{name, v})
			rest = rest[end+1:]
			if strings.HasPrefix(rest, ",") {
				rest = rest[1:]
				continue
			}
			if !strings.HasPrefix(rest, "}") {
				return s, fmt.Errorf("label not followed by , or }")
			}
			rest = rest[1:]
			break
		}
	}
	names := make([]string, 0, len(s.labels))
	for _, l := range s.labels {
		if l[0] != "le" && l[0] != "quantile" {
			names = append(names, l[0])
		}
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		return s, fmt.Errorf("label names not sorted or repeated: %v", names)
	}
	if n := len(s.labels); n > 0 && len(names) != n && (len(names) != n-1 || s.labels[n-1][0] != "le" && s.labels[n-1][0] != "quantile") {
		return s, fmt.Errorf("le or quantile is not the last label")
	}
	value, ok := strings.CutPrefix(rest, " ")
	if !ok || strings.Contains(value, " ") {
		return s, fmt.Errorf("want one space and a value (no timestamp), got %q", rest)
	}
	v, err := parseValue(value)
	s.value = v
	return s, err
}

func parseValue(v string) (float64, error) {
	switch v {
	case "+Inf":
		return math.Inf(+1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	if strings.ContainsAny(v, "InN") {
		return 0, fmt.Errorf("bad value %q", v)
	}
	return strconv.ParseFloat(v, 64)
}

// unescape undoes the format's escapes: \\ and \n, and \" in a label value.
func unescape(s string, quoted bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || quoted && c == '"':
			return "", fmt.Errorf("unescaped %q in %q", c, s)
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		switch {
		case i == len(s):
			return "", fmt.Errorf("trailing backslash in %q", s)
		case s[i] == '\\':
			b.WriteByte('\\')
		case s[i] == 'n':
			b.WriteByte('\n')
		case s[i] == '"' && quoted:
			b.WriteByte('"')
		default:
			return "", fmt.Errorf("escape \\%c in %q", s[i], s)
		}
	}
	return b.String(), nil
}

func validName(s string, colon bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' || colon && c == ':') {
			return false
		}
	}
	return s != ""
}
