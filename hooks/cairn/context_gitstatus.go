package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// statusTimeout bounds the one git process a manual save runs.
const statusTimeout = 10 * time.Second

// modifiedFiles returns what a checkpoint records as files_modified: the paths `git status`
// reports, staged and unstaged, untracked files included (listed one by one, not as their
// directory), a rename as its new path, relative to root with forward slashes, in git's order.
// cairn's own files (the checkpoint directory, .claude/state/, memory/timeline.jsonl and its
// lock) are left out: they change with every save and say nothing about the work. Outside a git
// repository the list is empty and the error nil. git runs directly (no shell) with
// --no-optional-locks, so it never takes the index lock from under a concurrent git command.
func modifiedFiles(ctx context.Context, root string) ([]string, error) {
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "--no-optional-locks", "-C", root,
		"status", "--porcelain=v1", "-z", "--untracked-files=all")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			return nil, fmt.Errorf("git status: %v", err)
		}
		return nil, fmt.Errorf("git status: %v: %s", err, msg)
	}
	return parsePorcelain(out, ownPrefixes(root)), nil
}

func ownPrefixes(root string) []string {
	cp, _ := filepath.Rel(root, checkpoint.Dir(root))
	return []string{filepath.ToSlash(cp) + "/", ".claude/state/", timeline.File}
}

// parsePorcelain reads `git status --porcelain=v1 -z`: entries "XY path", where a rename or copy
// is followed by a second entry holding the old path.
func parsePorcelain(out []byte, skip []string) []string {
	var files []string
	seen := map[string]bool{}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 || f[2] != ' ' {
			continue
		}
		xy, path := f[:2], f[3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the old path
		}
		own := false
		for _, p := range skip {
			own = own || strings.HasPrefix(path, p)
		}
		if own || seen[path] {
			continue
		}
		seen[path] = true
		files = append(files, path)
	}
	return files
}
