package config

import (
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestTOMLLinesFollowTablesArraysAndMultilineStrings(t *testing.T) {
	src := `a = """
b = 1
[[c]]
""" # 1-4
d = ''''quoted'''' # 5
e = "\"[x]\" = 1" # 6
f = """ \"""
still f
ends here"""""
[[g]] # 10
h = [
  1, # ] comment
  [2,
   3],
  { i = 4, "j k".l = 5 },
]
[[g]] # 17
'm.n' = 1979-05-27 07:32:00Z
[g.sub] # 19
o = 1
[[g.arr]] # 21
p = 'x'
[[g.arr]] # 23
`
	want := map[string]int{
		"a": 1, "d": 5, "e": 6, "f": 7,
		"g": 10, "g[0]": 10, "g[0].h": 11,
		"g[0].h[0]": 12, "g[0].h[1]": 13, "g[0].h[1][0]": 13, "g[0].h[1][1]": 14,
		"g[0].h[2]": 15, "g[0].h[2].i": 15, `g[0].h[2]."j k"`: 15, `g[0].h[2]."j k".l`: 15,
		"g[1]": 17, `g[1]."m.n"`: 18, "g[1].sub": 19, "g[1].sub.o": 20,
		"g[1].arr": 21, "g[1].arr[0]": 21, "g[1].arr[0].p": 22, "g[1].arr[1]": 23,
	}
	if _, err := toml.Decode(src, new(map[string]any)); err != nil {
		t.Fatalf("the test input is not valid TOML: %v", err)
	}
	pos, err := scanTOML("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := tomlLines(pos); !reflect.DeepEqual(got, want) {
		t.Errorf("scanTOML:\n got %v\nwant %v", got, want)
	}
}

// tomlLines flattens the positions below p into lines by key path.
func tomlLines(p *tomlPos) map[string]int {
	lines := map[string]int{}
	var walk func(*tomlPos)
	walk = func(p *tomlPos) {
		if p.parent != nil {
			lines[p.path()] = p.line
		}
		for _, c := range p.fields {
			walk(c)
		}
		for _, c := range p.elems {
			walk(c)
		}
	}
	walk(p)
	return lines
}
