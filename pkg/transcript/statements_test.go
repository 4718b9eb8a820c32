package transcript

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The corpus of what a message states (testdata/statements.tsv): Claude's question and next step
// (Pending) and the decisions of a prompt or a text (decided), labelled by hand, among them
// sentences that hold the words the rules look for and state nothing. TestStatements holds the
// rules to no false positive and to the recall measured when they last changed; `go test
// ./pkg/transcript -run Statements -v` prints the table and every case the rules miss.

const statementsFile = "testdata/statements.tsv"

// Recall measured when the rules last changed, per kind.
var minStatementRecall = map[string]float64{"decision": 18.0 / 18, "question": 12.0 / 12, "next": 15.0 / 15}

type statement struct {
	line             int
	kind, text, part string
	want             bool
}

func readStatements(t *testing.T) []statement {
	t.Helper()
	f, err := os.Open(statementsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	unescape := strings.NewReplacer(`\n`, "\n")
	var out []statement
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) < 3 || len(fields) > 4 || fields[1] != "yes" && fields[1] != "no" || minStatementRecall[fields[0]] == 0 {
			t.Fatalf("%s:%d: want kind<TAB>yes|no<TAB>text[<TAB>part], kind one of decision, question, next", statementsFile, n)
		}
		s := statement{line: n, kind: fields[0], want: fields[1] == "yes", text: unescape.Replace(fields[2])}
		if len(fields) == 4 {
			s.part = fields[3]
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// found is what the rules take from the case's text for its kind, "" for nothing.
func (s statement) found() string {
	switch s.kind {
	case "decision":
		return strings.Join(Decided(s.text), " | ")
	case "question":
		q, _ := Pending(s.text)
		return q
	}
	_, next := Pending(s.text)
	return next
}

func TestStatements(t *testing.T) {
	cases := readStatements(t)
	type tally struct{ labelled, found, right int }
	by := map[string]*tally{}
	for _, c := range cases {
		tl := by[c.kind]
		if tl == nil {
			tl = &tally{}
			by[c.kind] = tl
		}
		got := c.found()
		if c.want {
			tl.labelled++
		}
		if got != "" {
			tl.found++
		}
		switch {
		case got != "" && !c.want:
			t.Errorf("%s:%d: a false %s: %q in %q", statementsFile, c.line, c.kind, got, c.text)
		case got != "" && !strings.Contains(got, c.part):
			t.Errorf("%s:%d: %s %q, which does not hold %q", statementsFile, c.line, c.kind, got, c.part)
		case got != "":
			tl.right++
		case c.want:
			t.Logf("miss: %s:%d: %s in %q", statementsFile, c.line, c.kind, c.text)
		}
	}
	var b strings.Builder
	b.WriteString("| kind | labelled | found | right | precision | recall |\n|---|--:|--:|--:|--:|--:|\n")
	for _, k := range []string{"decision", "question", "next"} {
		tl := by[k]
		if tl == nil {
			t.Fatalf("no %s case", k)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f%% | %.1f%% |\n", k, tl.labelled, tl.found, tl.right, 100*ratio(tl.right, tl.found), 100*ratio(tl.right, tl.labelled))
		if r := ratio(tl.right, tl.labelled); r < minStatementRecall[k]-1e-9 {
			t.Errorf("%s recall %.1f%%, want at least %.1f%% (as measured when the rules last changed)", k, 100*r, 100*minStatementRecall[k])
		}
	}
	t.Logf("%d cases (%s)\n\n%s", len(cases), statementsFile, b.String())
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}
