package search

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// testProject builds a project's history files for the tests, as cairn writes them.
type testProject struct {
	t    testing.TB
	root string
}

func newTestProject(t *testing.T) *testProject {
	t.Helper()
	root := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return &testProject{t: t, root: root}
}

// day is a fixed clock's date: tests never read the wall clock.
var day0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.Local)

func at(days int, hhmm ...int) time.Time {
	t := day0.AddDate(0, 0, days)
	if len(hhmm) == 2 {
		t = t.Add(time.Duration(hhmm[0])*time.Hour + time.Duration(hhmm[1])*time.Minute)
	}
	return t
}

// checkpoint writes a checkpoint as checkpoint.Render does, with kind: when kind is not "".
func (p *testProject) checkpoint(e checkpoint.Entry, kind string) string {
	p.t.Helper()
	e.Kind = kind
	data := checkpoint.Render(e)
	name := e.Time.Format("20060102-150405") + "-" + checkpoint.SanitizeTitle(e.Title) + ".md"
	dir := checkpoint.Dir(p.root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		p.t.Fatal(err)
	}
	return strings.TrimSuffix(name, ".md")
}

func (p *testProject) appendFile(rel string, data string) {
	p.t.Helper()
	path := filepath.Join(p.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		p.t.Fatal(err)
	}
}

func jsonLine(v any) string {
	b, _ := json.Marshal(v)
	return string(b) + "\n"
}

// audit appends an audit line; it returns the item's id.
func (p *testProject) audit(t time.Time, item, action, text string) string {
	line := jsonLine(parking.AuditEntry{TS: t.UTC().Format(time.RFC3339), Item: item, Action: action, Text: text})
	p.appendFile(auditRel, line)
	e, _ := parking.ParseAuditLine([]byte(strings.TrimSuffix(line, "\n")))
	return auditID(e, []byte(strings.TrimSuffix(line, "\n")))
}

// event appends a timeline line; it returns the event's id.
func (p *testProject) event(t time.Time, fields map[string]string) string {
	m := map[string]string{"ts": t.UTC().Format(time.RFC3339)}
	for k, v := range fields {
		m[k] = v
	}
	line := jsonLine(m)
	p.appendFile(timelineRel, line)
	return timelineIDOf(strings.TrimSuffix(line, "\n"))
}

// parked writes session-context.md with these bullets under ## Parked items.
func (p *testProject) parked(bullets ...string) {
	p.t.Helper()
	path := filepath.Join(p.root, filepath.FromSlash(parkedRel))
	os.MkdirAll(filepath.Dir(path), 0o755)
	body := "# Session context\n\n## Parked items\n\n" + strings.Join(bullets, "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// index opens the project's index in a cache directory of the test's. Its clock is an hour
// ahead of the files' mtimes, so that none is racy.
func (p *testProject) index(cache string) *Index {
	now := time.Now().Add(time.Hour)
	return Open(Config{Root: p.root, CacheDir: cache, Now: func() time.Time { return now }})
}

func timelineIDOf(line string) string {
	ev, _ := timeline.Parse([]byte(line))
	return timelineID(ev, []byte(line))
}
