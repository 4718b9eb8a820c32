package parking

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Audit actions.
const (
	ActionArchived = "archived"
	ActionExpired  = "expired"
	// ActionPointerKept corrects an earlier line of the same item whose Pointer said
	// pointerRemoved: the edit of the memory index failed after that line was written, and the
	// pointer is still there (Text says why). It archives nothing: readers of archived and
	// expired items skip it (IsRemoval).
	ActionPointerKept = "pointer_kept"
)

// IsRemoval reports whether an audit action records an item's removal: archived or expired, or
// any other action the original /session workflow's snippets wrote; not a correction cairn
// appended.
func IsRemoval(action string) bool { return action != ActionPointerKept }

// What became of the pointer to a legacy file in Claude Code's memory index (AuditEntry.Pointer).
const (
	// pointerRemoved: the index had a line pointing at the file, removed after the file (the
	// line's text is in PointerText).
	pointerRemoved = "removed"
	// pointerUnchecked: the index is there but cairn leaves it alone (not a regular file,
	// larger than memindex.MaxSize, not UTF-8, unreadable); a pointer may remain in it.
	pointerUnchecked = "unchecked"
)

// AuditEntry is one line of the audit log. Text keeps the whole bullet or legacy file, so that
// nothing archived or expired is lost. Pointer, for a legacy file only, says what became of its
// pointer in the memory index beside it ("" when there was none: no index, or no line pointing
// at the file); PointerText keeps the lines removed, one per line.
type AuditEntry struct {
	TS          string `json:"ts"` // RFC 3339, UTC
	Item        string `json:"item"`
	Action      string `json:"action"`
	Text        string `json:"text,omitempty"`
	Pointer     string `json:"pointer,omitempty"`
	PointerText string `json:"pointer_text,omitempty"`
}

// Time parses TS; the zero time when it does not parse.
func (e AuditEntry) Time() time.Time {
	t, err := time.Parse(time.RFC3339, e.TS)
	if err != nil {
		return time.Time{}
	}
	return t
}

// maxAuditTail bounds how much of the end of each audit log ReadAudit reads.
const maxAuditTail = 256 << 10

// appendJSON appends the entry's line, as encoding/json writes it.
func (e AuditEntry) appendJSON(dst []byte) []byte {
	o := jsonw.Open(dst)
	o.Str("ts", e.TS)
	o.Str("item", e.Item)
	o.Str("action", e.Action)
	o.StrOmitEmpty("text", e.Text)
	o.StrOmitEmpty("pointer", e.Pointer)
	o.StrOmitEmpty("pointer_text", e.PointerText)
	return append(o.Close(), '\n')
}

// log appends one audit line per item, in a single write, with what the memory index holds for
// each legacy file (ptrs, parallel to items); the JSON writer escapes every name, however
// hostile.
func (s *Store) log(items []Item, ptrs []pointer, action string) error {
	for i := range ptrs {
		if i < len(items) {
			ptrs[i].item = items[i].Name
		}
	}
	var b []byte
	ts := s.Now().UTC().Format(time.RFC3339)
	for i, it := range items {
		// The whole item is kept, so that nothing archived is lost; its secrets are not (a legacy
		// file is copied from Claude's config directory as it was written, and so is its pointer).
		e := AuditEntry{TS: ts, Item: redact.Redact(it.Name), Action: action, Text: redact.Redact(it.Text)}
		e.Pointer, e.PointerText = ptrs[i].state, redact.Redact(strings.Join(ptrs[i].lines, "\n"))
		b = e.appendJSON(b)
	}
	return s.Files.Append(AuditPath(s.Root), b, 0o644)
}

// logKept appends the correction of each pointer the index edit could not remove (why says
// what failed).
func (s *Store) logKept(kept []pointer, why error) error {
	var b []byte
	ts := s.Now().UTC().Format(time.RFC3339)
	for _, p := range kept {
		e := AuditEntry{TS: ts, Item: redact.Redact(p.item), Action: ActionPointerKept, Pointer: pointerUnchecked,
			Text: redact.Redact("the memory index still points at " + p.name + ": " + why.Error())}
		b = e.appendJSON(b)
	}
	return s.Files.Append(AuditPath(s.Root), b, 0o644)
}

// ReadAudit returns the entries of the audit log and of the legacy log for which keep returns
// true, oldest first within each log (the current log first). Only the last 256 KiB of each log
// is read; lines that are not audit entries are skipped.
func ReadAudit(root string, keep func(AuditEntry) bool) ([]AuditEntry, error) {
	var out []AuditEntry
	for _, path := range []string{AuditPath(root), LegacyAuditPath(root)} {
		data, err := safefile.ReadTail(root, path, maxAuditTail)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		data = data[:len(data)-safefile.TornTail(data)]
		for _, l := range bytes.Split(data, []byte("\n")) {
			e, ok := ParseAuditLine(l)
			if !ok {
				continue
			}
			if keep == nil || keep(e) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// ParseAuditLine reads one line of the audit log (without its newline): a JSON object with a
// string item or action. ok is false for anything else.
func ParseAuditLine(l []byte) (AuditEntry, bool) {
	if len(bytes.TrimSpace(l)) == 0 || !gjson.ValidBytes(l) {
		return AuditEntry{}, false
	}
	doc := gjson.ParseBytes(l)
	if !doc.IsObject() {
		return AuditEntry{}, false
	}
	str := func(k string) string {
		if v := doc.Get(k); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	e := AuditEntry{TS: str("ts"), Item: str("item"), Action: str("action"), Text: str("text"),
		Pointer: str("pointer"), PointerText: str("pointer_text")}
	return e, e.Item != "" || e.Action != ""
}
