package compaction

import (
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// Boundaries is what the policy asks of a transcript; package transcript answers it.
type Boundaries interface {
	// After counts the compaction boundaries that start at or after offset.
	After(offset int64) (int, error)
	// EndsWithOne reports whether the last line is a compaction boundary.
	EndsWithOne() (bool, error)
	// Any reports whether the transcript was ever compacted.
	Any() (bool, error)
	// Answered reports whether Claude answered after the last compaction boundary.
	Answered() (bool, error)
}

// Transcript returns the Boundaries of the transcript at path.
func Transcript(path string) Boundaries { return transcriptFile(path) }

type transcriptFile string

func (t transcriptFile) After(offset int64) (int, error) {
	return transcript.CompactionsAfter(string(t), offset)
}
func (t transcriptFile) EndsWithOne() (bool, error) { return transcript.EndsWithCompaction(string(t)) }
func (t transcriptFile) Answered() (bool, error) {
	return transcript.AnsweredSinceCompaction(string(t))
}
func (t transcriptFile) Any() (bool, error) {
	_, found, err := transcript.LastBoundary(string(t))
	return found, err
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
	n, err := tr.After(id.Size)
	if err != nil {
		return false, err
	}
	switch n {
	case 0:
		return false, nil
	case 1:
		ends, err := tr.EndsWithOne()
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
		return tr.Any()
	}
	n, err := tr.After(id.Size)
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
	answered, err := tr.Answered()
	return !answered && err == nil, err
}
