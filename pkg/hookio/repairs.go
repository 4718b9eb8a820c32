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
// (TakeRepairs) and says so once, in cairn's own words. A note is cairn's text about cairn's own
// files: no repository text is in it.

// maxRepairNotes bounds the notes file; maxRepairRunes one note.
const (
	maxRepairNotes = 16 << 10
	maxRepairRunes = 300
)

// repairsFile is where the hooks note the repairs they made to the state of the project at root.
func repairsFile(config, root string) string {
	return filepath.Join(config, "cairn", "repairs", project.Slug(root))
}

// noteRepair notes a repair (what, after the "repaired:" prefix) for the next SessionStart. Best
// effort and unsynced: a lost note costs the notice, never the repair, which cairn.log keeps.
func (inv *Invocation) noteRepair(what string) {
	if inv.DryRun || inv.Config == "" || inv.Root == "" || inv.Files == nil {
		return
	}
	dir := filepath.Join(inv.Config, "cairn")
	if os.MkdirAll(filepath.Join(dir, "repairs"), 0o700) != nil {
		return
	}
	line := fmt.Sprintf("%s %s: %s\n", inv.Now().UTC().Format(time.RFC3339), inv.name, plain.Line(what, maxRepairRunes))
	// Through the project's writer, let out under <config>/cairn alone: its lock stays in the
	// project's lock directory, as the records of runs and parked items do.
	_ = inv.Files.Under(dir).Append(repairsFile(inv.Config, inv.Root), []byte(line), 0o600, safefile.NoSync, safefile.RotateAt(maxRepairNotes))
}

// TakeRepairs returns the repairs the hooks noted since the last call, oldest first (each
// "<time> <hook>: <what>"), and removes the notes. A note a hook appends between the read and the
// removal is lost to the notice only.
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
		if l = plain.Line(l, maxRepairRunes+64); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// RepairNotice is the sentence SessionStart adds for the repairs TakeRepairs returned: how many,
// the latest, and where to read them all; "" for none.
func RepairNotice(repairs []string) string {
	if len(repairs) == 0 {
		return ""
	}
	latest := repairs[len(repairs)-1]
	if _, rest, ok := strings.Cut(latest, " "); ok {
		latest = rest // without its time
	}
	n := "1 repair"
	if len(repairs) > 1 {
		n = fmt.Sprintf("%d repairs", len(repairs))
	}
	return fmt.Sprintf("cairn repaired its own state since the last session start (%s; the latest, by %s). `cairn doctor` lists them; nothing needs doing.",
		n, plain.Line(latest, maxRepairRunes))
}
