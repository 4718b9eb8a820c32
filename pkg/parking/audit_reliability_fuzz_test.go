package parking

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// FuzzReadAudit: reading the audit log never panics on any content, returns only entries that
// name an item or an action, and an entry that the store appends after complete lines is read
// back whole — the audit log is where archived and expired items keep their text, so an entry
// that cannot be read back is an item lost.
//
// The append is checked only after content that ends with a newline: what follows a torn last
// line (a write cut by a full disk or a crash) is covered by the reliability suite
// (testscripts/reliability/, TestFullDisk).
func FuzzReadAudit(f *testing.F) {
	for _, s := range []string{
		`{"ts":"2026-11-29T10:00:00Z","item":"a","action":"archived","text":"- **a** — x."}` + "\n",
		`{"ts":"x","item":"","action":""}` + "\n" + `not json` + "\n" + `[1,2]` + "\n",
		`{"item":"a"}` + "\n" + `{"action":"expired","text":"\u0000"}`,
		"\n\n\r\n",
		`{"ts":"2026-11-29T10:00:00Z","item":"a","act`,
		"\xff\xfe{\"item\":1}\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxAuditTail/4 {
			return
		}
		root := t.TempDir()
		// A new project per input: the directories safefile keeps open for a process's few
		// projects are let go after each, or thousands of inputs run out of descriptors.
		t.Cleanup(safefile.Release)
		path := AuditPath(root)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadAudit(root, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got {
			if e.Item == "" && e.Action == "" {
				t.Fatalf("entry with neither item nor action: %+v", e)
			}
		}
		if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
			return
		}
		now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		s := New(root, "", safefile.Disk{Roots: []string{root}}, func() time.Time { return now })
		want := AuditEntry{TS: "2026-11-29T10:00:00Z", Item: "fuzz-item", Action: ActionArchived, Text: "- **fuzz-item** — Deferred: x.\n\"quoted\" \u2028",
			Pointer: pointerRemoved, PointerText: "- [x](session-open-x.md) — <y>\n- [x](./session-open-x.md)"}
		ptr := pointer{state: pointerRemoved, lines: []string{"- [x](session-open-x.md) — <y>", "- [x](./session-open-x.md)"}}
		if err := s.log([]Item{{Name: want.Item, Text: want.Text}}, []pointer{ptr}, want.Action); err != nil {
			t.Fatal(err)
		}
		after, err := ReadAudit(root, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(got)+1 || after[len(after)-1] != want {
			b, _ := json.Marshal(after)
			t.Fatalf("appended entry not read back whole: before %d entries, after %s", len(got), b)
		}
	})
}
