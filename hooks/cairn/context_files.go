package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/setup/skills"
)

// cairnWrites are the paths under a project that cairn writes itself, which `git status` lists
// but which are no work of the session's, so a checkpoint's files_modified leaves them out:
// the binaries and the derived index, the personal settings cairn approves its MCP server in,
// the run directories, and the audit log and digests of /session. (The checkpoints, the
// timeline and .claude/state/ are left out by modifiedFiles already.)
var cairnWrites = []string{
	".claude/cairn/",
	".claude/settings.local.json",
	".agents/runs/",
	".notes/logs/session-archive.jsonl",
	".temp/output-session-summary-",
}

// cairnInstalls are the project files cairn install creates that are also the project's own:
// left out only while git does not track them, that is, until someone commits them. A change to
// a committed settings.json is work worth recording.
var cairnInstalls = []string{".claude/settings.json", ".mcp.json", ".claude/.gitignore"}

// withoutCairnFiles is files (git status paths, relative to root, with '/') without those cairn
// wrote itself: cairnWrites, cairn's own skills, and cairnInstalls that git does not track. A
// first save after the install then lists the session's files, not the install's.
func withoutCairnFiles(ctx context.Context, env project.Env, root string, files []string) []string {
	var installs []string
	out := slices.DeleteFunc(slices.Clone(files), func(f string) bool {
		for _, p := range cairnWrites {
			if strings.HasPrefix(f, p) {
				return true
			}
		}
		if slices.Contains(cairnInstalls, f) {
			installs = append(installs, f)
		}
		return isCairnSkill(root, f)
	})
	if len(installs) == 0 {
		return out
	}
	tracked, err := git(ctx, env, root, append([]string{"ls-files", "-z", "--"}, installs...)...)
	if err != nil {
		return out
	}
	known := strings.Split(tracked, "\x00")
	return slices.DeleteFunc(out, func(f string) bool {
		return slices.Contains(installs, f) && !slices.Contains(known, f)
	})
}

// isCairnSkill reports whether f is the SKILL.md of one of cairn's skills, as cairn wrote it.
func isCairnSkill(root, f string) bool {
	dir, ok := strings.CutPrefix(f, ".claude/skills/")
	if !ok {
		return false
	}
	name, ok := strings.CutSuffix(dir, "/SKILL.md")
	if !ok || !slices.Contains(skills.Names, name) {
		return false
	}
	data, _, err := safefile.ReadFile(root, filepath.Join(root, filepath.FromSlash(f)), maxSkill)
	return err == nil && skills.IsCairn(data)
}

// maxSkill bounds the SKILL.md read to tell cairn's from another: a skill is a few KiB, and the
// file is the repository's.
const maxSkill = 4 << 20
