package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/hookio"
	"github.com/cairn-hooks/cairn/pkg/inject"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// restoreProtocol is seed 001's restore protocol in two sentences.
const restoreProtocol = "The conversation was just compacted and its summary is lossy: before acting, re-read the files above in that order, then the in-progress files the whiteboard names. " +
	"Do not resume implementation from the summary alone; the files on disk are the truth."

// readOrder builds what SessionStart injects: the read order, and after a compaction the
// restore protocol and the whiteboard, cut to the budget with the cut announced.
func readOrder(root string, compact bool) (string, error) {
	r, err := runstate.Active(root)
	if errors.Is(err, runstate.ErrNoActive) {
		return "", errNoRun
	}
	if err != nil {
		return "", err
	}
	var files []string
	if exists(root, "AGENTS.md") {
		files = append(files, "AGENTS.md")
	}
	rules, _ := filepath.Glob(filepath.Join(root, ".agents", "rules", "*.md"))
	sort.Strings(rules)
	for _, f := range rules {
		rel, _ := filepath.Rel(root, f)
		if exists(root, rel) {
			files = append(files, filepath.ToSlash(rel))
		}
	}
	mem := r.Rel + "/MEMORY.md"
	for _, f := range []string{mem, r.Rel + "/state.json", ".agents/lessons-learned.md"} {
		if exists(root, f) {
			files = append(files, f)
		}
	}
	var head strings.Builder
	fmt.Fprintf(&head, "cairn: run %q is active (%s). Read, in this order:\n", r.ID, r.Rel)
	for i, f := range files {
		fmt.Fprintf(&head, "%d. %s\n", i+1, f)
	}
	if len(files) == 0 {
		head.WriteString("(none of AGENTS.md, .agents/rules/, the run's MEMORY.md and state.json, .agents/lessons-learned.md exist yet)\n")
	}
	b := inject.Budget{Max: hookio.MaxContext}
	b.Add(head.String(), "")
	if compact {
		b.Add("\n"+restoreProtocol+"\n", "")
		if p, ok := checkpoint.Newest(root); ok {
			rel, _ := filepath.Rel(root, p)
			b.Add("The newest checkpoint is "+filepath.ToSlash(rel)+" (cairn context restore shows it).\n", "")
		}
		if data, err := readConfined(root, mem); err == nil && len(data) > 0 {
			b.Add("\n--- "+mem+" ---\n"+string(data), mem)
		}
	}
	return b.String(), nil
}

// exists reports whether rel is a regular file that stays inside root.
func exists(root, rel string) bool {
	p, err := project.Confine(root, rel)
	if err != nil {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readConfined reads a file inside root, at most 1 MiB of it: the whiteboard is capped at 200
// lines, so anything larger is cut by the budget anyway.
func readConfined(root, rel string) ([]byte, error) {
	p, err := project.Confine(root, rel)
	if err != nil {
		return nil, err
	}
	return safefile.ReadHead(p, 1<<20)
}
