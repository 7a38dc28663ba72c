package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/luahook/luahook/internal/jsonschema"
)

// tools decodes the [tools.NAME] entries.
func (d *decoder) tools(n *node, c *Config) {
	if n.kind != kindTable {
		d.wrongType(n, d.tableName())
		return
	}
	for _, name := range n.keys {
		v := n.fields[name]
		before := len(d.errs)
		var schema, file *node
		ok := d.table(v, []string{"schema", "schema_file"}, func(key string, x *node) {
			if key == "schema" {
				schema = x
			} else {
				file = x
			}
		})
		if !ok {
			continue
		}
		t := Tool{Source: d.file + ":" + strconv.Itoa(v.line)}
		switch {
		case schema != nil && file != nil:
			d.errorf(file.line, file.path(), "%s and %s exclude each other; keep one", d.spell("schema"), d.spell("schema_file"))
		case schema == nil && file == nil:
			d.errorf(v.line, v.path(), "needs %s or %s", d.spell("schema"), d.spell("schema_file"))
		case schema != nil:
			t.Schema = d.schema(schema)
		default:
			if s, ok := d.str(file); ok {
				if strings.TrimSpace(s) == "" {
					d.errorf(file.line, file.path(), "must not be empty")
				}
				t.SchemaFile = c.resolve(s)
			}
		}
		if len(d.errs) == before {
			if c.Tools == nil {
				c.Tools = map[string]Tool{}
			}
			c.Tools[name] = t
		}
	}
}

// schema reads an inline schema (a string of JSON, or a table) and returns
// it as compact JSON with sorted keys, so that the same schema written
// either way compares equal.
func (d *decoder) schema(n *node) json.RawMessage {
	var v any
	switch n.kind {
	case kindString:
		if line := jsonNesting([]byte(n.str)); line > 0 {
			d.errorf(n.line, n.path(), "not valid JSON: nested more than %d levels deep (line %d of the string)", MaxNesting, line)
			return nil
		}
		dec := json.NewDecoder(strings.NewReader(n.str))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			d.errorf(n.line, n.path(), "not valid JSON: %v", err)
			return nil
		}
		if _, err := dec.Token(); err != io.EOF {
			d.errorf(n.line, n.path(), "not valid JSON: unexpected data after the schema")
			return nil
		}
		switch v.(type) {
		case map[string]any, bool:
		default:
			d.errorf(n.line, n.path(), "must hold a JSON object (or true or false), not %s", strings.TrimSpace(n.str))
			return nil
		}
	case kindTable:
		var bad *node
		if v, bad = n.toJSONValue(); bad != nil {
			d.errorf(bad.line, bad.path(), "%s has no JSON equivalent", d.typeName(bad))
			return nil
		}
	default:
		if d.format == formatJSON {
			d.wrongType(n, "an object or a string of JSON")
		} else {
			d.wrongType(n, "a table or a string of JSON")
		}
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		d.errorf(n.line, n.path(), "cannot be written as JSON: %v", err)
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// CompileSchemas compiles the schema of every tool, inline or from its file,
// into validators that are safe for concurrent use. Call it once per loaded
// Config: compiling is the expensive part, validating is cheap. Schemas
// without $schema are read as draft 2020-12; $ref may name files (relative
// to the schema file, or to the configuration's folder for inline schemas)
// but never the network. Every failing tool is reported as an *Error naming
// the configuration file, the tool entry's line, the tool and the schema
// file.
func (c *Config) CompileSchemas() (map[string]*jsonschema.Schema, error) {
	out := make(map[string]*jsonschema.Schema, len(c.Tools))
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(schemaLoader{})
	dir := "."
	if c.Path != "" {
		dir = filepath.Dir(c.Path)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("compile schemas: %w", err)
	}
	var errs []*Error
	for _, name := range slices.Sorted(maps.Keys(c.Tools)) {
		t := c.Tools[name]
		sch, what, err := compileTool(comp, dir, name, t)
		if err != nil {
			file, line := splitSource(t.Source)
			errs = append(errs, &Error{File: file, Line: line, Key: joinKey("tools", name), Msg: what + ": " + err.Error(), Err: err})
			continue
		}
		out[name] = sch
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *Error) int { return a.Line - b.Line })
		joined := make([]error, len(errs))
		for i, e := range errs {
			joined[i] = e
		}
		return nil, errors.Join(joined...)
	}
	return out, nil
}

// compileTool compiles one tool's schema; on failure it also says which
// schema failed, for the message.
func compileTool(comp *jsonschema.Compiler, dir, name string, t Tool) (*jsonschema.Schema, string, error) {
	if t.SchemaFile != "" {
		what := "schema file " + t.SchemaFile
		abs, err := filepath.Abs(t.SchemaFile)
		if err != nil {
			return nil, what, err
		}
		sch, err := comp.Compile(fileURL(abs))
		return sch, what, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.Schema))
	if err != nil {
		return nil, "schema", err
	}
	// A location inside the configuration's folder, so that relative $refs
	// find files there; nothing is read from it.
	loc := fileURL(filepath.Join(dir, ".luahook-tool-"+url.PathEscape(name)+".schema.json"))
	if err := comp.AddResource(loc, doc); err != nil {
		return nil, "schema", err
	}
	sch, err := comp.Compile(loc)
	if err != nil {
		// The compiler names the schema by that made-up location.
		return nil, "schema", &inlineSchemaError{loc: loc, err: err}
	}
	return sch, "schema", nil
}

// schemaLoader reads the schema files the compiler asks for (a schema_file
// and the files its $refs name): file URLs only, never the network, each
// read as readConfigFile reads it and held to MaxNesting before it is decoded.
type schemaLoader struct{}

// Load reads and decodes the schema file at url.
func (schemaLoader) Load(url string) (any, error) {
	path, err := jsonschema.FileLoader{}.ToFile(url)
	if err != nil {
		return nil, err
	}
	data, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	if line := jsonNesting(data); line > 0 {
		return nil, &Error{File: path, Line: line, Msg: fmt.Sprintf("JSON nested more than %d levels deep", MaxNesting)}
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// inlineSchemaError words a compiler error about an inline schema without
// the made-up location the compiler knows it by.
type inlineSchemaError struct {
	loc string
	err error
}

func (e *inlineSchemaError) Error() string {
	return strings.ReplaceAll(e.err.Error(), strconv.Quote(e.loc+"#"), "the inline schema")
}

func (e *inlineSchemaError) Unwrap() error { return e.err }

func fileURL(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// splitSource splits "file:line".
func splitSource(src string) (string, int) {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return src, 0
	}
	line, err := strconv.Atoi(src[i+1:])
	if err != nil {
		return src, 0
	}
	return src[:i], line
}
