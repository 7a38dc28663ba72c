package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/safefile"
)

// Scope says which of the agent's configurations is written.
type Scope uint8

const (
	// Project is the project's configuration, in the project folder
	// (.claude/settings.json, ...); its hooks run luahook on the project's
	// own ./hooks.d, which loads only once trusted (luahook trust).
	Project Scope = iota
	// User is the user's configuration (~/.claude/settings.json, ...);
	// its hooks run luahook on the user's own hooks folder or config.
	User
)

func (s Scope) String() string {
	if s == User {
		return "user"
	}
	return "project"
}

// MaxFileBytes is the largest settings file install reads: agents'
// settings are a few KiB; a file over 1 MiB is refused, not read.
const MaxFileBytes = 1 << 20

// BackupSuffix names the backup of a settings file: before it changes a
// file, install writes the file as it was to <file>.luahook-backup,
// replacing the backup of its previous change.
const BackupSuffix = ".luahook-backup"

// newFileMode is the mode of a settings file that did not exist.
const newFileMode fs.FileMode = 0o644

// Options say what to install.
type Options struct {
	// Agent is the agent to wire.
	Agent agent.Name
	// Scope is the configuration written.
	Scope Scope
	// ProjectDir is the project folder (Project scope).
	ProjectDir string
	// Home is the user's home folder (User scope).
	Home string
	// Env looks up the variables that move an agent's user folder
	// (CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME); nil: none is set.
	Env func(string) (string, bool)
	// Command is the luahook executable as the hook's command line starts
	// (one shell word; see ShellQuote).
	Command string
	// HooksDir and Config are the hooks folder (--dir) and config file
	// (--config) the hook's fire runs on; both empty: fire's defaults (the
	// project's ./hooks.d once trusted).
	HooksDir, Config string
	// HTTP is the base URL of a luahook serve (http or https): the hooks
	// call URL/agent/NAME instead of running luahook's policies themselves.
	HTTP string
	// Socket is the Unix socket of a luahook serve --socket (an absolute
	// path): every agent's hook is the command FireCommand (luahook-fire,
	// one shell word) asking it. Not with HTTP.
	Socket, FireCommand string
	// TokenFile (an absolute path) and TokenName are the token file and
	// line that a command forwarding to HTTP names (luahook fire
	// --token-file); empty: fire takes $LUAHOOK_TOKEN. Claude Code's HTTP
	// hooks always send $LUAHOOK_TOKEN (TokenHeader): they take no file.
	TokenFile, TokenName string
}

// check validates o and normalises HTTP.
func (o *Options) check() (*target, error) {
	t, err := lookupTarget(o.Agent)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Scope == Project && o.ProjectDir == "":
		return nil, errors.New("install: no project folder")
	case o.Scope == User && o.Home == "":
		return nil, errors.New("install: no home folder")
	case o.Scope > User:
		return nil, fmt.Errorf("install: unknown scope %d", o.Scope)
	case strings.TrimSpace(o.Command) == "":
		return nil, errors.New("install: no luahook command")
	case strings.ContainsAny(o.Command, "\n\r"):
		return nil, errors.New("install: the luahook command holds a line break")
	}
	if o.Socket != "" {
		switch {
		case o.HTTP != "":
			return nil, errors.New("install: --http and --socket name two servers: give one")
		case !filepath.IsAbs(o.Socket) || strings.ContainsAny(o.Socket, "\n\r"):
			return nil, fmt.Errorf("--socket %q: want the absolute path of luahook serve's socket", o.Socket)
		case strings.TrimSpace(o.FireCommand) == "" || strings.ContainsAny(o.FireCommand, "\n\r"):
			return nil, errors.New("install: no luahook-fire command")
		}
	}
	if o.HTTP != "" {
		u, err := url.Parse(o.HTTP)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("--http %q: want the base URL of luahook serve, such as http://127.0.0.1:8787", o.HTTP)
		}
		o.HTTP = strings.TrimRight(u.String(), "/")
	}
	if err := o.checkToken(t); err != nil {
		return nil, err
	}
	return t, nil
}

// command returns the hook's command line: luahook fire --agent NAME, the
// event when the payload does not carry it, the hooks folder or config,
// and with forward the server it forwards the payload to.
func (o *Options) command(name agent.Name, event string, forward bool) string {
	if o.Socket != "" {
		// luahook-fire asks the server; what it cannot use it hands to
		// the luahook next to it, which blocks what it cannot decide.
		parts := []string{o.FireCommand, "--agent", string(name)}
		if event != "" {
			parts = append(parts, event)
		}
		return strings.Join(append(parts, "--socket", ShellQuote(o.Socket)), " ")
	}
	parts := []string{o.Command, "fire", "--agent", string(name)}
	if event != "" {
		parts = append(parts, event)
	}
	if o.Config != "" {
		parts = append(parts, "--config", ShellQuote(o.Config))
	}
	if o.HooksDir != "" {
		parts = append(parts, "--dir", ShellQuote(o.HooksDir))
	}
	if o.Scope == Project && o.Config == "" && o.HooksDir == "" && !forward {
		// The project's own policies, found from the payload's cwd upward;
		// none found blocks rather than falling back to another folder.
		parts = append(parts, "--project")
	}
	if forward {
		parts = append(parts, "--http", ShellQuote(o.HTTP))
		if o.TokenFile != "" {
			parts = append(parts, "--token-file", ShellQuote(o.TokenFile))
		}
		if o.TokenName != "" {
			parts = append(parts, "--token-name", ShellQuote(o.TokenName))
		}
	}
	return strings.Join(parts, " ")
}

// Forwards reports whether the hooks o writes run "luahook fire --http"
// (the agent has no HTTP hook that fails closed, so a command forwards
// the payload to the server and blocks when it cannot reach it).
func (o *Options) Forwards() bool {
	t, err := lookupTarget(o.Agent)
	return err == nil && o.HTTP != "" && !t.http
}

// Path returns the configuration file that o writes. A project's file is
// written inside the project through no link: Path refuses (naming the file
// and the link) a file whose way from the project folder goes through a
// link, or through anything that is not a folder of the user's own closed
// to others' writes (see checkProjectPath).
func (o *Options) Path() (string, error) {
	t, err := lookupTarget(o.Agent)
	if err != nil {
		return "", err
	}
	if o.Scope == User {
		return t.user(o.Home, o.Env), nil
	}
	path := t.project(o.ProjectDir)
	if err := checkProjectPath(o.ProjectDir, path); err != nil {
		return "", err
	}
	return path, nil
}

// Change is a settings file as it is and as install would write it.
type Change struct {
	// Path is the file written (a symbolic link is followed: its target).
	Path string
	// Old is the file's content, nil when it does not exist.
	Old []byte
	// New is the content install writes.
	New []byte
	// Mode is the file's permission bits, kept when it is replaced.
	Mode fs.FileMode
	// Warnings say what would keep the hooks from running.
	Warnings []string
}

// Plan reads the agent's configuration file and returns the change that
// wires luahook into it. Nothing is written. A file that cannot be used
// (not valid for its format, not of the shape the agent reads, larger than
// MaxFileBytes, not a regular file) is an error naming it, with a
// *FileError giving the line and column where there is one.
func Plan(o Options) (*Change, error) {
	t, err := o.check()
	if err != nil {
		return nil, err
	}
	path, err := o.Path()
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if path, err = filepath.EvalSymlinks(path); err != nil {
			return nil, err
		}
	}
	old, mode, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	out, warnings, err := merge(t, &o, path, old)
	if err != nil {
		return nil, err
	}
	return &Change{Path: path, Old: old, New: out, Mode: mode, Warnings: warnings}, nil
}

// readSettings reads a settings file, nil when it does not exist. The file
// is the one install writes: it is opened through no link at its own name,
// and must be a regular file of the user's own that neither group nor
// others can write (safefile.CheckFile).
func readSettings(path string) ([]byte, fs.FileMode, error) {
	f, fi, err := openSettings(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, newFileMode, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	data, err := regfile.ReadAll(f, fi, path, MaxFileBytes)
	if err != nil {
		return nil, 0, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, fi.Mode().Perm(), nil
}

// UpToDate reports whether the file already holds what install writes.
func (c *Change) UpToDate() bool {
	return c.Old != nil && bytes.Equal(c.Old, c.New)
}

// Write writes the change: first the backup of the file as it was
// (Path+BackupSuffix, when the file existed), then the new content; each
// is written to a temporary file in the same folder and renamed over the
// old one, with the file's permission bits. A file that changed since Plan
// read it is left alone. A change that is UpToDate writes nothing. backup
// is the backup's path, "" when none was written.
//
// Both are written in the file's folder as internal/safefile writes: the
// folder (made, mode 0755, when the file is new) must be a folder of the
// user's own or root's closed to others' writes, and a file already at
// either name a regular file of the user's own closed to others' writes;
// a link there is refused, never written through.
func (c *Change) Write() (backup string, err error) {
	if c.UpToDate() {
		return "", nil
	}
	var mkdir fs.FileMode
	if c.Old == nil {
		mkdir = 0o755
	}
	dir, err := safefile.OpenDir(safefile.Scope{Dir: filepath.Dir(c.Path), Follow: true, What: "the settings file's folder"}, "", mkdir)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	cur, _, err := readSettings(c.Path)
	if err != nil {
		return "", err
	}
	if (cur == nil) != (c.Old == nil) || !bytes.Equal(cur, c.Old) {
		return "", fmt.Errorf("%s changed while luahook was reading it: nothing written; run install again", c.Path)
	}
	name := filepath.Base(c.Path)
	if c.Old != nil {
		backup = c.Path + BackupSuffix
		if err := dir.WriteFile(name+BackupSuffix, c.Old, c.Mode); err != nil {
			return "", fmt.Errorf("backup: %w (the settings file was not changed)", err)
		}
	}
	if err := dir.WriteFile(name, c.New, c.Mode); err != nil {
		return backup, err
	}
	return backup, nil
}

// ShellQuote returns s as one word for a POSIX shell: as it is when it
// holds only characters no shell reads specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
