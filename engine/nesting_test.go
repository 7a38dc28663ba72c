package engine

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/luabind"
)

// A hook file nested too deep or too big is refused with its error, before
// gopher-lua parses it (3 MB of "{" overflowed the compiler's Go stack, a
// fatal error), and the other files load.
func TestFileNestedTooDeepIsRefusedAndTheOthersLoad(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-good.lua": denyFile("good"),
		"20-deep.lua": "local x = 1\nreturn " + strings.Repeat("{", 300) + strings.Repeat("}", 300),
		"30-huge.lua": "return " + strings.Repeat("{", 3<<20/2),
		"40-good.lua": `hook.register("Stop", nil, function() end, { name = "later" })`,
	})
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	errs := e.Errors()
	want := []string{
		filepath.Join(dir, "20-deep.lua") + ":2: nesting deeper than 200 levels",
		filepath.Join(dir, "30-huge.lua") + ": file is larger than 1 MiB",
	}
	if len(errs) != len(want) {
		t.Fatalf("Errors = %v, want %d", errs, len(want))
	}
	for i, err := range errs {
		// The deep file fails to compile (a LoadError); the huge one is
		// refused as it is read.
		var le *luabind.LoadError
		if i == 0 && !errors.As(err, &le) || err.Error() != want[i] {
			t.Errorf("error %d: %T %v, want %q", i, err, err, want[i])
		}
	}
	if got := verdict(e); got != "good" {
		t.Errorf("verdict %q, want good", got)
	}
	if n := e.Registry().CountByOwner("40-good.lua"); n != 1 {
		t.Errorf("the file after the refused ones has %d hooks, want 1", n)
	}
}
