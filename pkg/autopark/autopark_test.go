package autopark

import (
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/parking"
)

// decide is what the hook does with a prompt and Claude's last message.
func decide(prompt, assistant string) (parking.Bullet, bool) {
	return readPrompt(prompt).decide(assistant)
}

const askDB = "I added the migration and the tests pass.\n\nShould I use Postgres or SQLite for the cache?"

func TestDecideQuestionRule(t *testing.T) {
	b, ok := decide("Add a health check endpoint to the server. It should return 200.", askDB)
	want := parking.Bullet{
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
		if b, ok := decide(p, askDB); ok {
			t.Errorf("decide(%q) parked %+v", p, b)
		}
	}
	// No question, no rule (b).
	for _, a := range []string{"", "Done. The tests pass.", "Which one?\n\n```\ncode\n```", "Is it? No. It is done."} {
		if b, ok := decide("Add a health check endpoint to the server", a); ok {
			t.Errorf("assistant %q: parked %+v", a, b)
		}
	}
	// A question followed by a short sentence or a short paragraph, or asked without a question
	// mark, is still the question the message ends on; a closer that asks nothing is not one.
	for a, q := range map[string]string{
		"Should I add retries? Let me know.":                               "Should I add retries?",
		"Would you like me to add retries?\n\nLet me know what you think!": "Would you like me to add retries?",
		"Tests pass. Let me know if I should add retries.":                 "Let me know if I should add retries",
		"Done. Let me know if you have any questions.":                     "",
	} {
		b, ok := decide("Add a health check endpoint to the server", a)
		if ok != (q != "") || ok && !strings.HasSuffix(b.Summary, "Pending: "+q) {
			t.Errorf("assistant %q: parked %q %v, want the question %q", a, b.Summary, ok, q)
		}
	}
	// Closing markup around the question is ignored; the question is the line's last sentence.
	b, ok = decide("Refactor the parser into its own package now", "Done.\n**Want me to also update the docs?**")
	if !ok || !strings.HasSuffix(b.Summary, "Pending: Want me to also update the docs?") {
		t.Fatalf("%+v %v", b, ok)
	}
	// Slash commands, shell input and memory notes are never parked.
	for _, p := range []string{"/compact keep the tests", "!git status --short --branch", "# remember to use tabs"} {
		if _, ok := decide(p, askDB); ok {
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
		// A label defers what follows it.
		{"later: look at the flaky test", "The test fails on CI.",
			"Deferred: look at the flaky test. Context: raised while Claude was on: The test fails on CI"},
		{"Fix the lint.\nTODO for later - rotate the staging keys", "",
			"Deferred: rotate the staging keys. Context: deferred by the user"},
		{"Later:", "We could also shard the index.", `Deferred: We could also shard the index. Context: the user said "Later:"`},
		// A deferral wins over an open question.
		{"Good idea but for later, let us focus on the parser", askDB,
			"Deferred: Good idea but for later, let us focus on the parser. Context: raised while Claude was on: I added the migration and the tests pass"},
	} {
		b, ok := decide(tc.prompt, tc.assistant)
		if !ok || b.Summary != tc.summary || !strings.HasPrefix(b.Why, "the user deferred it") {
			t.Errorf("decide(%q)\n got %q %v\nwant %q", tc.prompt, b.Summary, ok, tc.summary)
		}
	}
	// Word boundaries: no phrase inside other words.
	for _, p := range []string{"the sparkit library breaks", "it is for laterals", "don't spark this", "comfortable"} {
		if _, _, ok := phraseAt(p); ok {
			t.Errorf("phraseAt(%q) matched", p)
		}
	}
	if ph, _, ok := phraseAt("x. Put a PIN in it"); !ok || ph != "put a pin in …" {
		t.Fatal(ph)
	}
}

// Copied text is redacted before it is cut, and cut to its bound with "…".
func TestDecideRedactsAndBounds(t *testing.T) {
	long := "Rotate the key sk-ant-api03-AbCdEf0123456789_-AbCdEf0123456789 and " + strings.Repeat("then do more work ", 20)
	b, ok := decide(long, askDB)
	if !ok || strings.Contains(b.Summary, "sk-ant") || !strings.Contains(b.Summary, "[REDACTED]") || !strings.Contains(b.Summary, "… Pending:") {
		t.Fatalf("%q", b.Summary)
	}
	idea := strings.TrimSuffix(strings.TrimPrefix(b.Summary[:strings.Index(b.Summary, " Pending:")], "User raised: "), ".")
	if n := len([]rune(idea)); n > maxIdea {
		t.Fatalf("idea of %d characters", n)
	}
}

// Each rule, on the smallest prompts that show it: the phrase found, or "" for none.
func TestFindDeferralRules(t *testing.T) {
	for _, tc := range []struct{ prompt, phrase string }{
		// A phrase not ending in "…" ends its clause or is followed by one of FollowWords:
		// "later" as an adjective and a noun after the phrase defer nothing.
		{"Store the token for later requests in the session cache.", ""},
		{"Interesting, but that's for later requests", ""},
		{"Interesting, but that's for later.", "that's for later"},
		{"Interesting, but that's for later though", "that's for later"},
		{"Fix the parking lot UI", ""},
		{"Parking lot: migrate the config to TOML", "parking lot"},
		{"In Go, defer this Close call", ""},
		{"defer this until the API is stable", "defer this"},
		{`Add a "not now" option to the dialog`, ""},
		{"not now, maybe later", "not now"},
		{"revisit the logging later versions", ""},
		{"revisit the logging later on", "revisit … later"},
		// "…" inside a phrase is one to five words of the same clause.
		{"revisit the retry budget of it later", "revisit … later"},
		{"revisit the retry budget of the client later", ""},
		{"revisit the logging, then the metrics later", ""},
		// A phrase ending in "…" may be followed by anything.
		{"put a pin in the TOML migration", "put a pin in …"},
		{"Put a pin on the map", ""},
		// Said alone: a whole clause that ends a sentence or the prompt.
		{"Later. Let's get the tests green first.", "later"},
		{"Nah, later!", "later"},
		{"Later, wire it into main.", ""},
		{"Log the error now and retry later.", ""},
		// Said alone as a label: a whole clause that opens a sentence and ends with a colon or
		// a dash.
		{"later: look at the flaky test", "later"},
		{"Later - rename the config package", "later"},
		{"- **TODO for later:** rotate the keys", "todo for later"},
		{"Fix the lint first. For later: switch to TOML.", "for later"},
		{"Ok, later: switch to TOML.", ""},
		{"Later stages: add a timer", ""},
		{"Keep the body for later: the retry reads it", ""},
		{"later_test.go: fix the assertion", ""},
		// A wait phrase ends its clause or says until when.
		{"this work can wait till Friday", "can wait"},
		{"The dashboard can wait, ship the exporter first", "can wait"},
		{"That can wait until after the release.", "can wait"},
		{"it could wait for now", "could wait"},
		{"so it can wait for the lock", ""},
		{"so it can wait until the server is up", ""},
		{"the handler can wait on the channel", ""},
		// A return phrase points back or says when, and does not ask for action now.
		{"let's come back to that", "let's come back to …"},
		{"let’s come back to this one", "let's come back to …"},
		{"let's come back to the cache when the API settles", "let's come back to …"},
		{"Let's come back to the deploy with Authorization: Bearer x later", "let's come back to …"},
		{"Let's come back to the failing test: I want it fixed first", ""},
		{"let's come back to the failing test and fix it", ""},
		{"Please circle back to the failing test and fix it now.", ""},
		{"Let's come back to the failing test now and fix it.", ""},
		{"Now let's circle back to that", ""},
		{"let's come back to it right away", ""},
		{"let's come back to it, now fix the parser", "let's come back to …"},
		{"let's come back to it for now", "let's come back to …"},
		{"let's circle back to it, but not right now", "let's circle back to …"},
		{"let's come back to the caching idea later, for now fix the parser", "let's come back to …"},
		{"Let's come back to the cache later and fix the parser now.", "let's … later"},
		{"We can come back to the cache later and fix the parser now.", "come back to … later"},
		// Words: joined by an apostrophe, a hyphen, a dot or a slash between letters.
		{"Fix the park-ride endpoint", ""},
		{"Use the park/unpark pattern", ""},
		{"ok, PARK IT.", "park it"},
		// The first deferral that defers, wherever the phrases that do not are.
		{"Cache it for later calls. Also, park this.", "park this"},
		// Put off to a follow-up, out of this change, to the someday list, "we'll get to it".
		{"Let's save the cache work for a follow-up PR.", "for a follow-up pr"},
		{"The retry budget can go in a follow-up PR.", "in a follow-up pr"},
		{"Ask the API for a follow-up token.", ""},
		{"We should split the config eventually, just not in this change.", "just not in this change"},
		{"The bug is not in this change, look at main.", ""},
		{"Add to the someday list: a health endpoint.", "someday list"},
		{"Don't add it yet, we'll get to it after the launch.", "we'll get to it"},
		{"We'll get to the root cause once the logs are in.", ""},
	} {
		ph, at, ok := phraseAt(tc.prompt)
		if ph != tc.phrase || ok != (tc.phrase != "") {
			t.Errorf("phraseAt(%q) = %q, want %q", tc.prompt, ph, tc.phrase)
		}
		if ok && tc.phrase != "" && !strings.HasPrefix(strings.ToLower(tc.prompt[at:]), head(strings.Fields(tc.phrase)[0], 3)) {
			t.Errorf("phraseAt(%q): offset %d is not the phrase's", tc.prompt, at)
		}
	}
}

func TestIsAnswerRules(t *testing.T) {
	const race = "I found two ways to fix the race:\n\n1. a mutex around the map\n2. a sync.Map\n\nWhich do you prefer?"
	q, options, ok := question(race)
	if !ok || q != "Which do you prefer?" || options != "2. a sync.Map\n1. a mutex around the map" {
		t.Fatalf("question: %q %q %v", q, options, ok)
	}
	for _, tc := range []struct {
		prompt string
		answer bool
	}{
		{"The second one, sync.Map.", true},                   // a reply word after a lead word
		{"Let's go with the mutex, it is simpler.", true},     // the same
		{"I'll take option b then, thanks", true},             // names an option
		{"Mutex, since it is simpler to reason about.", true}, // quotes an option
		{"I'd go with a sync.Map here", true},                 // three words of an option
		{"Oui, utilise le mutex pour la map", true},           // a reply word in French
		{"Please do, and mention it in the changelog", true},  // a reply word after "please"
		{"👍🏽 and add a test for the lexer too please", true},  // an emoji, its skin tone aside
		{"✔️ ship it, then bump the version", true},           // its variation selector aside
		{"Ok. Now add a health check to the server.", true},   // answers, then moves on
		{"Please add pagination to the /users endpoint.", false},
		{"Update the CI workflow to run on Go 1.26.", false},
		{"Let's add rate limiting to the API first.", false},
		{"Also, which version of Go do we need?", false}, // "which" is a common word
	} {
		q, options, _ := question(race)
		if got := isAnswer(tc.prompt, q, options); got != tc.answer {
			t.Errorf("isAnswer(%q) = %v", tc.prompt, got)
		}
	}
	// Only list lines right above the question are options.
	if _, options, _ := question("Two ways:\n- a mutex\nI lean to the mutex.\nWhich one?"); options != "" {
		t.Errorf("options %q", options)
	}
}

// docs/PARKING.md lists exactly the phrases and words the code uses: each list, in backticks,
// from its label to the next blank line.
func TestDocumentedLists(t *testing.T) {
	data, err := os.ReadFile("../../docs/PARKING.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	ticks := regexp.MustCompile("`([^`]+)`")
	for _, l := range []struct {
		label string
		code  []string
	}{
		{"Deferral phrases:", DeferralPhrases},
		{"Said alone:", SaidAlone},
		{"Wait phrases:", WaitPhrases},
		{"Until words:", UntilWords},
		{"Time words:", TimeWords},
		{"Return phrases:", ReturnPhrases},
		{"Point words:", PointWords},
		{"When words:", WhenWords},
		{"Follow words:", FollowWords},
		{"Now words:", NowWords},
		{"Not-now words:", NotNowWords},
		{"Reply words:", ReplyWords},
		{"Lead words:", LeadWords},
		{"Common words:", CommonWords},
	} {
		i := strings.Index(doc, "\n"+l.label)
		if i < 0 {
			t.Errorf("docs/PARKING.md lacks a line starting %q", l.label)
			continue
		}
		list := doc[i+1:]
		if j := strings.Index(list, "\n\n"); j >= 0 {
			list = list[:j]
		}
		var got []string
		for _, m := range ticks.FindAllStringSubmatch(list, -1) {
			got = append(got, m[1])
		}
		if !slices.Equal(got, l.code) {
			t.Errorf("docs/PARKING.md %s %q\ncode %q", l.label, got, l.code)
		}
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
		// The worst prompt for the phrase search: one clause of 16 KiB, a return phrase in every
		// few words, none of them deferring.
		{"phrases", strings.Repeat("let's come back to x ", 1000), askDB},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				decide(bc.prompt, bc.assistant)
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
	b, ok := decide(huge, askDB)
	runtime.ReadMemStats(&after)
	if !ok || b.Summary != "User raised: Refactor the importer now. Pending: Should I use Postgres or SQLite for the cache?" {
		t.Fatalf("%+v %v", b, ok)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("allocated %d bytes for a %d-byte prompt", n, len(huge))
	}
}

// The rules read any text without panicking, and a deferral's offset is inside the prompt.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{"let's come back to that", "Later.", "park-ride. Park it", "Yes — option 2", "x\xc3( for later", "’’’", "a\n- b\n?"} {
		f.Add(s, askDB)
	}
	f.Fuzz(func(t *testing.T, prompt, assistant string) {
		if _, at, ok := phraseAt(prompt); ok && (at < 0 || at >= len(prompt)) {
			t.Fatalf("offset %d in %d bytes", at, len(prompt))
		}
		readPrompt(prompt).decide(assistant)
		readPrompt(assistant).decide(prompt)
	})
}

// phraseAt returns findDeferral's phrase as listed and the byte offset in prompt of its first
// word.
func phraseAt(prompt string) (phrase string, at int, ok bool) {
	if d := findDeferral(prompt); d.phrase != nil {
		return d.phrase.text, d.at, true
	}
	return "", -1, false
}

// Defers is rule (a) alone, on the prompt alone: what a prompt defers, never whether it answers.
func TestDefers(t *testing.T) {
	for prompt, want := range map[string]bool{
		"later: benchmark the importer":                           true,
		"Not now, but at some point we should cache the lookups.": true,
		"Something for later: a fuzz test for the parser":         true,
		"fix the test that fails later in the run":                false,
		"Should we cache the lookups?":                            false,
		"yes":                                                     false,
		"/compact later":                                          false,
		"":                                                        false,
	} {
		if got := Defers(prompt); got != want {
			t.Errorf("Defers(%q) = %v, want %v", prompt, got, want)
		}
	}
}
