package parking

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// Audit actions.
const (
	ActionArchived = "archived"
	ActionExpired  = "expired"
)

// AuditEntry is one line of the audit log. Text keeps the whole bullet or legacy file, so that
// nothing archived or expired is lost.
type AuditEntry struct {
	TS     string `json:"ts"` // RFC 3339, UTC
	Item   string `json:"item"`
	Action string `json:"action"`
	Text   string `json:"text,omitempty"`
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

// log appends one audit line per item, in a single write. encoding/json escapes every name,
// however hostile.
func (s *Store) log(items []Item, action string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	ts := s.Now().UTC().Format(time.RFC3339)
	for _, it := range items {
		if err := enc.Encode(AuditEntry{TS: ts, Item: it.Name, Action: action, Text: it.Text}); err != nil {
			return err
		}
	}
	return s.Files.Append(AuditPath(s.Root), b.Bytes(), 0o644)
}

// ReadAudit returns the entries of the audit log and of seed 000's legacy log for which keep
// returns true, oldest first within each log (the current log first). Only the last 256 KiB of
// each log is read; lines that are not audit entries are skipped.
func ReadAudit(root string, keep func(AuditEntry) bool) ([]AuditEntry, error) {
	var out []AuditEntry
	for _, path := range []string{AuditPath(root), LegacyAuditPath(root)} {
		data, err := readTail(path, maxAuditTail)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			var e AuditEntry
			if len(bytes.TrimSpace(l)) == 0 || json.Unmarshal(l, &e) != nil || e.Item == "" && e.Action == "" {
				continue
			}
			if keep == nil || keep(e) {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// readTail reads at most limit bytes from the end of path, from the first line start in them.
func readTail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fs.ErrNotExist
	}
	off := max(fi.Size()-limit, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return nil, err
	}
	if off > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return data, nil
}
