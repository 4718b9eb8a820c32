package recall

import (
	"reflect"
	"strings"
	"testing"
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
	s := Corpus(1, 2, 8<<10)
	var out []Played
	for i, ctx := range []string{ctx0, ctx1} {
		_, clear := s[i].Facts()
		out = append(out, Played{Session: &s[i], Seen: []Seen{{Moment: AfterClear, Facts: clear, Context: ctx, Asked: "No pending session items."}}})
	}
	return out
}

func TestScoreCountsFactsAndNegatives(t *testing.T) {
	s := Corpus(1, 2, 8<<10)
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

// The corpus is the same for a seed, covers every shape and class, and its needles survive
// cairn's quoting and name their session.
func TestCorpus(t *testing.T) {
	a, b := Corpus(7, 30, 64<<10), Corpus(7, 30, 64<<10)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two corpora of the same seed differ")
	}
	classes, shapes := map[string]bool{}, map[string]bool{}
	for _, s := range a {
		shapes[s.Shape] = true
		comps, clear := s.Facts()
		if len(comps) == 0 || len(clear) == 0 {
			t.Errorf("session %d (%s) has no compaction or no /clear", s.Index, s.Shape)
		}
		for _, fs := range append(comps, clear) {
			for _, f := range fs {
				classes[f.Class] = true
				if strings.ContainsAny(f.Needle, "\"\\<") || !strings.Contains(f.Needle, s.Token) {
					t.Errorf("session %d: needle %q is quoted by cairn or does not name %s", s.Index, f.Needle, s.Token)
				}
			}
		}
	}
	if len(shapes) != len(Shapes) {
		t.Errorf("shapes %v", shapes)
	}
	for _, c := range classOrder {
		if !classes[c] {
			t.Errorf("no fact of class %s", c)
		}
	}
}
