// Package catalog keeps the checkpoints cairn writes itself — the automatic one of each
// compaction and the hand-off of each session that did work — and the catalog that lists them,
// [IndexFile]: the handle on it ([Open], [Catalog]: read at most once, healed when damaged), the
// questions the hooks ask of it ([Catalog.Recorded], [Catalog.Latest]), and the retention rule
// that prunes its checkpoints, each removal logged in the timeline. The two kinds' content lives
// here too ([Catalog.Auto] with [AttachSummary] for PostCompact's summary, [Catalog.Handoff]),
// because each is created under the catalog's lock, and so does the [CompactionID] the catalog is
// keyed by. One checkpoint file's format is package checkpoint's, below this one.
package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/jsonw"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
)

// IndexFile is the catalog of cairn's own checkpoints — the automatic ones (one per compaction)
// and the hand-offs (one per session that did work) — written under its lock by whoever adds one.
// It answers, from one small read, the questions the hooks ask: is this compaction recorded
// already (Recorded), which is this session's newest automatic checkpoint (PostCompact,
// SessionStart after a compaction, SessionEnd), which is this branch's newest hand-off
// (SessionStart at startup). It is also where retention is decided (see Retention). People's own
// saves are not in it: they are never pruned, and a hook never needs them.
//
// It is replaced atomically but not synced (safefile.NoSync), like the session registry: what a
// power cut can cost is its last change, or the whole file left empty, never a torn one, and that
// costs little — an empty catalog is rebuilt from the checkpoints (Entries), Auto finds a
// recorded compaction in the newest checkpoints' frontmatter, a session without its hand-off in
// the catalog writes a new one, and a checkpoint the catalog forgot is never pruned. Automatic
// checkpoints themselves are synced.
const IndexFile = ".claude/state/checkpoint-events.json"

// Retention of automatic and hand-off checkpoints (README.md, Hand-back): per branch and kind the
// newest RetainPerBranch are kept, nothing older than retainDays days, and no more than
// maxCatalog in all. Saved checkpoints are never pruned. A project that compacts ten times a day
// on one branch thus keeps three days of automatic checkpoints and a month of hand-offs.
const (
	RetainPerBranch = 30
	retainDays      = 30
	maxCatalog      = 2000
)

// retentionRule is how the timeline explains a pruning.
var retentionRule = "retention: the newest " + strconv.Itoa(RetainPerBranch) + " per branch and kind, none older than " + strconv.Itoa(retainDays) + " days"

// maxIndexSize bounds the read of IndexFile: maxCatalog entries of a few hundred bytes each.
const maxIndexSize = 2 << 20

// Entry is one of cairn's own checkpoints as the catalog records it.
type Entry struct {
	Event   string    // an automatic checkpoint's compaction identity (package compaction)
	File    string    // relative to the root, with forward slashes
	Kind    string    // KindAuto or KindHandoff
	Session string    // the session it was taken for
	Branch  string    // the branch it was taken on
	Time    time.Time // when it was taken
	Size    int64     // a hand-off's transcript length when it was written; -1 when unknown
	Line    string    // a hand-off's one line of what the session was doing
	Tasks   string    // TaskPrint of the session's tasks when it was taken
	// PromptsAt is where the lines of the session's last user prompts started in the transcript
	// when it was taken (transcript.Words.At, most recent first; at most maxPromptsAt): the next
	// hand-off reads them there instead of reading back over all that came after them. Each line
	// is checked to be a prompt, and the offsets to fall before the transcript length the entry was
	// taken at, most recent first; anything else costs that reading back. An entry counts only for
	// the session whose id it carries, so what a wrong offset can do is quote another prompt of
	// that session's own transcript.
	PromptsAt []int64
}

// maxPromptsAt bounds Entry.PromptsAt: a hand-off quotes three prompts.
const maxPromptsAt = 3

// readCatalog reads IndexFile: a JSON array of objects. A damaged catalog reads as empty: it
// costs Auto a scan of the newest checkpoints and the hand-back a pointer, nothing more. Entries
// written before the catalog had kinds are automatic checkpoints; their session comes from the
// event and their time from the file name.
func readCatalog(data []byte) []Entry {
	if !gjson.ValidBytes(data) {
		return nil
	}
	var out []Entry
	gjson.ParseBytes(data).ForEach(func(_, v gjson.Result) bool {
		f := v.Get("file")
		if f.Type != gjson.String || !isCheckpointFile(f.Str) {
			return true // a catalog is a file in the project: it names checkpoints, nothing else
		}
		c := Entry{File: f.Str, Kind: checkpoint.KindAuto, Size: -1}
		v.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "event":
				c.Event = v.String()
			case "kind":
				if v.Str == checkpoint.KindHandoff {
					c.Kind = checkpoint.KindHandoff
				}
			case "session":
				c.Session = v.String()
			case "branch":
				c.Branch = v.String()
			case "time":
				c.Time, _ = time.Parse(time.RFC3339, v.Str)
			case "size":
				if v.Type == gjson.Number {
					c.Size = v.Int()
				}
			case "line":
				c.Line = v.String()
			case "tasks":
				c.Tasks = v.String()
			case "prompts_at":
				c.PromptsAt = readOffsets(v)
			}
			return true
		})
		if c.Session == "" {
			if id, ok := ParseCompactionID(c.Event); ok {
				c.Session = id.Session
			}
		}
		if c.Time.IsZero() {
			_, c.Time, _ = checkpoint.SplitName(filepath.Base(filepath.FromSlash(c.File)))
		}
		out = append(out, c)
		return true
	})
	return out
}

// readOffsets reads an Entry's prompts_at: an array of at most maxPromptsAt offsets, each a
// whole number of bytes; anything else reads as none.
func readOffsets(v gjson.Result) []int64 {
	if !v.IsArray() {
		return nil
	}
	var out []int64
	ok := true
	v.ForEach(func(_, o gjson.Result) bool {
		n := o.Int()
		if o.Type != gjson.Number || o.Raw != strconv.FormatInt(n, 10) || n < 0 || len(out) == maxPromptsAt {
			ok = false
			return false
		}
		out = append(out, n)
		return true
	})
	if !ok {
		return nil
	}
	return out
}

// isCheckpointFile reports whether f, relative to a project root, names a checkpoint in a
// checkpoint directory: memory/projects/<name>/checkpoints/<checkpoint name> (Dir, with the
// project's directory name of when it was written).
func isCheckpointFile(f string) bool {
	parts := strings.Split(f, "/")
	return len(parts) == 5 && parts[0] == "memory" && parts[1] == "projects" && parts[2] != "" &&
		parts[2] != "." && parts[2] != ".." && !strings.Contains(parts[2], `\`) && parts[3] == "checkpoints" && checkpoint.IsName(parts[4])
}

// writeCatalog writes the catalog one entry a line, oldest first.
func writeCatalog(cat []Entry) []byte {
	b := []byte{'['}
	for i, c := range cat {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		o := jsonw.Open(b)
		o.StrOmitEmpty("event", c.Event)
		o.Str("file", c.File)
		o.Str("kind", c.Kind)
		o.StrOmitEmpty("session", c.Session)
		o.StrOmitEmpty("branch", c.Branch)
		if !c.Time.IsZero() {
			o.Str("time", c.Time.UTC().Format(time.RFC3339))
		}
		if c.Size >= 0 && c.Kind == checkpoint.KindHandoff {
			o.Int("size", c.Size)
		}
		o.StrOmitEmpty("line", c.Line)
		o.StrOmitEmpty("tasks", c.Tasks)
		if n := min(len(c.PromptsAt), maxPromptsAt); n > 0 {
			o.B = append(o.Key("prompts_at"), offsets(c.PromptsAt[:n])...)
		}
		b = o.Close()
	}
	if len(cat) > 0 {
		b = append(b, '\n')
	}
	return append(b, "]\n"...)
}

// offsets writes offs as a JSON array of numbers.
func offsets(offs []int64) []byte {
	b := []byte{'['}
	for i, o := range offs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, o, 10)
	}
	return append(b, ']')
}

// Catalog is the handle on IndexFile for one process: opened from the project, read at most once
// (lazily, without the lock: the file is replaced atomically), and refreshed by its own writes —
// Auto and Handoff leave it holding what they wrote under the lock — so that a flow that asks it
// several questions and adds a checkpoint reads the file once. Pass it down; do not open a second.
type Catalog struct {
	root     string // the root that holds the project's knowledge (project.Project's Shared)
	worktree string // the linked worktree this process works in, which the records it writes name
	files    safefile.Writer
	warn     func(format string, args ...any)
	dryRun   bool
	log      *timeline.Log // where its compaction, hand-off and pruning lines go
	entries  []Entry
	read     bool
}

// Open returns the handle on p's catalog, which lives with the checkpoints it lists under the root
// that holds the project's knowledge (a linked worktree's is its main checkout's: p.Shared), and
// writes its timeline lines through log (the process's handle on the timeline). It reads nothing
// until asked.
func Open(p *project.Project, log *timeline.Log) *Catalog {
	return &Catalog{root: p.Shared(), worktree: p.Worktree(), files: p.Files, warn: p.Warn, dryRun: p.DryRun, log: log}
}

// Root is the root the catalog and its checkpoints live under: entries' paths are relative to it.
func (x *Catalog) Root() string { return x.root }

// Entries returns the catalog's entries, oldest first. A missing catalog reads as empty. One that
// cannot be read — not a regular file, too large, a link, not a JSON array — is cairn's to
// repair: it is moved aside and rebuilt from the checkpoints themselves ([Catalog.heal]), and the
// repair is reported through the project's Warn. The slice is the handle's: do not change it.
func (x *Catalog) Entries() []Entry {
	if !x.read {
		x.read = true
		data, _, err := safefile.ReadFile(x.root, x.path(), maxIndexSize)
		switch {
		case err == nil && len(data) == 0:
			// Never written so by cairn (an empty catalog is "[]"): what a power cut can leave
			// of a file replaced without an fsync (safefile.NoSync).
			x.heal("empty")
		case err == nil && validCatalog(data):
			x.entries = readCatalog(data)
		case err == nil || unreadable(err):
			why := "not a JSON array"
			if err != nil {
				why = err.Error()
			}
			x.heal(why)
		}
	}
	return x.entries
}

func (x *Catalog) path() string { return filepath.Join(x.root, IndexFile) }

// validCatalog reports whether data is a catalog: a JSON array (empty included).
func validCatalog(data []byte) bool {
	return len(bytes.TrimSpace(data)) == 0 || gjson.ValidBytes(data) && gjson.ParseBytes(data).IsArray()
}

// unreadable reports an error that a catalog in the way of cairn's causes: something at its name
// that is not a regular file, a link, one too large.
func unreadable(err error) bool {
	var tl *safefile.TooLargeError
	return errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrLink) ||
		errors.Is(err, safefile.ErrOutside) || errors.As(err, &tl) || errors.Is(err, syscall.ELOOP)
}

// heal moves aside whatever is at IndexFile and writes a catalog rebuilt from the checkpoint
// files (rebuild), so that a catalog a clone committed broken, or a crash damaged, costs one scan
// of the directory and never every later automatic checkpoint, summary and hand-off. The handle
// then holds the rebuilt catalog. A dry run plans it and holds the rebuilt entries.
func (x *Catalog) heal(why string) {
	x.entries, x.read = x.rebuild(), true
	if x.dryRun {
		return
	}
	moved, err := x.files.MoveAside(x.path())
	if err != nil {
		x.warnf("%s cannot be read (%s) nor moved aside: %v", IndexFile, why, err)
		return
	}
	if _, err := x.files.Update(x.path(), 0o600, func([]byte, bool) ([]byte, error) {
		return writeCatalog(x.entries), nil
	}, safefile.Limit(maxIndexSize), safefile.NoSync); err != nil {
		x.warnf("%s: rebuilding it: %v", IndexFile, err)
		return
	}
	aside := ""
	if moved != "" {
		aside = "; the old one is " + filepath.Base(moved)
	}
	what := fmt.Sprintf("%s could not be read (%s); rebuilt from %d checkpoints%s", IndexFile, why, len(x.entries), aside)
	if !safefile.Report(x.files, what) {
		x.warnf("repaired: %s", what)
	}
}

func (x *Catalog) warnf(format string, args ...any) {
	if x.warn != nil {
		x.warn(format, args...)
	}
}

// rebuild reads the catalog's entries back from the automatic checkpoints and hand-offs in the
// checkpoint directory, oldest first, at most maxCatalog of them (the newest).
func (x *Catalog) rebuild() []Entry {
	names, _ := checkpoint.Names(x.root)
	var out []Entry
	for i := len(names) - 1; i >= 0 && len(out) < maxCatalog; i-- {
		n := names[i]
		title, _, _ := checkpoint.SplitName(n)
		auto := strings.HasPrefix(title, "before-") || strings.HasPrefix(title, "auto-")
		if !auto && !strings.HasPrefix(title, "handoff") && title != "session-handoff" {
			continue // a saved checkpoint: never in the catalog
		}
		p := filepath.Join(checkpoint.Dir(x.root), n)
		data, err := safefile.ReadHead(x.root, p, 64<<10)
		if err != nil {
			continue
		}
		fields, _ := checkpoint.SplitLoose(data)
		fm := checkpoint.ReadFrontmatter(fields)
		c := Entry{File: checkpoint.SavedAt(x.root, p).Rel, Kind: fm.Kind, Branch: fm.Branch, Time: fm.Time, Event: fm.Event, Session: fm.Session, Size: -1}
		switch fm.Kind {
		case checkpoint.KindAuto:
			if id, ok := ParseCompactionID(fm.Event); ok {
				c.Session = id.Session
			}
		case checkpoint.KindHandoff:
			if h, ok := ReadHandoff(x.root, p); ok {
				c.Session, c.Line = h.Session, h.Doing
			}
		default:
			continue
		}
		if c.Time.IsZero() {
			_, c.Time, _ = checkpoint.SplitName(n)
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.Time.Compare(b.Time) })
	return out
}

// Latest returns the newest entry of kind that matches session and branch ("" matches any), and
// whose file is still there; ok is false when there is none.
func (x *Catalog) Latest(kind, session, branch string) (Entry, bool) {
	cat := x.Entries()
	for i := len(cat) - 1; i >= 0; i-- {
		c := cat[i]
		if c.Kind != kind || session != "" && c.Session != session || branch != "" && c.Branch != branch {
			continue
		}
		if c.exists(x.root) {
			return c, true
		}
	}
	return Entry{}, false
}

// Recorded reports whether the automatic checkpoint for event exists: its event is in the catalog
// and its file is there. PreCompact asks it first, so that a repeated PreCompact for the same
// compaction costs a stat and two small reads, not a transcript scan.
func (x *Catalog) Recorded(event string) bool {
	for _, c := range x.Entries() {
		if c.Kind == checkpoint.KindAuto && c.Event == event && c.exists(x.root) {
			return true
		}
	}
	return false
}

// Path is the entry's file, absolute.
func (c Entry) Path(root string) string { return filepath.Join(root, filepath.FromSlash(c.File)) }

// exists reports whether the entry's file is a checkpoint inside the project.
func (c Entry) exists(root string) bool {
	_, err := safefile.Stat(root, c.Path(root))
	return err == nil
}

// add appends c to the catalog, keeping it in time order (an entry's time is when its checkpoint
// was taken; two hooks may finish out of order).
func add(cat []Entry, c Entry) []Entry {
	i := len(cat)
	for i > 0 && cat[i-1].Time.After(c.Time) {
		i--
	}
	return slices.Insert(cat, i, c)
}

// retain applies the retention rule to cat at now: it returns the entries to keep and those to
// prune, newest first within each branch and kind.
func retain(cat []Entry, now time.Time) (keep, drop []Entry) {
	cutoff := now.Add(-retainDays * 24 * time.Hour)
	type group struct{ branch, kind string }
	count := map[group]int{}
	over := len(cat) - maxCatalog
	keepIdx := make([]bool, len(cat))
	for i := len(cat) - 1; i >= 0; i-- {
		c := cat[i]
		g := group{c.Branch, c.Kind}
		count[g]++
		keepIdx[i] = count[g] <= RetainPerBranch && !c.Time.Before(cutoff) && i >= over
	}
	for i, c := range cat {
		if keepIdx[i] {
			keep = append(keep, c)
		} else {
			drop = append(drop, c)
		}
	}
	return keep, drop
}

// PrunedFile keeps the checkpoints retention removes, whole: one JSON line each,
// {"ts","checkpoint","kind","branch","session","text"} (and "cut", the bytes left out of a text
// over maxPrunedText), appended before the file goes. The text is the checkpoint's file as cairn
// wrote it, redacted then; `cairn search` indexes this log and `cairn show` answers from it, so
// that retention bounds the checkpoint directory without losing what a pruned checkpoint knew.
const PrunedFile = "memory/pruned.jsonl"

// maxPrunedText bounds the text a pruned line keeps: a checkpoint cairn writes is a few KiB.
const maxPrunedText = 64 << 10

// prunedLine is a checkpoint's line in PrunedFile.
func prunedLine(now time.Time, c Entry, text []byte, size int64) []byte {
	o := jsonw.Open(nil)
	o.Str("ts", now.UTC().Format(time.RFC3339))
	o.Str("checkpoint", c.File)
	o.Str("kind", c.Kind)
	o.StrOmitEmpty("branch", c.Branch)
	o.StrOmitEmpty("session", c.Session)
	o.Str("text", string(text))
	if cut := size - int64(len(text)); cut > 0 {
		o.Int("cut", cut)
	}
	return append(o.Close(), '\n')
}

// prune removes the files of the entries retention drops, each after checking that the file is
// still cairn's — its frontmatter's kind must be the catalog's (a person who turned an automatic
// checkpoint into a save of their own, by editing its kind, keeps it) — and after recording it:
// its text in PrunedFile, then its removal in the timeline, so that no checkpoint ever disappears
// without its text kept and a line saying why. It returns the failures; a checkpoint whose text
// could not be kept is not removed.
//
// The texts are appended in one write, synced, before the first file goes. An unsynced append
// followed by an unlink is safe against a killed process (the page cache outlives it) and, on
// ext4 and btrfs, which commit a file's appended data before a later unlink's metadata, against a
// power cut too; elsewhere (XFS, network file systems) a power cut could keep the unlink and lose
// the append — the one loss this log exists to prevent. Pruning is rare (a checkpoint past the
// thirtieth of its branch and kind, usually one per compaction or session end), so the fsync it
// costs is rare too.
func (x *Catalog) prune(now time.Time, session string, drop []Entry, why string) error {
	files, root, log := x.files, x.root, x.log
	type doomed struct {
		c    Entry
		note string
		mine bool // still cairn's to remove
	}
	var errs []error
	var list []doomed
	var logged []byte
	for _, c := range drop {
		data, fi, err := safefile.ReadHeadInfo(root, c.Path(root), maxPrunedText)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // gone already: nothing to log
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", c.File, err))
			continue
		}
		size := fi.Size()
		fm, _ := checkpoint.SplitLoose(data)
		k := checkpoint.ReadFrontmatter(fm).Kind
		d := doomed{c: c, note: why, mine: k == c.Kind}
		if !d.mine {
			d.note = "not removed: its kind is now " + k + ", so it is no longer cairn's to prune"
		} else {
			text := data
			for len(text) > 0 && !utf8.Valid(text) {
				text = text[:len(text)-1] // cut on a rune boundary
			}
			logged = append(logged, prunedLine(now, c, text, size)...)
		}
		list = append(list, d)
	}
	if len(logged) > 0 {
		if err := files.Append(filepath.Join(root, PrunedFile), logged, 0o644); err != nil {
			return errors.Join(append(errs, fmt.Errorf("%s: %w", PrunedFile, err))...) // not kept: not removed
		}
	}
	for _, d := range list {
		c := d.c
		if err := log.Append(timeline.Event{
			Time: now, Event: timeline.Pruned, Session: session, Branch: c.Branch, Worktree: x.worktree, Checkpoint: c.File, Compaction: c.Event, Note: d.note,
		}); err != nil {
			errs = append(errs, err)
			continue // not logged: not removed
		}
		if d.mine {
			if err := files.Remove(c.Path(root)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", c.File, err))
			}
		}
	}
	return errors.Join(errs...)
}

// writeCataloged runs write under the catalog's lock and records what it returns: write sees the
// catalog as it is and returns the entry to add (ok false: nothing to add) and the entries whose
// checkpoints it replaces, which are removed as retention removes them. Retention then runs over
// the result, for session's new checkpoint at now. The files retention drops are pruned under
// the catalog's lock, the timeline's lock taken inside it (the order is always that one, so no
// two writers wait on each other): pruned outside it, a repeated PreCompact of the compaction
// being pruned could find its checkpoint still there, put it back in the catalog, and then lose
// it to the prune — or write a new one under the very name just logged as pruned (the
// concurrency suite met both). A failure to prune is returned after the catalog is written: the
// new checkpoint is kept either way.
//
// The handle then holds the catalog as the lock saw it and as it was written: no reread.
func (x *Catalog) writeCataloged(now time.Time, session string, write func(cat []Entry) (add Entry, ok bool, remove []Entry, err error)) error {
	files, root := x.files, x.root
	var pruneErr error
	var final []Entry
	x.Entries() // a catalog that cannot be read is repaired first, or every write would fail
	_, err := files.Update(filepath.Join(root, IndexFile), 0o600, func(old []byte, exists bool) ([]byte, error) {
		pruneErr = nil
		cat := readCatalog(old)
		if !validCatalog(old) || exists && len(old) == 0 {
			cat = x.rebuild() // damaged (or emptied by a power cut) since it was read: rebuilt under the lock
		}
		final = cat
		c, ok, remove, err := write(cat)
		if err != nil {
			return nil, err
		}
		if !ok && len(remove) == 0 {
			return nil, safefile.ErrNoChange
		}
		var errs []error
		if len(remove) > 0 {
			cat = slices.DeleteFunc(cat, func(e Entry) bool {
				return slices.ContainsFunc(remove, func(r Entry) bool { return r.File == e.File })
			})
			errs = append(errs, x.prune(now, session, remove, "replaced by this session's newer hand-off"))
		}
		if ok {
			cat = add(cat, c)
			keep, drop := retain(cat, now)
			errs = append(errs, x.prune(now, session, drop, retentionRule))
			cat = keep
		}
		pruneErr = errors.Join(errs...)
		final = cat
		return writeCatalog(cat), nil
	}, safefile.Limit(maxIndexSize), safefile.NoSync)
	if err != nil && !errors.Is(err, safefile.ErrNoChange) {
		x.read = false // not written: the next question reads the file
		return err
	}
	x.entries, x.read = final, true
	return pruneErr
}

// Forget removes the entry of the checkpoint file (relative to the root) from the catalog, under
// its lock, and records nothing of it: cairn forget's removal. It reports whether there was one.
func (x *Catalog) Forget(file string) (bool, error) {
	found := false
	x.Entries()
	_, err := x.files.Update(x.path(), 0o600, func(old []byte, _ bool) ([]byte, error) {
		cat := readCatalog(old)
		n := len(cat)
		cat = slices.DeleteFunc(cat, func(e Entry) bool { return e.File == file })
		if found = len(cat) < n; !found {
			return nil, safefile.ErrNoChange
		}
		return writeCatalog(cat), nil
	}, safefile.Limit(maxIndexSize), safefile.NoSync)
	x.read = false
	return found, err
}
