package main

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/search"
)

// A parked item has a Raised day, not a time: its age is counted in days.
func TestResultAge(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	raised := time.Date(2026, 12, 1, 0, 0, 0, 0, loc)
	for _, c := range []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 12, 1, 23, 41, 0, 0, loc), "today"},
		{time.Date(2026, 12, 2, 0, 5, 0, 0, loc), "1d ago"},
		{time.Date(2026, 12, 15, 12, 0, 0, 0, loc), "14d ago"},
	} {
		if got := resultAge(c.now, search.Result{Kind: search.Parked, Time: raised}); got != c.want {
			t.Errorf("raised %s, now %s: %q, want %q", raised, c.now, got, c.want)
		}
	}
	// Anything else keeps its time.
	at := time.Date(2026, 12, 1, 23, 0, 0, 0, loc)
	if got := resultAge(at.Add(2*time.Hour), search.Result{Kind: search.Archived, Time: at}); got != "2h ago" {
		t.Errorf("archived 2 h ago: %q", got)
	}
}

// --since takes days, weeks, a Go duration or a date, and refuses the rest.
func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d":         now.AddDate(0, 0, -7),
		"2w":         now.AddDate(0, 0, -14),
		"0d":         now,
		"12h":        now.Add(-12 * time.Hour),
		"90m":        now.Add(-90 * time.Minute),
		"2026-01-02": time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-3d", "2x", "-1h", "d", "100000d"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// cairn index counts its sessions in English: the first run of someone who has one says so.
func TestIndexedSentence(t *testing.T) {
	for n, want := range map[int]string{1: "1 session of", 2: "2 sessions of", 0: "0 sessions of"} {
		if got := indexedSentence(search.HistoryStats{Sessions: n, Indexed: n}, 10*time.Millisecond); !strings.Contains(got, want) {
			t.Errorf("%d sessions: %q", n, got)
		}
	}
}
