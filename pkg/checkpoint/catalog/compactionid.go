package catalog

import (
	"strconv"
	"strings"
)

// The compaction's identity is defined beside the catalog, which is keyed by it, and below
// package compaction, which builds it (identityOf) and holds the policy about a missed
// or repeated PreCompact: the catalog cannot import compaction, which opens the catalog.

// CompactionID is a compaction's identity (docs/DESIGN.md, Facts about Claude Code): the same
// session, trigger and transcript length mean a repeated PreCompact for the same compaction, not
// a new one — no wall-clock window to tune.
type CompactionID struct {
	Session string
	Trigger string
	Size    int64 // the transcript's length at the compaction; -1 when unknown
}

// String is the identity as the records write it: "<session>/<trigger>/<size>".
func (id CompactionID) String() string {
	s, t := id.Session, id.Trigger
	if s == "" {
		s = "nosession"
	}
	if t == "" {
		t = "unknown"
	}
	return s + "/" + t + "/" + strconv.FormatInt(id.Size, 10)
}

// ParseCompactionID reads an identity written by String. The session is everything before the first '/',
// the size everything after the last one.
func ParseCompactionID(s string) (CompactionID, bool) {
	i, j := strings.IndexByte(s, '/'), strings.LastIndexByte(s, '/')
	if i <= 0 || j == i {
		return CompactionID{}, false
	}
	n, err := strconv.ParseInt(s[j+1:], 10, 64)
	if err != nil {
		return CompactionID{}, false
	}
	return CompactionID{Session: s[:i], Trigger: s[i+1 : j], Size: n}, true
}
