// Package parking keeps a session's open loops — questions left unanswered, ideas deferred, side
// ideas — so that compaction, /clear and the end of a session do not lose them (docs/PARKING.md).
//
// Items live as bullets under "## Parked items" in .claude/state/session-context.md, a file
// shared with the PreCompact snapshot: parking reads and writes only its own section and keeps
// every other byte. Items that older versions wrote as session-open-*.md files in Claude Code's
// per-project memory directory are read too, listed with the others (the bullet wins when both
// have the same slug), and removed when archived or expired, never written; the lines pointing
// at a removed one in Claude Code's MEMORY.md index beside it go too (pointer.go). Every removal
// is first recorded, whole, in the append-only audit log .notes/logs/session-archive.jsonl.
//
// Every change happens inside one locked read-modify-write of session-context.md, so parallel
// hooks and sessions never lose an item; reading is lock-free. Every age is measured against an
// injected clock, in whole calendar days of the clock's location.
package parking

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
)

// Thresholds, as users know them from the original /session workflow, fixed and not configurable
// (docs/PARKING.md, Ages, stale, expiry, the guard).
const (
	// StaleDays: an item this old is listed with "⚠ stale" so that it is either acted on or archived.
	StaleDays = 14
	// ExpireDays: an item this old is deleted (and logged) before listing and at SessionEnd;
	// whatever it was about has been settled or forgotten by then.
	ExpireDays = 30
	// MaxOpen: parking refuses a new item while this many are open, so that the list stays
	// something a person reads (the pollution guard).
	MaxOpen = 10
)

// Source says where an item lives.
type Source string

const (
	Current Source = "current" // a bullet in session-context.md
	Legacy  Source = "legacy"  // a session-open-*.md memory file
)

// Item is one open parked item, from either source.
type Item struct {
	Slug        string
	Name        string // the slug for a bullet; the frontmatter name for a legacy file
	Description string // the summary for a bullet; the frontmatter description for a legacy file
	Raised      string // YYYY-MM-DD: the Raised date (today for an undated bullet); a legacy file's modification date
	Why, How    string
	Source      Source
	Path        string // the legacy file; "" for a bullet
	Text        string // the bullet as written or the whole legacy file: what the audit log keeps

	block  int    // index of the bullet's block; -1 for a legacy file
	search string // lowercased text that archive matches content against
	copies []Item // other items with the same slug that this one hides (legacy files)
}

// Age is the item's age in whole days on the calendar of today's location (0 for today or a
// future date).
func (it Item) Age(today time.Time) int { return ageDays(it.Raised, today) }

// Stale reports whether the item is listed with "⚠ stale".
func (it Item) Stale(today time.Time) bool { return it.Age(today) >= StaleDays }

func ageDays(date string, today time.Time) int {
	d, err := time.ParseInLocation(DateLayout, date, time.UTC)
	if err != nil {
		return 0
	}
	y, m, dd := today.Date()
	t := time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
	n := int(t.Sub(d).Hours() / 24)
	return max(n, 0)
}

// legacyCutoff is the instant before which a legacy file's modification time makes it due:
// ageDays(its date in today's location, today) >= ExpireDays exactly when the time is before the
// start of the day ExpireDays-1 days before today. mayExpire compares each file against it
// instead of formatting and parsing a hundred dates.
func legacyCutoff(today time.Time) time.Time {
	y, m, d := today.Date()
	return time.Date(y, m, d-(ExpireDays-1), 0, 0, 0, 0, today.Location())
}

// AuditRel is the audit log, relative to the project root; LegacyAuditRel is where the original
// /session workflow kept it, which cairn reads and never writes.
const (
	AuditRel       = ".notes/logs/session-archive.jsonl"
	LegacyAuditRel = ".claude/logs/session-archive.jsonl"
)

// AuditPath is the audit log under the project root; [LegacyAuditPath] is the original
// workflow's, read only.
func AuditPath(root string) string { return filepath.Join(root, filepath.FromSlash(AuditRel)) }

// LegacyAuditPath is where the original /session workflow kept the audit log; cairn reads it and
// never writes it.
func LegacyAuditPath(root string) string {
	return filepath.Join(root, filepath.FromSlash(LegacyAuditRel))
}

// Store is the parked items of one project.
type Store struct {
	Root   string          // the project root
	Config string          // Claude Code's config directory; "" when unknown
	Files  safefile.Writer // writes session-context.md and the audit log
	Legacy safefile.Writer // removes legacy files; confined to LegacyDirs
	Dirs   []string        // the legacy memory directories (LegacyDirs)
	Now    func() time.Time

	ctx *sessionfile.Context // session-context.md: read once, written through it

	// seen is session-context.md as the last read without the lock found it, parsed. A locked
	// update that finds the same bytes reuses it: the prompt hook counts the bullets (read), then
	// parks (update), and parsing the bullets — each field redacted — was a visible part of
	// its time done twice. (Atomic, so that a Store stays safe for concurrent use.)
	seen atomic.Pointer[parsed]

	// listed is one more than the number of legacy files Expire's first look (mayExpire) found
	// when nothing was due, 0 when unknown. Count, which SessionEnd's hand-off asks right after,
	// takes it instead of listing the directories again. Every write through the store forgets it.
	listed atomic.Int64

	// dated is what dates made of session-context.md, with the bytes it came from: Expire's first
	// look and Count, which SessionEnd's hand-off asks right after, read the same bytes through
	// the handle, and parse the bullets' dates once between them.
	dated atomic.Pointer[datesOf]
}

// datesOf is dates' answer for the bytes data (exists false: no file). Neither is changed once made.
type datesOf struct {
	data   []byte
	exists bool
	dates  []string
}

// parsed is session-context.md, split and its parked-items section parsed, with the bytes they
// came from. Neither is changed once made: a transaction records its changes apart (edit).
type parsed struct {
	data   []byte
	exists bool
	file   *sessionfile.File
	sec    *section
}

// parse returns data split and parsed, reusing what the last read made of the same bytes.
func (s *Store) parse(data []byte, exists bool) *parsed {
	if p := s.parsedAs(data, exists); p != nil {
		return p
	}
	file := sessionfile.Split(data, exists)
	return &parsed{data: data, exists: exists, file: file, sec: parseSection(file)}
}

// parsedAs is the last read's parse when it was of the same bytes, else nil.
func (s *Store) parsedAs(data []byte, exists bool) *parsed {
	if p := s.seen.Load(); p != nil && p.exists == exists && bytes.Equal(p.data, data) {
		return p
	}
	return nil
}

// load reads session-context.md without a lock, through the handle (once per process);
// exists is false when there is none.
func (s *Store) load() (data []byte, exists bool, err error) { return s.ctx.Read() }

// New returns the store of the project at root. config is Claude Code's config directory ("" when
// unknown: legacy files are then not looked for). files writes inside the project; a
// safefile.DryRun makes the whole store a dry run. It opens its own handle on session-context.md:
// a process that also refreshes the snapshot uses [Open] with the handle it holds.
func New(root, config string, files safefile.Writer, now func() time.Time) *Store {
	return newStore(root, config, files, now, sessionfile.OpenAt(root, files))
}

func newStore(root, config string, files safefile.Writer, now func() time.Time, ctx *sessionfile.Context) *Store {
	dirs := LegacyDirs(config, root)
	return &Store{Root: root, Config: config, Files: files, Legacy: files.Under(dirs...), Dirs: dirs, Now: now, ctx: ctx}
}

// Reader returns a store that only reads: the parked items of the project at root and of the
// legacy directories dirs, for a reader outside any hook (the search index). Its writes fail.
func Reader(root string, dirs []string, now func() time.Time) *Store {
	return &Store{Root: root, Dirs: dirs, Now: now, ctx: sessionfile.OpenAt(root, nil)}
}

// Open returns the store of p's project, reading and writing session-context.md through ctx, the
// process's handle on it (sessionfile.Open(p)).
func Open(p *project.Project, ctx *sessionfile.Context) *Store {
	return newStore(p.Root, p.Config, p.Files, p.Now, ctx)
}

// Errors of Park and Archive.
var (
	errNoMatch   = errors.New("no parked item matches")
	errSlugTaken = errors.New("slug is taken")
)

// FullError is Park's refusal: MaxOpen items are open already. Items are the open items.
type FullError struct{ Items []Item }

func (e *FullError) Error() string {
	return fmt.Sprintf("%d items are parked already; archive one first", len(e.Items))
}

// AmbiguousError is Archive's refusal: several items match equally well. Nothing was changed.
type AmbiguousError struct {
	Query      string
	Candidates []Item
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches %d items equally well; nothing archived", e.Query, len(e.Candidates))
}

// todayString is the clock's date, in the clock's location.
func (s *Store) todayString() string { return s.Now().Format(DateLayout) }

// read reads the parked-items section of session-context.md without a lock.
func (s *Store) read() (*section, error) {
	data, exists, err := s.load()
	if err != nil {
		return nil, err
	}
	p := s.parse(data, exists)
	s.seen.Store(p)
	return p.sec, nil
}

// dates is the Raised date of each bullet under "## Parked items" ("" for an undated one), read
// without the lock: what Expire's first look and Count need. It parses the bullets for their
// dates alone (raisedDates), unless the last read parsed the same bytes whole already.
func (s *Store) dates() ([]string, error) {
	data, exists, err := s.load()
	if err != nil {
		return nil, err
	}
	if p := s.parsedAs(data, exists); p != nil {
		out := make([]string, len(p.sec.blocks))
		for i, bl := range p.sec.blocks {
			out[i] = bl.bullet.Raised
		}
		return out, nil
	}
	if d := s.dated.Load(); d != nil && d.exists == exists && bytes.Equal(d.data, data) {
		return slices.Clone(d.dates), nil
	}
	out := raisedDates(sessionfile.Split(data, exists).Parked())
	s.dated.Store(&datesOf{data: data, exists: exists, dates: slices.Clone(out)})
	return out, nil
}

// List returns the open items, current bullets in file order then legacy files newest first,
// de-duplicated by slug. It writes nothing (expired items are still listed: see Expire).
func (s *Store) List() ([]Item, error) {
	sec, err := s.read()
	if err != nil {
		return nil, err
	}
	legacy, lerr := readLegacy(s.Dirs)
	return items(sec, nil, legacy, s.todayString(), s.Now().Location()), lerr
}

// items merges both sources: bullets in order (but the removed ones), then legacy files whose
// slug no bullet has; a legacy file hidden by another item becomes one of its copies.
func items(f *section, removed map[int]bool, legacy []legacyFile, today string, loc *time.Location) []Item {
	var out []Item
	bySlug := map[string]int{}
	for i, bl := range f.blocks {
		if removed[i] {
			continue
		}
		b := bl.bullet
		raised := b.Raised
		if raised == "" {
			raised = today
		}
		it := Item{
			Slug: b.Slug, Name: b.Slug, Description: b.Summary, Raised: raised, Why: b.Why, How: b.How,
			Source: Current, Text: bl.text, block: i,
			search: strings.ToLower(b.Summary + "\n" + b.Why + "\n" + b.How + "\n" + bl.text),
		}
		if _, dup := bySlug[it.Slug]; !dup {
			bySlug[it.Slug] = len(out)
		}
		out = append(out, it)
	}
	for _, lf := range legacy {
		it := legacyItem(lf, loc)
		if j, dup := bySlug[it.Slug]; dup {
			out[j].copies = append(out[j].copies, it)
			continue
		}
		bySlug[it.Slug] = len(out)
		out = append(out, it)
	}
	return out
}

func legacyItem(lf legacyFile, loc *time.Location) Item {
	return Item{
		Slug: lf.slug, Name: lf.name, Description: lf.desc, Raised: lf.mod.In(loc).Format(DateLayout),
		Why: lf.why, How: lf.how, Source: Legacy, Path: lf.path, Text: lf.text, block: -1, search: lf.searchFor,
	}
}

// txn is one locked read-modify-write of session-context.md.
type txn struct {
	s        *Store
	f        *section
	legacy   []legacyFile
	e        edit
	stamp    bool      // date undated bullets even if nothing else changes
	unlinked []pointer // the memory-index pointers of the legacy files removed
}

// update runs fn under the lock of session-context.md and writes the section back if fn changed
// it. Undated bullets are given today's date whenever the section is written (so a refusal,
// which changes nothing, does not write), and by Expire. Then, the section written or not, the
// pointers to the legacy files that fn removed leave their memory index (see unpoint): a
// failure there comes back as an *IndexError, alone when nothing else failed.
func (s *Store) update(fn func(t *txn) error, opts ...safefile.Option) error {
	s.listed.Store(0)
	defer s.listed.Store(0)
	var t *txn
	_, err := s.ctx.Update(func(old []byte, exists bool) ([]byte, error) {
		p := s.parse(old, exists)
		file := p.file
		t = &txn{s: s, f: p.sec, e: edit{remove: map[int]bool{}, replace: map[int]string{}}}
		var err error
		if t.legacy, err = readLegacy(s.Dirs); err != nil {
			return nil, err
		}
		if err := fn(t); err != nil {
			return nil, err
		}
		if t.e.empty() && !t.stamp {
			return nil, safefile.ErrNoChange
		}
		today := s.todayString()
		for i, bl := range t.f.blocks {
			if !bl.dated && !t.e.remove[i] {
				b := bl.bullet
				b.Raised = today
				t.e.replace[i] = format(b)
			}
		}
		if t.e.empty() {
			return nil, safefile.ErrNoChange
		}
		return file.WithParked(t.f.render(t.e)), nil
	}, opts...)
	if t == nil {
		return err
	}
	ierr := s.unpoint(t.unlinked)
	if ie, ok := ierr.(*IndexError); ok && err != nil {
		return errors.Join(append([]error{err}, ie.Errs...)...)
	}
	if err != nil {
		return err
	}
	return ierr
}

func (t *txn) items() []Item {
	return items(t.f, t.e.remove, t.liveLegacy(), t.s.todayString(), t.s.Now().Location())
}

func (t *txn) liveLegacy() []legacyFile {
	var out []legacyFile
	for _, lf := range t.legacy {
		if lf.path != "" {
			out = append(out, lf)
		}
	}
	return out
}

// remove records items in the audit log, in one append, then deletes them; with action "" it
// records nothing (Forget). Recording first means
// that a failure can leave an item logged and still open, never removed and unlogged. For a
// legacy file the audit line also says what its memory index holds for it; the index itself is
// edited once the file is gone, after the transaction (see update).
func (t *txn) remove(items []Item, action string) error {
	if len(items) == 0 {
		return nil
	}
	ptrs := make([]pointer, len(items))
	for i, c := range items {
		if c.Source == Legacy {
			ptrs[i] = lookPointer(c.Path)
		}
	}
	if action != "" {
		if err := t.s.log(items, ptrs, action); err != nil {
			return err
		}
	}
	for i, c := range items {
		if c.Source == Current {
			t.e.remove[c.block] = true
			continue
		}
		if err := t.s.Legacy.Remove(c.Path); err != nil {
			return fmt.Errorf("%s: %w", c.Path, err)
		}
		t.unlinked = append(t.unlinked, ptrs[i])
		for j := range t.legacy {
			if t.legacy[j].path == c.Path {
				t.legacy[j].path = ""
			}
		}
	}
	return nil
}

// withCopies returns it and the legacy copies it hides, each without copies.
func withCopies(it Item) []Item {
	all := append([]Item{it}, it.copies...)
	for i := range all {
		all[i].copies = nil
	}
	return all
}

// expire removes every bullet and legacy file ExpireDays old or more, one by one (a legacy copy
// hidden behind a bullet ages on its own).
func (t *txn) expire() ([]Item, error) {
	today := t.s.Now()
	var gone []Item
	for _, it := range t.items() {
		for _, c := range withCopies(it) {
			if c.Age(today) >= ExpireDays {
				gone = append(gone, c)
			}
		}
	}
	return gone, t.remove(gone, ActionExpired)
}

// Expire deletes the parked items that are ExpireDays old or more — bullets by their Raised
// date, legacy files by their modification time — recording each in the audit log with
// "action":"expired" first, and returns them. It also gives undated bullets today's date, which
// starts their clock. SessionEnd calls it, and SessionStart to finish a clean-up that a killed
// SessionEnd left. An *IndexError says that they were deleted but a pointer to one may remain in Claude Code's
// memory index.
func (s *Store) Expire() ([]Item, error) {
	if !s.mayExpire() {
		return nil, nil
	}
	var gone []Item
	err := s.update(func(t *txn) error {
		var err error
		t.stamp = true
		gone, err = t.expire()
		return err
	})
	return gone, err
}

// FreshBullets counts the bullets under "## Parked items" younger than ExpireDays, from
// session-context.md alone and without the lock. At MaxOpen or more, parking will refuse for
// certain (legacy files can only add to the count), so the per-prompt hook asks this first and
// skips the transcript and the legacy files when the answer is already no.
func (s *Store) FreshBullets() int {
	sec, err := s.read()
	if err != nil {
		return 0
	}
	today, n := s.Now(), 0
	for _, bl := range sec.blocks {
		if !bl.dated || ageDays(bl.bullet.Raised, today) < ExpireDays {
			n++
		}
	}
	return n
}

// mayExpire is Expire's cheap first look, taken without the lock: the bullets' Raised dates
// and the legacy files' modification times, opening no file but session-context.md. Only when
// something is due (or an undated bullet needs its date) does Expire lock and read everything:
// SessionStart and SessionEnd call it every time, and usually nothing is due.
func (s *Store) mayExpire() bool {
	today := s.Now()
	dates, err := s.dates()
	if err != nil {
		return true // let Expire report it
	}
	for _, raised := range dates {
		if raised == "" || ageDays(raised, today) >= ExpireDays {
			return true
		}
	}
	cutoff := legacyCutoff(today)
	listed, counted := int64(0), true
	for _, dir := range s.Dirs {
		// Missing: nothing there; unreadable: Expire cannot read it either.
		names, _, err := safefile.ReadDir(dir, dir, maxLegacyEntries)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			counted = false // Count reports what ReadDir says
		}
		names = slices.DeleteFunc(names, func(n string) bool { return !IsLegacyName(n) })
		infos, errs := safefile.LstatNames(dir, names)
		for i := range names {
			if errs[i] != nil || infos[i].ModTime().Before(cutoff) {
				return true
			}
		}
		listed += int64(len(names))
	}
	if counted {
		s.listed.Store(listed + 1)
	}
	return false
}

// Park adds b as a new bullet raised today, after deleting expired items. Text fields are
// redacted (package redact) and neutralised (see format). An empty Slug is derived from the
// summary and made unique with -2, -3, …; a given Slug must be valid and free (errSlugTaken).
// When an open item has the same summary already (a prompt submitted twice), nothing is added
// and that item is returned with added false. With MaxOpen items open, Park returns a
// *FullError listing them.
func (s *Store) Park(b Bullet) (it Item, added bool, err error) {
	return s.park(b)
}

// ParkAutomatically is Park for UserPromptSubmit's automatic parking, which runs on every
// prompt: the same, except that session-context.md is replaced without its fsync where the file
// system writes a replacing rename after the new file's data (safefile.NoSyncWhereOrdered:
// ext4, btrfs), as the fsync cost a parking prompt more than all the rest of its work. The write
// is as atomic and as locked as Park's, so a killed hook loses nothing; a power cut can cost the
// items parked automatically in the seconds before it (the kernel writes them out within about
// 30 s) and leaves every other item as it was. Elsewhere it syncs, as Park does. The audit lines
// of the items it expires on the way are synced before the items go, as always.
func (s *Store) ParkAutomatically(b Bullet) (it Item, added bool, err error) {
	return s.park(b, safefile.NoSyncWhereOrdered)
}

func (s *Store) park(b Bullet, opts ...safefile.Option) (it Item, added bool, err error) {
	b.Summary, b.Why, b.How = redact.Redact(b.Summary), redact.Redact(b.Why), redact.Redact(b.How)
	b.Raised = s.todayString()
	if b.Slug != "" && !ValidSlug(b.Slug) {
		return Item{}, false, fmt.Errorf("slug %q is not valid: use lowercase letters, digits and single dashes", b.Slug)
	}
	given := b.Slug != ""
	b = b.canonical()
	var result error
	err = s.update(func(t *txn) error {
		if _, err := t.expire(); err != nil {
			return err
		}
		open := t.items()
		for _, o := range open {
			d := o.Description
			if o.Source != Current {
				d = neutralise(d) // a bullet's was neutralised when it was read (cleanField)
			}
			if strings.EqualFold(d, b.Summary) {
				it = o
				return nil
			}
		}
		if len(open) >= MaxOpen {
			result = &FullError{Items: open}
			return nil
		}
		taken := map[string]bool{}
		for _, o := range open {
			taken[o.Slug] = true
			for _, c := range o.copies {
				taken[c.Slug] = true
			}
		}
		if !given {
			b.Slug = uniqueSlug(b.Slug, taken)
		} else if taken[b.Slug] {
			result = fmt.Errorf("%w: %q names an open item already", errSlugTaken, b.Slug)
			return nil
		}
		line := format(b)
		t.e.add = append(t.e.add, line)
		added = true
		it = Item{Slug: b.Slug, Name: b.Slug, Description: b.Summary, Raised: b.Raised, Why: b.Why, How: b.How, Source: Current, Text: line, block: -1}
		return nil
	}, opts...)
	ie, err := IndexWarning(err)
	if err != nil {
		return Item{}, false, err
	}
	if added {
		s.markParkedHere(it.Slug)
	}
	if ie != nil && result != nil {
		return it, added, errors.Join(result, ie)
	}
	if ie != nil {
		return it, added, ie
	}
	return it, added, result
}

func uniqueSlug(base string, taken map[string]bool) string {
	if !taken[base] {
		return base
	}
	for n := 2; ; n++ {
		s := fmt.Sprintf("%s-%d", base, n)
		if !taken[s] {
			return s
		}
	}
}

// Archive removes the one item that best matches query (see match) — the bullet, or the legacy
// file, and any legacy copy with the same slug — after recording it in the audit log with
// "action":"archived". No match gives errNoMatch; several equally good ones an
// *AmbiguousError, and nothing changes. An *IndexError says that the item was archived but a
// pointer to it may remain in Claude Code's memory index.
func (s *Store) Archive(query string) (Item, error) {
	var it Item
	var result error
	err := s.update(func(t *txn) error {
		c := match(t.items(), query)
		switch len(c) {
		case 0:
			result = fmt.Errorf("%w %q", errNoMatch, query)
			return nil
		case 1:
			it = c[0]
			return t.remove(withCopies(it), ActionArchived)
		default:
			result = &AmbiguousError{Query: query, Candidates: c}
			return nil
		}
	})
	ie, err := IndexWarning(err)
	if err != nil {
		return Item{}, err
	}
	if ie != nil {
		return it, ie // nothing is removed unless there was a match: result is nil
	}
	return it, result
}

// Forget removes the item whose slug is slug — the bullet and every legacy copy — without
// recording it anywhere: cairn forget's removal, which the audit log must not keep either. It
// returns the items removed; none when no item has the slug.
func (s *Store) Forget(slug string) ([]Item, error) {
	var gone []Item
	err := s.update(func(t *txn) error {
		for _, it := range t.items() {
			if it.Slug == slug {
				gone = withCopies(it)
				return t.remove(gone, "")
			}
		}
		return nil
	})
	ie, err := IndexWarning(err)
	if err != nil {
		return nil, err
	}
	if ie != nil {
		return gone, ie
	}
	return gone, nil
}

// Count returns how many items are open, cheaply enough for SessionStart and SessionEnd, which
// hand back a count and never the items (parked items are never surfaced unasked: docs/DESIGN.md,
// What cairn is for): the bullets of session-context.md and the session-open-*.md names of the
// legacy directories, opening no legacy file. It counts a legacy file whose item a bullet repeats
// (List shows the two as one) twice.
func (s *Store) Count() (int, error) {
	dates, err := s.dates()
	if err != nil {
		return 0, err
	}
	n := len(dates)
	if l := s.listed.Load(); l > 0 {
		return n + int(l-1), nil // Expire's first look listed them a moment ago
	}
	for _, dir := range s.Dirs {
		names, _, err := safefile.ReadDir(dir, dir, maxLegacyEntries)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, err
		}
		for _, name := range names {
			if IsLegacyName(name) {
				n++
			}
		}
	}
	return n, nil
}

// Items parked on this machine. A clone can commit session-context.md with ten items in it, and
// the pollution guard would then tell Claude, at the user's next deferral, to show someone else's
// list. So every item parked here is recorded where no repository can write: the user's config
// directory, <config>/cairn/parked/<slug of the root>, one slug a line (best effort, unsynced: a
// record lost costs only the guard's wording).
const maxParkedHere = 64 << 10

func (s *Store) parkedHereFile() string {
	return filepath.Join(s.Config, "cairn", "parked", project.Slug(s.Root))
}

func (s *Store) markParkedHere(slug string) {
	if s.Config == "" {
		return
	}
	dir := filepath.Join(s.Config, "cairn")
	if _, dry := s.Files.(safefile.DryRun); dry {
		return
	}
	if os.MkdirAll(filepath.Join(dir, "parked"), 0o700) == nil {
		_ = s.Files.Under(dir).Append(s.parkedHereFile(), []byte(slug+"\n"), 0o600, safefile.NoSync)
	}
}

// AnyParkedHere reports whether any open item was parked on this machine (see markParkedHere).
func (s *Store) AnyParkedHere() bool {
	if s.Config == "" {
		return false
	}
	data, _, err := safefile.ReadLoose(s.parkedHereFile(), maxParkedHere)
	if err != nil {
		return false
	}
	here := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		here[strings.TrimSpace(l)] = true
	}
	items, _ := s.List()
	for _, it := range items {
		if here[it.Slug] {
			return true
		}
	}
	return false
}
