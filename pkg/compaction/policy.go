package compaction

import (
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// Boundaries is what the policy asks of a transcript; *transcript.File answers it, from one
// reading back from the end shared by the questions.
type Boundaries interface {
	// CompactionsAfter counts the compaction boundaries that start at or after offset.
	CompactionsAfter(offset int64) (int, error)
	// EndsWithCompaction reports whether the last line is a compaction boundary.
	EndsWithCompaction() (bool, error)
	// LastBoundary finds the last compaction boundary; found is false when there was none.
	LastBoundary() (offset int64, found bool, err error)
	// AnsweredSinceCompaction reports whether Claude answered after the last compaction boundary.
	AnsweredSinceCompaction() (bool, error)
}

// BoundariesOf is tr as the policy's Boundaries, nil (nothing to judge by) when there is none.
func BoundariesOf(tr *transcript.File) Boundaries {
	if tr == nil {
		return nil
	}
	return tr
}

// Missed reports whether PreCompact did not run for the compaction session sid just went through,
// given last — the identity recorded by the last PreCompact (recorded) — and the session's
// transcript. PreCompact records the transcript's length. A client that runs
// SessionStart(compact) before it appends the compaction's boundary shows no boundary after that
// length when PreCompact ran; one that writes the boundary first shows exactly one, as the
// transcript's last line (testscripts/e2e/FINDINGS.md records which order the clients use).
// Anything else — no record of this session, a boundary after the recorded length followed by
// more conversation, or two boundaries — means a compaction came after the record and this one
// was missed (PreCompact sometimes does not fire: docs/DESIGN.md, Facts about Claude Code).
// Without a session or a transcript there is nothing to judge by: false.
func Missed(sid string, last string, tr Boundaries) (bool, error) {
	if sid == "" || tr == nil {
		return false, nil
	}
	id, ok := catalog.ParseCompactionID(last)
	if !ok || id.Session != sid {
		return true, nil
	}
	if id.Size < 0 {
		return false, nil // PreCompact ran but saw no transcript
	}
	n, err := tr.CompactionsAfter(id.Size)
	if err != nil {
		return false, err
	}
	switch n {
	case 0:
		return false, nil
	case 1:
		ends, err := tr.EndsWithCompaction()
		return err == nil && !ends, err
	}
	return true, nil
}

// CompactedSince reports whether a resumed session's transcript shows a compaction after the
// last snapshot cairn took of it (last, as recorded returns it), or at all when cairn has none of
// this session: then the whiteboard is handed back as after a compaction.
func CompactedSince(sid string, last string, tr Boundaries) (bool, error) {
	if tr == nil {
		return false, nil
	}
	id, ok := catalog.ParseCompactionID(last)
	if !ok || id.Session != sid || id.Size < 0 {
		_, found, err := tr.LastBoundary()
		return found, err
	}
	n, err := tr.CompactionsAfter(id.Size)
	return n > 0, err
}

// PendingHandBack reports whether a resumed session without a run is owed the hand-back of a
// compaction: cairn recorded one of this session, the transcript shows a compaction since that
// record (CompactedSince), and Claude has not answered since the last one — a client that drops
// SessionStart(compact)'s context (2.1.100 after /compact) resumed straight after it. A session
// that went on after its compaction has worked since, and its paths and tasks have moved on: it
// is not handed them again at every resume. Without a record there is no automatic checkpoint
// to hand back, and the transcript is not read.
func PendingHandBack(sid string, last string, tr Boundaries) (bool, error) {
	if id, ok := catalog.ParseCompactionID(last); tr == nil || !ok || id.Session != sid {
		return false, nil
	}
	since, err := CompactedSince(sid, last, tr)
	if !since || err != nil {
		return false, err
	}
	answered, err := tr.AnsweredSinceCompaction()
	return !answered && err == nil, err
}
