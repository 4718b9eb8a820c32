package parking

import (
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const askDB = "I added the migration and the tests pass.\n\nShould I use Postgres or SQLite for the cache?"

func TestDecideQuestionRule(t *testing.T) {
	b, ok := Decide("Add a health check endpoint to the server. It should return 200.", askDB)
	want := Bullet{
		Summary: "User raised: Add a health check endpoint to the server. Pending: Should I use Postgres or SQLite for the cache?",
		Why:     "Claude asked this and the user moved on to a new request without answering",
		How:     "ask the question again once the new request is done",
	}
	if !ok || b != want {
		t.Fatalf("got %+v %v", b, ok)
	}
	// Answers and follow-ups, by each rule, park nothing.
	for _, p := range []string{
		"yes",                                              // ≤ 3 words
		"SQLite please, thanks",                            // ≤ 3 words
		"Yes, and also add an index on the key",            // reply word
		"ok but make the cache size configurable",          // reply word
		"Sure — go ahead and wire it into main.go",         // reply word
		"a) Postgres because we already run one",           // option
		"(b) since it is embedded in the binary",           // option
		"2. the second one, it is simpler overall",         // number
		"c, because it needs no server at all",             // lone letter
		"Postgres, we already run it in production",        // first word of the question
		"I think you should use SQLite for the cache here", // three words of the question
	} {
		if b, ok := Decide(p, askDB); ok {
			t.Errorf("Decide(%q) parked %+v", p, b)
		}
	}
	// No question, no rule (b).
	for _, a := range []string{"", "Done. The tests pass.", "Which one?\n\n```\ncode\n```", "Is it? No. It is done."} {
		if b, ok := Decide("Add a health check endpoint to the server", a); ok {
			t.Errorf("assistant %q: parked %+v", a, b)
		}
	}
	// Closing markup around the question is ignored; the question is the line's last sentence.
	b, ok = Decide("Refactor the parser into its own package now", "Done.\n**Want me to also update the docs?**")
	if !ok || !strings.HasSuffix(b.Summary, "Pending: Want me to also update the docs?") {
		t.Fatalf("%+v %v", b, ok)
	}
	// Slash commands, shell input and memory notes are never parked.
	for _, p := range []string{"/compact keep the tests", "!git status --short --branch", "# remember to use tabs"} {
		if _, ok := Decide(p, askDB); ok {
			t.Errorf("parked %q", p)
		}
	}
}

func TestDecideDeferral(t *testing.T) {
	for _, tc := range []struct{ prompt, assistant, summary string }{
		{"Let’s come back to the caching layer later. First fix the failing test please.", "The test fails on CI.",
			"Deferred: Let’s come back to the caching layer later. Context: raised while Claude was on: The test fails on CI"},
		{"ok, park this", "We could also shard the index by tenant. That needs a migration.",
			`Deferred: That needs a migration. Context: the user said "ok, park this"`},
		{"PARK THAT for now", "", "Deferred: PARK THAT for now. Context: deferred by the user"},
		// A deferral wins over an open question.
		{"Good idea but for later, let us focus on the parser", askDB,
			"Deferred: Good idea but for later, let us focus on the parser. Context: raised while Claude was on: I added the migration and the tests pass"},
	} {
		b, ok := Decide(tc.prompt, tc.assistant)
		if !ok || b.Summary != tc.summary || !strings.HasPrefix(b.Why, "the user deferred it") {
			t.Errorf("Decide(%q)\n got %q %v\nwant %q", tc.prompt, b.Summary, ok, tc.summary)
		}
	}
	// Word boundaries: no phrase inside other words.
	for _, p := range []string{"the sparkit library breaks", "it is for laterals", "don't spark this", "comfortable"} {
		if _, _, ok := FindDeferral(p); ok {
			t.Errorf("FindDeferral(%q) matched", p)
		}
	}
	if ph, _, ok := FindDeferral("x. Put a PIN in it"); !ok || ph != "put a pin in" {
		t.Fatal(ph)
	}
}

// Copied text is redacted before it is cut, and cut to its bound with "…".
func TestDecideRedactsAndBounds(t *testing.T) {
	long := "Rotate the key sk-ant-api03-AbCdEf0123456789_-AbCdEf0123456789 and " + strings.Repeat("then do more work ", 20)
	b, ok := Decide(long, askDB)
	if !ok || strings.Contains(b.Summary, "sk-ant") || !strings.Contains(b.Summary, "[REDACTED]") || !strings.Contains(b.Summary, "… Pending:") {
		t.Fatalf("%q", b.Summary)
	}
	idea := strings.TrimSuffix(strings.TrimPrefix(b.Summary[:strings.Index(b.Summary, " Pending:")], "User raised: "), ".")
	if n := len([]rune(idea)); n > maxIdea {
		t.Fatalf("idea of %d characters", n)
	}
}

// docs/PARKING.md lists exactly the phrases and reply words the code uses.
func TestDocumentedLists(t *testing.T) {
	data, err := os.ReadFile("../../docs/PARKING.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	between := func(start, end string) string {
		i := strings.Index(doc, start)
		j := strings.Index(doc[i:], end)
		if i < 0 || j < 0 {
			t.Fatalf("docs/PARKING.md lacks %q … %q", start, end)
		}
		return doc[i+len(start) : i+j]
	}
	ticks := regexp.MustCompile("`([^`]+)`")
	var phrases, words []string
	for _, m := range ticks.FindAllStringSubmatch(between("Deferral phrases:", "**(b)"), -1) {
		phrases = append(phrases, m[1])
	}
	for _, m := range ticks.FindAllStringSubmatch(between("Reply words:", "In both cases"), -1) {
		words = append(words, m[1])
	}
	if !slices.Equal(phrases, DeferralPhrases) {
		t.Errorf("documented phrases %q\ncode %q", phrases, DeferralPhrases)
	}
	if !slices.Equal(words, ReplyWords) {
		t.Errorf("documented reply words %q\ncode %q", words, ReplyWords)
	}
}

// BenchmarkDecide is the hook's decision on every prompt: the common case (a new request after
// a statement), a question left open, and a deferral.
func BenchmarkDecide(b *testing.B) {
	prompt := "Now add a health check endpoint to the server and a test for it. " + strings.Repeat("Some more context about it. ", 30)
	for _, bc := range []struct{ name, prompt, assistant string }{
		{"statement", prompt, "Done. The migration is in and the tests pass."},
		{"question", prompt, askDB},
		{"deferral", "let's come back to the cache later; " + prompt, askDB},
		{"answer", "yes", askDB},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				Decide(bc.prompt, bc.assistant)
			}
		})
	}
}

// A prompt of megabytes costs what a short one does: the rules read bounded prefixes.
func TestDecideBoundedOnHugePrompt(t *testing.T) {
	huge := "Refactor the importer now. " + strings.Repeat("lorem ipsum dolor ", 220_000) + " let's come back to that"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, ok := Decide(huge, askDB)
	runtime.ReadMemStats(&after)
	if !ok || b.Summary != "User raised: Refactor the importer now. Pending: Should I use Postgres or SQLite for the cache?" {
		t.Fatalf("%+v %v", b, ok)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("allocated %d bytes for a %d-byte prompt", n, len(huge))
	}
}
