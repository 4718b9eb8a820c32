package checkpoint

import (
	"reflect"
	"strings"
	"testing"
)

// A record written into Notes reads back the same, secrets redacted and lines kept single; the
// block ends at the first line of another shape.
func TestRecordRoundTrip(t *testing.T) {
	r := Record{
		Commands: []Command{
			{Status: "exit 1", Line: "go test ./pkg/lexer/", Output: "--- FAIL: TestParse (0.01s)"},
			{Status: "exit 0", Line: "curl -u admin:hunter22 https://x.example\nsecond line"},
		},
		More:       3,
		LastError:  "--- FAIL: TestParse (0.01s)",
		LastCommit: "1a2b3c4 lexer: keep state",
		Question:   "Shall I run the whole suite?",
		NextStep:   "Next, I'll update the callers.",
		Requests:   []string{"run the tests", "fix the lexer"},
	}
	notes := "Compaction instructions: x\n\n" + RecordBlock(r) + "\n\n3 files edited since the last compaction (files_modified)."
	got := ReadRecord(notes)
	if strings.Contains(notes, "hunter22") {
		t.Errorf("the block kept a secret:\n%s", notes)
	}
	want := r
	want.Commands = []Command{r.Commands[0], {Status: "exit 0", Line: got.Commands[1].Line}}
	if !strings.HasPrefix(got.Commands[1].Line, "curl -u ") || strings.Contains(got.Commands[1].Line, "\n") {
		t.Errorf("command line %q", got.Commands[1].Line)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n got %#v\nwant %#v\nfrom:\n%s", got, want, notes)
	}
	if !reflect.DeepEqual(ReadRecord("no record here"), Record{}) || RecordBlock(Record{}) != "" {
		t.Error("an empty record is not empty")
	}
}

// The loss record lists what the summary lacks, in the hand-back's order, and reads back; a
// rewrite replaces the block and keeps the Notes around it.
func TestLossRecord(t *testing.T) {
	r := Record{
		LastError: "undefined: parseHeader",
		Commands:  []Command{{Status: "exit 1", Line: "go test ./pkg/lexer/"}, {Status: "exit 0", Line: "go vet ./..."}},
		Question:  "Shall I also update the docs?",
	}
	summary := "The user asked to fix the lexer in src/lexer.go; go vet ./... passed. Shall I also update the docs?"
	lost := r.Lost([]string{"src/lexer.go", "pkg/deep/parser.go", "other/lexer.go"}, summary)
	want := []string{"error: undefined: parseHeader", "command: exit 1 | go test ./pkg/lexer/", "file: pkg/deep/parser.go"}
	if !reflect.DeepEqual(lost, want) {
		t.Fatalf("lost %q, want %q", lost, want)
	}
	notes := "before\n\n" + LossBlock(lost) + "\n\nafter"
	got, rest := ReadLoss(notes)
	if !reflect.DeepEqual(got, want) || rest != "before\n\nafter" {
		t.Errorf("read back %q, rest %q", got, rest)
	}
	if got, rest := ReadLoss("only notes"); got != nil || rest != "only notes" {
		t.Errorf("no block: %q, %q", got, rest)
	}
	if LossBlock(nil) != "" {
		t.Error("an empty loss record wrote a block")
	}
}

// A secret that straddles the record's cut is redacted whole before the value is cut: no prefix
// of it is left.
func TestRecordRedactsBeforeTheCut(t *testing.T) {
	line := strings.Repeat("x", maxRecordRunes-10) + " ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	block := RecordBlock(Record{Commands: []Command{{Status: "exit 0", Line: line}}, LastError: line})
	if strings.Contains(block, "ghp_") {
		t.Errorf("a cut secret's prefix is in the record:\n%s", block)
	}
}
