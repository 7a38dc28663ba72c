package metrics

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ContentType is the media type of the text exposition format that
// WriteText writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// gather runs every collector once and returns the scrape.
func (r *Registry) gather() *Scrape {
	r.mu.Lock()
	cs := append([]Collector(nil), r.collectors...)
	r.mu.Unlock()
	s := new(Scrape)
	for _, c := range cs {
		c.Collect(s)
	}
	return s
}

// WriteText scrapes the registry and writes it to w in the text
// exposition format. A collector's error (a bad name, two families of one
// name, two series with the same labels) fails the scrape before anything
// is written.
func (r *Registry) WriteText(w io.Writer) error {
	fs, err := r.gather().sorted()
	if err != nil {
		return err
	}
	var b []byte
	for _, f := range fs {
		b = appendFamily(b[:0], f)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// ServeHTTP answers a scrape: the text exposition, gzipped when the client
// accepts it, or 500 when the scrape fails.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		http.Error(w, "scraping the metrics failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Add("Vary", "Accept-Encoding")
	if !acceptsGzip(req.Header.Get("Accept-Encoding")) {
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		w.Write(buf.Bytes())
		return
	}
	h.Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	zw.Write(buf.Bytes())
	zw.Close()
}

func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if strings.TrimSpace(coding) == "gzip" && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func appendFamily(b []byte, f *family) []byte {
	b = append(b, "# HELP "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = appendEscaped(b, f.help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, typeNames[f.typ]...)
	b = append(b, '\n')
	for i := range f.series {
		s := &f.series[i]
		switch f.typ {
		case histogramType:
			for j, bound := range s.hist.Bounds {
				b = appendSample(b, f.name, "_bucket", s.labels, "le", bound)
				b = strconv.AppendUint(b, s.hist.Counts[j], 10)
				b = append(b, '\n')
			}
			b = appendSample(b, f.name, "_bucket", s.labels, "le", math.Inf(+1))
			b = strconv.AppendUint(b, s.hist.Count, 10)
			b = append(b, '\n')
			b = appendSumCount(b, f.name, s)
		case summaryType:
			for _, q := range s.quant {
				b = appendSample(b, f.name, "", s.labels, "quantile", q.q)
				b = appendFloat(b, q.v)
				b = append(b, '\n')
			}
			b = appendSumCount(b, f.name, s)
		default:
			b = appendSample(b, f.name, "", s.labels, "", 0)
			b = appendFloat(b, s.value)
			b = append(b, '\n')
		}
	}
	return b
}

func appendSumCount(b []byte, name string, s *sample) []byte {
	b = appendSample(b, name, "_sum", s.labels, "", 0)
	b = appendFloat(b, s.hist.Sum)
	b = append(b, '\n')
	b = appendSample(b, name, "_count", s.labels, "", 0)
	b = strconv.AppendUint(b, s.hist.Count, 10)
	return append(b, '\n')
}

// appendSample writes a sample's name and labels and the space before its
// value; extra, when set, is one more label (le, quantile) with the value v.
func appendSample(b []byte, name, suffix string, labels []string, extra string, v float64) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(labels) > 0 || extra != "" {
		b = append(b, '{')
		for i := 0; i < len(labels); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, labels[i]...)
			b = append(b, `="`...)
			b = appendEscaped(b, labels[i+1], true)
			b = append(b, '"')
		}
		if extra != "" {
			if len(labels) > 0 {
				b = append(b, ',')
			}
			b = append(b, extra...)
			b = append(b, `="`...)
			b = appendFloat(b, v)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, ' ')
}

// appendEscaped writes s as a HELP text (backslash and newline escaped) or
// a label value (double quote too); bytes that are not UTF-8 become U+FFFD.
func appendEscaped(b []byte, s string, quote bool) []byte {
	for _, r := range s {
		switch {
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// appendFloat writes v as the exposition format's client libraries do.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case v == 1:
		return append(b, '1')
	case v == 0:
		return append(b, '0')
	case v == -1:
		return append(b, "-1"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, +1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
