package jsonschema

import (
	"strings"
	"sync"
	"sync/atomic"
)

// metaschemasOnce compiles the drafts' metaschemas on the first Compile of
// the program. Upstream compiles them in the package's init, which every
// program linking the package pays at start (about 10 ms and 1.7 MB),
// whether or not it ever compiles a schema. Every path to a draft's sch and
// allVocabs starts at Compile (a Schema to validate with comes from
// Compile), so Once's ordering covers every reader.
var (
	metaschemasOnce sync.Once
	metaschemasDone atomic.Bool
)

func compileMetaschemas() {
	metaschemasOnce.Do(func() {
		c := NewCompiler()
		c.ofMetaschemas = true
		c.AssertFormat()
		for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
			d.sch = c.MustCompile(d.url)
			for name := range d.allVocabs {
				d.allVocabs[name] = c.MustCompile(strings.TrimSuffix(d.url, "schema") + "meta/" + name)
			}
		}
		metaschemasDone.Store(true)
	})
}

// MetaschemasCompiled reports whether the drafts' metaschemas have been
// compiled in this process: false until the first Compile.
func MetaschemasCompiled() bool { return metaschemasDone.Load() }
