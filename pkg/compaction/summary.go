package compaction

import (
	"errors"
	"fmt"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/stores"
)

// LastRecorded returns the identity, as written, of the newest compaction of session sid that
// has an automatic checkpoint in the catalog, or "". Unlike recorded (the project's last
// snapshot, whichever session took it), it is not confused by a parallel session compacting.
func LastRecorded(cat *catalog.Catalog, sid string) string {
	c, ok := cat.Latest(checkpoint.KindAuto, sid, "")
	if !ok || sid == "" {
		return ""
	}
	return c.Event
}

// Summarize is PostCompact's record: Claude Code's own summary of the compaction that just
// happened (summary: compact_summary as received) goes into that compaction's automatic
// checkpoint (catalog.AttachSummary). Claude Code runs PostCompact after PreCompact and
// SessionStart(compact) and before it writes the compaction's boundary (testscripts/e2e/FINDINGS.md), so the
// session's newest automatic checkpoint is this compaction's exactly when the transcript shows
// no boundary after it (Missed). When it is not — PreCompact did not run and SessionStart did
// not record it late — the compaction is recorded first, marked late. A repeated PostCompact
// changes nothing.
func Summarize(p *project.Project, st *stores.Stores, in Input, summary string) error {
	if in.SessionID == "" {
		return errors.New("no session_id in the payload: cannot tell which compaction this is")
	}
	last := LastRecorded(st.Catalog, in.SessionID)
	missed, err := Missed(in.SessionID, last, BoundariesOf(in.Transcript))
	if err != nil {
		p.Warn("%v", err)
	}
	if missed || last == "" {
		in.Late = true
		if err := Record(p, st, in); err != nil {
			return fmt.Errorf("recording the compaction PreCompact missed: %w", err)
		}
		if p.DryRun {
			return nil // the checkpoint is only planned
		}
	}
	text := catalog.CompactSummary(summary)
	if text == "" {
		return nil // nothing to keep; the checkpoint says what cairn saw
	}
	c, ok := st.Catalog.Latest(checkpoint.KindAuto, in.SessionID, "")
	if !ok {
		return fmt.Errorf("no automatic checkpoint of session %s to keep Claude Code's summary in", in.SessionID)
	}
	if _, err := catalog.AttachSummary(p.Files, p.Shared(), c, text); err != nil {
		return fmt.Errorf("keeping Claude Code's summary: %w", err)
	}
	return nil
}
