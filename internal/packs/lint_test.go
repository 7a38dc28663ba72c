package packs_test

import (
	"context"
	"testing"

	"github.com/luahook/luahook/engine"
)

// TestEveryPackLoadsWithoutALintWarning opens each pack alone in an engine
// and requires no linter warning on it or the lib modules it requires: a
// pack is the code operators copy, and what the linter warns about (a
// top-level local assigned in a hook, which each pooled state keeps apart;
// a global) is a bug in a pack or a habit it teaches.
func TestEveryPackLoadsWithoutALintWarning(t *testing.T) {
	for _, name := range packNames(t) {
		t.Run(name, func(t *testing.T) {
			dir := hooksFolder(t, name+".lua")
			e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.Err(); err != nil {
				t.Fatal(err)
			}
			for _, w := range e.Warnings() {
				t.Errorf("%s:%d: [%s] %s", w.Path, w.Line, w.Rule, w.Message)
			}
		})
	}
}
