// Package project locates the places cairn reads and writes: the project root, Claude Code's
// config directory, Claude Code's per-project slug, and it keeps every path built from input
// confined to its root.
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Env is the process environment as a value, so that nothing deep in pkg reads os.Getenv.
type Env map[string]string

// EnvFrom turns os.Environ-style "K=V" pairs into an Env.
func EnvFrom(pairs []string) Env {
	e := make(Env, len(pairs))
	for _, kv := range pairs {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e[k] = v
		}
	}
	return e
}

// Get returns the value of key, or "".
func (e Env) Get(key string) string { return e[key] }

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

// ConfigDir returns Claude Code's config directory: $CLAUDE_CONFIG_DIR, else $HOME/.claude.
func ConfigDir(env Env) (string, error) {
	if d := env.Get("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	home := env.Get("HOME")
	if home == "" {
		return "", errors.New("neither CLAUDE_CONFIG_DIR nor HOME is set")
	}
	return filepath.Join(home, ".claude"), nil
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

// LegacySlug is seed 000's spelling: `sed 's|[/.]|-|g' | sed 's/^-//'` — only '/' and '.' are
// replaced and one leading dash is stripped.
func LegacySlug(path string) string {
	s := strings.NewReplacer("/", "-", ".", "-").Replace(path)
	return strings.TrimPrefix(s, "-")
}

// ErrOutside reports a path that would leave its root.
var ErrOutside = errors.New("path leaves the project root")

// Within reports whether the cleaned absolute path p is root itself or below it, lexically.
func Within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// Confine resolves p (absolute, or relative to root) and checks that it stays inside root both
// lexically and after following every symlink that exists along the way. A path whose tail does not
// exist yet is judged by its deepest existing ancestor. The returned path is the lexical one.
//
// Only the components below root are examined, one Lstat each, and a symlink among them is
// resolved and must land inside the root's real path; the root itself is resolved once per
// process. Every write confines its path and its lock's, so this is on every hook's hot path.
func Confine(root, p string) (string, error) {
	root = filepath.Clean(root)
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !Within(root, p) {
		return "", fmt.Errorf("%s: %w", p, ErrOutside)
	}
	realRoot, err := resolveRoot(root)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return p, err
	}
	cur := root
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing (or unreadable): what comes next will be created under cur, which is inside.
			return p, nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		real, err := filepath.EvalSymlinks(next)
		if err != nil {
			// A dangling symlink: refuse, since its target is unknown.
			return "", fmt.Errorf("%s: %w", p, ErrOutside)
		}
		if !Within(realRoot, real) {
			return "", fmt.Errorf("%s: resolves outside the project root: %w", p, ErrOutside)
		}
		cur = real
	}
	return p, nil
}

// realRoots caches each root's real path for the life of the process (a hook's few ms).
var realRoots sync.Map

func resolveRoot(root string) (string, error) {
	if r, ok := realRoots.Load(root); ok {
		return r.(string), nil
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	realRoots.Store(root, r)
	return r, nil
}

// SafeName reports whether s can name one path component built from input (a run id, a session
// id, a slug): non-empty, at most 128 bytes, no separators, no "." or "..", no NUL or control
// characters, not starting with '-' or '.'.
func SafeName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == ':' {
			return false
		}
	}
	return true
}

// StateDir is where cairn keeps its private state inside the project.
func StateDir(root string) string { return filepath.Join(root, ".claude", "state") }

// Branch returns the checked-out branch of the git repository at root by reading HEAD (no git
// process): "" outside git, the short commit id when HEAD is detached.
func Branch(root string) string {
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Stat(gitDir); err == nil && !fi.IsDir() {
		// A worktree or submodule: ".git" is a file "gitdir: <path>".
		data, err := os.ReadFile(gitDir)
		if err != nil {
			return ""
		}
		d := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(data)), "gitdir:"))
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		gitDir = d
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(data))
	if ref, ok := strings.CutPrefix(head, "ref: "); ok {
		return strings.TrimPrefix(ref, "refs/heads/")
	}
	if len(head) >= 7 {
		return head[:7]
	}
	return head
}
