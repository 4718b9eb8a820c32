package forget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/project/projecttest"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/tombstone"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.Local)

// world is a project with a history: its checkpoints, parked items, logs and a session.
type world struct {
	t     *testing.T
	w     *projecttest.World
	cfg   search.Config
	cache string
}

func newWorld(t *testing.T) *world {
	root := filepath.Join(t.TempDir(), "proj")
	config := filepath.Join(t.TempDir(), ".claude")
	os.MkdirAll(root, 0o755)
	w := projecttest.New(t, root, config, t0)
	cache := t.TempDir()
	return &world{t: t, w: w, cache: cache,
		cfg: search.Config{Root: root, CacheDir: cache, ConfigDir: config, Roots: []string{root}, Now: func() time.Time { return t0.Add(time.Hour) }}}
}

func (x *world) found(q string) []string {
	x.t.Helper()
	ix := search.Open(x.cfg)
	defer ix.Close()
	rs, err := ix.Search(context.Background(), q, search.Options{Wait: true})
	if err != nil {
		x.t.Fatal(err)
	}
	var ids []string
	for _, r := range rs.Items {
		ids = append(ids, r.ID)
	}
	return ids
}

func (x *world) forget(id string) *Plan {
	x.t.Helper()
	pl, err := Prepare(x.w.Project, x.cfg, id)
	if err != nil {
		x.t.Fatalf("prepare %s: %v", id, err)
	}
	if err := pl.Apply(context.Background()); err != nil {
		x.t.Fatalf("apply %s: %v", id, err)
	}
	return pl
}

// noText checks that no file under dir holds text (the tombstones keep hashes, not text).
func noText(t *testing.T, dir, text string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(text)) {
				t.Errorf("%s still holds %q", p, text)
			}
		}
		return nil
	})
}

// A checkpoint forgotten leaves its file, its catalog entry, the timeline's lines that name it and
// the index; a tombstone (no text) keeps it out even when git brings the file back; --dry-run
// changes nothing.
func TestForgetCheckpoint(t *testing.T) {
	x := newWorld(t)
	in := catalog.AutoInput{SessionID: "s1", Trigger: "auto", Event: "s1/auto/1", Branch: "main", Now: t0, Prompts: []string{"the capybara7 migration"}}
	saved, _, err := catalog.Open(x.w.Project, timeline.Open(x.w.Project)).Auto(in)
	if err != nil {
		t.Fatal(err)
	}
	timeline.Open(x.w.Project).Append(timeline.Event{Time: t0, Event: timeline.Compaction, Session: "s1", Checkpoint: saved.Rel})
	timeline.Open(x.w.Project).Append(timeline.Event{Time: t0, Event: timeline.SessionEnd, Session: "s1"})
	id := strings.TrimSuffix(filepath.Base(saved.Rel), ".md")
	if got := x.found("capybara7"); len(got) != 1 || got[0] != id {
		t.Fatalf("before: %v", got)
	}
	data, _ := os.ReadFile(saved.Path)

	pl, err := Prepare(x.w.Project, x.cfg, id) // planned, not applied: nothing changes
	if err != nil || len(pl.Removes) != 3 {
		t.Fatalf("plan: %+v %v", pl, err)
	}
	if _, err := os.Stat(saved.Path); err != nil || len(x.found("capybara7")) != 1 {
		t.Fatal("a plan changed something")
	}

	x.forget(id)
	if _, err := os.Stat(saved.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file: %v", err)
	}
	if n := len(catalog.Open(x.w.Project, timeline.Open(x.w.Project)).Entries()); n != 0 {
		t.Errorf("%d catalog entries", n)
	}
	tl, _ := os.ReadFile(filepath.Join(x.w.Root, timeline.File))
	if bytes.Contains(tl, []byte(id)) || !bytes.Contains(tl, []byte("session_end")) {
		t.Errorf("timeline:\n%s", tl)
	}
	if got := x.found("capybara7"); len(got) != 0 {
		t.Errorf("still found: %v", got)
	}
	noText(t, filepath.Join(x.w.Config, tombstone.Dir), "capybara7")
	noText(t, x.cache, "capybara7")
	// Brought back (git checkout, a copy): not indexed, not shown.
	os.WriteFile(saved.Path, data, 0o644)
	os.RemoveAll(x.cache)
	if got := x.found("capybara7"); len(got) != 0 {
		t.Errorf("brought back, found: %v", got)
	}
	if _, err := search.Show(x.cfg, id); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("brought back, shown: %v", err)
	}
}

// A parked item forgotten is gone without an audit line; an archived one's line leaves the audit
// log (and the original workflow's log keeps its copy, hidden); a timeline line goes alone.
func TestForgetItemsAndLines(t *testing.T) {
	x := newWorld(t)
	store := parking.Open(x.w.Project, sessionfile.Open(x.w.Project))
	b, _ := parking.NewBullet("deferred", "the tapir3 dashboard", "later", "", "")
	if _, _, err := store.Park(b); err != nil {
		t.Fatal(err)
	}
	b2, _ := parking.NewBullet("deferred", "the quokka5 exporter", "later", "", "")
	store.Park(b2)
	if _, err := store.Archive("quokka5"); err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(x.w.Root, ".notes/logs/session-archive.jsonl")
	line, _ := os.ReadFile(audit)
	legacy := filepath.Join(x.w.Root, ".claude/logs/session-archive.jsonl")
	os.MkdirAll(filepath.Dir(legacy), 0o755)
	os.WriteFile(legacy, line, 0o644)
	timeline.Open(x.w.Project).Append(timeline.Event{Time: t0, Event: timeline.SessionStart, Session: "ocelot9-session", Branch: "main"})

	parked, archived := x.found("tapir3"), x.found("quokka5")
	if len(parked) != 1 || len(archived) == 0 { // the legacy log's copy is a result too
		t.Fatalf("before: %v %v", parked, archived)
	}
	x.forget(parked[0])
	// A new handle, as the next process has: a store reads session-context.md once.
	if items, _ := parking.Open(x.w.Project, sessionfile.Open(x.w.Project)).List(); len(items) != 0 {
		t.Errorf("still parked: %+v", items)
	}
	if data, _ := os.ReadFile(audit); bytes.Contains(data, []byte("tapir3")) {
		t.Errorf("a forgotten item was logged:\n%s", data)
	}
	pl := x.forget(archived[0])
	if data, _ := os.ReadFile(audit); bytes.Contains(data, []byte("quokka5")) {
		t.Errorf("audit log:\n%s", data)
	}
	if data, _ := os.ReadFile(legacy); !bytes.Contains(data, []byte("quokka5")) || !strings.Contains(strings.Join(pl.Keeps, "\n"), legacyAuditRel) {
		t.Errorf("the legacy log is not cairn's: %s; keeps %q", data, pl.Keeps)
	}
	tl := x.found("ocelot9")
	if len(tl) != 1 || !strings.HasPrefix(tl[0], "timeline:") {
		t.Fatalf("timeline: %v", tl)
	}
	x.forget(tl[0])
	for _, q := range []string{"tapir3", "quokka5", "ocelot9"} {
		if got := x.found(q); len(got) != 0 {
			t.Errorf("%s still found: %v", q, got)
		}
	}
	os.RemoveAll(x.cache)
	if got := x.found("quokka5"); len(got) != 0 {
		t.Errorf("the legacy copy is found after a rebuild: %v", got)
	}
	if _, err := Prepare(x.w.Project, x.cfg, "parked:nope"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

// A pruned checkpoint forgotten leaves the log of pruned checkpoints and the timeline's lines
// that named it.
func TestForgetPruned(t *testing.T) {
	x := newWorld(t)
	var first checkpoint.Saved
	for i := 0; i <= catalog.RetainPerBranch; i++ {
		w := projecttest.New(t, x.w.Root, x.w.Config, t0.Add(time.Duration(i)*time.Minute))
		in := catalog.AutoInput{SessionID: "s1", Trigger: "auto", Event: fmt.Sprintf("s1/auto/%d", i), Branch: "main",
			Now: t0.Add(time.Duration(i) * time.Minute), Prompts: []string{fmt.Sprintf("the jackal%d plan", i)}}
		s, _, _ := catalog.Open(w.Project, timeline.Open(w.Project)).Auto(in)
		if i == 0 {
			first = s
		}
	}
	got := x.found("jackal0")
	if len(got) != 1 || !strings.HasPrefix(got[0], "pruned:") {
		t.Fatalf("before: %v", got)
	}
	x.forget(got[0])
	if got := x.found("jackal0"); len(got) != 0 {
		t.Errorf("still found: %v", got)
	}
	for _, rel := range []string{catalog.PrunedFile, timeline.File} {
		if data, _ := os.ReadFile(filepath.Join(x.w.Root, rel)); bytes.Contains(data, []byte(first.Rel)) {
			t.Errorf("%s still names %s", rel, first.Rel)
		}
	}
}

// The log of pruned checkpoints is a file of the project, which another tool may have written
// back with other JSON spacing: forget reads a line's checkpoint as JSON, and still finds the
// timeline's lines that name it.
func TestForgetPrunedSpacedJSON(t *testing.T) {
	x := newWorld(t)
	var first checkpoint.Saved
	for i := 0; i <= catalog.RetainPerBranch; i++ {
		w := projecttest.New(t, x.w.Root, x.w.Config, t0.Add(time.Duration(i)*time.Minute))
		in := catalog.AutoInput{SessionID: "s1", Trigger: "auto", Event: fmt.Sprintf("s1/auto/%d", i), Branch: "main",
			Now: t0.Add(time.Duration(i) * time.Minute), Prompts: []string{fmt.Sprintf("the okapi%d plan", i)}}
		s, _, _ := catalog.Open(w.Project, timeline.Open(w.Project)).Auto(in)
		if i == 0 {
			first = s
		}
	}
	log := filepath.Join(x.w.Root, catalog.PrunedFile)
	data, err := os.ReadFile(log)
	if err != nil || !bytes.Contains(data, []byte(`"checkpoint":"`)) {
		t.Fatalf("%s: %v\n%s", log, err, data)
	}
	if err := os.WriteFile(log, bytes.ReplaceAll(data, []byte(`"checkpoint":"`), []byte(`"checkpoint": "`)), 0o644); err != nil {
		t.Fatal(err)
	}
	got := x.found("okapi0")
	if len(got) != 1 || !strings.HasPrefix(got[0], "pruned:") {
		t.Fatalf("before: %v", got)
	}
	x.forget(got[0])
	if data, _ := os.ReadFile(filepath.Join(x.w.Root, timeline.File)); bytes.Contains(data, []byte(first.Rel)) {
		t.Errorf("%s still names %s", timeline.File, first.Rel)
	}
}

// A session forgotten leaves the index and is never read again; its transcript stays, as the
// plan says.
func TestForgetSession(t *testing.T) {
	x := newWorld(t)
	dir := filepath.Join(x.w.Config, "projects", project.Slug(x.w.Root))
	os.MkdirAll(dir, 0o700)
	sid := "0f3c2a9e-1111-4222-8333-444455556666"
	s := &transcripttest.Session{ID: sid, Cwd: x.w.Root, Branch: "main", Time: t0}
	s.Prompt("the meerkat4 rollout")
	path := filepath.Join(dir, sid+".jsonl")
	os.WriteFile(path, s.Bytes(), 0o600)
	other := &transcripttest.Session{ID: "7a1b2c3d-1111-4222-8333-444455556666", Cwd: x.w.Root, Branch: "main", Time: t0}
	other.Prompt("the lemur2 rollout")
	os.WriteFile(filepath.Join(dir, other.ID+".jsonl"), other.Bytes(), 0o600)
	if got := x.found("meerkat4"); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	pl := x.forget("session:" + sid)
	if got := x.found("lemur2"); len(got) != 1 {
		t.Errorf("the other session, after: %v", got)
	}
	if !strings.Contains(strings.Join(pl.Keeps, "\n"), path) {
		t.Errorf("keeps: %q", pl.Keeps)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the transcript is Claude Code's: %v", err)
	}
	if got := x.found("meerkat4"); len(got) != 0 {
		t.Errorf("still found: %v", got)
	}
	noText(t, x.cache, "meerkat4") // the index keeps none of the session's words
	os.RemoveAll(x.cache)
	if got := x.found("meerkat4"); len(got) != 0 {
		t.Errorf("found after a rebuild: %v", got)
	}
}

// In a linked worktree the checkpoints, the timeline and the log of pruned checkpoints are the
// repository's, under the main checkout: forget finds and removes them there, as search finds them.
func TestForgetFromALinkedWorktree(t *testing.T) {
	dir := t.TempDir()
	main, wt := filepath.Join(dir, "main"), filepath.Join(dir, "wt")
	gd := filepath.Join(main, ".git", "worktrees", "wt")
	for path, data := range map[string]string{
		filepath.Join(main, ".git", "HEAD"): "ref: refs/heads/main\n",
		filepath.Join(gd, "HEAD"):           "ref: refs/heads/feat\n",
		filepath.Join(gd, "commondir"):      "../..\n",
		filepath.Join(gd, "gitdir"):         filepath.Join(wt, ".git") + "\n",
		filepath.Join(wt, ".git"):           "gitdir: " + gd + "\n",
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(dir, ".claude")
	at := func(now time.Time) *projecttest.World {
		w := projecttest.New(t, wt, config, now)
		w.Files = safefile.Disk{Roots: w.Roots()}
		return w
	}
	w := at(t0)
	if w.Shared() != main {
		t.Fatalf("Shared = %q", w.Shared())
	}
	x := &world{t: t, w: w, cache: t.TempDir()}
	x.cfg = search.Config{Root: wt, Shared: main, CacheDir: x.cache, ConfigDir: config, Roots: []string{main, wt}, Now: func() time.Time { return t0.Add(time.Hour) }}

	var first checkpoint.Saved
	for i := 0; i <= catalog.RetainPerBranch+1; i++ {
		when := t0.Add(time.Duration(i) * time.Minute)
		w := at(when)
		in := catalog.AutoInput{SessionID: "s1", Trigger: "auto", Event: fmt.Sprintf("s1/auto/%d", i), Branch: "feat",
			Now: when, Prompts: []string{fmt.Sprintf("the gecko%d plan", i)}}
		s, _, err := catalog.Open(w.Project, timeline.Open(w.Project)).Auto(in)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = s
		}
		timeline.Open(w.Project).Append(timeline.Event{Time: when, Event: timeline.Compaction, Session: "s1", Checkpoint: s.Rel})
	}
	last := fmt.Sprintf("gecko%d", catalog.RetainPerBranch+1)
	got := x.found(last)
	if len(got) != 1 || strings.HasPrefix(got[0], "pruned:") {
		t.Fatalf("the newest checkpoint: %v", got)
	}
	pl := x.forget(got[0])
	if len(pl.Removes) != 3 || !strings.Contains(pl.Removes[2], timeline.File) {
		t.Errorf("removes: %q", pl.Removes)
	}
	pruned := x.found("gecko0")
	if len(pruned) != 1 || !strings.HasPrefix(pruned[0], "pruned:") {
		t.Fatalf("the pruned checkpoint: %v", pruned)
	}
	x.forget(pruned[0])
	for _, q := range []string{last, "gecko0"} {
		if got := x.found(q); len(got) != 0 {
			t.Errorf("%s still found: %v", q, got)
		}
	}
	for _, rel := range []string{catalog.PrunedFile, timeline.File} {
		data, _ := os.ReadFile(filepath.Join(main, rel))
		if bytes.Contains(data, []byte(first.Rel)) || bytes.Contains(data, []byte(last+" plan")) {
			t.Errorf("%s still names what was forgotten:\n%s", rel, data)
		}
	}
	if names, _ := checkpoint.Names(main); len(names) != catalog.RetainPerBranch-1 {
		t.Errorf("%d checkpoints left under the main checkout, want %d", len(names), catalog.RetainPerBranch-1)
	}
	if _, err := os.Stat(filepath.Join(wt, "memory")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forget wrote into the worktree: %v", err)
	}
}
