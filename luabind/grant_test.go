package luabind_test

import (
	"context"
	"testing"

	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/luabind"
)

// TestEveryLibTheConfigGrantsLoads: a name that [lua] allow_libs accepts is
// one the sandbox can grant, so a valid config never makes every file fail.
func TestEveryLibTheConfigGrantsLoads(t *testing.T) {
	chunk, err := luabind.Compile("x.lua", []byte(`hook.register("Stop", nil, function() end)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range config.GrantableLibs() {
		f, err := luabind.Load(context.Background(), chunk, luabind.Options{AllowLibs: []string{lib}})
		if err != nil {
			t.Errorf("config grants %q but the sandbox refuses it: %v", lib, err)
			continue
		}
		f.Close()
	}
}
