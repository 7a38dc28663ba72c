package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/luahook/luahook/internal/jsonschema"
)

// goSchemaBase is where the compiler believes the schemas of
// Options.Schemas live: one made-up location per tool, so that a relative
// $ref names a document of its own, which goSchemaLoader refuses.
const goSchemaBase = "luahook-options:///schemas/"

// compileGoSchemas compiles Options.Schemas, each tool's schema on a
// compiler of its own, so that no schema's $id or $defs reach another's.
// Every schema that does not compile is reported, in the order of the tool
// names, as a *SchemaError.
func compileGoSchemas(raw map[string]json.RawMessage) (map[string]*jsonschema.Schema, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(map[string]*jsonschema.Schema, len(raw))
	var errs []error
	for _, tool := range slices.Sorted(maps.Keys(raw)) {
		sch, err := compileGoSchema(tool, raw[tool])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[tool] = sch
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func compileGoSchema(tool string, doc json.RawMessage) (*jsonschema.Schema, error) {
	loc := goSchemaBase + url.PathEscape(tool) + ".json"
	fail := func(err error) error { return &SchemaError{Tool: tool, loc: loc, Err: err} }
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, fail(errors.New("empty: want a JSON Schema (an object, or true or false)"))
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fail(fmt.Errorf("not valid JSON: %w", err))
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(goSchemaLoader{})
	if err := comp.AddResource(loc, v); err != nil {
		return nil, fail(err)
	}
	sch, err := comp.Compile(loc)
	if err != nil {
		return nil, fail(err)
	}
	return sch, nil
}

// goSchemaLoader is asked for every document a schema of Options.Schemas
// refers to with $ref, other than the drafts' metaschemas (which the
// compiler holds): it reads none, neither a file nor the network.
type goSchemaLoader struct{}

func (goSchemaLoader) Load(string) (any, error) {
	return nil, errors.New("a schema given in Options.Schemas is one document, read from nothing else: put what it refers to under its $defs")
}

// SchemaError is a schema of Options.Schemas that does not compile: not
// JSON, not a valid JSON Schema, or a $ref to a document it does not hold.
// Open and New return it (joined with the others when several fail).
type SchemaError struct {
	Tool string // the key of Options.Schemas
	Err  error  // what is wrong, from the JSON decoder or the schema compiler
	loc  string // the location the compiler knows the schema by
}

// Error returns `engine: Options.Schemas["tool"]: problem`, the compiler's
// words without the made-up location it knows the schema by.
func (e *SchemaError) Error() string {
	msg := e.Err.Error()
	msg = strings.ReplaceAll(msg, strconv.Quote(e.loc+"#"), "the schema")
	msg = strings.ReplaceAll(msg, e.loc, "")
	msg = strings.ReplaceAll(msg, goSchemaBase, "")
	return fmt.Sprintf("engine: Options.Schemas[%q]: %s", e.Tool, msg)
}

// Unwrap returns the underlying error.
func (e *SchemaError) Unwrap() error { return e.Err }
