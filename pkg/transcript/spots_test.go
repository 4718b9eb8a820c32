package transcript

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Commands further back than a read from the end reaches are found around where the session
// noted them: each with its status, the last error and commit among them, most recent first; a
// command before the last compaction boundary is not, nor one at a spot past the transcript's end
// or inside the stretch the read from the end covers.
func TestCommandsAt(t *testing.T) {
	filler := func(n int) []string {
		var out []string
		for range n {
			out = append(out, prompt(strings.Repeat("lorem ipsum ", 5000))) // 60 KB a line
		}
		return out
	}
	var lines []string
	var at int64
	add := func(ls ...string) {
		for _, l := range ls {
			lines = append(lines, l)
			at += int64(len(l)) + 1
		}
	}
	add(prompt("fix the ledger"))
	old := at
	add(bashUse("t0", "make old"), bashResult("t0", "Exit code 2\nold failure", true))
	add(filler(2)...)
	boundary := at
	add(compactBoundary, prompt("go on"))
	first := at
	add(bashUse("t1", "go test ./pkg/ledger/"), bashResult("t1", "Exit code 1\n--- FAIL: TestTotal (0.01s)\n    total_test.go:9: want 1300, got 1299", true))
	add(filler(20)...) // 1.2 MB: another stretch
	second := at
	add(bashUse("t2", "git commit -qm 'ledger: keep cents'"), bashResult("t2", "[main 1a2b3c4] ledger: keep cents", false))
	add(bashUse("t3", "go vet ./..."), bashResult("t3", "", false))
	add(filler(80)...) // 4.8 MB: the read from the end covers none of the commands
	path := writeLines(t, lines...)
	upto := at - ActivityWindow

	act, err := Open(path).CommandsAt([]Spot{{At: second}, {At: at + 100}, {At: first}, {At: old}}, 0, upto)
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{Line: "go vet ./...", Status: "exit 0"},
		{Line: "git commit -qm 'ledger: keep cents'", Status: "exit 0"},
		{Line: "go test ./pkg/ledger/", Status: "exit 1", Output: "--- FAIL: TestTotal (0.01s) — total_test.go:9: want 1300, got 1299"},
	}
	if !reflect.DeepEqual(act.Commands, want) {
		t.Errorf("commands:\n got %#v\nwant %#v", act.Commands, want)
	}
	if act.LastError != want[2].Output || act.LastCommit != "1a2b3c4 ledger: keep cents" {
		t.Errorf("last error %q, last commit %q", act.LastError, act.LastCommit)
	}
	// A floor past a spot leaves its command out; a spot the read from the end covered is not read
	// again.
	if act, _ := Open(path).CommandsAt([]Spot{{At: second}, {At: first}}, first+1, upto); len(act.Commands) != 2 || act.LastError != "" {
		t.Errorf("with the floor past the first command: %#v", act)
	}
	if act, _ := Open(path).CommandsAt([]Spot{{At: second}, {At: first}}, boundary, second); len(act.Commands) != 1 || act.Commands[0].Line != "go test ./pkg/ledger/" {
		t.Errorf("with the second command inside the read from the end: %#v", act)
	}
	if act, _ := Open(path).CommandsAt(nil, 0, upto); len(act.Commands) != 0 {
		t.Errorf("no spots: %#v", act)
	}
	// A note taken before the client wrote the lines before the command (a turn's lines lag behind
	// the hook; a new session's transcript may not exist: a note at 0) finds the command by its id,
	// 1 MB on; a note whose id the transcript does not hold is dropped.
	lagged := []Spot{{At: second - 1<<20, ID: "t2"}, {At: first - 200, ID: "t1"}, {At: 0, ID: "toolu_never_written"}}
	act, err = Open(path).CommandsAt(lagged, boundary, upto)
	if err != nil {
		t.Fatal(err)
	}
	if len(act.Commands) != 3 || act.Commands[1].Line != "git commit -qm 'ledger: keep cents'" || act.Commands[2].Line != "go test ./pkg/ledger/" {
		t.Errorf("lagging notes: %#v", act.Commands)
	}
	if act, _ := Open(path).CommandsAt([]Spot{{At: boundary, ID: "toolu_never_written"}}, 0, upto); len(act.Commands) != 0 {
		t.Errorf("an id never written: %#v", act.Commands)
	}
}

// A's commands come first; B's follow, one listed already not again, past maxCommands counted.
func TestAddOlder(t *testing.T) {
	var a, b Activity
	for i := range maxCommands - 1 {
		a.Commands = append(a.Commands, Command{Line: strings.Repeat("a", i+1), Status: "exit 0"})
	}
	b.Commands = []Command{{Line: "a", Status: "exit 1"}, {Line: "b", Status: "exit 0"}, {Line: "c", Status: "exit 0"}}
	b.More, b.LastError, b.LastCommit, b.Decisions = 2, "boom", "1a2b3c4 x", []string{"keep cents"}
	a.LastError = "newer"
	a.AddOlder(b)
	if len(a.Commands) != maxCommands || a.Commands[maxCommands-1].Line != "b" || a.More != 3 || a.LastError != "newer" || a.LastCommit != "1a2b3c4 x" || len(a.Decisions) != 1 {
		t.Errorf("%#v", a)
	}
}

// BenchmarkCommandsAt is what the notes of commands can add to a compaction at worst: a list
// with room, and twelve noted commands further back than the 4 MiB read from the end, each
// written 1 MiB after its note (a lagging turn), one every 1.5 MiB: the ids are looked for over at
// most maxSeekAll bytes and the stretches around them read, at most maxSpotRead bytes.
func BenchmarkCommandsAt(b *testing.B) {
	filler := prompt(strings.Repeat("lorem ipsum ", 5000))
	var sb strings.Builder
	var spots []Spot
	for i := range 12 {
		spots = append(spots, Spot{At: int64(sb.Len()), ID: fmt.Sprintf("toolu_bench%02d", i)})
		for sb.Len() < int(spots[i].At)+1<<20 {
			sb.WriteString(filler + "\n")
		}
		id := spots[i].ID
		sb.WriteString(bashUse(id, fmt.Sprintf("go test ./pkg/p%02d/", i)) + "\n" + bashResult(id, "ok", false) + "\n")
		for sb.Len() < int(spots[i].At)+3<<19 {
			sb.WriteString(filler + "\n")
		}
	}
	for range ActivityWindow / len(filler) {
		sb.WriteString(filler + "\n")
	}
	path := writeRaw(b, sb.String())
	upto := int64(sb.Len()) - ActivityWindow
	slices.Reverse(spots)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		act, err := Open(path).CommandsAt(spots, 0, upto)
		if err != nil || len(act.Commands) == 0 {
			b.Fatalf("%d commands, %v", len(act.Commands), err)
		}
	}
}
