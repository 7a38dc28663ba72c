package hooktest_test

import (
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/hooktest"
	"github.com/luahook/luahook/transports"
)

// commandFactory builds command hooks that run testdata/hookprog by its
// absolute path (which passes the allowlist), with the behaviour's name as
// its argument.
func commandFactory(tb testing.TB, b hooktest.Behaviour) luahook.Hook {
	c, err := transports.NewCommand(transports.CommandSpec{Command: "'" + hookprog + "' " + b.String()})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestCommandHooksKeepTheContract(t *testing.T) {
	// A process per call: fewer concurrent calls keep the run short.
	hooktest.Run(t, commandFactory, hooktest.Options{Kind: luahook.KindCommand, Parallel: 4, Calls: 5})
}

func BenchmarkCommandHook(b *testing.B) {
	hooktest.Benchmark(b, commandFactory, hooktest.Options{Kind: luahook.KindCommand})
}
