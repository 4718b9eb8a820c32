package main

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"testing"

	"github.com/cairn-hooks/cairn/scripts/recallbench/internal/recall"
	"github.com/cairn-hooks/cairn/testscripts/testbin"
)

var update = flag.Bool("update", false, "rewrite the floor files with today's numbers")

// floors are the recorded floors: the default corpus, and the held-out wordings (both halves),
// so that recall on phrasings cairn was not written beside does not regress either; and the dev
// half up to 50 MiB, whose largest sessions hold commands further back than the 4 MiB a
// compaction reads from the end (what the notes PreToolUse takes before each shell command find:
// without them a compaction keeps 96.7 % there, under this floor).
var floors = []string{"floor.json", "floor-heldout.json", "floor-large.json"}

// TestFloor runs the benchmark on the small corpus each floor file names, through the hooks
// built from this tree, and fails when the cairn arm's recall at a moment drops below the
// recorded floor, or when any negative control shows. A floor is a regression floor (the numbers
// of the day it was recorded), not a target; raise it with -update when the hand-back improves.
func TestFloor(t *testing.T) {
	testbin.TouchSources("../..")
	bin, cleanup, err := testbin.Build("../..", "recallbench-bin-")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	for _, name := range floors {
		t.Run(name, func(t *testing.T) { testFloor(t, name, bin) })
	}
}

func testFloor(t *testing.T, name, bin string) {
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var floor recall.Floor
	if err := json.Unmarshal(data, &floor); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if floor.Sessions < 30 {
		t.Fatalf("%s: %d sessions: the floor is measured on at least 30", name, floor.Sessions)
	}
	rep, played, err := recall.Run(context.Background(), recall.Options{Seed: floor.Seed, Phrasing: floor.Phrasing, Sessions: floor.Sessions,
		MaxSize: floor.MaxSize, Bin: bin, Work: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The replay runs PreToolUse before each edit, as Claude Code does: the claims it records let a
	// compaction bound its read of the transcript (package compaction), the path a real session
	// takes.
	claimed := 0
	for _, p := range played {
		claimed += p.Claimed
	}
	if claimed == 0 {
		t.Error("no compaction found the session's claims: the replay no longer runs PreToolUse before its edits")
	}
	t.Logf("\n%s", rep.Markdown())
	if *update {
		for m := range floor.Recall {
			// One point under the run of record: a line at the budget's edge may move with
			// what the clock prints ("just now", "1m ago"), and the floor catches regressions,
			// not that.
			floor.Recall[m] = (math.Floor(rep.Row(m, recall.ArmCairn).Recall*100) - 1) / 100 // whole points: 0.81, not 0.8099999999999999
		}
		data, _ := json.MarshalIndent(floor, "", "  ")
		if err := os.WriteFile(name, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, msg := range floor.Below(&rep) {
		t.Error(msg)
	}
	for _, line := range rep.Stderr {
		t.Errorf("stderr: %s", line)
	}
}
