package search

import (
	"bufio"
	"bytes"
	"errors"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/sessionfile"
	"github.com/cairn-hooks/cairn/pkg/timeline"
	"github.com/cairn-hooks/cairn/pkg/tombstone"
)

// This file is what is searched: the files of a project that hold items, and how each turns
// into documents. The markdown and JSONL files are the source of truth; the index only records
// where each document is and what words it holds, and results and Show read the text again
// from the files.

// source is what kind of file a document comes from.
type source uint8

const (
	srcCheckpoint source = iota + 1 // one checkpoint, one document
	srcAudit                        // the audit log: a document per line
	srcTimeline                     // the timeline: a document per line
	srcParked                       // the parked items (session-context.md and legacy files): a document per item
	srcTranscript                   // a Claude Code transcript: a document per stretch (history.go)
	srcPruned                       // the checkpoints retention removed: a document per line
)

// appendOnly reports the JSON-lines files, which only grow: a larger one is indexed from where
// the index stopped.
func (s source) appendOnly() bool { return s == srcAudit || s == srcTimeline || s == srcPruned }

// The single files, relative to the root (parking.AuditPath, parking.LegacyAuditPath,
// timeline.File, sessionfile.Path).
const (
	auditRel       = parking.AuditRel
	legacyAuditRel = parking.LegacyAuditRel
	timelineRel    = timeline.File
	parkedRel      = sessionfile.Rel
	prunedRel      = catalog.PrunedFile
)

// file is a searchable file as the index records it.
type file struct {
	path         string // relative to the root, with '/'
	src          source
	mtime, size  int64 // the file's; for the parked items a fingerprint of all their files
	indexed      int64 // JSON lines: the bytes indexed, up to the end of the last whole line
	tail         uint32
	firstDoc, nd uint32
	// racy: the file was read within the racy window of its mtime, so it may have changed
	// since without its mtime moving (a checkpoint still being written by something that does
	// not write atomically): it is stat'ed again at every sync and read again once old enough.
	racy bool
	// A transcript's: its identity (safefile.Identity) and the record's flags (fileWhole, …).
	ident uint32
	flags uint8
}

// doc is one searchable document.
type doc struct {
	kind     Kind
	time     int64 // unix seconds: the checkpoint's name, the line's ts, the item's Raised date
	off      int64 // where its line starts in the file (JSON lines)
	n        int64 // its line's length
	branch   string
	status   string // a checkpoint's status, for cairn context list
	worktree string // the linked worktree a checkpoint or a timeline event came from
	title    string
	body     string // the text indexed besides the title
}

// maxLine bounds a JSON line that is indexed; a longer one is skipped (an audit line is a
// bullet, a timeline line a few fields).
const maxLine = 1 << 20

// maxLogIndexed bounds how much of an append-only log (the audit log, the timeline) one sync
// indexes: its newest bytes. A history of 20,000 archived items and 100,000 timeline events is
// about 21 MiB in all; a repository can commit a log of any size, and indexing one line costs
// memory in proportion to its distinct words. Older lines are not searched (cairn show still
// reads any line by its id).
const maxLogIndexed = 16 << 20

// maxCheckpoints bounds how many names of the checkpoint directory are read (as checkpoint.Names).
const maxCheckpoints = 100000

// corpus is one project's searchable files: the checkpoints and the timeline under the root
// that holds the project's knowledge (shared: a linked worktree's main checkout), the parked
// items and the audit log under the project's own root.
type corpus struct {
	root   string
	shared string
	dirs   []string // the legacy parked-item directories (parking.LegacyDirs)
	now    func() time.Time
	ckpts  string // the checkpoint directory, relative, with '/'
	parked []parking.Item
	listed bool
	hist   *history // for Show: the transcripts, when the project has a history
	config string
	stones *tombstone.Set // read on first use (forgotten)
}

func newCorpus(root, shared, configDir string, now func() time.Time) *corpus {
	if shared == "" {
		shared = root
	}
	dir, _ := filepath.Rel(shared, checkpoint.Dir(shared))
	return &corpus{root: root, shared: shared, dirs: parking.LegacyDirs(configDir, root), now: now, ckpts: filepath.ToSlash(dir), config: configDir}
}

// forgotten reports whether content is an item cairn forget removed (its tombstone holds its
// hash): it is neither indexed nor shown, wherever it turns up again (a checkpoint git brings
// back, a line of a log cairn does not write).
func (c *corpus) forgotten(content []byte) bool {
	if c.stones == nil {
		c.stones, _ = tombstone.Read(c.config)
	}
	return c.stones.Content(content)
}

// at returns the tree the file at rel (relative, with '/') lies in and its path: the shared
// root for the checkpoints, the timeline and the log of pruned checkpoints (written by the
// catalog, which lives there), the project's root for the rest.
func (c *corpus) at(rel string) (tree, path string) {
	tree = c.root
	if rel == timelineRel || rel == prunedRel || rel == c.ckpts || strings.HasPrefix(rel, c.ckpts+"/") {
		tree = c.shared
	}
	return tree, filepath.Join(tree, filepath.FromSlash(rel))
}

// stat returns a regular file's mtime and size; ok is false when there is none.
func (c *corpus) stat(rel string) (mtime, size int64, ok bool) {
	fi, err := safefile.Lstat(c.at(rel))
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0, false
	}
	return fi.ModTime().UnixNano(), fi.Size(), true
}

// parkedPrint fingerprints the parked items' files: session-context.md's mtime and size and
// the legacy directories' mtimes (a legacy file added or removed changes its directory's).
func (c *corpus) parkedPrint() (mtime, size int64, ok bool) {
	mtime, size, ok = c.stat(parkedRel)
	h := fnv.New64a()
	for _, d := range c.dirs {
		// Claude Code's own directory, outside the project: only its mtime is looked at here;
		// package parking reads the files in it.
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			h.Write(strconv.AppendInt(nil, fi.ModTime().UnixNano(), 10))
			ok = true
		}
	}
	return mtime ^ int64(h.Sum64()&(1<<62-1)), size, ok
}

// fixed returns the single files that exist: the audit logs, the timeline, the parked items.
func (c *corpus) fixed() []file {
	var out []file
	for _, f := range []file{{path: auditRel, src: srcAudit}, {path: legacyAuditRel, src: srcAudit}, {path: timelineRel, src: srcTimeline}, {path: prunedRel, src: srcPruned}} {
		if m, s, ok := c.stat(f.path); ok {
			f.mtime, f.size = m, s
			out = append(out, f)
		}
	}
	if m, s, ok := c.parkedPrint(); ok {
		out = append(out, file{path: parkedRel, src: srcParked, mtime: m, size: s})
	}
	return out
}

// checkpointNames returns the names in the checkpoint directory that look like checkpoint
// names (checkpoint.SplitName decides for the new ones).
func (c *corpus) checkpointNames() ([]string, error) {
	tree, dir := c.at(c.ckpts)
	names, _, err := safefile.ReadDir(tree, dir, maxCheckpoints)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := names[:0]
	for _, n := range names {
		if strings.HasSuffix(n, ".md") && len(n) > len("20060102-150405-.md") && n[8] == '-' && n[15] == '-' {
			out = append(out, n)
		}
	}
	return out, nil
}

// listCheckpoints lists the checkpoints; with known (sorted by path), a name known already is
// taken as known has it and only new names (and racy ones) are stat'ed. Cairn never rewrites a checkpoint, so
// a changed directory means names came or went; an edit in place is left to the periodic
// full sweep (known == nil), which stats every file.
func (c *corpus) listCheckpoints(known []file, full bool) ([]file, error) {
	names, err := c.checkpointNames()
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]file, 0, len(names))
	j := 0
	for _, n := range names {
		p := c.ckpts + "/" + n
		for !full && j < len(known) && known[j].path < p {
			j++
		}
		if !full && j < len(known) && known[j].path == p && !known[j].racy {
			out = append(out, file{path: p, src: srcCheckpoint, mtime: known[j].mtime, size: known[j].size})
			continue
		}
		if _, _, ok := checkpoint.SplitName(n); !ok {
			continue
		}
		if m, s, ok := c.stat(p); ok {
			out = append(out, file{path: p, src: srcCheckpoint, mtime: m, size: s})
		}
	}
	return out, nil
}

// restat returns known as a listing would find it when the directory has not changed: the
// racy entries stat'ed again (gone when they are gone), the others as they are.
func (c *corpus) restat(known []file) []file {
	out := make([]file, 0, len(known))
	for _, f := range known {
		if f.racy {
			m, s, ok := c.stat(f.path)
			if !ok {
				continue
			}
			f = file{path: f.path, src: f.src, mtime: m, size: s}
		}
		out = append(out, f)
	}
	return out
}

func sortFiles(fs []file) {
	slices.SortFunc(fs, func(a, b file) int { return strings.Compare(a.path, b.path) })
}

// extract reads f from byte from on (from > 0 only for JSON lines) and emits its documents. It
// returns how far the file was indexed — for JSON lines the end of the last whole line, so that
// a line being written is indexed next time — and the checksum of the bytes just before that
// point, which tells the next sync whether the file was only appended to.
func (c *corpus) extract(f file, from int64, emit func(*doc)) (indexed int64, tail uint32, err error) {
	switch f.src {
	case srcCheckpoint:
		tree, abs := c.at(f.path)
		data, err := safefile.ReadHead(tree, abs, checkpoint.MaxRead)
		if err != nil {
			return 0, 0, err
		}
		if !c.forgotten(data) {
			d := checkpointDoc(f.path[strings.LastIndexByte(f.path, '/')+1:], data)
			emit(&d)
		}
		return int64(len(data)), 0, nil
	case srcParked:
		items, err := c.parkedItems()
		for _, it := range items {
			if !c.forgotten([]byte(it.Text)) {
				d := parkedDoc(it)
				emit(&d)
			}
		}
		return 0, 0, err
	}
	fh, fi, err := safefile.Open(c.at(f.path))
	if err != nil {
		return from, 0, err
	}
	defer fh.Close()
	skip := false // the first line read is a partial one, to skip
	if size := fi.Size(); size-from > maxLogIndexed {
		from = size - maxLogIndexed
		var b [1]byte
		_, err := fh.ReadAt(b[:], from-1)
		skip = err != nil || b[0] != '\n'
	}
	r := bufio.NewReaderSize(io.NewSectionReader(fh, from, 1<<62), 64<<10)
	off := from
	var long []byte
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // longer than the buffer: gather it, up to maxLine
			if len(long) <= maxLine {
				long = append(long, line...)
			}
			off += int64(len(line))
			continue
		}
		if err != nil { // EOF: an unfinished line waits for the next sync
			break
		}
		start := off
		off += int64(len(line))
		if long != nil {
			start -= int64(len(long))
			line = append(long, line...)
			long = nil
			if len(line) > maxLine {
				skip = false
				continue
			}
		}
		if skip { // the rest of a line that starts before the bound
			skip = false
			continue
		}
		body := line[:len(line)-1]
		if c.forgotten(body) {
			continue
		}
		var d doc
		ok := false
		switch f.src {
		case srcAudit:
			d, ok = auditDoc(body)
		case srcPruned:
			d, ok = prunedDoc(body)
		default:
			d, ok = timelineDoc(body)
		}
		if ok {
			d.off, d.n = start, int64(len(body))
			emit(&d)
		}
	}
	return off, tailSum(fh, off, tailLen), nil
}

// tailLen is how many bytes before a log's indexed point its checksum covers (a transcript's:
// tailWindow).
const tailLen = 64

// tailSum is the checksum of the n bytes before off (0 when they cannot be read).
func tailSum(r io.ReaderAt, off int64, n int64) uint32 {
	a := max(off-n, 0)
	b := make([]byte, off-a)
	if _, err := r.ReadAt(b, a); err != nil && !(errors.Is(err, io.EOF) && len(b) == 0) {
		return 0
	}
	return crc32.Checksum(b, castagnoli())
}

// parkedItems lists the open parked items once per corpus.
func (c *corpus) parkedItems() ([]parking.Item, error) {
	if c.listed {
		return c.parked, nil
	}
	s := parking.Reader(c.root, c.dirs, c.now)
	items, err := s.List()
	c.parked, c.listed = items, err == nil
	return items, err
}

// checkpointKind is a checkpoint's kind: its frontmatter's kind when that is saved, auto or
// handoff; otherwise auto when its status is auto, else saved.
func checkpointKind(fm map[string]any, status string) Kind {
	if s, ok := fm["kind"].(string); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "saved":
			return Saved
		case "auto":
			return Auto
		case "handoff":
			return Handoff
		}
	}
	if status == checkpoint.StatusAuto {
		return Auto
	}
	return Saved
}

// parsedCheckpoint is what a checkpoint file says, for its document and for Show.
type parsedCheckpoint struct {
	kind     Kind
	status   string
	time     time.Time
	branch   string
	worktree string
	title    string
	text     string // what is indexed besides the title, and what snippets are cut from
}

// parseCheckpoint reads a checkpoint with the line reader (no YAML: a checkpoint cairn wrote
// reads the same either way, and the index must not depend on a YAML parser's mood).
func parseCheckpoint(name string, data []byte) parsedCheckpoint {
	fm, body := checkpoint.SplitLoose(data)
	front := checkpoint.ReadFrontmatter(fm)
	heading, sec := checkpoint.ParseBody(body)
	title, saved, _ := checkpoint.SplitName(name)
	if heading != "" {
		title = heading
	}
	var b strings.Builder
	for _, s := range []string{sec.Summary, sec.Decisions, sec.Remaining, sec.Notes} {
		if s != "" {
			b.WriteString(s)
			b.WriteString("\n\n")
		}
	}
	if len(front.Files) > 0 {
		b.WriteString("Files: " + strings.Join(front.Files, " "))
	}
	return parsedCheckpoint{kind: checkpointKind(fm, front.Status), status: front.Status, time: saved, branch: front.Branch, worktree: front.Worktree, title: title, text: strings.TrimSpace(b.String())}
}

func checkpointDoc(name string, data []byte) doc {
	p := parseCheckpoint(name, data)
	return doc{kind: p.kind, time: unix(p.time), n: int64(len(data)), branch: p.branch, status: p.status, worktree: p.worktree, title: p.title, body: p.text}
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func auditKind(action string) Kind {
	switch {
	case action == parking.ActionExpired:
		return Expired
	case !parking.IsRemoval(action):
		return 0 // a correction, not an item: not indexed
	}
	return Archived
}

func auditDoc(line []byte) (doc, bool) {
	e, ok := parking.ParseAuditLine(line)
	if !ok {
		return doc{}, false
	}
	return doc{kind: auditKind(e.Action), time: unix(e.Time()), title: e.Item, body: e.Text}, true
}

// timelineTitle is an event with its source, trigger or reason: "compaction (auto)".
func timelineTitle(ev timeline.Event) string {
	t := ev.Event
	for _, s := range []string{ev.Source, ev.Trigger, ev.Reason} {
		if s != "" {
			t += " (" + s + ")"
		}
	}
	return t
}

// timelineBody is what is indexed of an event besides its title: the branch, the checkpoint's
// name (not its directories, which every compaction line shares) and the session id's first 8
// characters (a whole UUID would add five unique terms per session for a string nobody types).
func timelineBody(ev timeline.Event) string {
	cp := ev.Checkpoint
	if i := strings.LastIndexByte(cp, '/'); i >= 0 {
		cp = cp[i+1:]
	}
	return strings.Join([]string{ev.Branch, strings.TrimSuffix(cp, ".md"), shortSession(ev.Session)}, " ")
}

func shortSession(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

func timelineDoc(line []byte) (doc, bool) {
	ev, ok := timeline.Parse(line)
	if !ok {
		return doc{}, false
	}
	return doc{kind: Timeline, time: unix(ev.Time), branch: ev.Branch, worktree: ev.Worktree, title: timelineTitle(ev), body: timelineBody(ev)}, true
}

// prunedEntry is a line of the log of pruned checkpoints (catalog.PrunedFile).
type prunedEntry struct {
	ts                    time.Time
	name                  string // the checkpoint's file name
	kind, branch, session string
	text                  string
}

func parsePruned(line []byte) (prunedEntry, bool) {
	if !gjson.ValidBytes(line) {
		return prunedEntry{}, false
	}
	v := gjson.ParseBytes(line)
	cp := v.Get("checkpoint").Str
	e := prunedEntry{name: cp[strings.LastIndexByte(cp, '/')+1:], kind: v.Get("kind").Str, branch: v.Get("branch").Str,
		session: v.Get("session").Str, text: v.Get("text").Str}
	e.ts, _ = time.Parse(time.RFC3339, v.Get("ts").Str)
	return e, strings.HasSuffix(e.name, ".md") && e.text != ""
}

// prunedDoc is a pruned checkpoint, indexed as it was: its title and its text, dated by its
// name (when it was taken), on its branch.
func prunedDoc(line []byte) (doc, bool) {
	e, ok := parsePruned(line)
	if !ok {
		return doc{}, false
	}
	p := parseCheckpoint(e.name, []byte(e.text))
	return doc{kind: Pruned, time: unix(p.time), branch: p.branch, title: p.title, body: p.text}, true
}

func prunedID(e prunedEntry) string { return Pruned.String() + ":" + strings.TrimSuffix(e.name, ".md") }

// parkedTime is the start of an item's Raised day, local time.
func parkedTime(it parking.Item) int64 {
	t, err := time.ParseInLocation(parking.DateLayout, it.Raised, time.Local)
	if err != nil {
		return 0
	}
	return t.Unix()
}

func parkedDoc(it parking.Item) doc {
	return doc{kind: Parked, time: parkedTime(it), title: it.Name, body: it.Text}
}

// ---- Ids ----
//
// A checkpoint's id is its file name without ".md" (20261201-104843-login-parser), which
// `cairn context restore` takes as it is. The others carry their kind:
//
//	parked:<slug>
//	archived:<YYYYMMDD-HHMMSS>-<item slug>    expired:<…>    (ts of the audit line, UTC)
//	timeline:<YYYYMMDD-HHMMSS>-<event>-<first 8 of the session>
//	pruned:<the checkpoint's id>              session:<the session's id>
//
// and a line without a readable ts is <kind>:h<fnv-32a of the line, hex>. Show resolves an id
// from the files alone, so it works without the index, and a damaged one.

const idTime = "20060102-150405"

func idSlug(s string) string {
	if s = parking.Slugify(s); s == "" {
		return "item"
	}
	return s
}

func lineID(k Kind, t time.Time, name string, line []byte) string {
	if t.IsZero() {
		h := fnv.New32a()
		h.Write(line)
		return k.String() + ":h" + strconv.FormatUint(uint64(h.Sum32())|1<<32, 16)[1:]
	}
	return k.String() + ":" + t.UTC().Format(idTime) + "-" + idSlug(name)
}

func auditID(e parking.AuditEntry, line []byte) string {
	return lineID(auditKind(e.Action), e.Time(), e.Item, line)
}

func timelineID(ev timeline.Event, line []byte) string {
	name := ev.Event
	if s := shortSession(ev.Session); s != "" {
		name += "-" + s
	}
	return lineID(Timeline, ev.Time, name, line)
}

func parkedID(it parking.Item) string { return Parked.String() + ":" + it.Slug }

// scanLines calls fn with each whole line of the file at rel (without its newline) for which
// want(line) holds, until fn returns false. Lines longer than maxLine are skipped.
func (c *corpus) scanLines(rel string, want func([]byte) bool, fn func(line []byte) bool) error {
	fh, _, err := safefile.Open(c.at(rel))
	if err != nil {
		return err
	}
	defer fh.Close()
	r := bufio.NewReaderSize(fh, 64<<10)
	var long []byte
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long) <= maxLine {
				long = append(long, line...)
			}
			continue
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if long != nil {
			line = append(long, line...)
			long = nil
			if len(line) > maxLine {
				continue
			}
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if want(line) && !fn(line) {
			return nil
		}
	}
}
