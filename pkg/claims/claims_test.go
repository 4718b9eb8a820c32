package claims

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/project/projecttest"
	"github.com/cairn-hooks/cairn/pkg/registry"
)

var t0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// world is a checkout with a registry, a config directory and a clock moved by hand.
type world struct {
	*projecttest.World
	t   *testing.T
	now time.Time
}

func newWorld(t *testing.T) *world {
	root, conf := t.TempDir(), t.TempDir()
	w := &world{t: t, now: t0}
	w.World = projecttest.New(t, root, conf, t0)
	w.Now = func() time.Time { return w.now }
	return w
}

func (w *world) register(sids ...string) {
	for _, sid := range sids {
		if err := registry.Open(w.Project).Register(sid, "br-"+sid, w.now); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *world) record(sid, rel string) Outcome {
	w.t.Helper()
	out, err := Open(w.Project, registry.Open(w.Project)).Record(sid, rel)
	if err != nil {
		w.t.Fatalf("Record(%s, %s): %v", sid, rel, err)
	}
	return out
}

func (w *world) claimsOn(rel string) []Claim {
	s := Open(w.Project, registry.Open(w.Project))
	data, _ := os.ReadFile(s.pathFile(rel))
	p, held := parse(data)
	if len(held) > 0 && p != rel {
		w.t.Fatalf("%s holds %q", s.pathFile(rel), p)
	}
	return held
}

func others(o Outcome) []string {
	var out []string
	for _, c := range o.Others {
		out = append(out, c.Session)
	}
	return out
}

// A first claim writes the path's file and the session's list; edits in a burst read and write
// nothing more; a touch older than refreshAfter is rewritten, its start kept.
func TestRecordClaimsAndRefreshes(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa")
	if o := w.record("aaaa", "src/a.go"); !o.Wrote || len(o.Others) != 0 {
		t.Fatalf("first claim: %+v", o)
	}
	w.now = w.now.Add(refreshAfter - time.Second)
	if o := w.record("aaaa", "src/a.go"); o.Wrote {
		t.Fatalf("a fresh claim rewritten: %+v", o)
	}
	w.now = w.now.Add(2 * time.Second)
	if o := w.record("aaaa", "src/a.go"); !o.Wrote {
		t.Fatalf("a claim past refreshAfter not touched: %+v", o)
	}
	held := w.claimsOn("src/a.go")
	if len(held) != 1 || !held[0].Since.Equal(t0) || !held[0].Touched.Equal(w.now) || !held[0].Warned.IsZero() {
		t.Fatalf("claims: %+v", held)
	}
	if got := Open(w.Project, registry.Open(w.Project)).Paths("aaaa", 10); !slices.Equal(got, []string{"src/a.go"}) {
		t.Fatalf("the session's paths: %q (listed once)", got)
	}
	// Ended, then resumed: its list starts anew with the path it edits again.
	if err := Open(w.Project, registry.Open(w.Project)).End("aaaa"); err != nil {
		t.Fatal(err)
	}
	w.now = w.now.Add(refreshAfter)
	w.record("aaaa", "src/a.go")
	if got := Open(w.Project, registry.Open(w.Project)).Paths("aaaa", 10); !slices.Equal(got, []string{"src/a.go"}) {
		t.Fatalf("the resumed session's paths: %q", got)
	}
}

// Another live session's claim is reported once, until that session edits the path again; an
// ended, unregistered or stale one is not, and a rewrite drops the ended one's line.
func TestRecordReportsLiveOthers(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa", "bbbb")
	w.record("aaaa", "src/a.go")
	w.now = w.now.Add(time.Minute)
	o := w.record("bbbb", "src/a.go")
	if got := others(o); !slices.Equal(got, []string{"aaaa"}) || o.Sessions["aaaa"].Branch != "br-aaaa" || !o.Others[0].Since.Equal(t0) {
		t.Fatalf("b's first edit: %+v", o)
	}
	if o := w.record("bbbb", "src/a.go"); len(o.Others) != 0 || o.Wrote {
		t.Fatalf("b told twice of the same claim: %+v", o)
	}
	w.now = w.now.Add(refreshAfter + time.Second)
	w.record("aaaa", "src/a.go") // a edits again: a fresh touch
	w.now = w.now.Add(time.Second)
	if got := others(w.record("bbbb", "src/a.go")); !slices.Equal(got, []string{"aaaa"}) {
		t.Fatalf("a's new edit not reported: %q", got)
	}

	// a ends: its claim stops counting, and b's next rewrite drops its line.
	if err := registry.Open(w.Project).End("aaaa", w.now); err != nil {
		t.Fatal(err)
	}
	if err := Open(w.Project, registry.Open(w.Project)).End("aaaa"); err != nil {
		t.Fatal(err)
	}
	if got := Open(w.Project, registry.Open(w.Project)).Paths("aaaa", 10); got != nil {
		t.Fatalf("an ended session's paths: %q", got)
	}
	w.now = w.now.Add(refreshAfter + time.Second)
	if o := w.record("bbbb", "src/a.go"); len(o.Others) != 0 || !o.Wrote {
		t.Fatalf("after a ended: %+v", o)
	}
	if held := w.claimsOn("src/a.go"); len(held) != 1 || held[0].Session != "bbbb" {
		t.Fatalf("a's line kept: %+v", held)
	}

	// A session the registry does not hold, and one past the TTL, do not count.
	w.record("cccc", "src/c.go") // never registered
	if o := w.record("bbbb", "src/c.go"); len(o.Others) != 0 {
		t.Fatalf("an unregistered session counted: %+v", o)
	}
	w.register("dddd")
	w.record("dddd", "src/d.go")
	w.now = w.now.Add(TTL)
	w.register("dddd") // still active, but its claim is past the TTL
	if o := w.record("bbbb", "src/d.go"); len(o.Others) != 0 {
		t.Fatalf("a claim past the TTL counted: %+v", o)
	}
}

// A path's file that is not cairn's — garbage, an older layout, a directory — reads as no claim
// and is rewritten whole.
func TestRecordSurvivesGarbage(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa", "bbbb")
	s := Open(w.Project, registry.Open(w.Project))
	os.MkdirAll(s.Dir(), 0o700)
	for _, junk := range []string{"", "\x00\xff", "path src/a.go\nnot a line\n2026 x - bbbb\n", strings.Repeat("x", maxFile+1)} {
		os.WriteFile(s.pathFile("src/a.go"), []byte(junk), 0o600)
		if o := w.record("aaaa", "src/a.go"); len(o.Others) != 0 || !o.Wrote {
			t.Fatalf("garbage %.20q: %+v", junk, o)
		}
		if held := w.claimsOn("src/a.go"); len(held) != 1 || held[0].Session != "aaaa" {
			t.Fatalf("garbage %.20q: %+v", junk, held)
		}
		os.Remove(s.pathFile("src/a.go"))
	}
	// A file of another path under the same name (a hash collision) is taken over.
	os.WriteFile(s.pathFile("src/a.go"), format("other.go", []Claim{{Session: "bbbb", Since: t0, Touched: t0}}), 0o600)
	if o := w.record("aaaa", "src/a.go"); len(o.Others) != 0 {
		t.Fatalf("another path's claim reported: %+v", o)
	}
	// Ids that cannot name a file or a field are not recorded.
	for _, sid := range []string{"", "../x", "a b", "a\tb", ".hidden"} {
		if o, err := s.Record(sid, "src/a.go"); err != nil || o.Wrote {
			t.Errorf("session %q: %+v %v", sid, o, err)
		}
	}
}

// Without a config directory nothing is claimed or read.
func TestNoConfigDirectory(t *testing.T) {
	w := newWorld(t)
	w.Config = ""
	s := Open(w.Project, registry.Open(w.Project))
	if o, err := s.Record("aaaa", "a.go"); err != nil || o.Wrote || s.Paths("aaaa", 5) != nil || s.End("aaaa") != nil {
		t.Fatalf("%+v %v", o, err)
	}
}

func TestRel(t *testing.T) {
	w := newWorld(t)
	s := Open(w.Project, registry.Open(w.Project))
	root := w.Root
	link := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(root, "src", "a.go"):             "src/a.go",
		filepath.Join(root, "src", "..", "b.go"):       "b.go",
		"src/c.go":                                     "sub/src/c.go", // relative to the cwd below
		filepath.Join(link, "d.go"):                    "",             // through another name: outside
		filepath.Join(root, "..", "elsewhere", "e.go"): "",
		root:              "",
		"/etc/passwd":     "",
		root + "/x\ny.go": "",
	} {
		got, ok := s.Rel(in, filepath.Join(root, "sub"))
		if got != want || ok != (want != "") {
			t.Errorf("Rel(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	// A checkout reached through a link claims what Claude Code names by the real path too.
	w.Root = link
	if got, ok := Open(w.Project, registry.Open(w.Project)).Rel(filepath.Join(root, "f.go"), ""); !ok || got != "f.go" {
		t.Errorf("through the link: %q %v", got, ok)
	}
}

// Paths reads the session's list from its end: most recent first, each path once, at most max.
func TestPaths(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa")
	for i := 0; i < 5; i++ {
		w.record("aaaa", fmt.Sprintf("f%d.go", i))
	}
	s := Open(w.Project, registry.Open(w.Project))
	os.WriteFile(s.listFile("aaaa"), append(readFile(t, s.listFile("aaaa")), "f1.go\n"...), 0o600) // claimed again after its line dropped
	if got := s.Paths("aaaa", 3); !slices.Equal(got, []string{"f1.go", "f4.go", "f3.go"}) {
		t.Fatalf("Paths = %q", got)
	}
	if got := s.Paths("unknown", 3); got != nil {
		t.Fatalf("an unknown session's paths: %q", got)
	}
}

// A session's commands are noted where its transcript stood, with their tool use ids, and read
// back most recent first from the end of the list, a line that is no note skipped, an id that is
// none left out; End leaves the list (the session can be resumed), and Sweep removes one untouched
// for keepCommands, whoever's it is.
func TestCommandSpots(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa", "gone")
	s := Open(w.Project, registry.Open(w.Project))
	for _, n := range []Spot{{At: 10, ID: "toolu_01A"}, {At: 2000, ID: "toolu_01B"}, {At: -1, ID: "toolu_01C"}, {At: 35000, ID: "bad id\nx"}} {
		if err := s.NoteCommand("aaaa", n.At, n.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.NoteCompaction("aaaa", 36000); err != nil || s.NoteCompaction("aaaa", -5) != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.commandsFile("aaaa"), append(readFile(t, s.commandsFile("aaaa")), "garbage\n40000 toolu_01D\n41000 bad/id\ncompact x\n"...), 0o600)
	if got := s.CommandSpots("aaaa", 4); !slices.Equal(got, []Spot{{At: 40000, ID: "toolu_01D"}, {At: 36000, Compaction: true}, {At: 35000}, {At: 2000, ID: "toolu_01B"}}) {
		t.Fatalf("CommandSpots = %v", got)
	}
	// The notes are not claims: the claims' listing does not hold them.
	if names, _ := s.names(); slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "aaaa") }) {
		t.Fatalf("the claims directory lists a session's notes: %q", names)
	}
	if got := s.CommandSpots("unknown", 3); got != nil || s.NoteCommand("../x", 5, "t") != nil || s.CommandSpots("../x", 3) != nil {
		t.Fatalf("an unknown or unnamable session's spots: %v", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Dir()), "x")); err == nil {
		t.Fatal("a session id named a file outside the claims directory")
	}
	if err := s.End("aaaa"); err != nil || !slices.Equal(s.CommandSpots("aaaa", 1), []Spot{{At: 40000, ID: "toolu_01D"}}) {
		t.Fatalf("after End: %v, %v", err, s.CommandSpots("aaaa", 1))
	}
	s.NoteCommand("gone", 7, "")
	if err := registry.Open(w.Project).End("gone", w.now); err != nil {
		t.Fatal(err)
	}
	// A day after its last command an ended session's list stays; a week after, any list goes.
	day, week := w.now.Add(-24*time.Hour), w.now.Add(-keepCommands-time.Minute)
	os.Chtimes(s.commandsFile("gone"), day, day)
	os.Chtimes(s.commandsFile("aaaa"), week, week)
	if err := s.Sweep(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.CommandSpots("gone", 3), []Spot{{At: 7}}) || s.CommandSpots("aaaa", 3) != nil {
		t.Fatalf("after Sweep: %v, %v", s.CommandSpots("gone", 3), s.CommandSpots("aaaa", 3))
	}
}

func readFile(t *testing.T, p string) []byte {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Live lists the live claims; Sweep removes what can no longer count, and nothing that can.
func TestLiveAndSweep(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa", "bbbb", "gone")
	w.record("gone", "old.go")
	w.now = w.now.Add(TTL + time.Minute)
	w.register("aaaa", "bbbb")
	w.record("aaaa", "a.go")
	w.record("bbbb", "a.go")
	w.now = w.now.Add(time.Minute)
	w.record("bbbb", "b.go")
	live, sessions, err := Open(w.Project, registry.Open(w.Project)).Live()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range live {
		got = append(got, c.Session+":"+c.Path)
	}
	if !slices.Equal(got, []string{"bbbb:b.go", "aaaa:a.go", "bbbb:a.go"}) || sessions["bbbb"].Branch != "br-bbbb" {
		t.Fatalf("Live = %q", got)
	}

	s := Open(w.Project, registry.Open(w.Project))
	if err := registry.Open(w.Project).End("gone", w.now); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{s.pathFile("a.go"), s.pathFile("b.go"), s.listFile("bbbb")} {
		os.Chtimes(f, w.now, w.now) // written just now, on the test's clock
	}
	old := w.now.Add(-TTL - time.Minute)
	os.Chtimes(s.pathFile("old.go"), old, old)
	os.Chtimes(s.listFile("gone"), old, old)
	os.Chtimes(s.listFile("aaaa"), old, old) // an old list of a live session stays
	// What a write killed mid-way leaves (a path's old content, swapped out by a replacement, or a
	// first claim's temp file): gone once an hour old, as everywhere cairn writes.
	killed := filepath.Join(s.Dir(), "."+filepath.Base(s.pathFile("a.go"))+".tmp12345")
	fresh := filepath.Join(s.Dir(), "."+filepath.Base(s.pathFile("b.go"))+".tmp678")
	for _, f := range []string{killed, fresh} {
		if err := os.WriteFile(f, []byte("path a.go\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(killed, w.now.Add(-2*time.Hour), w.now.Add(-2*time.Hour))
	os.Chtimes(fresh, w.now, w.now)
	if err := s.Sweep(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{s.pathFile("old.go"): false, s.listFile("gone"): false, s.listFile("aaaa"): true, s.pathFile("a.go"): true, killed: false, fresh: true} {
		if _, err := os.Stat(name); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(name), err == nil, want)
		}
	}
}

// Many sessions claiming one path at once, each in its own process's place (a fresh handle),
// lose no claim and tear no file.
func TestConcurrentClaimsLoseNothing(t *testing.T) {
	w := newWorld(t)
	const n = maxHolders
	var sids []string
	for i := 0; i < n; i++ {
		sids = append(sids, fmt.Sprintf("s%02d", i))
	}
	w.register(sids...)
	var wg sync.WaitGroup
	for _, sid := range sids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Open(w.Project, registry.Open(w.Project)).Record(sid, "hot.go"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	held := w.claimsOn("hot.go")
	if len(held) != n {
		t.Fatalf("%d claims of %d", len(held), n)
	}
	for _, sid := range sids {
		if got := Open(w.Project, registry.Open(w.Project)).Paths(sid, 5); !slices.Equal(got, []string{"hot.go"}) {
			t.Errorf("%s's list: %q", sid, got)
		}
	}
}

// A claim file reads back as written, and anything else reads without a panic as claims that
// name a valid session.
func FuzzParse(f *testing.F) {
	f.Add([]byte(format("src/a.go", []Claim{{Session: "s1", Since: t0, Touched: t0, Warned: t0}, {Session: "s2", Since: t0, Touched: t0}})))
	f.Add([]byte("path x\n2026-12-07T10:00:00Z 2026-12-07T10:00:00Z - ../x\n"))
	f.Add([]byte("\x00path\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path, held := parse(data)
		for _, c := range held {
			if !validSession(c.Session) || c.Path != path {
				t.Fatalf("%q read as %+v", data, c)
			}
		}
		if strings.ContainsAny(path, "\n") {
			return
		}
		p2, again := parse(format(path, held))
		if p2 != path || len(again) != len(held) {
			t.Fatalf("%q: %q %d, then %q %d", data, path, len(held), p2, len(again))
		}
	})
}

// BenchmarkPaths is a compaction's read of a session's claims when its list is full (64 KiB,
// about 2,000 paths, each claimed twice): the read and the de-duplication, no disk write.
func BenchmarkPaths(b *testing.B) {
	w := projecttest.New(b, b.TempDir(), b.TempDir(), t0)
	s := Open(w.Project, registry.Open(w.Project))
	var list []byte
	for i := 0; len(list) < maxListRead; i++ {
		list = fmt.Appendf(list, "src/pkg%03d/file%04d.go\n", i%200, i%2000)
	}
	if err := os.MkdirAll(filepath.Dir(s.listFile("aaaa")), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(s.listFile("aaaa"), list, 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := s.Paths("aaaa", 4096); len(got) != 2000 {
			b.Fatalf("%d paths", len(got))
		}
	}
}

// Paths reads the list as splitting it at every newline and walking it back did: the same paths,
// in the same order, whatever the list's empty lines, repeats, end and max.
func TestPathsAsSplit(t *testing.T) {
	w := newWorld(t)
	s := Open(w.Project, registry.Open(w.Project))
	if err := os.MkdirAll(filepath.Dir(s.listFile("aaaa")), 0o700); err != nil {
		t.Fatal(err)
	}
	split := func(data string, max int) []string {
		var out []string
		lines := strings.Split(strings.TrimRight(data, "\n"), "\n")
		for i := len(lines) - 1; i >= 0 && len(out) < max; i-- {
			if l := lines[i]; l != "" && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
		return out
	}
	for _, list := range []string{"", "\n", "\n\n", "a", "a\n", "a\nb\na\n", "\na\n\nb\n\n\n", "a\nb\nc\nb\na", "x\n\n\ny\nx\n\n"} {
		if err := os.WriteFile(s.listFile("aaaa"), []byte(list), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{1, 2, 3, 100} {
			if got, want := s.Paths("aaaa", max), split(list, max); !slices.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("list %q, max %d: Paths = %q, want %q", list, max, got, want)
			}
		}
	}
}

// A session's list is read as it is written, inside <config>/cairn: one that is a link to a file
// elsewhere names no path of the session's.
func TestPathsStayInTheTree(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa")
	w.record("aaaa", "a.go")
	s := Open(w.Project, registry.Open(w.Project))
	outside := filepath.Join(t.TempDir(), "list")
	os.WriteFile(outside, []byte("../../etc/passwd\n"), 0o600)
	os.Remove(s.listFile("aaaa"))
	if err := os.Symlink(outside, s.listFile("aaaa")); err != nil {
		t.Skip(err)
	}
	if got := s.Paths("aaaa", 5); got != nil {
		t.Fatalf("Paths through a link out of the tree = %q", got)
	}
}

// Two checkouts whose roots Claude Code spells alike keep their claims apart: neither reads the
// other's sessions as its own dead ones and drops their claims.
func TestCheckoutsWithOneSlug(t *testing.T) {
	parent, conf := t.TempDir(), t.TempDir()
	var ws []*world
	for _, name := range []string{"my_app", "my-app"} {
		root := filepath.Join(parent, name)
		os.Mkdir(root, 0o755)
		w := &world{t: t, now: t0}
		w.World = projecttest.New(t, root, conf, t0)
		w.Now = func() time.Time { return w.now }
		ws = append(ws, w)
	}
	a, b := ws[0], ws[1]
	a.register("aaaa")
	b.register("bbbb")
	a.record("aaaa", "go.mod")
	if o := b.record("bbbb", "go.mod"); len(o.Others) != 0 {
		t.Fatalf("told of another checkout's session: %v", others(o))
	}
	if held := a.claimsOn("go.mod"); len(held) != 1 || held[0].Session != "aaaa" {
		t.Fatalf("the first checkout's claims after the second's edit: %+v", held)
	}
	if len(filepath.Base(Open(a.Project, nil).Dir())) > 255-2 {
		t.Fatal("a claims directory name too long")
	}
}

// A root too deep for its slug to be a file name still has claims.
func TestDeepRoot(t *testing.T) {
	w := newWorld(t)
	deep := w.Root
	for i := 0; len(project.Slug(deep)) <= 300; i++ {
		deep = filepath.Join(deep, strings.Repeat("d", 60))
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Skip(err)
	}
	w.World = projecttest.New(t, deep, w.Config, t0)
	w.register("aaaa")
	w.record("aaaa", "a.go")
	if got := Open(w.Project, nil).Paths("aaaa", 1); !slices.Equal(got, []string{"a.go"}) {
		t.Fatalf("Paths = %q", got)
	}
}

// A path's file is read as it is written, inside <config>/cairn: a link in its place, to a file
// elsewhere, is cairn's own file damaged, replaced by the claim; the file it led to is untouched.
func TestRecordReplacesALink(t *testing.T) {
	w := newWorld(t)
	w.register("aaaa")
	s := Open(w.Project, registry.Open(w.Project))
	os.MkdirAll(s.Dir(), 0o700)
	outside := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(outside, format("src/a.go", []Claim{{Session: "bbbb", Since: t0, Touched: t0}}), 0o600)
	if err := os.Symlink(outside, s.pathFile("src/a.go")); err != nil {
		t.Skip(err)
	}
	if o := w.record("aaaa", "src/a.go"); len(o.Others) != 0 {
		t.Fatalf("a claim read through a link: %+v", o)
	}
	if fi, err := os.Lstat(s.pathFile("src/a.go")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the link was not replaced: %v %v", fi, err)
	}
	if held := w.claimsOn("src/a.go"); len(held) != 1 || held[0].Session != "aaaa" {
		t.Fatalf("claims after: %+v", held)
	}
	if data := readFile(t, outside); !strings.Contains(string(data), "bbbb") {
		t.Fatalf("the file the link led to changed: %q", data)
	}
}
