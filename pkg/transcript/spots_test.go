package transcript

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

// A tool use written just past its note costs a small first read, not a whole chunk; one lying
// across the edge of a read, or far on past reads that grew, is found where its line starts; one
// that is not there costs the range looked in.
func TestLineHolding(t *testing.T) {
	filler := prompt(strings.Repeat("lorem ipsum ", 1000)) + "\n" // 12 KB
	id := "toolu_01AbC"
	for _, c := range []struct {
		name     string
		before   int // bytes of filler before the tool use's line
		maxRead  int64
		shifting int // bytes moved so that the id lies across a read's edge
	}{
		{"just past the note", len(filler), 20 << 10, 0},
		{"across the first read's edge", 0, 64 << 10, 16<<10 - 60},
		{"600 KB on", 600 << 10, 2 * (600 << 10), 0},
	} {
		var sb strings.Builder
		for sb.Len() < c.before {
			sb.WriteString(filler)
		}
		if c.shifting > 0 {
			sb.WriteString(strings.Repeat("x", c.shifting) + "\n")
		}
		start := int64(sb.Len())
		sb.WriteString(bashUse(id, "go test ./...") + "\n")
		sb.WriteString(strings.Repeat(filler, 30))
		content := sb.String()
		r := &countingReader{r: strings.NewReader(content)}
		got, read, _, err := lineHolding(r, 0, int64(len(content)), id, nil)
		if err != nil || got != start || read != r.read || read > c.maxRead {
			t.Errorf("%s: line at %d (want %d), read %d (counted %d, at most %d), %v", c.name, got, start, read, r.read, c.maxRead, err)
		}
	}
	content := strings.Repeat(filler, 40)
	r := &countingReader{r: strings.NewReader(content)}
	if got, read, _, _ := lineHolding(r, 0, 300<<10, id, nil); got != -1 || read < 300<<10 || read != r.read {
		t.Errorf("an id not there: %d, read %d", got, read)
	}
}

// A stretch ends past the line that holds its end, or where that line starts when it runs on
// past maxLineTail (a tool's output of megabytes), or where it starts before the stretch does.
func TestStretchEnd(t *testing.T) {
	short := strings.Repeat("a", 99) + "\n" // lines of 100 bytes
	huge := strings.Repeat("h", 3<<20) + "\n"
	content := strings.Repeat(short, 10) + huge + short
	r := strings.NewReader(content)
	size := int64(len(content))
	for _, c := range []struct {
		name         string
		lo, hi, want int64
	}{
		{"inside a short line", 0, 150, 200},
		{"at a line's start", 0, 200, 200},
		{"at the end", 0, size, size},
		{"inside a huge line", 0, 1500, 1000},
		{"inside a huge line begun before the stretch", 1100, 2000, 1100},
		{"near a huge line's end", 0, 1000 + 3<<20 - 100, 1000 + 3<<20 + 1},
	} {
		if got, err := stretchEnd(r, c.lo, c.hi, size); err != nil || got != c.want {
			t.Errorf("%s: %d, want %d (%v)", c.name, got, c.want, err)
		}
	}
}

// Spots close together make one stretch, which grows only as far as maxSpotRead: 60 commands
// 100 KB apart are not read end to end.
func TestCommandsAtBoundsAStretch(t *testing.T) {
	filler := prompt(strings.Repeat("lorem ipsum ", 4000)) + "\n" // 48 KB
	var sb strings.Builder
	var spots []Spot
	for i := range 60 {
		spots = append(spots, Spot{At: int64(sb.Len())})
		sb.WriteString(bashUse(fmt.Sprintf("t%02d", i), fmt.Sprintf("true %02d", i)) + "\n")
		sb.WriteString(bashResult(fmt.Sprintf("t%02d", i), "Exit code 1\nno", true) + "\n")
		sb.WriteString(filler + filler)
	}
	content := sb.String()
	slices.Reverse(spots)
	// Commands that ran without a status leave the list with room: a stretch must stop by its
	// size, not by a full list.
	r := &countingReader{r: strings.NewReader(content)}
	act, err := commandsAt(r, int64(len(content)), spots, 0, int64(len(content)))
	if err != nil || len(act.Commands) == 0 {
		t.Fatalf("%d commands, %v", len(act.Commands), err)
	}
	if limit := int64(maxSpotRead + maxLineTail + spotAfter); r.read > limit {
		t.Errorf("read %d bytes for 60 spots 100 KB apart, want at most %d", r.read, limit)
	}
}

// Wherever an id lies — across the edge of any read as they grow, near from or to — lineHolding
// finds the start of the line that holds its first occurrence, as an index over the whole range
// would.
func TestLineHoldingAtReadEdges(t *testing.T) {
	var edges []int
	for at, step := 0, firstSeekChunk; at < 1<<20; step = min(2*step, seekChunk) {
		at += step
		edges = append(edges, at)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var buf []byte
	for k := range 400 {
		id := strings.Repeat("x", 1+rng.IntN(maxIDLen-2))
		needle := `"` + id + `"`
		from := rng.IntN(10)
		pos := from + edges[rng.IntN(len(edges))] - len(needle) + rng.IntN(2*len(needle)+1)
		data := bytes.Repeat([]byte("a"), pos+len(needle)+rng.IntN(100))
		if rng.IntN(2) == 0 {
			data[rng.IntN(pos+1)] = '\n'
		}
		copy(data[pos:], needle)
		to := len(data) - rng.IntN(3)
		var got int64
		var err error
		got, _, buf, err = lineHolding(bytes.NewReader(data), int64(from), int64(to), id, buf)
		want := int64(-1)
		if i := bytes.Index(data[from:to], []byte(needle)); i >= 0 {
			want = int64(from + bytes.LastIndexByte(data[from:from+i], '\n') + 1)
		}
		if err != nil || got != want {
			t.Fatalf("case %d: id of %d bytes at %d in [%d, %d): %d, want %d (%v)", k, len(needle), pos, from, to, got, want, err)
		}
	}
}
