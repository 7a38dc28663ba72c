//go:build unix

package install

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/fifotest"
	"github.com/luahook/luahook/internal/otheruser"
)

// tree returns every path under dir with its content ("" for a folder,
// "-> target" for a link), to show that nothing was written.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[p] = "-> " + target
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		case d.IsDir():
			out[p] = ""
		default:
			out[p] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := tree(t, dir)
	for p, c := range before {
		if after[p] != c {
			t.Errorf("%s changed: %q, was %q", p, after[p], c)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was made", p)
		}
	}
}

func writeSettings(t *testing.T, path, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

// planAndWrite runs Plan and, when it succeeds, Write, and returns the
// first error.
func planAndWrite(o Options) error {
	c, err := Plan(o)
	if err != nil {
		return err
	}
	_, err = c.Write()
	return err
}

func wantRefusal(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), path+": "+want) {
		t.Errorf("err = %v, want %q", err, path+": "+want)
	}
}

// TestProjectInstallRefusesALinkOutOfTheProject is the case: the
// project's .claude is a link to the user's own ~/.claude. install claude
// in project scope refuses, naming the link, and writes nothing, neither
// in the project nor in the folder the link leads to.
func TestProjectInstallRefusesALinkOutOfTheProject(t *testing.T) {
	o := projectOptions(t, agent.Claude)
	home := t.TempDir()
	userClaude := filepath.Join(home, ".claude")
	writeSettings(t, filepath.Join(userClaude, "settings.json"), `{"model": "mine"}`+"\n", 0o600)
	if err := os.Symlink(userClaude, filepath.Join(o.ProjectDir, ".claude")); err != nil {
		t.Fatal(err)
	}
	project, user := tree(t, o.ProjectDir), tree(t, home)
	err := planAndWrite(o)
	wantRefusal(t, err, filepath.Join(o.ProjectDir, ".claude", "settings.json"),
		"leads out of the project through the link .claude -> "+userClaude)
	sameTree(t, o.ProjectDir, project)
	sameTree(t, home, user)
}

// TestProjectInstallGoesThroughNoLink: a link inside the project on the
// way to the file, the file itself a link (out of the project or not),
// and a folder on the way that is a named pipe are refused by Plan, and
// nothing is written.
func TestProjectInstallGoesThroughNoLink(t *testing.T) {
	t.Run("a folder linked inside the project", func(t *testing.T) {
		o := projectOptions(t, agent.Copilot)
		if err := os.MkdirAll(filepath.Join(o.ProjectDir, "shared", "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("shared", filepath.Join(o.ProjectDir, ".github")); err != nil {
			t.Fatal(err)
		}
		before := tree(t, o.ProjectDir)
		wantRefusal(t, planAndWrite(o), filepath.Join(o.ProjectDir, ".github", "hooks", "luahook.json"),
			"goes through the link .github -> shared: luahook follows no link inside the project")
		sameTree(t, o.ProjectDir, before)
	})
	t.Run("the file a link out of the project", func(t *testing.T) {
		o := projectOptions(t, agent.Cursor)
		target := filepath.Join(t.TempDir(), "hooks.json")
		writeSettings(t, target, "{}\n", 0o644)
		os.Mkdir(filepath.Join(o.ProjectDir, ".cursor"), 0o755)
		if err := os.Symlink(target, filepath.Join(o.ProjectDir, ".cursor", "hooks.json")); err != nil {
			t.Fatal(err)
		}
		before := tree(t, o.ProjectDir)
		wantRefusal(t, planAndWrite(o), filepath.Join(o.ProjectDir, ".cursor", "hooks.json"),
			"leads out of the project through the link .cursor/hooks.json -> "+target)
		sameTree(t, o.ProjectDir, before)
		if b, _ := os.ReadFile(target); string(b) != "{}\n" {
			t.Errorf("the link's target now holds %q", b)
		}
	})
	t.Run("the file a link inside the project", func(t *testing.T) {
		o := projectOptions(t, agent.Codex)
		writeSettings(t, filepath.Join(o.ProjectDir, ".codex", "real.json"), "{}\n", 0o644)
		if err := os.Symlink("real.json", filepath.Join(o.ProjectDir, ".codex", "hooks.json")); err != nil {
			t.Fatal(err)
		}
		before := tree(t, o.ProjectDir)
		wantRefusal(t, planAndWrite(o), filepath.Join(o.ProjectDir, ".codex", "hooks.json"), "is a symbolic link (to real.json)")
		sameTree(t, o.ProjectDir, before)
	})
	t.Run("a named pipe on the way", func(t *testing.T) {
		o := projectOptions(t, agent.Gemini)
		fifo := fifotest.Make(t, filepath.Join(o.ProjectDir, ".gemini"))
		fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
			wantRefusal(t, planAndWrite(o), fifo, "not a folder: it is a named pipe (FIFO)")
		})
	})
}

// TestInstallRefusesASettingsFileThatIsNoOnesToChange: a named pipe where
// the settings file is (refused at once), a settings file of another user,
// one others or its group can write, and a folder others can write are
// each refused, naming the path and the problem; nothing is written.
func TestInstallRefusesASettingsFileThatIsNoOnesToChange(t *testing.T) {
	t.Run("named pipe", func(t *testing.T) {
		o := projectOptions(t, agent.Claude)
		os.Mkdir(filepath.Join(o.ProjectDir, ".claude"), 0o755)
		fifo := fifotest.Make(t, filepath.Join(o.ProjectDir, ".claude", "settings.json"))
		fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
			wantRefusal(t, planAndWrite(o), fifo, "not a regular file: it is a named pipe (FIFO)")
		})
	})
	t.Run("loose file", func(t *testing.T) {
		o := projectOptions(t, agent.Claude)
		path := filepath.Join(o.ProjectDir, ".claude", "settings.json")
		writeSettings(t, path, "{}\n", 0o666)
		before := tree(t, o.ProjectDir)
		wantRefusal(t, planAndWrite(o), path, "mode 0666 lets others write it (chmod go-w "+path+")")
		sameTree(t, o.ProjectDir, before)
	})
	t.Run("loose folder", func(t *testing.T) {
		o := projectOptions(t, agent.Claude)
		dir := filepath.Join(o.ProjectDir, ".claude")
		writeSettings(t, filepath.Join(dir, "settings.json"), "{}\n", 0o644)
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		before := tree(t, o.ProjectDir)
		wantRefusal(t, planAndWrite(o), dir, "mode 0777 lets others write it")
		sameTree(t, o.ProjectDir, before)
	})
	t.Run("another user's file", func(t *testing.T) {
		o := projectOptions(t, agent.Claude)
		path := filepath.Join(o.ProjectDir, ".claude", "settings.json")
		writeSettings(t, path, "{}\n", 0o644)
		if os.Geteuid() != 0 {
			// Only root can give a file away: the user's own is written.
			if err := planAndWrite(o); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.Chown(path, otheruser.UID, otheruser.UID); err != nil {
			t.Fatal(err)
		}
		before := tree(t, o.ProjectDir)
		wantRefusal(t, planAndWrite(o), path, "is owned by uid "+strconv.Itoa(otheruser.UID)+", not by this user")
		sameTree(t, o.ProjectDir, before)
	})
}

// TestWriteRefusesALinkOrPipeAtTheBackupOrASwappedFile: Write, after Plan,
// refuses a link at the backup's name (its target untouched), a named pipe
// there (at once), and a settings file swapped for a link since Plan; the
// settings file is not changed.
func TestWriteRefusesALinkOrPipeAtTheBackupOrASwappedFile(t *testing.T) {
	setup := func(t *testing.T) (Options, string) {
		o := projectOptions(t, agent.Claude)
		path := filepath.Join(o.ProjectDir, ".claude", "settings.json")
		writeSettings(t, path, "{}\n", 0o644)
		return o, path
	}
	t.Run("link at the backup", func(t *testing.T) {
		o, path := setup(t)
		c, err := Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(t.TempDir(), ".bashrc")
		writeSettings(t, target, "# rc\n", 0o644)
		if err := os.Symlink(target, path+BackupSuffix); err != nil {
			t.Fatal(err)
		}
		_, err = c.Write()
		wantRefusal(t, err, path+BackupSuffix, "is a symbolic link (to "+target+")")
		if b, _ := os.ReadFile(target); string(b) != "# rc\n" {
			t.Errorf("the link's target now holds %q", b)
		}
		if b, _ := os.ReadFile(path); string(b) != "{}\n" {
			t.Errorf("the settings file was changed: %q", b)
		}
	})
	t.Run("named pipe at the backup", func(t *testing.T) {
		o, path := setup(t)
		c, err := Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		fifo := fifotest.Make(t, path+BackupSuffix)
		fifotest.Within(t, 5*time.Second, []string{fifo}, func() {
			_, err := c.Write()
			wantRefusal(t, err, fifo, "not a regular file: it is a named pipe (FIFO)")
		})
		if b, _ := os.ReadFile(path); string(b) != "{}\n" {
			t.Errorf("the settings file was changed: %q", b)
		}
	})
	t.Run("settings file swapped for a link", func(t *testing.T) {
		o, path := setup(t)
		c, err := Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(t.TempDir(), "settings.json")
		writeSettings(t, target, "{}\n", 0o644)
		os.Remove(path)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		_, err = c.Write()
		wantRefusal(t, err, path, "is a symbolic link (to "+target+")")
		if b, _ := os.ReadFile(target); string(b) != "{}\n" {
			t.Errorf("the link's target now holds %q", b)
		}
		if _, err := os.Lstat(path + BackupSuffix); err == nil {
			t.Error("a backup was written")
		}
	})
}

// TestUserInstallFollowsTheUsersOwnLinks: in the user's scope, the agent's
// folder linked elsewhere (a dotfiles checkout) is the user's way to it:
// the file is written there.
func TestUserInstallFollowsTheUsersOwnLinks(t *testing.T) {
	home, dotfiles := t.TempDir(), t.TempDir()
	writeSettings(t, filepath.Join(dotfiles, "claude", "settings.json"), "{}\n", 0o600)
	if err := os.Symlink(filepath.Join(dotfiles, "claude"), filepath.Join(home, ".claude")); err != nil {
		t.Fatal(err)
	}
	o := Options{Agent: agent.Claude, Scope: User, Home: home, Command: "/usr/local/bin/luahook"}
	if err := planAndWrite(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dotfiles, "claude", "settings.json")); !strings.Contains(string(b), "luahook") {
		t.Errorf("the user's settings were not written: %q", b)
	}
}
