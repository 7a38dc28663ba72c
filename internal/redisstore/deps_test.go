package redisstore_test

import (
	"testing"

	"github.com/luahook/luahook/internal/depstest"
)

// The Redis backend depends on what the store module means
// (internal/store), not on the Lua binding that offers the module.
func TestRedisStoreDoesNotLinkLua(t *testing.T) {
	depstest.Forbid(t, ".",
		"github.com/yuin/gopher-lua",
		"layeh.com/gopher-luar",
		"github.com/luahook/luahook/luabind",
	)
}
