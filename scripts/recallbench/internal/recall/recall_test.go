package recall

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/plain"
)

func TestFound(t *testing.T) {
	path := Fact{Class: EditedPath, Needle: "internal/ledger1/parse.go"}
	cmd := Fact{Class: CommandStatus, Needle: "go test ./internal/ledger1/", Status: statusSpellings(1)}
	for _, c := range []struct {
		f    Fact
		text string
		want bool
	}{
		{path, `Files edited:` + "\n" + `- "internal/ledger1/parse.go"`, true},
		{path, `- "internal/ledger1/parse_test.go"`, false},
		{path, `- "INTERNAL/LEDGER1/PARSE.GO"`, false}, // case-sensitive
		{Fact{Class: ErrorText, Needle: "a <b> c"}, "x a &lt;b> c y", true},
		{Fact{Class: LastCommit, Needle: `git commit -m "x: y"`}, `ran "git commit -m \"x: y\""`, true}, // a quoted value's escapes
		{Fact{Class: LastCommit, Needle: `a\b`}, `"a\\b"`, true},
		{cmd, "ran go test ./internal/ledger1/ (exit 1)", true},
		{cmd, "ran go test ./internal/ledger1/\nsomething else exit 1", false}, // the status is on another line
		{cmd, "ran go test ./internal/ledger1/ (exit 0)", false},
	} {
		if got := Found(c.f, c.text); got != c.want {
			t.Errorf("Found(%q in %q) = %v, want %v", c.f.Needle, c.text, got, c.want)
		}
	}
}

// played builds a replay of two sessions by hand, with the texts each moment showed.
func played(ctx0, ctx1 string) []Played {
	s := corpus(1, 2, 8<<10, "")
	var out []Played
	for i, ctx := range []string{ctx0, ctx1} {
		_, clear := s[i].Facts()
		out = append(out, Played{Session: &s[i], Seen: []Seen{{Moment: AfterClear, Facts: clear, Context: ctx, Asked: "No pending session items."}}})
	}
	return out
}

func TestScoreCountsFactsAndNegatives(t *testing.T) {
	s := corpus(1, 2, 8<<10, "")
	_, clear := s[0].Facts()
	var own Fact
	for _, f := range clear {
		if f.Class == Branch {
			own = f
		}
	}
	foreign := s[1].Expired.Needle
	rep := Score(played("on branch "+own.Needle+"; also "+foreign+"; and "+s[0].Archived.Needle, ""))
	row := rep.Row(AfterClear, ArmCairn)
	if row.Kept != 1 {
		t.Errorf("kept %d facts, want 1 (the branch)", row.Kept)
	}
	if row.NegativeChars != len(foreign) {
		t.Errorf("negative-control chars = %d, want %d (another project's expired item)", row.NegativeChars, len(foreign))
	}
	if row.Leaked != 1 {
		t.Errorf("leaked = %d, want 1 (the session's own archived item)", row.Leaked)
	}
	if row.Recall <= 0 || row.Recall >= 1 {
		t.Errorf("recall = %v", row.Recall)
	}
	empty := Score(played("", ""))
	none := empty.Row(AfterClear, ArmCairn)
	if none.Kept != 0 || none.NegativeChars != 0 || none.Leaked != 0 {
		t.Errorf("empty contexts scored %+v", none)
	}
	f := Floor{Recall: map[string]float64{AfterClear: 0.5}}
	// The recall, then the negative chars and the leak in the cairn and cairn+restore rows.
	if below := f.Below(&rep); len(below) != 5 {
		t.Errorf("Below = %q, want the recall, the negative chars and the leak", below)
	}
}

// corpus is Corpus for a phrasing it knows.
func corpus(seed uint64, n, maxSize int, phrasing string) []Session {
	s, err := Corpus(seed, n, maxSize, phrasing)
	if err != nil {
		panic(err)
	}
	return s
}

// The corpus is the same for a seed, covers every shape and class, and its needles survive
// cairn's quoting and name their session; in every phrasing.
func TestCorpus(t *testing.T) {
	for _, phrasing := range Phrasings {
		a, b := corpus(7, 30, 64<<10, phrasing), corpus(7, 30, 64<<10, phrasing)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: two corpora of the same seed differ", phrasing)
		}
		classes, shapes := map[string]bool{}, map[string]bool{}
		for _, s := range a {
			shapes[s.Shape] = true
			comps, clear := s.Facts()
			if len(comps) == 0 || len(clear) == 0 {
				t.Errorf("%s: session %d (%s) has no compaction or no /clear", phrasing, s.Index, s.Shape)
			}
			for _, fs := range append(comps, clear) {
				for _, f := range fs {
					classes[f.Class] = true
					if strings.Contains(f.Needle, "<") || !strings.Contains(f.Needle, s.Token) || plain.Line(f.Needle, 0) != f.Needle {
						t.Errorf("%s: session %d: needle %q holds a '<', is not one line of single spaces or does not name %s", phrasing, s.Index, f.Needle, s.Token)
					}
				}
			}
		}
		if len(shapes) != len(Shapes) {
			t.Errorf("%s: shapes %v", phrasing, shapes)
		}
		for _, c := range classOrder {
			if !classes[c] && (c != NextStep || phrasing != PhrasingDefault) {
				t.Errorf("%s: no fact of class %s", phrasing, c)
			}
		}
	}
	if _, err := Corpus(1, 1, 8<<10, "tuned"); err == nil {
		t.Error("an unknown phrasing made a corpus")
	}
}

// The default corpus is the one the floor, docs/BENCHMARKS.md and every earlier run of record
// were measured on: adding held-out templates must not change one byte of it. (A change that
// means to change it updates these digests and says so.)
func TestDefaultCorpusUnchanged(t *testing.T) {
	for size, want := range map[int]string{
		64 << 10: "fad46603bbf1d5f25f48215935015ac1a3fc50efbc02cb45816bb40cb8ef3b83",
		50 << 20: "adb182e811e18452c65f05b01870483a6915a98ff954bd32f596891bb6ea12d0",
	} {
		for _, phrasing := range []string{"", PhrasingDefault} {
			data, err := json.Marshal(corpus(1, 36, size, phrasing))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != want {
				t.Errorf("the default corpus (%q, 36 sessions up to %d bytes) changed: sha256 %s, want %s", phrasing, size, got, want)
			}
		}
	}
}

// The two halves of the held-out templates share none, and together are all of them.
func TestHalves(t *testing.T) {
	dev, test, all := half(heldDecisions, PhrasingDev), half(heldDecisions, PhrasingTest), half(heldDecisions, PhrasingHeldout)
	if len(dev)+len(test) != len(all) || len(dev) == 0 || len(test) == 0 {
		t.Fatalf("halves of %d: %d and %d", len(all), len(dev), len(test))
	}
	for _, d := range dev {
		if slices.Contains(test, d) {
			t.Errorf("%+v is in both halves", d)
		}
	}
	for _, l := range [][]string{heldMains, heldRequests, heldQuestions, heldClosers, heldNexts, heldDeferrals} {
		if len(half(l, PhrasingTest)) < 2 || len(half(l, PhrasingDev)) < 2 {
			t.Errorf("a half of %q has fewer than two templates", l[0])
		}
	}
	if len(half(heldRunners, PhrasingTest)) < 2 || len(half(heldCommits, PhrasingDev)) < 2 {
		t.Error("a half of the runners or the commits has fewer than two")
	}
}
