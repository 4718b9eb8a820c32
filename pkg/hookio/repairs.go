package hookio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// A repair cairn made to its own state (a catalog or a lock directory a clone committed broken,
// moved aside and rebuilt) keeps the hooks working, and its warning reaches stderr and cairn.log,
// which only `cairn doctor` and Claude Code's debug log show. So the hook that makes one also
// notes it where no repository can write, the user's config directory
// (<config>/cairn/repairs/<slug of the root>), and the next SessionStart takes the notes
// (TakeRepairs) and says so once (RepairNotice). Only a repair reported as one is noted
// (Invocation.repaired, safefile.Disk's Repaired), never a warning that merely reads like one. A
// note holds the time and the hook's name and nothing of the warning's text: a warning can carry
// names a clone chose (a run's directory, the project's path), so the sentence is made of cairn's
// words alone, and what was repaired is left to `cairn doctor`, which prints cairn.log's lines as
// the log's.

// maxRepairNotes bounds the notes file; maxNoteRunes one note as it is read back.
const (
	maxRepairNotes = 16 << 10
	maxNoteRunes   = 64
)

// repairsFile is where the hooks note the repairs they made to the state of the project at root.
func repairsFile(config, root string) string {
	return filepath.Join(config, "cairn", "repairs", project.Slug(root))
}

// noteRepair notes that this hook repaired cairn's state, for the next SessionStart. Best effort
// and unsynced: a lost note costs the notice, never the repair, which cairn.log keeps.
func (inv *Invocation) noteRepair() {
	if inv.DryRun || inv.Config == "" || inv.Root == "" || inv.Files == nil {
		return
	}
	dir := filepath.Join(inv.Config, "cairn")
	if os.MkdirAll(filepath.Join(dir, "repairs"), 0o700) != nil {
		return
	}
	line := fmt.Sprintf("%s %s\n", inv.Now().UTC().Format(time.RFC3339), inv.name)
	// Through the project's writer, let out under <config>/cairn alone: its lock stays in the
	// project's lock directory, as the records of runs and parked items do.
	_ = inv.Files.Under(dir).Append(repairsFile(inv.Config, inv.Root), []byte(line), 0o600, safefile.NoSync, safefile.RotateAt(maxRepairNotes))
}

// TakeRepairs returns the repairs the hooks noted since the last call, oldest first (each "<time>
// <hook>"), and removes the notes. A note a hook appends between the read and the removal is lost
// to the notice only.
func (inv *Invocation) TakeRepairs() []string {
	if inv.Config == "" || inv.Root == "" || inv.Files == nil {
		return nil
	}
	path := repairsFile(inv.Config, inv.Root)
	data, _, err := safefile.ReadLoose(path, maxRepairNotes)
	if err != nil || len(data) == 0 {
		return nil
	}
	if !inv.DryRun {
		_ = inv.Files.Under(filepath.Join(inv.Config, "cairn")).Remove(path)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = plain.Line(l, maxNoteRunes); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// RepairNotice is the sentence SessionStart adds for the repairs TakeRepairs returned, "" for none:
// how many, and which hook made the latest (named only when the note holds a hook's name: one
// lowercase word).
func RepairNotice(repairs []string) string {
	if len(repairs) == 0 {
		return ""
	}
	n := "1 repair"
	if len(repairs) > 1 {
		n = fmt.Sprintf("%d repairs", len(repairs))
	}
	by := ""
	if _, hook, ok := strings.Cut(repairs[len(repairs)-1], " "); ok && isHookName(hook) {
		by = ", the latest by " + hook
	}
	return fmt.Sprintf("cairn repaired its own state since the last session start (%s%s: a catalog or a lock directory it could not use, moved aside and made again). `cairn doctor` lists them; nothing needs doing.", n, by)
}

// isHookName reports a name as cairn's hooks have (Hook.Name): one word of lowercase letters.
func isHookName(s string) bool {
	return s != "" && len(s) <= 32 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") == ""
}
