package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
)

func TestNewHasNoFolderAndRunsOnlyTheHostsHooks(t *testing.T) {
	e, err := New(Options{Dir: t.TempDir(), ConfigPath: "does-not-matter.toml"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Dir() != "" || len(e.Errors()) != 0 || e.Stats().Hooks != 0 {
		t.Fatalf("dir %q, errors %v, %d hooks: want a file-less, empty engine", e.Dir(), e.Errors(), e.Stats().Hooks)
	}
	if err := e.Reload(context.Background()); !errors.Is(err, ErrNoFolder) {
		t.Errorf("Reload: %v, want ErrNoFolder", err)
	}
	if lo := e.LuaOptions(); lo.LibDir != "" || lo.CheckLib != nil {
		t.Errorf("LuaOptions has lib folder %q: require must stay off without a hooks folder", lo.LibDir)
	}
	if got := verdict(e); got != "allowed" {
		t.Errorf("with no hooks: %s, want allowed", got)
	}
}

func TestRegisterSessionReplacesTheOwnersHooks(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sess, err := luabind.NewSession(luabind.SessionOptions{Options: e.LuaOptions(), Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Eval(context.Background(), "t", `hook.register("PreToolUse", "bash", function() return hook.deny("no") end, { name = "n" })`); err != nil {
		t.Fatal(err)
	}
	if err := e.RegisterSession("t", sess.Registrations()); err != nil {
		t.Fatal(err)
	}
	if got := verdict(e); got != "no" {
		t.Errorf("with the session's hook: %s, want the denial \"no\"", got)
	}
	if l := e.Listing(); len(l) != 1 || l[0].Name != "n" || l[0].Owner != "t" || l[0].Event != luahook.PreToolUse {
		t.Errorf("listing %+v, want the one hook n of owner t", l)
	}
	if err := e.RegisterSession("t", nil); err != nil {
		t.Fatal(err)
	}
	if n := e.Stats().Hooks; n != 0 {
		t.Errorf("%d hooks after RegisterSession(owner, nil), want 0", n)
	}
}

func TestWriteListingShortStopsAfterSource(t *testing.T) {
	hooks := []luahook.Listed{{Spec: luahook.Spec{Event: luahook.PreToolUse, Name: "a\x1b", Kind: luahook.KindLua,
		Stage: luahook.StageValidate, Source: "x.lua:1", Policy: true, Timeout: 1500e6, FailurePolicy: luahook.FailClosed},
		Order: 1, MatcherForm: "names bash"}}
	for _, tc := range []struct {
		opts ListingOptions
		want string
	}{
		{ListingOptions{}, "EVENT       #  NAME   MATCHER     STAGE     KIND  SOURCE   POLICY  TIMEOUT  FAILURE\n" +
			"PreToolUse  1  a\\x1b  names bash  validate  lua   x.lua:1  yes     1500ms   closed\n"},
		{ListingOptions{Short: true}, "EVENT       #  NAME   MATCHER     STAGE     KIND  SOURCE\n" +
			"PreToolUse  1  a\\x1b  names bash  validate  lua   x.lua:1\n"},
	} {
		var b strings.Builder
		if err := WriteListing(&b, hooks, tc.opts); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("WriteListing(%+v):\n%s\nwant:\n%s", tc.opts, b.String(), tc.want)
		}
	}
}
