// Package projecttest builds the world of a cairn process for tests: one call gives a
// project.Project on a real directory, with a fixed clock and warnings collected. It is apart from package project so that no binary links the testing package.
package projecttest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// World is a Project with the warnings it reported.
type World struct {
	*project.Project
	mu       sync.Mutex
	warnings []string
}

// Warnings returns the warnings reported so far, formatted.
func (w *World) Warnings() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.warnings...)
}

// New returns the world of a process working in root at the instant now: a confined disk writer,
// Claude Code's config directory config ("" for none), an empty environment. Each warning is
// kept and logged to t.
func New(t testing.TB, root, config string, now time.Time) *World {
	w := &World{}
	w.Project = &project.Project{
		Root: root, Config: config, Env: project.Env{},
		Files: safefile.Disk{Roots: []string{root}},
		Now:   func() time.Time { return now },
		Warn: func(format string, args ...any) {
			msg := fmt.Sprintf(format, args...)
			t.Logf("warning: %s", msg)
			w.mu.Lock()
			w.warnings = append(w.warnings, msg)
			w.mu.Unlock()
		},
	}
	return w
}
