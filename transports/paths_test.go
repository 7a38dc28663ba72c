package transports

import (
	"strings"
	"testing"
)

func TestCommandPathsResolveAgainstTheConfigFolderOnly(t *testing.T) {
	tests := []struct{ command, want string }{
		{"sh ./scripts/guard.sh", "sh /conf/scripts/guard.sh"},
		{"sh scripts/guard.sh", "sh /conf/scripts/guard.sh"},
		{"bash -eu -o pipefail guard.sh arg", "bash -eu -o pipefail /conf/guard.sh arg"},
		{"bash -- guard.sh", "bash -- /conf/guard.sh"},
		{"./scripts/guard.sh --mode strict", "/conf/scripts/guard.sh --mode strict"},
		{"scripts/guard.sh", "/conf/scripts/guard.sh"},
		{"node ../shared/hook.js", "node /shared/hook.js"},
		{"python3 -u hook.py", "python3 -u /conf/hook.py"},
		{"python3 -W ignore hook.py", "python3 -W ignore /conf/hook.py"},
		{"node --require ./setup.js hook.js", "node --require /conf/setup.js /conf/hook.js"},
		{"/usr/bin/env ./x", "/usr/bin/env /conf/x"},
		{"sh -c 'exit 0' sh ./out", "sh -c 'exit 0' sh /conf/out"},
		// not paths, or not ours to resolve
		{"sh /abs/guard.sh", "sh /abs/guard.sh"},
		{"sh -", "sh -"},
		{"sh -c 'cat >/dev/null'", "sh -c 'cat >/dev/null'"},
		{`sh -c 'exec "$LUAHOOK_CONFIG_DIR/./x"'`, `sh -c 'exec "$LUAHOOK_CONFIG_DIR/./x"'`},
		{"python3 -c 'print(1)' x.py", "python3 -c print(1) x.py"},
		{"python3 -m tool src", "python3 -m tool src"},
		{"perl -ne 'print' file", "perl -ne print file"},
		{"luahook --dir inner.d fire", "luahook --dir inner.d fire"},
		{"npx eslint src .", "npx eslint src ."},
		{"jq -f filters/x.jq", "jq -f filters/x.jq"},
	}
	for _, tt := range tests {
		argv, err := SplitArgv(tt.command)
		if err != nil {
			t.Fatal(err)
		}
		got, err := resolvePaths(argv, "/conf")
		if err != nil {
			t.Errorf("%q: %v", tt.command, err)
			continue
		}
		if j := joinArgv(got); j != tt.want {
			t.Errorf("%q resolved to %q, want %q", tt.command, j, tt.want)
		}
		if back, _ := SplitArgv(joinArgv(got)); strings.Join(back, "\x00") != strings.Join(got, "\x00") {
			t.Errorf("%q: joinArgv does not split back: %q", tt.command, back)
		}
	}
}

func TestCommandShellScriptWithARelativePathIsRefused(t *testing.T) {
	for _, command := range []string{
		"sh -c ./guard.sh",
		"sh -c 'cd ../x && make'",
		"bash -ec 'x=1; ./run'",
		"sh -c 'test -f ./a || exit 2'",
		"sh -c '$(./gen)'",
		"bash -o pipefail -c '. ./lib.sh'",
		"sh -- -c ./x", // "--" ends the options: ./x is not a -c script but a script operand
	} {
		argv, _ := SplitArgv(command)
		_, err := resolvePaths(argv, "/conf")
		if command == "sh -- -c ./x" {
			if err != nil {
				t.Errorf("%q: %v, want -c read as the script operand", command, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "LUAHOOK_CONFIG_DIR") || !strings.Contains(err.Error(), "absolute path") {
			t.Errorf("%q: err = %v, want a refusal naming the fix", command, err)
		}
	}
}
