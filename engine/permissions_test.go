package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFilesOwnedByAnotherUserAreRefused(t *testing.T) {
	if processUID() < 0 {
		// No Unix owners here: the rule has nothing to guard.
		if runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
			t.Fatalf("processUID() = -1 on %s", runtime.GOOS)
		}
		return
	}
	path := filepath.Join(t.TempDir(), "x.lua")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// Root-owned files are always trusted: give it to nobody.
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	owner, ok := fileOwner(fi)
	if !ok {
		t.Fatal("fileOwner: no owner")
	}
	tests := []struct {
		name    string
		tr      trust
		refused bool
	}{
		{"owned by the process's user", trust{uid: owner}, false},
		{"owned by another user", trust{uid: owner + 1}, true},
		{"owned by another user, loose allowed", trust{uid: owner + 1, loose: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.tr.check(path, fi)
			var pe *PermissionError
			switch {
			case tt.refused && (!errors.As(err, &pe) || !strings.Contains(err.Error(), "owned by uid")):
				t.Errorf("check: %v; want a *PermissionError naming the owner", err)
			case !tt.refused && err != nil:
				t.Errorf("check: %v; want it trusted", err)
			}
		})
	}
}
