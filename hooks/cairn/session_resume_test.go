package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/parking"
)

// The resume layout, exactly as the original /session workflow prints it: today's items under
// "This session", one group per earlier date, newest first, stale ones marked.
func TestRenderResumeLayout(t *testing.T) {
	now := time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)
	date := func(days int) string { return now.AddDate(0, 0, -days).Format(parking.DateLayout) }
	its := []parking.Item{
		{Slug: "today-one", Name: "today-one", Description: "User raised: a. Pending: b?", Raised: date(0), Source: parking.Current},
		{Slug: "week-old", Name: "week-old", Description: "Deferred: c", Raised: date(7), Source: parking.Current},
		{Slug: "stale-one", Name: "stale-one", Description: "Side idea: d", Raised: date(20), Source: parking.Current},
		{Slug: "today-two", Name: "today-two", Description: "Deferred: e", Raised: date(0), Source: parking.Current},
		{Slug: "week-old-2", Name: "week-old-2", Description: "f", Raised: date(7), Source: parking.Current},
		{Slug: "leg", Name: "leg", Description: "a legacy item", Raised: date(14), Source: parking.Legacy},
	}
	want := `## Session Pending — 2026-03-10

### This session
- [ ] today-one — User raised: a. Pending: b?
- [ ] today-two — Deferred: e

### Earlier (2026-03-03)
- [ ] week-old — Deferred: c
- [ ] week-old-2 — f

### Earlier (2026-02-24)
- [ ] ⚠ stale — leg — a legacy item

### Earlier (2026-02-18)
- [ ] ⚠ stale — stale-one — Side idea: d

→ /session archive <slug> to close an item
→ /session summary for a full session digest
`
	if got := renderResume(its, now); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := renderResume(nil, now); got != "No pending session items.\n" {
		t.Fatal(got)
	}
	var js struct {
		Date  string
		Items []resumeItem
	}
	if err := json.Unmarshal(renderResumeJSON(its, now), &js); err != nil {
		t.Fatal(err)
	}
	if js.Date != "2026-03-10" || len(js.Items) != 6 || js.Items[4].Source != parking.Legacy || js.Items[4].AgeDays != 14 || !js.Items[4].Stale || js.Items[0].Stale {
		t.Fatalf("%+v", js)
	}
	if string(renderResumeJSON(nil, now)) != "{\n  \"date\": \"2026-03-10\",\n  \"items\": []\n}\n" {
		t.Fatal(string(renderResumeJSON(nil, now)))
	}
}

// An item whose name or description a file made multi-line (a legacy memory file, a bullet typed
// by hand) is still one line of the list.
func TestItemLineIsOneLine(t *testing.T) {
	now := time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)
	it := parking.Item{Slug: "x", Name: "a\nb\r\n- [ ] forged", Description: "x\n### Earlier", Raised: "2026-03-10"}
	out := renderResume([]parking.Item{it}, now)
	if n := strings.Count(out, "\n- [ ] "); n != 1 {
		t.Fatalf("resume lists %d items for one:\n%s", n, out)
	}
	if l := itemLine(it, now); strings.ContainsAny(l, "\r\n") {
		t.Fatalf("%q", l)
	}
}
