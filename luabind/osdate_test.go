package luabind

import (
	"strconv"
	"strings"
	"testing"

	"github.com/luahook/luahook/luabind/internal/modules"
)

func TestOsDateFormatIsCapped(t *testing.T) {
	for _, opts := range []Options{{}, {AllowLibs: []string{"os"}}} {
		at := `assert(#os.date(("%Y"):rep(` + strconv.Itoa(modules.MaxDateFormatBytes/2) + `), 0) == ` + strconv.Itoa(2*modules.MaxDateFormatBytes) + `)`
		if _, err := runHook(t, at, opts); err != nil {
			t.Errorf("%v: a format at the cap: %v", opts.AllowLibs, err)
		}
		_, err := runHook(t, `return os.date(("x"):rep(2^24 - 1))`, opts)
		want := "os.date: format of 16777215 bytes exceeds the " + strconv.Itoa(modules.MaxDateFormatBytes) + "-byte limit"
		if err == nil || !strings.Contains(failure(t, err).Message, want) {
			t.Errorf("%v: a 16 MiB format: %v, want %q", opts.AllowLibs, err, want)
		}
		if _, err := runHook(t, `assert(os.date("!%Y-%m-%d", 0) == "1970-01-01" and os.date("*t", 0).year >= 1969)`, opts); err != nil {
			t.Errorf("%v: %v", opts.AllowLibs, err)
		}
	}
}
