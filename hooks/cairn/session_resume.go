package main

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/plain"
)

// noParkedItems is what resume prints when nothing is parked.
const noParkedItems = "No pending session items."

// The two closing lines of the resume layout, as the original /session workflow writes them.
const (
	hintArchive = "→ /session archive <slug> to close an item"
	hintSummary = "→ /session summary for a full session digest"
)

// group is the items raised on one date; today's group is "This session".
type itemGroup struct {
	date  string
	today bool
	items []parking.Item
}

// itemGroups orders items for listing: today's first, then one group per earlier date, newest
// first; within a group, items keep their order. A date after today counts as today.
func itemGroups(items []parking.Item, today time.Time) []itemGroup {
	t := today.Format(parking.DateLayout)
	var out []itemGroup
	idx := map[string]int{}
	for _, it := range items {
		d := it.Raised
		if d >= t {
			d = t
		}
		i, ok := idx[d]
		if !ok {
			i = len(out)
			idx[d] = i
			out = append(out, itemGroup{date: d, today: d == t})
		}
		out[i].items = append(out[i].items, it)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].date > out[j].date })
	return out
}

// itemLine is one item as resume and summary list it: "- [ ] [⚠ stale — ]<name> — <description>".
func itemLine(it parking.Item, today time.Time) string {
	var b strings.Builder
	b.WriteString("- [ ] ")
	if it.Stale(today) {
		b.WriteString("⚠ stale — ")
	}
	b.WriteString(plain.Line(it.Name, 0))
	if d := plain.Line(it.Description, 0); d != "" {
		b.WriteString(" — ")
		b.WriteString(d)
	}
	return b.String()
}

// renderResume returns items in the resume layout users know from the original /session workflow,
// exactly:
//
//	## Session Pending — <today>
//
//	### This session
//	- [ ] <name> — <description>
//
//	### Earlier (<YYYY-MM-DD>)
//	- [ ] ⚠ stale — <name> — <description>
//
//	→ /session archive <slug> to close an item
//	→ /session summary for a full session digest
//
// with a group per date, newest first, and empty groups left out; or "No pending session
// items." when there are none. The text ends with a newline.
func renderResume(items []parking.Item, today time.Time) string {
	if len(items) == 0 {
		return noParkedItems + "\n"
	}
	var b strings.Builder
	b.WriteString("## Session Pending — " + today.Format(parking.DateLayout) + "\n")
	for _, g := range itemGroups(items, today) {
		if g.today {
			b.WriteString("\n### This session\n")
		} else {
			b.WriteString("\n### Earlier (" + g.date + ")\n")
		}
		for _, it := range g.items {
			b.WriteString(itemLine(it, today) + "\n")
		}
	}
	b.WriteString("\n" + hintArchive + "\n" + hintSummary + "\n")
	return b.String()
}

// resumeItem is an item as resume --json prints it.
type resumeItem struct {
	Slug        string         `json:"slug"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Raised      string         `json:"raised"`
	AgeDays     int            `json:"age_days"`
	Stale       bool           `json:"stale"`
	Source      parking.Source `json:"source"`
	Path        string         `json:"path,omitempty"`
	Why         string         `json:"why,omitempty"`
	How         string         `json:"how,omitempty"`
}

// renderResumeJSON returns items as one JSON object {"date": today, "items": […]}, in renderResume's order,
// indented, with a final newline.
func renderResumeJSON(items []parking.Item, today time.Time) []byte {
	out := struct {
		Date  string       `json:"date"`
		Items []resumeItem `json:"items"`
	}{Date: today.Format(parking.DateLayout), Items: []resumeItem{}}
	for _, g := range itemGroups(items, today) {
		for _, it := range g.items {
			out.Items = append(out.Items, resumeItem{
				Slug: it.Slug, Name: it.Name, Description: it.Description, Raised: it.Raised,
				AgeDays: it.Age(today), Stale: it.Stale(today), Source: it.Source, Path: it.Path,
				Why: it.Why, How: it.How,
			})
		}
	}
	b, _ := json.MarshalIndent(out, "", "  ") // strings and ints only: cannot fail
	return append(b, '\n')
}
