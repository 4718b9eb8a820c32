package parking

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/flatmatter"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// now is the injected clock of every test: 2026-03-10, mid-morning UTC.
var now = time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)

func clock() time.Time { return now }

type fixture struct {
	root, config string
	store        *Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := filepath.Join(t.TempDir(), "my.proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "claude")
	return &fixture{root: root, config: config, store: New(root, config, safefile.Disk{Roots: []string{root}}, clock)}
}

func (f *fixture) write(t *testing.T, content string) {
	t.Helper()
	p := sessionfile.Path(f.root)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(sessionfile.Path(f.root))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// legacy writes a session-open-*.md file in the memory dir of the given slug spelling, aged days.
func (f *fixture) legacy(t *testing.T, slugDir, file, name, desc string, days int) string {
	t.Helper()
	dir := filepath.Join(f.config, "projects", slugDir, "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, file)
	body := fmt.Sprintf("---\nname: %s\ndescription: %s\ntype: project\n---\n\nThe item text.\n\n**Why:** it came up\n**How to apply:** ask again\n", name, desc)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	mt := now.AddDate(0, 0, -days)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) audit(t *testing.T) []AuditEntry {
	t.Helper()
	data, err := os.ReadFile(AuditPath(f.root))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []AuditEntry
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var e AuditEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func date(days int) string { return now.AddDate(0, 0, -days).Format(DateLayout) }

func TestParkCreatesFile(t *testing.T) {
	f := newFixture(t)
	it, added, err := f.store.Park(Bullet{Summary: "Deferred: a cache. Context: perf work", Why: "later", How: "ask"})
	if err != nil || !added || it.Slug != "cache" {
		t.Fatalf("%+v %v %v", it, added, err)
	}
	want := "# Session context\n\n## Parked items\n\n- **cache** — Deferred: a cache. Context: perf work. Raised: 2026-03-10. Why: later. How to apply: ask.\n"
	if got := f.read(t); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// The same summary again adds nothing; another gets a unique slug.
	if it, added, err := f.store.Park(Bullet{Summary: "deferred: a cache. context: perf work."}); err != nil || added || it.Slug != "cache" {
		t.Fatalf("duplicate: %+v %v %v", it, added, err)
	}
	for _, want := range []string{"cache-2", "cache-3"} {
		it, _, err := f.store.Park(Bullet{Summary: "Deferred: a cache. Context: " + want})
		if err != nil || it.Slug != want {
			t.Fatalf("got %q, %v; want %s", it.Slug, err, want)
		}
	}
	if _, _, err := f.store.Park(Bullet{Slug: "cache", Summary: "other"}); !errors.Is(err, errSlugTaken) {
		t.Fatalf("taken slug: %v", err)
	}
	if _, _, err := f.store.Park(Bullet{Slug: "Bad Slug", Summary: "other"}); err == nil {
		t.Fatal("invalid slug accepted")
	}
	if it, _, err := f.store.Park(Bullet{Slug: "mine", Summary: "other"}); err != nil || it.Slug != "mine" {
		t.Fatalf("%+v %v", it, err)
	}
}

// snapshot is a PreCompact snapshot section as package sessionfile writes it (no "## " heading
// inside: a heading would end it), holding a bullet that is not a parked item.
const snapshot = "<!-- cairn:session-snapshot begin event=s1/auto/1 -->\n**Session snapshot**\n- **not-mine** — inside the snapshot\n<!-- cairn:session-snapshot end -->\n"

// Everything outside the parked-items section is kept byte for byte.
func TestSectionPreservesTheRest(t *testing.T) {
	f := newFixture(t)
	before := "# Session context\r\n\r\nSome prose, kept as is.  \n" + snapshot + "\n## Parked items\n\n" +
		"- **hand-written** — Deferred: wrapped\n  over two lines. Raised: 2026-03-01.\n" +
		"* **other** — Side idea: x. Raised: 2026-03-09.\n" +
		"## Notes\nmore prose, no final newline"
	f.write(t, before)
	if _, _, err := f.store.Park(Bullet{Slug: "new-one", Summary: "User raised: y. Pending: z?"}); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(before, "Raised: 2026-03-09.\n", "Raised: 2026-03-09.\n- **new-one** — User raised: y. Pending: z? Raised: 2026-03-10.\n\n", 1)
	if got := f.read(t); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	it, err := f.store.Archive("hand-written")
	if err != nil || it.Slug != "hand-written" {
		t.Fatalf("%+v %v", it, err)
	}
	want = strings.Replace(want, "- **hand-written** — Deferred: wrapped\n  over two lines. Raised: 2026-03-01.\n", "", 1)
	if got := f.read(t); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	a := f.audit(t)
	if len(a) != 1 || a[0].Item != "hand-written" || a[0].Action != "archived" || a[0].Text != "- **hand-written** — Deferred: wrapped\n  over two lines. Raised: 2026-03-01." {
		t.Fatalf("audit %+v", a)
	}
	// The snapshot's own "## Parked items" is not the section.
	its, _ := f.store.List()
	for _, it := range its {
		if it.Slug == "not-mine" {
			t.Fatal("read a bullet inside the snapshot")
		}
	}
}

func TestSectionAppendedWhenMissing(t *testing.T) {
	for _, tc := range []struct{ before, want string }{
		{"# Session context\n" + snapshot, "# Session context\n" + snapshot + "\n## Parked items\n\n- **x** — s. Raised: 2026-03-10.\n"},
		{"no newline", "no newline\n\n## Parked items\n\n- **x** — s. Raised: 2026-03-10.\n"},
		{"", "## Parked items\n\n- **x** — s. Raised: 2026-03-10.\n"},
		{"## Parked items", "## Parked items\n\n- **x** — s. Raised: 2026-03-10.\n"},
		{"## Parked items\n_nothing yet_\n", "## Parked items\n\n- **x** — s. Raised: 2026-03-10.\n\n_nothing yet_\n"},
		{"## Parked items\n\n## Next\n", "## Parked items\n\n- **x** — s. Raised: 2026-03-10.\n\n## Next\n"},
	} {
		f := newFixture(t)
		f.write(t, tc.before)
		if _, _, err := f.store.Park(Bullet{Slug: "x", Summary: "s"}); err != nil {
			t.Fatal(err)
		}
		if got := f.read(t); got != tc.want {
			t.Errorf("from %q\n got %q\nwant %q", tc.before, got, tc.want)
		}
	}
}

// A bullet without a Raised date lists as today and is given today's date on the next write.
func TestUndatedBulletsAreStamped(t *testing.T) {
	f := newFixture(t)
	f.write(t, "## Parked items\n\n- **undated** — Claude wrote this by hand\n")
	its, err := f.store.List()
	if err != nil || len(its) != 1 || its[0].Raised != "2026-03-10" {
		t.Fatalf("%+v %v", its, err)
	}
	if _, err := f.store.Expire(); err != nil {
		t.Fatal(err)
	}
	if got, want := f.read(t), "## Parked items\n\n- **undated** — Claude wrote this by hand. Raised: 2026-03-10.\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestLegacyBothSpellingsAndDedupe(t *testing.T) {
	f := newFixture(t)
	f.write(t, "## Parked items\n\n- **shared** — the current one. Raised: "+date(1)+".\n")
	a := f.legacy(t, project.Slug(f.root), "session-open-shared-2026-03-01.md", "shared", "the legacy copy", 9)
	b := f.legacy(t, project.LegacySlug(f.root), "session-open-only-legacy-2026-03-05.md", "only-legacy", "from the legacy spelling", 5)
	its, err := f.store.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != 2 || its[0].Description != "the current one" || its[1].Slug != "only-legacy" || its[1].Raised != date(5) || its[1].Path != b {
		t.Fatalf("%+v", its)
	}
	if its[1].Why != "it came up" || its[1].How != "ask again" {
		t.Fatalf("legacy why/how: %+v", its[1])
	}
	// Archiving the current item removes its legacy copy too, and logs both.
	if _, err := f.store.Archive("shared"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("legacy copy kept: %v", err)
	}
	if au := f.audit(t); len(au) != 2 || au[1].Item != "shared" || !strings.Contains(au[1].Text, "the legacy copy") {
		t.Fatalf("%+v", au)
	}
	if _, err := f.store.Archive("legacy"); err != nil {
		t.Fatal(err)
	}
	if its, _ := f.store.List(); len(its) != 0 {
		t.Fatalf("left %+v", its)
	}
}

// TTL: 29 days stays (stale), 30 days goes, for bullets and legacy files alike.
func TestExpire(t *testing.T) {
	f := newFixture(t)
	f.write(t, "## Parked items\n\n"+
		"- **young** — y. Raised: "+date(13)+".\n"+
		"- **stale** — s. Raised: "+date(29)+".\n"+
		"- **old** — o. Raised: "+date(30)+".\n")
	keep := f.legacy(t, project.Slug(f.root), "session-open-lkeep.md", "lkeep", "kept", 29)
	gone := f.legacy(t, project.Slug(f.root), "session-open-lgone.md", "lgone", "gone", 30)
	its, _ := f.store.List()
	if len(its) != 5 || its[0].Stale(now) || !its[1].Stale(now) {
		t.Fatalf("%+v", its)
	}
	exp, err := f.store.Expire()
	if err != nil || len(exp) != 2 || exp[0].Slug != "old" || exp[1].Slug != "lgone" {
		t.Fatalf("%+v %v", exp, err)
	}
	if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("expired legacy file kept")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal(err)
	}
	au := f.audit(t)
	if len(au) != 2 || au[0].Action != "expired" || au[0].Item != "old" || au[1].Item != "lgone" || au[0].TS != "2026-03-10T09:30:00Z" {
		t.Fatalf("%+v", au)
	}
	// A second run finds nothing and writes nothing.
	st, _ := os.Stat(sessionfile.Path(f.root))
	if exp, err := f.store.Expire(); err != nil || len(exp) != 0 {
		t.Fatalf("%+v %v", exp, err)
	}
	st2, _ := os.Stat(sessionfile.Path(f.root))
	if !st.ModTime().Equal(st2.ModTime()) {
		t.Fatal("rewrote an unchanged file")
	}
	if len(f.audit(t)) != 2 {
		t.Fatal("logged twice")
	}
}

func TestExpireWithNoFileCreatesNothing(t *testing.T) {
	f := newFixture(t)
	if exp, err := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock).Expire(); err != nil || len(exp) != 0 {
		t.Fatalf("%+v %v", exp, err)
	}
	if _, err := os.Stat(sessionfile.Path(f.root)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("created session-context.md")
	}
}

func TestGuard(t *testing.T) {
	f := newFixture(t)
	for i := range MaxOpen - 1 {
		if _, _, err := f.store.Park(Bullet{Summary: fmt.Sprintf("item %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	f.legacy(t, project.Slug(f.root), "session-open-tenth.md", "tenth", "the tenth item", 2)
	before := f.read(t)
	_, _, err := f.store.Park(Bullet{Summary: "the eleventh"})
	var full *FullError
	if !errors.As(err, &full) || len(full.Items) != MaxOpen {
		t.Fatalf("%v", err)
	}
	if f.read(t) != before {
		t.Fatal("the refused park wrote")
	}
	// An item that expires makes room.
	f.legacy(t, project.Slug(f.root), "session-open-tenth.md", "tenth", "the tenth item", 31)
	if _, added, err := f.store.Park(Bullet{Summary: "the eleventh"}); err != nil || !added {
		t.Fatal(err)
	}
}

func TestArchiveMatching(t *testing.T) {
	f := newFixture(t)
	f.write(t, "## Parked items\n\n"+
		"- **fix-login** — User raised: fix login. Pending: which provider? Raised: 2026-03-10.\n"+
		"- **fix-login-page** — Side idea: restyle. Raised: 2026-03-10.\n"+
		"- **cache** — Deferred: a cache for the login API. Raised: 2026-03-10.\n"+
		"- **queue** — Deferred: a queue for the login API. Raised: 2026-03-10.\n")
	names := func(its []Item) (s []string) {
		for _, it := range its {
			s = append(s, it.Slug)
		}
		return s
	}
	for q, want := range map[string]string{
		"fix-login":   "[fix-login]",      // exact beats prefix
		"Fix Login":   "[fix-login]",      // as a slug
		"fix-login-p": "[fix-login-page]", // prefix
		"login":       "[fix-login fix-login-page]",
		"restyle":     "[fix-login-page]", // content
		"login api":   "[cache queue]",
		"CACH":        "[cache]",
		"nothing":     "[]",
		"  ":          "[]",
	} {
		if got := fmt.Sprint(names(match(mustList(t, f), q))); got != want {
			t.Errorf("Match(%q) = %s, want %s", q, got, want)
		}
	}
	before := f.read(t)
	_, err := f.store.Archive("login")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 || f.read(t) != before || f.audit(t) != nil {
		t.Fatalf("ambiguous: %v", err)
	}
	if _, err := f.store.Archive("zzz"); !errors.Is(err, errNoMatch) {
		t.Fatalf("no match: %v", err)
	}
	if it, err := f.store.Archive("fix-login"); err != nil || it.Name != "fix-login" {
		t.Fatalf("%+v %v", it, err)
	}
	if its := mustList(t, f); len(its) != 3 {
		t.Fatalf("%+v", its)
	}
}

func mustList(t *testing.T, f *fixture) []Item {
	t.Helper()
	its, err := f.store.List()
	if err != nil {
		t.Fatal(err)
	}
	return its
}

// Hostile names and texts give valid JSON lines that read back exactly.
func TestAuditHostileNames(t *testing.T) {
	f := newFixture(t)
	name := "evil \"quoted\" $(rm -rf ~) `x`\nsecond line <b>&amp;"
	f.legacy(t, project.Slug(f.root), "session-open-evil.md", `"evil \"quoted\" $(rm -rf ~) `+"`x`"+`\nsecond line <b>&amp;"`, "line one", 1)
	if _, err := f.store.Archive("evil"); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(AuditPath(f.root))
	if bytes.Count(raw, []byte("\n")) != 1 {
		t.Fatalf("not one line: %q", raw)
	}
	au := f.audit(t)
	if len(au) != 1 || au[0].Item != name || !strings.Contains(au[0].Text, "line one") {
		t.Fatalf("%+v", au)
	}
	got, err := ReadAudit(f.root, func(e AuditEntry) bool { return e.Action == ActionArchived })
	if err != nil || len(got) != 1 || got[0].Item != name {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestReadAuditBothLogs(t *testing.T) {
	f := newFixture(t)
	for p, content := range map[string]string{
		AuditPath(f.root):       `{"ts":"2026-03-10T08:00:00Z","item":"new","action":"archived"}` + "\nnot json\n",
		LegacyAuditPath(f.root): `{"ts":"2026-03-09T08:00:00Z","item":"old","action":"archived"}` + "\n" + `{"ts":"2026-03-10T07:00:00Z","item":"legacy-today","action":"archived"}` + "\n",
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	got, err := ReadAudit(f.root, func(e AuditEntry) bool { return e.Time().Format(DateLayout) == "2026-03-10" })
	if err != nil || len(got) != 2 || got[0].Item != "new" || got[1].Item != "legacy-today" {
		t.Fatalf("%+v %v", got, err)
	}
}

// Park redacts secrets before anything is written.
func TestParkRedacts(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.store.Park(Bullet{Slug: "s", Summary: "Deferred: rotate password=hunter2 and ghp_0123456789abcdefghijABCDEFGHIJ0123"}); err != nil {
		t.Fatal(err)
	}
	got := f.read(t)
	if strings.Contains(got, "hunter2") || strings.Contains(got, "ghp_") || !strings.Contains(got, "password=[REDACTED]") {
		t.Fatal(got)
	}
}

// A dry run writes nothing and says what it would do.
func TestDryRun(t *testing.T) {
	f := newFixture(t)
	f.write(t, "## Parked items\n\n- **old** — o. Raised: "+date(40)+".\n")
	lp := f.legacy(t, project.Slug(f.root), "session-open-lold.md", "lold", "old", 40)
	var out bytes.Buffer
	exp, err := New(f.root, f.config, safefile.DryRun{Out: &out, Roots: []string{f.root}}, clock).Expire()
	if err != nil || len(exp) != 2 {
		t.Fatalf("%+v %v", exp, err)
	}
	if _, err := os.Stat(lp); err != nil {
		t.Fatal("dry run removed the legacy file")
	}
	if !strings.Contains(f.read(t), "**old**") {
		t.Fatal("dry run rewrote the file")
	}
	for _, want := range []string{"append " + AuditPath(f.root), "remove " + lp, "update " + sessionfile.Path(f.root)} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
}

// Eight goroutines park, archive and park again at once, each through its own locks (each
// worker has at most one item open, so the guard never refuses): nothing is lost, no item is
// archived twice, and the file stays well formed. Run with -race.
func TestConcurrentParkAndArchive(t *testing.T) {
	f := newFixture(t)
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*4)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock)
			slug := fmt.Sprintf("worker-%d", w)
			if _, _, err := s.Park(Bullet{Slug: slug, Summary: "Deferred: work of " + slug}); err != nil {
				errs <- err
				return
			}
			if _, err := s.Archive(slug); err != nil {
				errs <- err
				return
			}
			if _, _, err := s.Park(Bullet{Slug: slug + "-keep", Summary: "Deferred: kept by " + slug}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	its := mustList(t, f)
	if len(its) != workers {
		t.Fatalf("%d items left, want %d: %+v", len(its), workers, its)
	}
	for _, it := range its {
		if !strings.HasSuffix(it.Slug, "-keep") {
			t.Errorf("unexpected %s", it.Slug)
		}
	}
	if au := f.audit(t); len(au) != workers {
		t.Fatalf("%d audit lines, want %d", len(au), workers)
	}
}

// Refusals change nothing, not even the dates of undated bullets.
func TestRefusalsWriteNothing(t *testing.T) {
	f := newFixture(t)
	var sb strings.Builder
	sb.WriteString("## Parked items\n\n- **undated** — no date\n- **undated-too** — no date either\n")
	for i := range MaxOpen - 2 {
		fmt.Fprintf(&sb, "- **item-%d** — i. Raised: %s.\n", i, date(1))
	}
	f.write(t, sb.String())
	if _, _, err := f.store.Park(Bullet{Summary: "one too many"}); err == nil {
		t.Fatal("not refused")
	}
	if _, err := f.store.Archive("no date"); err == nil {
		t.Fatal("not ambiguous")
	}
	if f.read(t) != sb.String() {
		t.Fatalf("refusal wrote:\n%s", f.read(t))
	}
}

// countingWriter counts the locked read-modify-writes.
type countingWriter struct {
	safefile.Writer
	updates int
}

func (c *countingWriter) Update(path string, perm fs.FileMode, fn safefile.Edit, opts ...safefile.Option) (bool, error) {
	c.updates++
	return c.Writer.Update(path, perm, fn, opts...)
}

// With nothing due, Expire takes no lock and reads no legacy file: it runs at every session start
// and end. Once something is due, it does the whole transaction.
func TestExpireFastPath(t *testing.T) {
	f := newFixture(t)
	cw := &countingWriter{Writer: safefile.Disk{Roots: []string{f.root}}}
	s := New(f.root, f.config, cw, clock)
	f.write(t, "## Parked items\n\n- **young** — y. Raised: "+date(29)+".\n")
	f.legacy(t, project.Slug(f.root), "session-open-fresh.md", "fresh", "f", 29)
	if exp, err := s.Expire(); err != nil || len(exp) != 0 || cw.updates != 0 {
		t.Fatalf("nothing due: %+v %v, %d updates", exp, err, cw.updates)
	}
	f.legacy(t, project.LegacySlug(f.root), "session-open-due.md", "due", "d", 30)
	if exp, err := s.Expire(); err != nil || len(exp) != 1 || exp[0].Slug != "due" || cw.updates != 1 {
		t.Fatalf("legacy due: %+v %v, %d updates", exp, err, cw.updates)
	}
	f.write(t, "## Parked items\n\n- **undated** — no date yet.\n")
	s = New(f.root, f.config, cw, clock) // the next process: a store reads session-context.md once
	if _, err := s.Expire(); err != nil || cw.updates != 2 || !strings.Contains(f.read(t), "Raised: "+date(0)) {
		t.Fatalf("undated: %v, %d updates:\n%s", err, cw.updates, f.read(t))
	}
}

// A snapshot section that lost its end line stops at the next heading (mdblock's rule, shared
// with package sessionfile): the parked items after it are still found, archived and kept.
func TestDamagedSnapshotKeepsParkedItems(t *testing.T) {
	f := newFixture(t)
	f.write(t, "# Session context\n\n<!-- cairn:session-snapshot begin event=s1/auto/1 -->\n**Session snapshot**\n- Session: s1\n\n## Parked items\n\n- **first** — Deferred: a. Context: b. Raised: "+date(1)+".\n")
	its, err := f.store.List()
	if err != nil || len(its) != 1 || its[0].Slug != "first" {
		t.Fatalf("%+v %v", its, err)
	}
	if _, _, err := f.store.Park(Bullet{Slug: "second", Summary: "Deferred: c. Context: d."}); err != nil {
		t.Fatal(err)
	}
	if got := f.read(t); strings.Count(got, sessionfile.ParkedHeading) != 1 || !strings.Contains(got, "- **second** — ") {
		t.Fatalf("a second section, or the item went missing:\n%s", got)
	}
	if it, err := f.store.Archive("second"); err != nil || it.Slug != "second" {
		t.Fatalf("%+v %v", it, err)
	}
}

func TestLegacyFrontmatterQuoting(t *testing.T) {
	for in, want := range map[string]string{
		`plain value`:             "plain value",
		`Deferred: x. Context: y`: "Deferred: x. Context: y",
		`"quoted \"inner\"\tx"`:   "quoted \"inner\"\tx",
		`'it''s'`:                 "it's",
		`"broken \q"`:             `broken \q`,
		`"`:                       `"`,
	} {
		if got := flatmatter.Unquote(in); got != want {
			t.Errorf("unquote(%q) = %q, want %q", in, got, want)
		}
	}
}

// legacyCutoff agrees with ageDays on the date in the day's location, around the boundary and
// in zones either side of UTC.
func TestLegacyCutoffMatchesAgeDays(t *testing.T) {
	for _, loc := range []*time.Location{time.UTC, time.FixedZone("PDT", -7*3600), time.FixedZone("NZDT", 13*3600)} {
		today := time.Date(2026, 11, 30, 15, 4, 5, 0, loc)
		cutoff := legacyCutoff(today)
		for _, mod := range []time.Time{cutoff, cutoff.Add(-time.Nanosecond), cutoff.Add(24*time.Hour - time.Nanosecond)} {
			want := ageDays(mod.In(today.Location()).Format(DateLayout), today) >= ExpireDays
			if got := mod.Before(cutoff); got != want {
				t.Fatalf("%s: modified %v: before cutoff = %v, ageDays says due = %v", loc, mod, got, want)
			}
		}
		for h := -24 * 40; h <= -24*20; h++ {
			for _, extra := range []time.Duration{0, time.Nanosecond, 59 * time.Minute} {
				mod := today.Add(time.Duration(h)*time.Hour + extra)
				want := ageDays(mod.In(today.Location()).Format(DateLayout), today) >= ExpireDays
				if got := mod.Before(cutoff); got != want {
					t.Fatalf("%s: modified %v: before cutoff %v = %v, ageDays says due = %v", loc, mod, cutoff, got, want)
				}
			}
		}
	}
}

func TestCountMatchesList(t *testing.T) {
	root, conf := t.TempDir(), t.TempDir()
	now := func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }
	s := New(root, conf, safefile.Disk{Roots: []string{root}}, now)
	for _, idea := range []string{"first idea", "second idea"} {
		b, _ := NewBullet("deferred", idea, "detail", "", "")
		if _, _, err := s.Park(b); err != nil {
			t.Fatal(err)
		}
	}
	dir := LegacyDirs(conf, root)[0]
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "session-open-cache-2026-11-29.md"), []byte("---\nname: cache\ndescription: Deferred: a cache\n---\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("- [x](x.md)\n"), 0o644)
	items, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Count()
	if err != nil || n != len(items) || n != 3 {
		t.Fatalf("Count %d (%v), List %d", n, err, len(items))
	}
}

// optionsWriter records the options of each write of session-context.md and of the audit log.
type optionsWriter struct {
	safefile.Writer
	calls []string
}

func (w *optionsWriter) Update(path string, perm fs.FileMode, fn safefile.Edit, opts ...safefile.Option) (bool, error) {
	w.note("Update", path, opts)
	return w.Writer.Update(path, perm, fn, opts...)
}

func (w *optionsWriter) Append(path string, data []byte, perm fs.FileMode, opts ...safefile.Option) error {
	w.note("Append", path, opts)
	return w.Writer.Append(path, data, perm, opts...)
}

func (w *optionsWriter) note(op, path string, opts []safefile.Option) {
	sync := "synced"
	for _, o := range opts {
		switch o {
		case safefile.NoSync:
			sync = "not synced"
		case safefile.NoSyncWhereOrdered:
			sync = "synced unless ordered"
		}
	}
	w.calls = append(w.calls, op+" "+filepath.Base(path)+" "+sync)
}

// The automatic park replaces session-context.md without its fsync where the file system orders
// the rename (safefile.NoSyncWhereOrdered); a park from the CLI syncs it, and the audit line of
// an item that expires on the way is synced in both.
func TestParkAutomaticallySkipsTheFsyncWhereOrdered(t *testing.T) {
	f := newFixture(t)
	w := &optionsWriter{Writer: safefile.Disk{Roots: []string{f.root}}}
	s := New(f.root, f.config, w, clock)
	f.write(t, "## Parked items\n\n- **old** — Deferred: an old idea. Context: x. Raised: 2026-01-01. Why: y. How to apply: z.\n")
	if _, added, err := s.ParkAutomatically(Bullet{Summary: "Deferred: a new idea. Context: the lexer"}); err != nil || !added {
		t.Fatal(added, err)
	}
	if _, added, err := s.Park(Bullet{Summary: "Deferred: another idea. Context: the lexer"}); err != nil || !added {
		t.Fatal(added, err)
	}
	want := []string{
		"Update session-context.md synced unless ordered", // ParkAutomatically, which on the way…
		"Append session-archive.jsonl synced",             // …expires the old item, logged before it goes
		"Update session-context.md synced",                // Park
	}
	if strings.Join(w.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("writes:\n%s\nwant\n%s", strings.Join(w.calls, "\n"), strings.Join(want, "\n"))
	}
	if got := f.read(t); !strings.Contains(got, "a new idea") || !strings.Contains(got, "another idea") || strings.Contains(got, "an old idea") {
		t.Fatalf("%s", got)
	}
}

// The locked update reuses what the count read parsed when it finds the same bytes, and parses
// again when another writer changed the file in between, so that nothing it wrote is lost.
func TestParseReusedOnlyForTheSameBytes(t *testing.T) {
	f := newFixture(t)
	f.write(t, "## Parked items\n\n- **a** — Deferred: a. Context: x. Raised: 2026-03-09. Why: y. How to apply: z.\n")
	s := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock)
	if n := s.FreshBullets(); n != 1 {
		t.Fatal(n)
	}
	data, _ := os.ReadFile(sessionfile.Path(f.root))
	if p := s.parse(data, true); p != s.seen.Load() {
		t.Fatal("the same bytes were parsed again")
	}
	if p := s.parse(append(data, "\n"...), true); p == s.seen.Load() || len(p.sec.blocks) != 1 {
		t.Fatal("other bytes reused what was parsed")
	}
	// Another session parks between the count and the park: both items are kept.
	other := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock)
	if _, _, err := other.Park(Bullet{Summary: "Deferred: b. Context: x"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ParkAutomatically(Bullet{Summary: "Deferred: c. Context: x"}); err != nil {
		t.Fatal(err)
	}
	if got := f.read(t); strings.Count(got, "\n- **") != 3 {
		t.Fatalf("an item was lost:\n%s", got)
	}
}

// Count and Expire's first look read the bullets for their dates alone (Store.dates): the same
// dates, the same bullets, as the whole parse finds, whether or not a whole parse of the same
// bytes is at hand.
func TestDatesMatchTheWholeParse(t *testing.T) {
	f := newFixture(t)
	f.write(t, "# Session context\n\n## Parked items\n\n"+
		"- **a** — first. Raised: "+date(3)+". Why: the AKIA0123456789ABCDEF key.\n"+
		"* b — undated, Why: w\n"+
		"  continued. Raised: "+date(40)+".\n"+
		"- Raised: 2026-02-30\n"+
		"-not a bullet\n"+
		"+ [x] `c`: Pending: q? (raised: "+date(31)+")\n"+
		"\n## Other\n\n- **d** — elsewhere. Raised: "+date(1)+".\n")
	whole := func(s *Store) []string {
		sec, err := s.read()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, bl := range sec.blocks {
			out = append(out, bl.bullet.Raised)
		}
		return out
	}
	want := whole(New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock))
	if len(want) != 4 || want[0] != date(3) || want[1] != date(40) || want[2] != "" || want[3] != date(31) {
		t.Fatalf("the whole parse: %q", want)
	}
	fresh := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock)
	if got, err := fresh.dates(); err != nil || !slices.Equal(got, want) {
		t.Fatalf("dates alone: %q, %v; want %q", got, err, want)
	}
	if fresh.seen.Load() != nil {
		t.Fatal("the dates-only read kept a parse: a later read would take it for a whole one")
	}
	seen := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock)
	whole(seen)
	if got, err := seen.dates(); err != nil || !slices.Equal(got, want) {
		t.Fatalf("dates from the whole parse: %q, %v; want %q", got, err, want)
	}
	if n, err := fresh.Count(); err != nil || n != 4 {
		t.Fatalf("Count %d, %v", n, err)
	}
}

// Count right after an Expire that found nothing due takes the legacy files that look listed
// (SessionEnd counts for its hand-off a moment after expiring): it does not list the
// directories again. A write through the store forgets that listing.
func TestCountTakesExpiresListing(t *testing.T) {
	f := newFixture(t)
	s := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock)
	f.write(t, "## Parked items\n\n- **young** — y. Raised: "+date(2)+".\n")
	f.legacy(t, project.Slug(f.root), "session-open-one.md", "one", "d", 3)
	if exp, err := s.Expire(); err != nil || len(exp) != 0 {
		t.Fatalf("nothing due: %+v %v", exp, err)
	}
	f.legacy(t, project.Slug(f.root), "session-open-two.md", "two", "d", 1)
	if n, err := s.Count(); err != nil || n != 2 {
		t.Fatalf("Count after Expire: %d, %v; want 2 (the bullet and the file Expire listed)", n, err)
	}
	if n, err := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock).Count(); err != nil || n != 3 {
		t.Fatalf("a fresh store's Count: %d, %v; want 3", n, err)
	}
	b, _ := NewBullet("deferred", "another idea", "detail", "", "")
	if _, _, err := s.Park(b); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(); err != nil || n != 4 {
		t.Fatalf("Count after a park: %d, %v; want 4", n, err)
	}
}

// Count right after Expire's first look takes the bullets' dates that look parsed (SessionEnd
// counts for its hand-off a moment after expiring): the same bytes are not parsed again, and
// other bytes (a write since) are.
func TestCountTakesExpiresDates(t *testing.T) {
	f := newFixture(t)
	s := New(f.root, f.config, safefile.Disk{Roots: []string{f.root}}, clock)
	f.write(t, "## Parked items\n\n- **young** — y. Raised: "+date(2)+".\n- **other** — o. Raised: "+date(3)+".\n")
	if exp, err := s.Expire(); err != nil || len(exp) != 0 {
		t.Fatalf("nothing due: %+v %v", exp, err)
	}
	first := s.dated.Load()
	if first == nil || len(first.dates) != 2 {
		t.Fatalf("Expire's first look kept no dates: %+v", first)
	}
	if n, err := s.Count(); err != nil || n != 2 {
		t.Fatalf("Count after Expire: %d, %v; want 2", n, err)
	}
	if s.dated.Load() != first {
		t.Fatal("Count parsed the dates of the same bytes again")
	}
	b, _ := NewBullet("deferred", "another idea", "detail", "", "")
	if _, _, err := s.Park(b); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(); err != nil || n != 3 {
		t.Fatalf("Count after a park: %d, %v; want 3", n, err)
	}
}
