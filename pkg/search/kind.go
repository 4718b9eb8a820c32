package search

import (
	"fmt"
	"strings"
)

// Kind is what an item is.
type Kind uint8

// The kinds of item, in the index's numbering (never renumber: an index stores them).
const (
	Saved    Kind = iota + 1 // a checkpoint someone saved (cairn context save)
	Auto                     // an automatic checkpoint, one per compaction, with its summary
	Handoff                  // a hand-off checkpoint, one per session that did work
	Parked                   // an open parked item
	Archived                 // a parked item archived, from the audit log, with its text
	Expired                  // a parked item that expired, from the audit log, with its text
	Timeline                 // a line of memory/timeline.jsonl
	Session                  // a stretch of one of Claude Code's transcripts: a prompt and what followed
	Pruned                   // a checkpoint retention removed, from memory/pruned.jsonl
	numKinds                 // kinds are below this
)

var kindNames = [numKinds]string{"", "saved", "auto", "handoff", "parked", "archived", "expired", "timeline", "session", "pruned"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// isCheckpoint reports a kind of checkpoint: saved, auto or handoff.
func (k Kind) isCheckpoint() bool { return k == Saved || k == Auto || k == Handoff }

// weight is each kind's prior: BM25 times it is an item's score. Checkpoints people saved and
// hand-offs are what a search is most often after; an automatic checkpoint holds a compaction
// summary (useful, but there is one per compaction and it restates the others); archived and
// expired items are closed loops; a timeline line is a bare event (when, which branch, which
// checkpoint) that matches mostly through its branch name, so it ranks below the items it
// points at. A session's stretch is the conversation itself, as a person typed it and Claude
// answered; a pruned checkpoint weighs what it weighed before it was pruned, about an automatic
// one's.
var weight = [numKinds]float64{0, 1, 0.85, 1, 1, 0.9, 0.8, 0.5, 0.9, 0.85}

// KindSet is a set of kinds; the zero set means every kind.
type KindSet uint16

// has reports whether k is in the set (every kind is in the zero set).
func (s KindSet) has(k Kind) bool { return s == 0 || s&(1<<k) != 0 }

// KindNames lists what ParseKinds accepts.
const KindNames = "saved, auto, handoff, checkpoint (the three), parked, archived, expired, timeline, session, pruned"

// ParseKinds reads a --kind value: kind names separated by commas; "checkpoint" is saved, auto
// and handoff; "" is every kind.
func ParseKinds(s string) (KindSet, error) {
	var set KindSet
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if f == "checkpoint" || f == "checkpoints" {
			set |= 1<<Saved | 1<<Auto | 1<<Handoff
			continue
		}
		k := kindByName(strings.TrimSuffix(f, "s"))
		if k == 0 {
			k = kindByName(f)
		}
		if k == 0 {
			return 0, fmt.Errorf("unknown kind %q: use %s", f, KindNames)
		}
		set |= 1 << k
	}
	return set, nil
}

func kindByName(name string) Kind {
	for k := Saved; k < numKinds; k++ {
		if kindNames[k] == name {
			return k
		}
	}
	return 0
}
