package recall

import (
	"fmt"
	"strings"
)

// The held-out templates (phrasing.go says how they split into a dev and a test half: even and
// odd positions in each list). They state the same kinds of fact as turns.go's, in wordings
// taken from how people and Claude write, not from cairn's word lists; every one keeps the
// fact's needle whole, holding the session's token and no '"', '\' or '<'.

// heldMains open a session. %[1]s is the request (lower case), %[2]s the token.
var heldMains = []string{
	"Hey! Quick one today: %[1]s. The code is in internal/%[2]s/parse.go.",
	"I noticed that %[1]s. Can you fix it without changing the public API?",
	"Bug from QA — %[1]s. Start in internal/%[2]s/parse.go.",
	"Good morning. I'd like to work on the %[2]s package today: %[1]s.",
	"Context: we release on Friday. Problem: %[1]s. Please look into it, starting with internal/%[2]s/parse.go.",
	"Can you help me with something? It seems %[1]s.",
	"Here's the task: %[1]s. Keep the public API as it is.",
	"So, %[1]s, and I need it fixed before the release. Start with internal/%[2]s/parse.go.",
}

// heldRequests are the later requests. %s is the request, a verb phrase.
var heldRequests = []string{
	"Next: %s.",
	"Can you also %s?",
	"One more thing — %s, please.",
	"Please %s as well; the reviewers asked for it.",
	"While you're at it, %s.",
	"I'd like you to %s.",
	"Follow-up: %s",
	"Could you %s next?",
	"Time to %s.",
	"Another request from the team: %s.",
}

// decisionIn is how a decision is stated: by the user in a prompt, or by Claude. In text, %[1]s
// is the decision as a verb phrase, %[2]s as a noun phrase, %[3]s the reason, %[4]s the road not
// taken; the fact's needle is the verb phrase when text uses it, else the noun phrase.
type decisionIn struct {
	user bool
	text string
}

var heldDecisions = []decisionIn{
	{true, "Let's %[1]s; %[3]s."},
	{true, "We'll %[1]s instead of %[4]s."},
	{true, "Going forward, we %[1]s."},
	{true, "OK, %[2]s it is."},
	{true, "Settled: we %[1]s."},
	{true, "I'd rather we %[1]s, so please go that way."},
	{false, "Per your call, I'll %[1]s from here on."},
	{false, "Based on that, I'm going with %[2]s: %[3]s."},
	{true, "Final call: %[1]s."},
	{false, "We're settling on %[2]s, because %[3]s."},
	{true, "Make it %[2]s — %[3]s."},
	{false, "Agreed: we %[1]s. I'll build on that."},
	{true, "Stick with %[2]s, %[3]s."},
	{true, "From now on we %[1]s."},
}

// heldDecisionContents are what is decided (every phrasing uses all of them): the verb phrase,
// the noun phrase, the reason, the road not taken; %s is the token.
var heldDecisionContents = [][4]string{
	{"keep %s amounts as integer cents", "integer cents for %s amounts", "float rounding broke the monthly totals", "storing floats"},
	{"retry %s calls at most three times", "three retries for %s calls", "the upstream rate limits bursts", "retrying forever"},
	{"store the %s cursor in the database", "the database for the %s cursor", "a file cursor is lost when the pod restarts", "writing a cursor file"},
	{"drop the %s v1 endpoint", "dropping the %s v1 endpoint", "no client has called it since March", "deprecating it first"},
	{"split %s into a reader and a writer", "separate %s reader and writer types", "the writer needs its own lock", "adding a second lock"},
	{"use a bounded queue for %s events", "a bounded queue for %s events", "the unbounded one ran out of memory", "an unbounded channel"},
}

// heldQuestions are how Claude ends its message on a question. %s is what it asks to do, a verb
// phrase (the needle).
var heldQuestions = []string{
	"Should I %s?",
	"Do you want me to %s as well?",
	"Would you like me to %s?",
	"Want me to %s?",
	"Shall I %s, or leave it as it is?",
	"I can %s too — should I?",
	"Let me know if I should %s.",
	"One open point: should I %s?",
	"Before I move on: do you want me to %s?",
	"Is it OK if I %s?",
	"Could you confirm whether I should %s?",
	"Should I go ahead and %s? Happy to skip it if you'd rather keep the change small.",
}

// heldQuestionContents are what Claude asks to do; %s is the token.
var heldQuestionContents = []string{
	"make the %s importer accept CSV files with a byte order mark",
	"run the %s benchmarks before we merge",
	"extend the %s retries to 503 responses",
	"include archived rows in the %s export",
	"add a %s metric for dropped rows",
}

// heldClosers may follow the question in Claude's last message.
var heldClosers = []string{
	"",
	" Let me know.",
	"\n\nLet me know what you think!",
	" Either way, the rest of the change is ready for review.",
	" If not, I'll leave it as it is.",
	"\n\nEverything else is committed and the tests pass.",
}

// heldNexts are how Claude states what it does next. %s is the step, a verb phrase (the needle).
var heldNexts = []string{
	"Now I'll %s.",
	"I'm going to %s next.",
	"Following up, I will %s.",
	"Up next: %s.",
	"Next I'll %s.",
	"Once that's merged I'll %s.",
	"My plan from here is to %s.",
	"The remaining step is to %s.",
	"After this, I'll %s.",
	"What's left: %s.",
	"I'll %s now.",
	"Then I can %s.",
}

// heldNextContents are Claude's next steps; %s is the token.
var heldNextContents = []string{
	"wire the %s cursor into the export path",
	"update the %s changelog",
	"add a regression test for the %s rounding",
	"run the full %s suite with the race detector",
	"remove the %s feature flag",
}

// heldDeferrals are how the user puts an idea off. %s is the idea, a verb phrase (the needle).
var heldDeferrals = []string{
	"Not now, but at some point we should %s.",
	"Let's leave the work to %s for another session.",
	"Add to the someday list: %s.",
	"Remind me to %s after the demo.",
	"We should %s eventually, just not in this change.",
	"Can we defer the work to %s until next week?",
	"Note for the future: %s.",
	"Let's punt the plan to %s to v2.",
	"Don't %s yet, we'll get to it after the launch.",
	"Low priority, whenever there's time: %s.",
	"Let's save the work to %s for a follow-up PR.",
	"Backlog item: %s.",
	"I'd like to %s someday, but not today.",
	"Hold off on the plan to %s until the API settles.",
}

// heldDeferralContents are the ideas deferred; %s is the token.
var heldDeferralContents = []string{
	"add a %s health endpoint",
	"cache the %s lookups",
	"benchmark the %s importer on the big fixtures",
	"split the %s config file",
	"document the %s retry budget",
	"move the %s fixtures to testdata",
}

// runner is a test runner: its command, what a failing run prints and the line that says what
// failed (the error fact's needle), its exit code, and what a passing run prints. In cmd %[1]s
// is the token and %[2]s its title case; in pass %[1]s is the token.
type runner struct {
	cmd  string
	exit int
	// fail is the k-th failing run's output and its error line, for the token and its title
	// case, the file the failing test covers, the total a test got and the one it wanted.
	fail func(tok, title, file string, k, got, want int) (out, line string)
	pass string
}

var heldRunners = []runner{
	{ // pytest
		cmd: "python -m pytest tests/test_%[1]s.py -q", exit: 1,
		fail: func(tok, _, _ string, k, got, want int) (string, string) {
			line := fmt.Sprintf("FAILED tests/test_%s.py::test_%s_total - assert %d == %d", tok, tok, got, want)
			return fmt.Sprintf(`..F.                                                                     [100%%]
=================================== FAILURES ===================================
_______________________________ test_%[1]s_total _______________________________

    def test_%[1]s_total():
        rows = load_rows("fixtures/%[1]s.csv")
>       assert total(rows) == %[3]d
E       assert %[2]d == %[3]d
E        +  where %[2]d = total([Row(amount=-12), Row(amount=1312)])

tests/test_%[1]s.py:%[4]d: AssertionError
=========================== short test summary info ============================
%[5]s
1 failed, 3 passed in 0.12s`, tok, got, want, 41+3*k, line), line
		},
		pass: "....                                                                     [100%%]\n4 passed in 0.10s",
	},
	{ // jest
		cmd: "npx jest src/%[1]s --silent", exit: 1,
		fail: func(tok, _, _ string, k, got, want int) (string, string) {
			name := []string{"keeps the sign of negative rows", "rounds half to even", "sums rows across pages", "skips empty rows"}[k%4]
			line := fmt.Sprintf("● %s total › %s", tok, name)
			return fmt.Sprintf(`FAIL src/%[1]s/total.test.js
  %[1]s total
    ✓ parses rows (3 ms)
    ✕ %[2]s (4 ms)

  %[3]s

    expect(received).toBe(expected) // Object.is equality

    Expected: %[5]d
    Received: %[4]d

      39 |   const rows = load('fixtures/%[1]s.csv');
    > %[6]d |   expect(total(rows)).toBe(%[5]d);
         |                       ^

      at Object.toBe (src/%[1]s/total.test.js:%[6]d:23)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 3 passed, 4 total
Snapshots:   0 total
Time:        0.412 s`, tok, name, line, got, want, 41+3*k), line
		},
		pass: "PASS src/%[1]s/total.test.js\n\nTest Suites: 1 passed, 1 total\nTests:       4 passed, 4 total\nTime:        0.388 s",
	},
	{ // cargo
		cmd: "cargo test -p %[1]s", exit: 101,
		fail: func(tok, _, _ string, k, got, want int) (string, string) {
			line := fmt.Sprintf("assertion `left == right` failed: %s total of %d rows", tok, 12+k)
			return fmt.Sprintf(`   Compiling %[1]s v0.3.0 (/home/dev/src/app/crates/%[1]s)
    Finished `+"`test`"+` profile [unoptimized + debuginfo] target(s) in 1.92s
     Running unittests src/lib.rs (target/debug/deps/%[1]s-3f2a9c1d5e6b7a80)

running 4 tests
test tests::parses_rows ... ok
test tests::total_keeps_cents ... FAILED
test tests::rejects_empty ... ok
test tests::rounds_half_even ... ok

failures:

---- tests::total_keeps_cents stdout ----

thread 'tests::total_keeps_cents' panicked at crates/%[1]s/src/total.rs:%[5]d:9:
%[4]s
  left: %[2]d
 right: %[3]d
note: run with `+"`RUST_BACKTRACE=1`"+` environment variable to display a backtrace


failures:
    tests::total_keeps_cents

test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass `+"`-p %[1]s --lib`", tok, got, want, line, 41+3*k), line
		},
		pass: "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.91s\n     Running unittests src/lib.rs (target/debug/deps/%[1]s-3f2a9c1d5e6b7a80)\n\nrunning 4 tests\n....\ntest result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
	},
	{ // rspec
		cmd: "bundle exec rspec spec/%[1]s", exit: 1,
		fail: func(tok, title, _ string, k, got, want int) (string, string) {
			name := []string{"keeps the sign of negative rows", "rounds half to even", "sums rows across pages", "skips empty rows"}[k%4]
			line := fmt.Sprintf("rspec ./spec/%s/total_spec.rb:%d # %s::Total %s", tok, 41+3*k, title, name)
			return fmt.Sprintf(`..F

Failures:

  1) %[2]s::Total %[3]s
     Failure/Error: expect(total(rows)).to eq(%[5]d)

       expected: %[5]d
            got: %[4]d

       (compared using ==)
     # ./spec/%[1]s/total_spec.rb:%[6]d:in 'block (2 levels) in <top (required)>'

Finished in 0.0123 seconds (files took 0.21 seconds to load)
3 examples, 1 failure

Failed examples:

%[7]s`, tok, title, name, got, want, 41+3*k, line), line
		},
		pass: "...\n\nFinished in 0.0119 seconds (files took 0.2 seconds to load)\n3 examples, 0 failures",
	},
	{ // go, a build failure
		cmd: "go test -count=1 ./internal/%[1]s/...", exit: 1,
		fail: func(tok, title, _ string, k, _, _ int) (string, string) {
			line := fmt.Sprintf("internal/%s/total.go:%d:9: undefined: round%sCents", tok, 41+3*k, title)
			return fmt.Sprintf(`# github.com/acme/app/internal/%[1]s [github.com/acme/app/internal/%[1]s.test]
%[2]s
internal/%[1]s/total_test.go:18:2: "fmt" imported and not used
FAIL	github.com/acme/app/internal/%[1]s [build failed]
FAIL`, tok, line), line
		},
		pass: "ok  \tgithub.com/acme/app/internal/%[1]s\t0.014s",
	},
	{ // vitest
		cmd: "pnpm vitest run src/%[1]s", exit: 1,
		fail: func(tok, _, _ string, k, got, want int) (string, string) {
			name := []string{"keeps the sign of negative rows", "rounds half to even", "sums rows across pages", "skips empty rows"}[k%4]
			line := fmt.Sprintf("src/%s/total.test.ts > %s total > %s", tok, tok, name)
			return fmt.Sprintf(` ❯ src/%[1]s/total.test.ts (4 tests | 1 failed) 12ms
   × %[1]s total > %[2]s 5ms
     → expected %[4]d to be %[5]d // Object.is equality

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  %[3]s
AssertionError: expected %[4]d to be %[5]d // Object.is equality

- Expected
+ Received

- %[5]d
+ %[4]d

 ❯ src/%[1]s/total.test.ts:%[6]d:23
     39|   const rows = load('fixtures/%[1]s.csv')
     %[6]d|   expect(total(rows)).toBe(%[5]d)
       |                       ^

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 Test Files  1 failed (1)
      Tests  1 failed | 3 passed (4)
   Duration  412ms`, tok, name, line, got, want, 41+3*k), line
		},
		pass: " ✓ src/%[1]s/total.test.ts (4 tests) 9ms\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)\n   Duration  388ms",
	},
	{ // python's unittest
		cmd: "python -m unittest tests.test_%[1]s -v", exit: 1,
		fail: func(tok, title, _ string, k, got, want int) (string, string) {
			line := fmt.Sprintf("AssertionError: %d != %d : %s total of %d rows", got, want, tok, 12+k)
			return fmt.Sprintf(`test_parses_rows (tests.test_%[1]s.TotalTest.test_parses_rows) ... ok
test_total_keeps_sign (tests.test_%[1]s.TotalTest.test_total_keeps_sign) ... FAIL

======================================================================
FAIL: test_total_keeps_sign (tests.test_%[1]s.TotalTest.test_total_keeps_sign)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/home/dev/src/app/tests/test_%[1]s.py", line %[3]d, in test_total_keeps_sign
    self.assertEqual(total(rows), %[4]d, "%[1]s total of %[5]d rows")
%[2]s

----------------------------------------------------------------------
Ran 2 tests in 0.003s

FAILED (failures=1)`, tok, line, 41+3*k, want, 12+k), line
		},
		pass: "test_parses_rows (tests.test_%[1]s.TotalTest.test_parses_rows) ... ok\ntest_total_keeps_sign (tests.test_%[1]s.TotalTest.test_total_keeps_sign) ... ok\n\n----------------------------------------------------------------------\nRan 2 tests in 0.002s\n\nOK",
	},
	{ // gradle and JUnit
		cmd: "./gradlew :%[1]s:test --tests '*TotalTest'", exit: 1,
		fail: func(tok, _, _ string, k, got, want int) (string, string) {
			line := fmt.Sprintf("org.opentest4j.AssertionFailedError: %s total of %d rows", tok, 12+k)
			return fmt.Sprintf(`> Task :%[1]s:compileJava UP-TO-DATE
> Task :%[1]s:test FAILED

TotalTest > keepsTheSignOfNegativeRows() FAILED
    %[2]s ==> expected: <%[4]d> but was: <%[3]d>
        at app//org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)
        at app//com.acme.%[1]s.TotalTest.keepsTheSignOfNegativeRows(TotalTest.java:%[5]d)

4 tests completed, 1 failed

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':%[1]s:test'.
> There were failing tests. See the report at: file:///home/dev/src/app/%[1]s/build/reports/tests/test/index.html

BUILD FAILED in 3s`, tok, line, got, want, 41+3*k), line
		},
		pass: "> Task :%[1]s:test\n\nBUILD SUCCESSFUL in 2s\n4 actionable tasks: 1 executed, 3 up-to-date",
	},
	{ // mix (ExUnit)
		cmd: "mix test test/%[1]s/total_test.exs", exit: 2,
		fail: func(tok, title, _ string, k, got, want int) (string, string) {
			line := fmt.Sprintf("%s total of %d rows", tok, 12+k)
			return fmt.Sprintf(`..

  1) test total keeps the sign of negative rows (%[2]s.TotalTest)
     test/%[1]s/total_test.exs:%[5]d
     %[3]s
     code:  assert %[2]s.total(rows) == %[6]d
     left:  %[4]d
     right: %[6]d
     stacktrace:
       test/%[1]s/total_test.exs:%[7]d: (test)

.
Finished in 0.04 seconds (0.00s async, 0.04s sync)
4 tests, 1 failure

Randomized with seed 412093`, tok, title, line, got, 41+3*k, want, 44+3*k), line
		},
		pass: "....\nFinished in 0.03 seconds (0.00s async, 0.03s sync)\n4 tests, 0 failures\n\nRandomized with seed 80214",
	},
	{ // mocha
		cmd: "npx mocha test/%[1]s.spec.js", exit: 1,
		fail: func(tok, _, _ string, k, got, want int) (string, string) {
			line := fmt.Sprintf("AssertionError [ERR_ASSERTION]: %s total of %d rows", tok, 12+k)
			return fmt.Sprintf(`
  %[1]s total
    ✔ parses rows
    1) keeps the sign of negative rows


  1 passing (9ms)
  1 failing

  1) %[1]s total
       keeps the sign of negative rows:

      %[2]s
      + actual - expected

      -%[3]d
      +%[4]d

      at Context.<anonymous> (test/%[1]s.spec.js:%[5]d:12)
      at process.processImmediate (node:internal/timers:478:21)
`, tok, line, got, want, 41+3*k), line
		},
		pass: "\n  %[1]s total\n    ✔ parses rows\n    ✔ keeps the sign of negative rows\n\n\n  2 passing (8ms)\n",
	},
}

// commitForm is a way of committing: the subject (%[1]s the token, %[2]s what it does), the
// command (%[1]s the subject) and what git prints (%[1]s the branch, %[2]s the subject).
type commitForm struct {
	subject, cmd, out string
}

var heldCommits = []commitForm{
	{"%[1]s: %[2]s", `git commit -m "%[1]s"`, "[%[1]s 4f1c2ab] %[2]s\n 2 files changed, 30 insertions(+), 4 deletions(-)"},
	{"fix(%[1]s): %[2]s", "git add -A && git commit -m \"$(cat <<'EOF'\n%[1]s\n\nThe change keeps the old behaviour behind the flag.\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"",
		"[%[1]s 9d03e1f] %[2]s\n 3 files changed, 41 insertions(+), 7 deletions(-)"},
	{"%[1]s: %[2]s", `git commit -am "%[1]s"`,
		"gofmt....................................................................Passed\ngo vet...................................................................Passed\n[%[1]s 77ab0c2] %[2]s\n 1 file changed, 12 insertions(+), 2 deletions(-)"},
	{"%[1]s: %[2]s", "git commit -q -m '%[1]s' && git log --oneline -1", "c0ffee1 (HEAD -> %[1]s) %[2]s"},
	{"[%[1]s] %[2]s", `git commit --amend -m "%[1]s"`, "[%[1]s 5e6f7a8] %[2]s\n Date: Mon Dec 7 10:12:44 2026 +0000\n 2 files changed, 18 insertions(+), 3 deletions(-)"},
	{"feat(%[1]s): %[2]s", `git commit -m "%[1]s" -m "Refs #412"`, "[%[1]s 1b2c3d4] %[2]s\n 4 files changed, 66 insertions(+), 9 deletions(-)"},
}

// heldCommitWhat are what the commits do, in order.
var heldCommitWhat = []string{"keep amounts in integer cents", "parse negative amounts", "retry on timeouts",
	"stream export rows", "cap the worker pool", "type the loader errors"}

// The held-out turns: each replaces its turns.go namesake when the builder has a phrasebook.

func (b *builder) heldMain() {
	phrase := fmt.Sprintf(mainRequests[b.r.IntN(len(mainRequests))], b.tok)
	b.prompt(fmt.Sprintf(b.ph.mains[b.s.Index%len(b.ph.mains)], phrase, b.tok))
	b.st.main, b.st.last = phrase, phrase
	b.say(fmt.Sprintf("I'll start by reading internal/%s/parse.go and its tests.", b.tok))
	b.endTurn()
}

func (b *builder) heldRequest() {
	b.st.requestCount++
	phrase := fmt.Sprintf(requests[(b.s.Index+b.st.requestCount*3)%len(requests)], b.tok)
	b.prompt(fmt.Sprintf(b.pickHeld(b.ph.requests), phrase))
	b.st.last = phrase
	b.say("On it.")
	b.endTurn()
}

func (b *builder) heldCommit() {
	form := b.ph.commits[b.r.IntN(len(b.ph.commits))]
	subject := fmt.Sprintf(form.subject, b.tok, heldCommitWhat[b.st.commits%len(heldCommitWhat)])
	b.st.commits++
	b.bash(fmt.Sprintf(form.cmd, subject), 0, fmt.Sprintf(form.out, b.st.branch, subject), "commit", subject)
	b.st.commit = subject
	b.say("Committed.")
	b.endTurn()
}

func (b *builder) heldDeferral() {
	idea := fmt.Sprintf(heldDeferralContents[(b.s.Index+len(b.st.deferred)*5)%len(heldDeferralContents)], b.tok)
	b.prompt(fmt.Sprintf(b.pickHeld(b.ph.deferrals), idea))
	b.st.deferred = append(b.st.deferred, idea)
	b.say("Noted, I will leave that for later.")
	b.endTurn()
}

// heldPending is Claude's last message of a turn: what it did, and a question, a next step or
// both, as ask and next say.
func (b *builder) heldPending(ask, next bool) {
	n := len(b.st.parkedQ) + b.st.asked
	text := "That part is in place."
	if next {
		step := fmt.Sprintf(heldNextContents[(b.s.Index+b.st.nexts)%len(heldNextContents)], b.tok)
		text += " " + fmt.Sprintf(b.pickHeld(b.ph.nexts), step)
		b.st.nexts++
		b.st.next = step
	}
	if ask {
		what := fmt.Sprintf(heldQuestionContents[(b.s.Index+n)%len(heldQuestionContents)], b.tok)
		text += " " + fmt.Sprintf(b.pickHeld(b.ph.questions), what)
		text += b.pickHeld(b.ph.closers)
		b.st.asked++
		b.st.pendingQ = what
	}
	b.say(text)
}

func (b *builder) heldDecision() {
	c := heldDecisionContents[(b.s.Index+len(b.st.decisions)*2)%len(heldDecisionContents)]
	verb, noun := fmt.Sprintf(c[0], b.tok), fmt.Sprintf(c[1], b.tok)
	form := b.ph.decisions[b.r.IntN(len(b.ph.decisions))]
	text := fmt.Sprintf(form.text, verb, noun, c[2], c[3])
	what := noun
	if strings.Contains(form.text, "%[1]s") {
		what = verb
	}
	if form.user {
		b.prompt(text)
		b.say("Understood.")
	} else {
		b.say(text)
	}
	b.st.decisions = append(b.st.decisions, what)
	b.endTurn()
}
