// Package project locates the places cairn reads and writes: the project root, Claude Code's
// config directory, Claude Code's per-project slug and the checked-out branch.
package project

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Env is the process environment as a value, so that nothing deep in pkg reads os.Getenv.
type Env map[string]string

// EnvFrom turns os.Environ-style "K=V" pairs into an Env.
func EnvFrom(pairs []string) Env { return envFrom(runtime.GOOS, pairs) }

// envFrom is EnvFrom on goos. Windows's environment is case-insensitive (its PATH comes as
// "Path", and LOCALAPPDATA as any case): there every key is kept in upper case, which is how Get
// finds it.
func envFrom(goos string, pairs []string) Env {
	e := make(Env, len(pairs))
	for _, kv := range pairs {
		// On Windows a key may start with '=' ("=C:=C:\dir"): it is not a variable to look up.
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			if goos == "windows" {
				k = strings.ToUpper(k)
			}
			e[k] = v
		}
	}
	return e
}

// Get returns the value of key, or "": key as written, else in upper case (an Env made from
// Windows's environment holds upper-case keys).
func (e Env) Get(key string) string {
	if v, ok := e[key]; ok {
		return v
	}
	return e[strings.ToUpper(key)]
}

// List is e as a process environment ("K=V" pairs, sorted): for a command cairn runs.
func (e Env) List() []string {
	out := make([]string, 0, len(e))
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// Root returns the project root for a hook payload's cwd: $CLAUDE_PROJECT_DIR when set, else the
// git top level above cwd (found by walking up for a .git entry — no git process on the hot path),
// else cwd itself. The result is absolute and cleaned.
func Root(env Env, cwd string) (string, error) {
	if d := env.Get("CLAUDE_PROJECT_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if cwd == "" {
		return "", errors.New("no cwd in payload and CLAUDE_PROJECT_DIR unset")
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", err
	}
	if top, ok := GitTop(abs); ok {
		return top, nil
	}
	return abs, nil
}

// GitTop walks up from dir looking for a .git directory or file (worktrees and submodules use a
// file) and returns the directory holding it.
func GitTop(dir string) (string, bool) {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// ConfigDir returns Claude Code's config directory: $CLAUDE_CONFIG_DIR, else <home>/.claude.
func ConfigDir(env Env) (string, error) {
	if d := env.Get("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	home := homeDir(env)
	if home == "" {
		return "", errors.New("neither CLAUDE_CONFIG_DIR nor HOME is set")
	}
	return filepath.Join(home, ".claude"), nil
}

// ClaudeJSON returns Claude Code's own state file, where `claude mcp add --scope user` registers
// servers: $CLAUDE_CONFIG_DIR/.claude.json, else <home>/.claude.json (beside the config
// directory, not in it).
func ClaudeJSON(env Env) (string, error) {
	if d := env.Get("CLAUDE_CONFIG_DIR"); d != "" {
		abs, err := filepath.Abs(d)
		return filepath.Join(abs, ".claude.json"), err
	}
	home := homeDir(env)
	if home == "" {
		return "", errors.New("neither CLAUDE_CONFIG_DIR nor HOME is set")
	}
	return filepath.Join(home, ".claude.json"), nil
}

// homeDir is the user's home directory as Claude Code finds it (Node's os.homedir): $HOME, else,
// on Windows, where HOME is usually not set, %USERPROFILE%; "" when neither is.
func homeDir(env Env) string {
	if h := env.Get("HOME"); h != "" {
		return h
	}
	return env.Get("USERPROFILE")
}

// Slug is Claude Code's name for a project directory under <config>/projects: every character
// that is not [A-Za-z0-9] becomes '-', with no squeezing and the leading '-' kept
// ("/home/me/my.proj" → "-home-me-my-proj"). Claude Code counts UTF-16 units; a non-ASCII rune
// outside the BMP therefore becomes two dashes.
func Slug(path string) string {
	var b strings.Builder
	for _, r := range path {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// LegacySlug is the original /session workflow's spelling (docs/PARKING.md, Where items live):
// `sed 's|[/.]|-|g' | sed 's/^-//'` — only '/' and '.' are replaced and one leading dash is
// stripped.
func LegacySlug(path string) string {
	s := strings.NewReplacer("/", "-", ".", "-").Replace(path)
	return strings.TrimPrefix(s, "-")
}

// SafeName reports whether s can name one path component built from input (a run id, a session
// id, a slug): non-empty, at most 128 bytes, no separators, no "." or "..", no NUL or control
// characters, not starting with '-' or '.'.
func SafeName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if plain.IsControl(r) || r == '/' || r == '\\' || r == ':' {
			return false
		}
	}
	return true
}

// StateDir is where cairn keeps its private state inside the project.
func StateDir(root string) string { return filepath.Join(root, ".claude", "state") }

// headBranch returns the checked-out branch of the checkout at root, whose git dir is dir (named
// by a ".git" file when file is true, so that it may lie outside root), by reading HEAD (no git
// process): the short commit id when HEAD is detached, "" when it cannot be read. HEAD is read as
// any file of an untrusted project is: regular files only, without blocking, at most a few KiB.
func headBranch(root, dir string, file bool) string {
	var head []byte
	var err error
	if file {
		head, _, err = safefile.ReadLoose(filepath.Join(dir, "HEAD"), maxGitFile)
	} else {
		head, _, err = safefile.ReadFile(root, filepath.Join(dir, "HEAD"), maxGitFile) // inside the root: confined
	}
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		return strings.TrimPrefix(ref, "refs/heads/")
	}
	if len(s) >= 7 {
		return s[:7]
	}
	return s
}

// maxGitFile bounds the files git keeps that cairn reads: HEAD, and the links of a worktree (its
// ".git" file, its git dir's "commondir" and "gitdir"); each is one short line.
const maxGitFile = 4 << 10
