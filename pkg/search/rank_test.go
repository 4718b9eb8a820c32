package search

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// labelled is a small history written by hand: each item is about one thing, so that every
// query below has a right answer.
func labelled(t *testing.T) (*testProject, map[string]string) {
	p := newTestProject(t)
	ids := map[string]string{}
	cp := func(key string, days int, title, branch, status, kind string, sec checkpoint.Sections, files ...string) {
		ids[key] = p.checkpoint(checkpoint.Entry{Title: title, Status: status, Branch: branch, Time: at(days), Files: files, Sections: sec}, kind)
	}
	cp("login-rewrite", -2, "Login parser rewrite", "feat/login-parser", "", "", checkpoint.Sections{
		Summary:   "Rewrote the login form parser so that it streams tokens instead of buffering the whole body. The parser now reports the field that failed.",
		Decisions: "- Keep the old parser behind a flag until the next release.",
		Remaining: "1. Fuzz the parser with truncated bodies.\n2. Delete the flag.",
	}, "pkg/auth/login_parser.go", "pkg/auth/login_parser_test.go")
	cp("login-first", -40, "Login parser: first attempt", "feat/login-parser", "", "", checkpoint.Sections{
		Summary: "Looked at the login code; the parser buffers everything.",
	})
	cp("cache", -10, "Cache eviction policy", "main", "", "", checkpoint.Sections{
		Summary:   "Chose LRU eviction with a TTL of ten minutes for the permission cache; eviction runs on insert.",
		Decisions: "- No background sweeper: eviction on insert is enough at our sizes.",
	}, "internal/cache/lru.go")
	cp("auto-goose", -5, "auto-auto", "feat/db", checkpoint.StatusAuto, "", checkpoint.Sections{
		Summary:   "Compaction summary: the user migrated the database schema to v2 with goose; the migration of the orders table is done, users and invoices remain.",
		Remaining: "- Migrate the invoices table.",
	})
	cp("handoff", -1, "Session hand-off", "main", "", "handoff", checkpoint.Sections{
		Summary:   "Session digest: fixed the flaky registry test (a race on the heartbeat file); CI is green again.",
		Remaining: "- Watch the nightly run for the flaky test.",
	})
	cp("unicode", -20, "Unicode titles in checkpoints", "fix/titles", "", "", checkpoint.Sections{
		Summary: "Titles are normalised to NFC before sanitising; rune width decides the table column.",
	})
	cp("readhead", -15, "Bounded reads", "main", "", "", checkpoint.Sections{
		Summary: "Every checkpoint read goes through safefile.ReadHead with a 1 MiB bound.",
	})
	// Two items alike but for their age: equal scores, the newer first.
	cp("zebra-old", -30, "Zebra stripes", "main", "", "", checkpoint.Sections{Summary: "Zebra striping for the list table."})
	cp("zebra-new", -3, "Zebra stripes", "main", "", "", checkpoint.Sections{Summary: "Zebra striping for the list table."})
	// A timeline line whose only words are its branch's: below the checkpoints about it.
	ids["timeline-login"] = p.event(at(-2, 1, 0), map[string]string{"event": "session_start", "session": "0f3c2a9e-1111-2222-3333-444455556666", "branch": "feat/login-parser", "source": "startup"})
	ids["timeline-compact"] = p.event(at(-5, 1, 0), map[string]string{"event": "compaction", "session": "77aa0000-1111-2222-3333-444455556666", "branch": "feat/db", "trigger": "auto", "checkpoint": "memory/projects/proj/checkpoints/" + ids["auto-goose"] + ".md"})
	ids["archived-redis"] = p.audit(at(-12), "redis-cluster", parking.ActionArchived, "- **redis-cluster** — Side idea: try a redis cluster for session storage. Raised while: sizing the cache. Raised: 2026-11-01.")
	ids["expired-dark"] = p.audit(at(-8), "dark-mode", parking.ActionExpired, "- **dark-mode** — User raised: dark mode for the dashboard. Pending: which palette. Raised: 2026-10-01.")
	p.parked(
		"- **retry-backoff** — Deferred: exponential backoff for the webhook retries. Context: the provider rate-limits us. Raised: 2026-11-18. Why: retries storm. How to apply: ask before touching the webhook client.",
		"- **login-captcha** — Side idea: a captcha after three failed logins. Raised while: rewriting the login parser. Raised: 2026-11-19.",
	)
	ids["parked-backoff"] = "parked:retry-backoff"
	ids["parked-captcha"] = "parked:login-captcha"
	return p, ids
}

// The history's sessions join the labelled items: each plants a fact that only it holds, and
// generated sessions add the words every transcript has (the noise a history brings).
func labelledHistory(t *testing.T, p *testProject, ids map[string]string) *testHistory {
	h := p.withHistory(t)
	plant := func(key, sid string, days int, write func(s *transcripttest.Session)) {
		s := h.session(sid, days)
		write(s)
		h.write(sid, s.Bytes())
		ids[key] = SessionPrefix + sid
	}
	plant("session-nginx", "0f3c2a9e-1111-4222-8333-444455556666", -9, func(s *transcripttest.Session) {
		s.Prompt("The billing export times out behind the gateway.").
			Say("The gateway's proxy_read_timeout is 60 s and the export takes 90 s; raising it to 300 s.").
			Edit(h.p.root + "/deploy/nginx/billing.conf")
	})
	plant("session-lint", "7a1b2c3d-1111-4222-8333-444455556666", -4, func(s *transcripttest.Session) {
		s.Prompt("Make CI green again.").
			Bash("gofmt -l . && go vet ./... && staticcheck ./...", 1, "internal/quota/limit.go:12:2: SA4006: this value of err is never used").
			Say("staticcheck flags an unused err in the quota limiter.")
	})
	plant("session-ledger", "3c4d5e6f-1111-4222-8333-444455556666", -30, func(s *transcripttest.Session) {
		s.Prompt("The ledger7 totals are off by a cent.").
			Bash("go test ./internal/ledger7/", 1, "--- FAIL: TestLedger7Totals (0.01s)\n    totals_test.go:41: total = 1300, want 1301\nFAIL").
			Prompt("We decided to keep ledger7 amounts as integer cents.")
	})
	for i := range 3 {
		var b bytes.Buffer
		transcripttest.Generate(&b, transcripttest.Options{Size: 256 << 10, Boundaries: 1, Seed: uint64(i + 1), Root: h.p.root})
		h.write(fmt.Sprintf("9%07d-1111-4222-8333-444455556666", i), b.Bytes())
	}
	return h
}

func TestRankingLabelled(t *testing.T) {
	p, ids := labelled(t)
	h := labelledHistory(t, p, ids)
	ix := h.index(t.TempDir())
	defer ix.Close()
	ctx := context.Background()
	for _, c := range []struct {
		query string
		o     Options
		want  []string // the top results, in order
	}{
		{"login parser", Options{}, []string{"login-rewrite", "login-first", "parked-captcha"}},
		{"eviction", Options{}, []string{"cache"}},
		{"goose schema", Options{}, []string{"auto-goose"}},
		{"flaky", Options{}, []string{"handoff"}},
		{"backoff", Options{}, []string{"parked-backoff"}},
		{"redis", Options{}, []string{"archived-redis"}},
		{"dark mode", Options{}, []string{"expired-dark"}},
		// Identifiers: the exact form, its word, its humps.
		{"ReadHead", Options{}, []string{"readhead"}},
		{"readhead", Options{}, []string{"readhead"}},
		{"head", Options{}, []string{"readhead"}},
		{"safefile.ReadHead", Options{}, []string{"readhead"}},
		{"login_parser", Options{}, []string{"login-rewrite", "login-first"}},
		{"login_parser.go", Options{}, []string{"login-rewrite"}},
		{"unicode*", Options{}, []string{"unicode"}},
		// Equal scores: the newer first.
		{"zebra", Options{}, []string{"zebra-new", "zebra-old"}},
		// Filters.
		{"login", Options{Kinds: 1 << Timeline}, []string{"timeline-login"}},
		{"login", Options{Kinds: 1 << Parked}, []string{"parked-captcha"}},
		{"parser", Options{Branch: "feat/login-parser", Since: at(-7)}, []string{"login-rewrite"}},
		{"compaction", Options{Kinds: 1 << Timeline}, []string{"timeline-compact"}},
		{"invoices", Options{Kinds: 1<<Saved | 1<<Handoff}, nil},
		{"invoices", Options{Kinds: 1 << Auto}, []string{"auto-goose"}},
		// A fact planted in a transcript ranks its session first: said by Claude, printed by a
		// command, decided in a prompt, an edited path.
		{"proxy_read_timeout", Options{}, []string{"session-nginx"}},
		{"billing export timeout", Options{}, []string{"session-nginx"}},
		{"nginx billing.conf", Options{}, []string{"session-nginx"}},
		{"staticcheck SA4006", Options{}, []string{"session-lint"}},
		{"TestLedger7Totals", Options{}, []string{"session-ledger"}},
		{"ledger7 integer cents", Options{}, []string{"session-ledger"}},
		{"ledger7", Options{Kinds: 1 << Session, Since: at(-10)}, nil},
		{"staticcheck", Options{Kinds: 1<<Saved | 1<<Auto | 1<<Handoff}, nil},
	} {
		rs, err := ix.Search(ctx, c.query, c.o)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		var got []string
		for _, r := range rs.Items {
			got = append(got, keyOf(ids, r.ID))
		}
		if len(got) > len(c.want) {
			got = got[:len(c.want)]
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q %+v: top %v, want %v", c.query, c.o, got, c.want)
			for _, r := range rs.Items {
				t.Logf("  %-16s %-8s %.4f %s", keyOf(ids, r.ID), r.Kind, r.Score, r.Snippet)
			}
		}
		if rs.Partial {
			t.Errorf("%q: partial", c.query)
		}
	}
	// No item holds both words: those holding one, marked partial.
	rs, err := ix.Search(ctx, "redis dashboard", Options{})
	if err != nil || !rs.Partial || len(rs.Items) != 2 {
		t.Fatalf("partial: %+v %v", rs, err)
	}
	// A word nowhere: nothing.
	if rs, err := ix.Search(ctx, "xylophone", Options{}); err != nil || len(rs.Items) != 0 || rs.Total != 0 {
		t.Fatalf("nothing: %+v %v", rs, err)
	}
	if _, err := ix.Search(ctx, "-- !!", Options{}); err != ErrNoWords {
		t.Fatalf("no words: %v", err)
	}
}

func keyOf(ids map[string]string, id string) string {
	for k, v := range ids {
		if v == id {
			return k
		}
	}
	return fmt.Sprintf("?%s", id)
}

// Every result carries its kind, title, branch, time and a marked snippet, and its id shows it.
func TestResultsShow(t *testing.T) {
	p, ids := labelled(t)
	ix := p.index(t.TempDir())
	defer ix.Close()
	for _, key := range []string{"login-rewrite", "auto-goose", "handoff", "parked-backoff", "archived-redis", "expired-dark", "timeline-login"} {
		it, err := Show(Config{Root: p.root}, ids[key])
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if it.ID != ids[key] || it.Text == "" || it.Path == "" {
			t.Errorf("%s: %+v", key, it)
		}
	}
	it, _ := Show(Config{Root: p.root}, ids["handoff"])
	if it.Kind != Handoff || it.Branch != "main" || it.Title != "Session hand-off" || !strings.Contains(it.Text, "\nkind: handoff\n") {
		t.Errorf("handoff: %+v", it)
	}
	it, _ = Show(Config{Root: p.root}, ids["expired-dark"])
	if it.Kind != Expired || it.Title != "dark-mode" || !strings.Contains(it.Text, "dark mode for the dashboard") || it.Time.IsZero() {
		t.Errorf("expired: %+v", it)
	}
	it, _ = Show(Config{Root: p.root}, ids["timeline-login"])
	if it.Kind != Timeline || !strings.Contains(it.Text, "session: 0f3c2a9e-1111-2222-3333-444455556666\n") || it.Branch != "feat/login-parser" {
		t.Errorf("timeline: %+v", it)
	}
	for _, bad := range []string{"", "nope", "parked:nope", "archived:20260101-000000-x", "timeline:h00000000", "../../etc/passwd", "20261101-000000-nope", "kind:x"} {
		if _, err := Show(Config{Root: p.root}, bad); err == nil {
			t.Errorf("Show(%q) found something", bad)
		}
	}
	rs, err := ix.Search(context.Background(), "goose", Options{})
	if err != nil || len(rs.Items) == 0 {
		t.Fatal(rs, err)
	}
	r := rs.Items[0]
	if r.Kind != Auto || r.Branch != "feat/db" || r.Title != "auto-auto" || !r.Time.Equal(at(-5)) ||
		!strings.Contains(r.Snippet, "«goose»") || r.Path != "memory/projects/proj/checkpoints/"+ids["auto-goose"]+".md" {
		t.Errorf("result: %+v", r)
	}
}

// Rules the labelled history cannot tell apart, each on items built to differ in that rule only:
// a word once in a title outweighs the same word twice in a body; among equal scores the newer item comes
// first, in whatever order the items were written; and an audit log's correction line
// (pointer_kept, written beside the line it corrects) is not a second copy of its item.
func TestRankingRules(t *testing.T) {
	p := newTestProject(t)
	inBody := saved(p, -1, "Parser notes", "the quokka turns up here, and the quokka again")
	inTitle := saved(p, -30, "Quokka handling", "nothing about it in this body of text here")
	// Identical but for age and slug: two appended oldest first, two newest first.
	line := func(slug string) string {
		return "- **" + slug + "** — Side idea: wombat burrows under the yard. Raised: 2026-10-01."
	}
	a1 := p.audit(at(-20), "aa", parking.ActionArchived, line("aa"))
	a2 := p.audit(at(-2), "ab", parking.ActionArchived, line("ab"))
	b2 := p.audit(at(-3), "ba", parking.ActionExpired, strings.ReplaceAll(line("ba"), "wombat", "numbat"))
	b1 := p.audit(at(-25), "bb", parking.ActionExpired, strings.ReplaceAll(line("bb"), "wombat", "numbat"))
	kept := p.audit(at(-40), "ox", parking.ActionArchived, "- **ox** — Deferred: an okapi feeder. Raised: 2026-10-01.")
	p.audit(at(-40), "ox", parking.ActionPointerKept, "- **ox** — Deferred: an okapi feeder. Raised: 2026-10-01.")
	ix := openAt(p, t.TempDir(), &clock{t: at(0)})
	mustSync(t, ix)
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"quokka", []string{inTitle, inBody}},
		{"wombat", []string{a2, a1}},
		{"numbat", []string{b2, b1}},
		{"okapi", []string{kept}},
	} {
		if got := ids(t, ix, c.q, Options{}); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.q, got, c.want)
		}
	}
}
