package timeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

func TestAppendOneLineTimeFirst(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.FixedZone("x", 3600))
	d := safefile.Disk{Roots: []string{root}}
	if err := OpenAt(root, d).Append(Event{Time: t0, Event: SessionStart, Session: "s1", Source: "startup"}); err != nil {
		t.Fatal(err)
	}
	if err := OpenAt(root, d).Append(Event{Time: t0, Event: SessionEnd, Session: "s1", Reason: "other"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, File))
	want := `{"ts":"2026-11-29T09:00:00Z","event":"session_start","session":"s1","source":"startup"}` + "\n" +
		`{"ts":"2026-11-29T09:00:00Z","event":"session_end","session":"s1","reason":"other"}` + "\n"
	if string(data) != want {
		t.Fatalf("%s", data)
	}
}

// The branch an event carries comes after its session, before its source.
func TestAppendWithBranch(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 4, 18, 14, 30, 0, 0, time.FixedZone("PDT", -7*3600))
	ev := Event{Time: t0, Event: SessionStart, Session: "s1", Branch: "main", Source: "startup"}
	if err := OpenAt(root, safefile.Disk{Roots: []string{root}}).Append(ev); err != nil {
		t.Fatal(err)
	}
	if err := OpenAt(root, safefile.Disk{Roots: []string{root}}).Append(Event{Time: t0, Event: SessionEnd, Session: "s1", Reason: "other"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, File))
	want := `{"ts":"2026-04-18T21:30:00Z","event":"session_start","session":"s1","branch":"main","source":"startup"}
{"ts":"2026-04-18T21:30:00Z","event":"session_end","session":"s1","reason":"other"}
`
	if string(data) != want {
		t.Fatalf("%s", data)
	}
}

// A line is what encoding/json wrote for the same event, time first.
func TestLineMatchesEncodingJSON(t *testing.T) {
	type plain struct {
		TS         string `json:"ts"`
		Event      string `json:"event"`
		Session    string `json:"session,omitempty"`
		Branch     string `json:"branch,omitempty"`
		Worktree   string `json:"worktree,omitempty"`
		Source     string `json:"source,omitempty"`
		Trigger    string `json:"trigger,omitempty"`
		Reason     string `json:"reason,omitempty"`
		Checkpoint string `json:"checkpoint,omitempty"`
		Compaction string `json:"compaction,omitempty"`
		Note       string `json:"note,omitempty"`
	}
	for _, e := range []Event{
		{Time: time.Date(2026, 4, 18, 14, 30, 0, 0, time.FixedZone("PDT", -7*3600)), Event: Compaction, Session: "s<1>", Branch: "feat/&x", Trigger: "auto", Checkpoint: "memory/x \"y\".md"},
		{Event: SessionEnd, Reason: "clear\n\xff"},
		{Event: SessionStart, Source: "startup", Session: "\u2028"},
		{Event: Pruned, Checkpoint: "memory/x.md", Compaction: "s1/auto/42", Note: "retention <30>"},
		{Event: SessionStart, Session: "s2", Branch: "feat", Worktree: "wt-feat", Source: "startup"},
	} {
		want, _ := json.Marshal(plain{e.Time.UTC().Format(time.RFC3339), e.Event, e.Session, e.Branch, e.Worktree, e.Source, e.Trigger, e.Reason, e.Checkpoint, e.Compaction, e.Note})
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Errorf("%s\nwant\n%s", got, want)
		}
	}
}

// Parse reads back what Append writes, and refuses what is not an event.
func TestParseRoundTrip(t *testing.T) {
	e := Event{Time: time.Date(2026, 4, 18, 21, 30, 0, 0, time.UTC), Event: Compaction, Session: "s<1>", Branch: "feat/&x",
		Worktree: "wt", Trigger: "auto", Checkpoint: "memory/x \"y\".md"}
	got, ok := Parse(e.appendJSON(nil))
	if !ok || got != e {
		t.Fatalf("got %+v, %v; want %+v", got, ok, e)
	}
	for _, bad := range []string{``, `{}`, `[1]`, `{"event":3}`, `{"event":"x"`, `not json`} {
		if _, ok := Parse([]byte(bad)); ok {
			t.Errorf("Parse(%q) ok", bad)
		}
	}
	if got, ok := Parse([]byte(`{"ts":"yesterday","event":"session_end","reason":7}`)); !ok || !got.Time.IsZero() || got.Reason != "" {
		t.Errorf("loose fields: %+v %v", got, ok)
	}
}

// The first of a repeated key wins, as gjson's Get would have it.
func TestParseDuplicateKeys(t *testing.T) {
	got, ok := Parse([]byte(`{"event":"a","branch":1,"event":"b","branch":"x","ts":"2026-01-02T03:04:05Z"}`))
	if !ok || got.Event != "a" || got.Branch != "" || got.Time.IsZero() {
		t.Fatalf("%+v %v", got, ok)
	}
}
