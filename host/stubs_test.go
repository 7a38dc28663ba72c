package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/luahook/luahook/host"
)

type quota struct {
	Used, Limit int
	Plan        string `luar:"plan_name"`
	Secret      string `luar:"-"`
	internal    string
	Owner       owner
	Tags        []string
	Ch          chan int
}

type owner struct{ Name string }

func (q quota) Left() int          { return q.Limit - q.Used }
func (q *quota) Grant(n int) error { q.Limit += n; return nil }
func (o owner) Rename(string)      {}
func lookup(ctx context.Context, user string) (quota, error) {
	return quota{}, errors.New("not found")
}

func TestWriteStubsDescribesWhatLuaSees(t *testing.T) {
	var b strings.Builder
	err := host.WriteStubs(&b, host.Module{
		Name: "acme",
		Doc:  "Acme's quota service.",
		Members: map[string]any{
			"lookup":  lookup,
			"version": "1.2",
			"limits":  map[string]float64{"max": 1},
			"flags":   []bool{true},
			"current": &quota{},
		},
		Docs: map[string]string{"lookup": "The quota of a user.\n@param user string\n@return acme.Quota", "version": "The service's version."},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"---@meta host.acme\n--- Acme's quota service.\n---@class host.acme\n",
		"---@field current host.acme.quota\n",
		"---@field flags boolean[]\n",
		"---@field limits table<string, number>\n",
		"---@field lookup fun(user: string): acme.Quota The quota of a user.\n",
		"---@field version string The service's version.\n",
		"---@class host.acme.quota\n",
		"---@field Used integer\n---@field used integer\n",
		"---@field plan_name string\n",
		"---@field Owner host.acme.owner\n",
		"---@field Tags string[]\n",
		"---@field Left fun(self: host.acme.quota): integer\n---@field left fun(self: host.acme.quota): integer\n",
		"---@field Grant fun(self: host.acme.quota, arg1: integer)\n",
		"---@class host.acme.owner\n---@field Name string\n---@field name string\n",
		"return M\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stubs lack %q:\n%s", want, out)
		}
	}
	for _, hidden := range []string{"Secret", "internal", "Ch ", "Rename"} {
		if strings.Contains(out, hidden) {
			t.Errorf("stubs show %q, which Lua cannot see:\n%s", hidden, out)
		}
	}
}
