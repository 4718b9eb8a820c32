package autopark

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The corpus (testdata/corpus.tsv) is a few hundred prompts labelled by hand with what automatic
// parking should do. TestCorpus measures the rules on it and holds them to their goals
// (docs/PARKING.md, Measured on the corpus): an ordinary prompt never parks, and most deferrals
// do. `go test ./pkg/autopark -run Corpus -v` prints the tables that docs/PARKING.md shows, and
// every case the rules get wrong.

const corpusFile = "testdata/corpus.tsv"

// The outcomes a case is labelled with, and what a category must be labelled.
const (
	outDeferred = "deferred"
	outQuestion = "question"
	outNone     = "none"
)

var categories = []struct{ name, want string }{
	{"deferral", outDeferred},
	{"question-moved-past", outQuestion},
	{"request", outNone},
	{"answer", outNone},
	{"slash", outNone},
	{"non-english", outNone},
}

// Goals. An ordinary prompt (labelled none) never parks; a deferral is recognised at least this
// often; and a new request after Claude's question at least as often as measured when the
// rules were last changed (the misses are listed in docs/PARKING.md).
const (
	minDeferralRecall = 0.90
	minQuestionRecall = 47.0 / 49
)

type corpusCase struct {
	line                                    int
	category, want, prompt, assistant, note string
	got                                     string // what the rules do
}

// unescape reads the corpus's \n, \t and \\.
var unescape = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t")

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	f, err := os.Open(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	messages := map[string]string{}
	wants := map[string]string{}
	for _, c := range categories {
		wants[c.name] = c.want
	}
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsRune(line, '\r') {
			t.Fatalf("%s:%d: a carriage return (the corpus has LF line endings)", corpusFile, n)
		}
		fields := strings.Split(line, "\t")
		if name, ok := strings.CutPrefix(fields[0], "@"); ok {
			if len(fields) != 2 || messages[name] != "" {
				t.Fatalf("%s:%d: want @name<TAB>text, each name once", corpusFile, n)
			}
			messages[name] = unescape.Replace(fields[1])
			continue
		}
		if len(fields) < 4 || len(fields) > 5 {
			t.Fatalf("%s:%d: %d fields, want category, want, prompt, message[, note]", corpusFile, n, len(fields))
		}
		c := corpusCase{line: n, category: fields[0], want: fields[1], prompt: unescape.Replace(fields[2]), assistant: fields[3]}
		if len(fields) == 5 {
			c.note = fields[4]
		}
		if w, ok := wants[c.category]; !ok || w != c.want {
			t.Fatalf("%s:%d: category %q labelled %q; want one of the categories, labelled as corpus_test.go says", corpusFile, n, c.category, c.want)
		}
		if name, ok := strings.CutPrefix(c.assistant, "@"); ok {
			if c.assistant, ok = messages[name]; !ok {
				t.Fatalf("%s:%d: no message @%s above", corpusFile, n, name)
			}
		} else {
			c.assistant = unescape.Replace(c.assistant)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// outcome is what the hook would park for the case.
func outcome(prompt, assistant string) string {
	b, ok := readPrompt(prompt).decide(assistant)
	switch {
	case !ok:
		return outNone
	case strings.HasPrefix(b.Summary, "Deferred: "):
		return outDeferred
	case strings.HasPrefix(b.Summary, "User raised: "):
		return outQuestion
	}
	return "other: " + b.Summary
}

// score is precision and recall for one outcome: labelled cases, parked cases, and parked
// cases that were labelled so.
type score struct{ labelled, parked, right int }

func (s score) precision() float64 { return ratio(s.right, s.parked) }
func (s score) recall() float64    { return ratio(s.right, s.labelled) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func pct(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// measure scores the rules per outcome ("any" counts a park of the right kind) and per category.
func measure(cases []corpusCase) (outcomes, tables string, by map[string]score) {
	by = map[string]score{}
	type tally struct{ cases, right, parked int }
	cat := map[string]*tally{}
	for _, c := range categories {
		cat[c.name] = &tally{}
	}
	for _, c := range cases {
		for _, k := range []string{outDeferred, outQuestion, "any"} {
			labelled, parked := c.want == k, c.got == k
			if k == "any" {
				labelled, parked = c.want != outNone, c.got != outNone
			}
			s := by[k]
			if labelled {
				s.labelled++
			}
			if parked {
				s.parked++
			}
			if labelled && parked && c.got == c.want {
				s.right++
			}
			by[k] = s
		}
		t := cat[c.category]
		t.cases++
		if c.got == c.want {
			t.right++
		}
		if c.got != outNone {
			t.parked++
		}
	}
	var b strings.Builder
	b.WriteString("| parked as | labelled | parked | right | precision | recall |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|\n")
	for _, k := range []string{outDeferred, outQuestion, "any"} {
		s := by[k]
		name := "`" + k + "`"
		if k == "any" {
			name = "either"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s |\n", name, s.labelled, s.parked, s.right, pct(s.right, s.parked), pct(s.right, s.labelled))
	}
	outcomes = b.String()
	b.Reset()
	b.WriteString("| category | cases | as labelled | parked |\n")
	b.WriteString("|---|--:|--:|--:|\n")
	total := tally{}
	for _, c := range categories {
		t := cat[c.name]
		fmt.Fprintf(&b, "| %s (%s) | %d | %d | %d |\n", c.name, c.want, t.cases, t.right, t.parked)
		total.cases, total.right, total.parked = total.cases+t.cases, total.right+t.right, total.parked+t.parked
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d |\n", total.cases, total.right, total.parked)
	return outcomes, b.String(), by
}

func TestCorpus(t *testing.T) {
	cases := readCorpus(t)
	if len(cases) < 150 {
		t.Fatalf("%d cases; the corpus holds at least 150", len(cases))
	}
	for i := range cases {
		cases[i].got = outcome(cases[i].prompt, cases[i].assistant)
	}
	outcomes, tables, by := measure(cases)
	t.Logf("%d cases (%s)\n\n%s\n%s", len(cases), corpusFile, outcomes, tables)
	for _, c := range cases {
		if c.got == c.want {
			continue
		}
		msg := fmt.Sprintf("%s:%d: %s %q: parked %s, labelled %s", corpusFile, c.line, c.category, c.prompt, c.got, c.want)
		if c.note != "" {
			msg += " (" + c.note + ")"
		}
		if c.want == outNone || c.got != outNone {
			t.Error(msg) // a false park, or a park of the wrong kind
		} else {
			t.Log("miss: " + msg)
		}
	}
	if r := by[outDeferred].recall(); r < minDeferralRecall {
		t.Errorf("deferral recall %.1f%%, want at least %.0f%%", 100*r, 100*minDeferralRecall)
	}
	if r := by[outQuestion].recall(); r < minQuestionRecall-1e-9 {
		t.Errorf("question-moved-past recall %.1f%%, want at least %.1f%% (as measured when the rules last changed)", 100*r, 100*minQuestionRecall)
	}
	doc, err := os.ReadFile("../../docs/PARKING.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), outcomes) || !strings.Contains(string(doc), tables) {
		t.Errorf("docs/PARKING.md does not show the measured tables; they are:\n\n%s\n%s", outcomes, tables)
	}
}
