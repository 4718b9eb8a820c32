package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/redact"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/tombstone"
	"github.com/cairn-hooks/cairn/pkg/transcript"
)

// The history: Claude Code's own transcripts of the project's sessions
// (<config>/projects/<slug>/<session>.jsonl, for every root project.HistoryRoots names),
// sessions from before cairn was installed included. It is indexed beside the project's files,
// in segments of the same format, but kept apart from the base and the delta because it grows
// differently: a few large files that are appended to all day, read by a JSON-lines reader, not
// many small ones rewritten.
//
//   - A segment (hist-<n>.cidx) is written once and never changed; the manifest (history) lists
//     them, oldest first, with the fingerprint of the listing they describe. A sync reads only
//     what changed since the newest record of each transcript — the bytes appended, when the
//     4 KiB before where it stopped are still the same and the file is the same inode; else the
//     whole file again, whose new record (fileWhole) replaces the older ones — and writes one
//     more segment. Small segments are merged as they accumulate (mergeSmall).
//   - A document is a stretch of one transcript: a prompt and what followed it (Claude's text,
//     the commands and their failures, the files edited; short turns together up to minChunkText),
//     cut at maxChunkText of text or maxChunkSpan of transcript, and each compaction summary
//     alone. Its text is redacted before it is tokenized; the index keeps words and where the
//     stretch lies, never the text: a result's snippet is read again from the transcript.
//   - A line still being written is never read (transcript.Messages): it is read once whole.
//   - A search syncs within a time budget: what did not fit stays for the next search, which says
//     so; `cairn index` syncs without one. A sync that finds another process indexing answers from
//     the segments as they are. Before it lists every transcript, a search takes the quick look
//     (quickFresh): a few stat calls that tell it nothing changed.

// File names in the index directory.
const (
	histManifest = "history"
	histLock     = "history.lock"
	histPrefix   = "hist-" // hist-<8 hex digits>.cidx
)

func histName(n uint32) string { return fmt.Sprintf("%s%08x.cidx", histPrefix, n) }

// isHistName reports whether name is a history segment's.
func isHistName(name string) bool {
	hex, ok := strings.CutSuffix(strings.TrimPrefix(name, histPrefix), ".cidx")
	if !ok || len(hex) != 8 || !strings.HasPrefix(name, histPrefix) {
		return false
	}
	_, err := strconv.ParseUint(hex, 16, 32)
	return err == nil
}

// Bounds of the history.
const (
	// maxTranscripts bounds the transcripts listed: a directory of a million tiny files costs a
	// listing of this many, and the rest are left out (and said so).
	maxTranscripts = 50000
	// minChunkText, maxChunkText and maxChunkSpan bound a document: a prompt starts one once
	// the last holds minChunkText of text (short turns share one: fewer, fuller documents make a
	// smaller index), none holds more than maxChunkText, nor spans more than maxChunkSpan of
	// transcript, what a snippet reads again (a long tool result between two messages ends one).
	minChunkText = 2 << 10
	maxChunkText = 4 << 10
	maxChunkSpan = 64 << 10
	// tailWindow is how many bytes before a transcript's indexed point their checksum covers:
	// the same bytes there, in the same file, mean the transcript was appended to.
	tailWindow = 4 << 10
	// A build flushes its segment once it holds this many distinct words or bytes of postings,
	// so that indexing a history of any size holds one segment's worth in memory.
	histFlushTerms = 160 << 10
	histFlushPost  = 24 << 20
	// Segments under smallSegment bytes are merged once more than maxSmall of them follow the
	// last large one: a search after every few lines appended writes a small one each time.
	smallSegment = 8 << 20
	maxSmall     = 4
)

// histClock is the clock of a sync's budget: wall time, whatever clock the index's ages use
// (tests replace it).
var histClock = time.Now

// DefaultBudget is how long a search spends bringing the history up to date before it answers
// from the index as it is: the first search after install meets months of transcripts.
const DefaultBudget = 150 * time.Millisecond

// transcriptFile is one transcript as a listing finds it.
type transcriptFile struct {
	path        string // relative to <config>/projects, with '/': <dir>/<session>.jsonl
	root        string // the root its directory belongs to
	exact       bool   // its directory is the root's slug itself
	size, mtime int64
	ident       uint32
}

// record is the file record of a reading of f that ends with flags.
func (f transcriptFile) record(flags uint8) file {
	return file{path: f.path, src: srcTranscript, mtime: f.mtime, size: f.size, ident: f.ident, flags: flags}
}

func (f transcriptFile) session() string {
	return strings.TrimSuffix(f.path[strings.LastIndexByte(f.path, '/')+1:], ".jsonl")
}

// history is the index's part that holds the transcripts.
type history struct {
	config   string   // Claude Code's config directory
	projects string   // <config>/projects
	roots    []string // project.HistoryRoots
	real     []string // the roots with their links resolved, for the cwd check

	man       manifest
	segs      []*segment
	dead      [][]bool // per segment: documents a later record of their transcript replaced
	deadKinds [numKinds]kindStat

	// Sessions found by a query: each transcript path gets a number, so that a session's
	// documents in several segments count as one result.
	sessOf   [][]int32 // per segment, per file record: its session number; -1 not looked up yet
	sessions map[string]int32
	paths    []string // session number → path

	listings int // full listings taken (list): what the quick look spares
}

func newHistory(config string, roots []string) *history {
	h := &history{config: config, projects: filepath.Join(config, "projects"), roots: roots}
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil && real != r {
			h.real = append(h.real, real)
		}
	}
	return h
}

// list returns the transcripts of the roots, sorted by path, and whether there were more than
// maxTranscripts. Only regular files named <session>.jsonl count: no link, no directory.
func (h *history) list() (files []transcriptFile, dirs []project.TranscriptDir, more bool) {
	h.listings++
	dirs = project.TranscriptDirs(h.config, h.roots)
	for _, d := range dirs {
		dir := filepath.Join(h.projects, d.Name)
		names, over, err := safefile.ReadDir(h.projects, dir, maxTranscripts-len(files)+1)
		if err != nil {
			continue
		}
		more = more || over
		names = slices.DeleteFunc(names, func(n string) bool {
			sid, ok := strings.CutSuffix(n, ".jsonl")
			return !ok || !project.SafeName(sid)
		})
		infos, errs := safefile.LstatNames(dir, names)
		for i, n := range names {
			if errs[i] != nil || !infos[i].Mode().IsRegular() {
				continue
			}
			if len(files) == maxTranscripts {
				more = true
				break
			}
			files = append(files, transcriptFile{path: d.Name + "/" + n, root: d.Root, exact: d.Exact,
				size: infos[i].Size(), mtime: infos[i].ModTime().UnixNano(), ident: safefile.Identity(infos[i])})
		}
	}
	slices.SortFunc(files, func(a, b transcriptFile) int { return strings.Compare(a.path, b.path) })
	return files, dirs, more
}

// fingerprint is what a listing says of the history: every transcript's path, size, time and
// identity, the roots, and the tombstones. The same fingerprint, with every transcript read to
// its end, means nothing is left to index.
func fingerprint(files []transcriptFile, roots []string, stones [2]int64) uint64 {
	h := fnv.New64a()
	var b []byte
	for _, r := range roots {
		b = append(append(b, r...), 0)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(stones[0]))
	b = binary.LittleEndian.AppendUint64(b, uint64(stones[1]))
	h.Write(b)
	for _, f := range files {
		b = append(b[:0], f.path...)
		b = binary.LittleEndian.AppendUint64(b, uint64(f.size))
		b = binary.LittleEndian.AppendUint64(b, uint64(f.mtime))
		b = binary.LittleEndian.AppendUint32(b, f.ident)
		h.Write(b)
	}
	return h.Sum64() | 1 // 0 is a manifest that describes nothing
}

// ---- The manifest ----

// manifest is the history's list of segments.
type manifest struct {
	print    uint64 // the fingerprint of the listing the segments were brought up to date with
	complete bool   // every transcript of that listing was read to its end
	next     uint32 // the next segment's number
	segs     []segEntry
	// The quick look a search takes instead of listing every transcript (quickFresh): when the
	// last listing was (unix seconds), how many transcripts it found, the tombstones' size and time
	// then, and what to stat — the projects directory, each transcript directory, each transcript
	// written to in the last hotWindow.
	full     int64
	sessions uint32
	stones   [2]int64
	looks    []look
}

// look is a file or directory as the last listing found it, relative to <config>/projects ("" is
// that directory itself).
type look struct {
	path        string
	size, mtime int64
}

type segEntry struct {
	num, crc uint32
	size     int64
}

const manifestMagic = "CHIST002"

func (m manifest) marshal() []byte {
	le := binary.LittleEndian
	b := []byte(manifestMagic)
	b = le.AppendUint64(b, m.print)
	flags := uint32(0)
	if m.complete {
		flags = 1
	}
	b = le.AppendUint32(b, flags)
	b = le.AppendUint32(b, m.next)
	b = le.AppendUint32(b, uint32(len(m.segs)))
	for _, s := range m.segs {
		b = le.AppendUint32(b, s.num)
		b = le.AppendUint32(b, s.crc)
		b = le.AppendUint64(b, uint64(s.size))
	}
	b = le.AppendUint64(b, uint64(m.full))
	b = le.AppendUint32(b, m.sessions)
	b = le.AppendUint64(b, uint64(m.stones[0]))
	b = le.AppendUint64(b, uint64(m.stones[1]))
	b = le.AppendUint32(b, uint32(len(m.looks)))
	for _, l := range m.looks {
		b = le.AppendUint16(b, uint16(len(l.path)))
		b = append(b, l.path...)
		b = le.AppendUint64(b, uint64(l.size))
		b = le.AppendUint64(b, uint64(l.mtime))
	}
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// maxSegments bounds a manifest's list of segments and maxLooks its quick look (a manifest is
// read whole by every search).
const (
	maxSegments = 4096
	maxLooks    = 512
)

func unmarshalManifest(b []byte) (manifest, bool) {
	le := binary.LittleEndian
	const head = len(manifestMagic) + 8 + 4 + 4 + 4
	if len(b) < head+4 || string(b[:len(manifestMagic)]) != manifestMagic {
		return manifest{}, false
	}
	if crc32.Checksum(b[:len(b)-4], castagnoli()) != le.Uint32(b[len(b)-4:]) {
		return manifest{}, false
	}
	p := b[len(manifestMagic):]
	m := manifest{print: le.Uint64(p), complete: le.Uint32(p[8:])&1 != 0, next: le.Uint32(p[12:])}
	n := le.Uint32(p[16:])
	const tail = 8 + 4 + 16 + 4
	if n > maxSegments || len(b) < head+int(n)*16+tail+4 {
		return manifest{}, false
	}
	p = b[head : len(b)-4]
	for i := range n {
		r := p[16*i:]
		m.segs = append(m.segs, segEntry{num: le.Uint32(r), crc: le.Uint32(r[4:]), size: int64(le.Uint64(r[8:]))})
	}
	p = p[16*n:]
	m.full, m.sessions = int64(le.Uint64(p)), le.Uint32(p[8:])
	m.stones = [2]int64{int64(le.Uint64(p[12:])), int64(le.Uint64(p[20:]))}
	nl := le.Uint32(p[28:])
	p = p[tail:]
	if nl > maxLooks {
		return manifest{}, false
	}
	for range nl {
		if len(p) < 2 {
			return manifest{}, false
		}
		k := int(le.Uint16(p))
		if len(p) < 2+k+16 {
			return manifest{}, false
		}
		m.looks = append(m.looks, look{path: string(p[2 : 2+k]), size: int64(le.Uint64(p[2+k:])), mtime: int64(le.Uint64(p[10+k:]))})
		p = p[2+k+16:]
	}
	return m, len(p) == 0
}

// ---- Loading ----

// loadHistory maps the segments the manifest lists. A manifest or segment that is missing or
// damaged, or not the one the manifest names, leaves the history empty: the next sync indexes
// every transcript again.
func (ix *Index) loadHistory() {
	h := ix.hist
	if h == nil {
		return
	}
	ix.unloadHistory()
	data, _, err := safefile.ReadFile(ix.tree, ix.path(histManifest), 128+maxSegments*16+maxLooks*(2+1<<16+16))
	if err != nil {
		return
	}
	m, ok := unmarshalManifest(data)
	if !ok {
		return
	}
	var segs []*segment
	for _, e := range m.segs {
		s, err := ix.openSegment(histName(e.num))
		if err != nil || s.crc != e.crc {
			s.close()
			for _, s := range segs {
				s.close()
			}
			return
		}
		segs = append(segs, s)
	}
	h.man, h.segs = m, segs
	h.findDead()
}

// resetHistory forgets the history's segments, damaged: the next sync indexes every transcript
// again.
func (ix *Index) resetHistory() {
	if ix.hist == nil {
		return
	}
	ix.unloadHistory()
	if ix.stored {
		safefile.Disk{Roots: []string{ix.tree}}.Remove(ix.path(histManifest))
	}
}

func (ix *Index) unloadHistory() {
	h := ix.hist
	if h == nil {
		return
	}
	for _, s := range h.segs {
		s.close()
	}
	h.man, h.segs, h.dead, h.deadKinds = manifest{}, nil, nil, [numKinds]kindStat{}
	h.sessOf, h.sessions, h.paths = nil, nil, nil
}

// findDead marks the documents of every record that a later segment's fileWhole record of the
// same transcript replaces. Only segments that hold such a record (segWhole) are looked at, so
// that a history only ever appended to costs nothing here.
func (h *history) findDead() {
	h.dead, h.deadKinds = make([][]bool, len(h.segs)), [numKinds]kindStat{}
	replaced := map[string]int{} // path → the newest segment with a fileWhole record for it
	for si := len(h.segs) - 1; si >= 0; si-- {
		s := h.segs[si]
		if s.h.flags&segWhole == 0 {
			continue
		}
		for i := uint32(0); i < s.h.nFiles; i++ {
			if s.data[s.h.off[secFiles]+uint64(i)*fileRec+7]&fileWhole == 0 {
				continue
			}
			if p := string(s.filePath(i)); !hasKey(replaced, p) {
				replaced[p] = si
			}
		}
	}
	if len(replaced) == 0 {
		return
	}
	for si, s := range h.segs {
		for i := uint32(0); i < s.h.nFiles; i++ {
			if k, ok := replaced[string(s.filePath(i))]; !ok || k <= si {
				continue
			}
			fi := s.file(i)
			if h.dead[si] == nil {
				h.dead[si] = make([]bool, s.h.nDocs)
			}
			for d := fi.firstDoc; d < fi.firstDoc+fi.nd && d < s.h.nDocs; d++ {
				h.dead[si][d] = true
				if di := s.doc(d); di.kind < numKinds {
					h.deadKinds[di.kind].docs++
					h.deadKinds[di.kind].len += uint64(di.dl)
				}
			}
		}
	}
}

func hasKey[K comparable, V any](m map[K]V, k K) bool { _, ok := m[k]; return ok }

// state returns each transcript's newest record: where its reading stopped.
func (h *history) state() map[string]fileInfo {
	st := map[string]fileInfo{}
	for si := len(h.segs) - 1; si >= 0; si-- {
		s := h.segs[si]
		for i := s.h.nFiles; i > 0; i-- {
			if p := string(s.filePath(i - 1)); !hasKey(st, p) {
				st[p] = s.file(i - 1)
			}
		}
	}
	return st
}

// session returns the session number of file record i of segment si, giving the transcript one
// when it has none yet.
func (h *history) session(si int, i uint32) int32 {
	if h.sessOf == nil {
		h.sessOf, h.sessions = make([][]int32, len(h.segs)), map[string]int32{}
	}
	if h.sessOf[si] == nil {
		h.sessOf[si] = make([]int32, h.segs[si].h.nFiles)
		for k := range h.sessOf[si] {
			h.sessOf[si][k] = -1
		}
	}
	if n := h.sessOf[si][i]; n >= 0 {
		return n
	}
	p := string(h.segs[si].filePath(i))
	n, ok := h.sessions[p]
	if !ok {
		n = int32(len(h.paths))
		h.sessions[p] = n
		h.paths = append(h.paths, p)
	}
	h.sessOf[si][i] = n
	return n
}

// ---- Syncing ----

// HistoryStats says what a history sync did and what it left.
type HistoryStats struct {
	Sessions int   // transcripts listed
	Indexed  int   // transcripts this sync read (wholly or in part)
	Bytes    int64 // transcript bytes it read
	Text     int64 // bytes of text it indexed of them, redacted: what the index is measured against
	// Pending counts the transcripts not indexed yet, or not up to date: the budget ran out
	// first, or another process is indexing (Busy).
	Pending int
	Busy    bool
	More    bool // more transcripts than maxTranscripts: the rest are not listed
}

// histPlan is one transcript a sync must read, or record.
type histPlan struct {
	f     transcriptFile
	from  int64
	flags uint8 // fileWhole, fileForgotten
	skip  bool  // nothing to read: a record alone (a transcript gone, or forgotten)
}

// SyncHistory brings the history up to date, for at most budget (0: no bound) of reading; what
// does not fit stays for the next sync, which goes on from there. A process that finds another
// indexing does not wait, unless it has no budget: it reports Busy and the number pending.
func (ix *Index) SyncHistory(ctx context.Context, budget time.Duration) (HistoryStats, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.syncHistory(ctx, budget)
}

func (ix *Index) syncHistory(ctx context.Context, budget time.Duration) (HistoryStats, error) {
	h := ix.hist
	if h == nil {
		return HistoryStats{}, nil
	}
	start := histClock()
	if h.quickFresh(start) {
		return HistoryStats{Sessions: int(h.man.sessions)}, nil
	}
	files, dirs, more := h.list()
	stones, _ := tombstone.Read(h.config)
	print := fingerprint(files, h.roots, stones.Print)
	st := HistoryStats{Sessions: len(files), More: more}
	if h.man.print == print && h.man.complete {
		ix.noteLook(files, dirs, more, stones, start)
		return st, nil
	}
	if !ix.stored {
		return ix.buildHistory(ctx, files, dirs, more, stones, print, start, budget, st)
	}
	ix.ignored()
	// A search does not wait for another process's indexing; a sync without a budget does.
	unlock, busy, err := safefile.TryLock(ix.tree, ix.path(histLock))
	if busy && budget == 0 {
		unlock, err = safefile.Lock(ix.tree, ix.path(histLock))
		busy = false
	}
	if err != nil {
		return st, err
	}
	if busy {
		st.Busy, st.Pending = true, pending(h.plan(files, more, stones))
		return st, nil
	}
	defer unlock()
	ix.loadHistory() // another process may have brought it up to date meanwhile
	if h.man.print == print && h.man.complete {
		h.setLook(files, dirs, more, stones, start)
		return st, ix.writeManifest()
	}
	return ix.buildHistory(ctx, files, dirs, more, stones, print, start, budget, st)
}

// hotWindow: a transcript written to within it at a listing is one a session may still be
// writing, which the quick look stats; older ones are stat'ed at the next full listing, within
// fullEvery. (A session resumed after days writes to its old transcript again: its new lines are
// found at the next full listing.)
const hotWindow = 24 * time.Hour

// quickFresh reports whether the history is up to date by the quick look: the last listing found
// every transcript read to its end, less than fullEvery ago, and nothing it recorded to stat has
// changed — the projects directory and each transcript directory (a session started or gone
// changes them), each transcript written to recently, the tombstones.
func (h *history) quickFresh(now time.Time) bool {
	m := &h.man
	if !m.complete || len(m.looks) == 0 || now.Unix()-m.full >= int64(fullEvery/time.Second) || now.Unix() < m.full {
		return false
	}
	if fi, err := os.Lstat(tombstone.Path(h.config)); err == nil && [2]int64{fi.Size(), fi.ModTime().UnixNano()} != m.stones ||
		err != nil && m.stones != [2]int64{} {
		return false
	}
	for _, l := range m.looks {
		fi, err := os.Lstat(filepath.Join(h.projects, filepath.FromSlash(l.path)))
		if errors.Is(err, fs.ErrNotExist) && l.size == absent {
			continue
		}
		if err != nil || fi.Size() != l.size || fi.ModTime().UnixNano() != l.mtime {
			return false
		}
	}
	return true
}

// absent is a look's size for what was not there (no projects directory yet: no session ran).
const absent = -1

// setLook records in the manifest what the next searches' quick look stats, from a listing taken
// at now: nothing when a directory or a recent transcript changed too recently for its time to
// be trusted (git's racy rule: it could change again within the same tick), or when there are
// more than maxLooks of them — the next search then lists everything again.
func (h *history) setLook(files []transcriptFile, dirs []project.TranscriptDir, more bool, stones *tombstone.Set, now time.Time) {
	m := &h.man
	m.full, m.sessions, m.stones, m.looks = now.Unix(), uint32(len(files)), stones.Print, nil
	if more {
		return
	}
	var looks []look
	add := func(rel string) bool {
		fi, err := os.Lstat(filepath.Join(h.projects, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) && len(looks) < maxLooks {
			looks = append(looks, look{path: rel, size: absent})
			return true
		}
		if err != nil || racy(fi.ModTime(), now) || len(looks) == maxLooks {
			return false
		}
		looks = append(looks, look{path: rel, size: fi.Size(), mtime: fi.ModTime().UnixNano()})
		return true
	}
	if !add("") {
		return
	}
	for _, d := range dirs {
		if !add(d.Name) {
			return
		}
	}
	for _, f := range files {
		if now.Sub(time.Unix(0, f.mtime)) < hotWindow && !add(f.path) {
			return
		}
	}
	m.looks = looks
}

// noteLook records the quick look of an up-to-date history found by a full listing, best effort:
// when another process holds the lock, the next search lists again.
func (ix *Index) noteLook(files []transcriptFile, dirs []project.TranscriptDir, more bool, stones *tombstone.Set, now time.Time) {
	if !ix.stored {
		ix.hist.setLook(files, dirs, more, stones, now)
		return
	}
	unlock, busy, err := safefile.TryLock(ix.tree, ix.path(histLock))
	if err != nil || busy {
		return
	}
	defer unlock()
	print := ix.hist.man.print
	ix.loadHistory()
	if ix.hist.man.print != print || !ix.hist.man.complete {
		return // changed meanwhile: the next search looks again
	}
	ix.hist.setLook(files, dirs, more, stones, now)
	ix.writeManifest()
}

func pending(plan []histPlan) int {
	n := 0
	for _, p := range plan {
		if !p.skip {
			n++
		}
	}
	return n
}

// plan compares the listing with the newest record of each transcript.
func (h *history) plan(files []transcriptFile, more bool, stones *tombstone.Set) []histPlan {
	state := h.state()
	var plan []histPlan
	for _, f := range files {
		rec, known := state[f.path]
		switch {
		case stones.Session(f.session()):
			if known && rec.flags&fileForgotten == 0 {
				plan = append(plan, histPlan{f: f, flags: fileWhole | fileForgotten, skip: true})
			}
		case !known:
			plan = append(plan, histPlan{f: f})
		case rec.size == f.size && rec.mtime == f.mtime && rec.ident == f.ident && rec.flags&(filePartial|fileForgotten) == 0:
			// unchanged
		case rec.flags&(fileForeign|fileForgotten) == 0 && rec.ident == f.ident && f.size >= rec.indexed &&
			(f.size > rec.size || rec.flags&filePartial != 0) && h.appended(f, rec):
			// Grown (or left unfinished) with the same bytes before where the reading stopped: read
			// what follows. A file the same length with a new time was written over, not appended.
			plan = append(plan, histPlan{f: f, from: rec.indexed})
		default:
			plan = append(plan, histPlan{f: f, flags: fileWhole})
		}
	}
	if !more {
		listed := make(map[string]bool, len(files))
		for _, f := range files {
			listed[f.path] = true
		}
		for p, rec := range state {
			if !listed[p] && rec.size >= 0 {
				plan = append(plan, histPlan{f: transcriptFile{path: p, size: -1}, flags: fileWhole, skip: true})
			}
		}
	}
	// Records first (they cost nothing), then the newest transcripts: the session being worked
	// in, and what a search most likely looks for.
	slices.SortStableFunc(plan, func(a, b histPlan) int {
		if a.skip != b.skip {
			if a.skip {
				return -1
			}
			return 1
		}
		return int(b.f.mtime>>20) - int(a.f.mtime>>20)
	})
	return plan
}

// appended reports whether the transcript still holds, just before where its reading stopped,
// the bytes that reading saw.
func (h *history) appended(f transcriptFile, rec fileInfo) bool {
	fh, _, err := safefile.Open(h.projects, h.abs(f.path))
	if err != nil {
		return false
	}
	defer fh.Close()
	return tailSum(fh, rec.indexed, tailWindow) == rec.tail
}

func (h *history) abs(rel string) string { return filepath.Join(h.projects, filepath.FromSlash(rel)) }

// started reports whether a transcript whose session started in cwd is one of the history's: it
// started in a root or below one, or it names no directory and lies in a root's own directory
// (exact: TranscriptDir.Exact) — not another project's whose slug begins like a root's.
func (h *history) started(cwd string, exact bool) bool { return h.under(cwd) || cwd == "" && exact }

// under reports whether dir is one of the roots or inside one.
func (h *history) under(dir string) bool {
	for _, r := range slices.Concat(h.roots, h.real) {
		if dir == r || strings.HasPrefix(dir, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// buildHistory reads what plan names into new segments, within budget, and records them.
func (ix *Index) buildHistory(ctx context.Context, files []transcriptFile, dirs []project.TranscriptDir, more bool, stones *tombstone.Set, print uint64, start time.Time, budget time.Duration, st HistoryStats) (HistoryStats, error) {
	h := ix.hist
	plan := h.plan(files, more, stones)
	defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
	var deadline time.Time
	if budget > 0 {
		deadline = start.Add(budget)
	}
	done, err := ix.addTranscripts(ctx, plan, deadline, &st)
	st.Pending = pending(plan[done:])
	if err != nil {
		return st, err
	}
	h.man.print, h.man.complete = print, st.Pending == 0
	if h.man.complete {
		h.setLook(files, dirs, more, stones, histClock())
	} else {
		h.man.looks = nil
	}
	if err := ix.writeManifest(); err != nil {
		return st, err
	}
	if st.Pending == 0 {
		return st, ix.mergeSmall()
	}
	return st, nil
}

// addTranscripts reads the planned transcripts, in order, into segments: a goroutine reads and
// cuts them into documents, this one tokenizes and counts, and writes a segment each time one is
// full and at the end. It returns how many of plan it finished (a transcript cut by the deadline
// counts as not finished: the next sync goes on with it).
func (ix *Index) addTranscripts(ctx context.Context, plan []histPlan, deadline time.Time, st *HistoryStats) (int, error) {
	h := ix.hist
	late := func() bool { return !deadline.IsZero() && histClock().After(deadline) || ctx.Err() != nil }
	produce := func(send func(part) bool) {
		for _, p := range plan {
			if !p.skip && late() {
				return
			}
			if !send(h.read(p, late, send)) {
				return
			}
		}
	}
	bd := newBuilder(ix.now())
	done, first := 0, uint32(0)
	var lastEnd int64 // the end of the last document added of the transcript being read
	var cont bool     // that transcript's first part went to an earlier segment
	flush := func() error {
		if len(bd.files) == 0 {
			return nil
		}
		if err := ix.storeHistSegment(bd); err != nil {
			return err
		}
		bd, first = newBuilder(ix.now()), 0
		return nil
	}
	err := relay(produce, func(pt part) error {
		for i := range pt.docs {
			d := &pt.docs[i]
			bd.addDoc(d, uint32(len(bd.files)/fileRec))
			lastEnd = d.off + d.n
			st.Text += int64(len(d.body))
		}
		if !pt.end {
			if bd.full() && bd.nDocs > first {
				// A transcript larger than a segment: what is indexed of it so far ends this
				// segment, as a reading the next segment goes on from (not whole).
				flags := pt.p.flags | filePartial
				if cont {
					flags &^= fileWhole
				}
				bd.endFile(pt.p.f.record(flags), first, lastEnd, h.tailAt(pt.p.f.path, lastEnd), nil)
				if err := flush(); err != nil {
					return err
				}
				cont = true
			}
			return nil
		}
		flags := pt.f.flags
		if cont {
			flags &^= fileWhole
		}
		bd.endFile(pt.p.f.record(flags), first, pt.indexed, pt.tail, nil)
		first, cont = bd.nDocs, false
		if pt.f.flags&filePartial == 0 {
			done++
		}
		if !pt.p.skip {
			st.Indexed++
			st.Bytes += pt.read
		}
		if bd.full() {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return done, err
	}
	return done, flush()
}

// full reports whether a history segment being built should be written now.
func (b *builder) full() bool { return len(b.terms) >= histFlushTerms || b.postLen >= histFlushPost }

// tailAt is the checksum of the tailWindow bytes before off in the transcript at rel.
func (h *history) tailAt(rel string, off int64) uint32 {
	fh, _, err := safefile.Open(h.projects, h.abs(rel))
	if err != nil {
		return 0
	}
	defer fh.Close()
	return tailSum(fh, off, tailWindow)
}

// read reads one planned transcript from p.from, handing its documents over in batches, and
// returns its last part. late says when to stop (at a line's end).
func (h *history) read(p histPlan, late func() bool, send func(part) bool) part {
	end := part{end: true, p: p, indexed: p.from}
	end.f.flags = p.flags
	if p.skip {
		return end
	}
	fh, fi, err := safefile.Open(h.projects, h.abs(p.f.path))
	if err != nil {
		end.f.flags |= fileForeign // unreadable now: recorded, and read again once it changes
		return end
	}
	defer fh.Close()
	size := min(fi.Size(), p.f.size) // what the listing saw; more is for the next sync
	if p.from == 0 {
		_, cwd, _ := transcript.Start(fh, size)
		if !h.started(cwd, p.f.exact) {
			end.f.flags |= fileForeign // another project's session whose slug begins like this one's
			return end
		}
	}
	var (
		c       chunker
		stopped bool
		cut     bool
	)
	n, err := transcript.Messages(fh, p.from, size, func(m *transcript.Message) bool {
		if m == nil {
			if late() {
				stopped = true
				return false
			}
			return true
		}
		if c.add(m) && len(c.docs) >= batchDocs {
			cut = !send(part{docs: c.docs, p: p})
			c.docs = nil
			return !cut
		}
		return true
	})
	c.flush()
	end.docs, end.indexed, end.read = c.docs, n, n-p.from
	if err != nil || stopped || cut {
		end.f.flags |= filePartial
	}
	end.tail = tailSum(fh, n, tailWindow)
	return end
}

// chunker cuts a transcript's messages into documents.
type chunker struct {
	docs       []doc
	text       strings.Builder
	start, end int64
	when       string // the first timestamp
	branch     string
	open       bool
}

// add adds m to the document being cut, after ending it when m starts another: a prompt starts
// a turn, a summary stands alone, and a document ends at maxChunkText of text or maxChunkSpan of
// transcript. It reports whether a document was ended.
func (c *chunker) add(m *transcript.Message) bool {
	piece := m.Text // a command that exited 0 has none: its command said it
	if m.Kind == transcript.Outcome && piece != "" {
		piece = m.Status + ": " + piece
	}
	ended := false
	if c.open && (m.Kind == transcript.Typed && c.text.Len() >= minChunkText || m.Kind == transcript.Summarized ||
		m.End-c.start > maxChunkSpan || c.text.Len()+len(piece) > maxChunkText) {
		ended = c.flush()
	}
	if piece == "" {
		if c.open {
			c.end = m.End
		}
		return ended
	}
	if !c.open {
		c.open, c.start = true, m.Off
	}
	c.end = m.End
	if c.when == "" && m.Time != "" {
		c.when = strings.Clone(m.Time)
	}
	if c.branch == "" && m.Branch != "" {
		c.branch = strings.Clone(m.Branch)
	}
	c.text.WriteString(piece)
	c.text.WriteByte('\n')
	if m.Kind == transcript.Summarized {
		ended = c.flush() || ended
	}
	return ended
}

// flush ends the document being cut, if any: its text and its branch redacted (the one redaction
// point) before anything is counted of it.
func (c *chunker) flush() bool {
	if !c.open {
		return false
	}
	var t int64
	if when, err := time.Parse(time.RFC3339Nano, c.when); err == nil {
		t = when.Unix()
	}
	c.docs = append(c.docs, doc{kind: Session, time: t, off: c.start, n: c.end - c.start, branch: redact.Redact(c.branch),
		body: redact.Redact(c.text.String())})
	c.text.Reset()
	c.open, c.when, c.branch = false, "", ""
	return true
}

// ---- Writing ----

// storeHistSegment writes bd as the next history segment and records it in the manifest, so that
// a process killed in a long build keeps what it wrote. After a failure to write, the segment
// lives in memory for the rest of the process.
func (ix *Index) storeHistSegment(bd *builder) error {
	h := ix.hist
	s, e, err := ix.newHistSegment(bd)
	if err != nil {
		return err
	}
	h.man.segs = append(h.man.segs, e)
	h.man.complete, h.man.looks = false, nil
	h.segs = append(h.segs, s)
	h.findDead()
	h.sessOf, h.sessions, h.paths = nil, nil, nil
	return ix.writeManifest()
}

// newHistSegment writes bd as the history's next segment and maps it; after a failure to write,
// the index keeps its segments in memory for the rest of the process.
func (ix *Index) newHistSegment(bd *builder) (*segment, segEntry, error) {
	h := ix.hist
	num := h.man.next
	if ix.stored {
		if err := ix.write(histName(num), func(w io.Writer) error { return bd.writeTo(w, 0) }); err != nil {
			ix.stored = false
		}
	}
	var s *segment
	var err error
	if ix.stored {
		s, err = ix.openSegment(histName(num))
	} else {
		s, err = memSegment(bd, 0)
	}
	if err != nil {
		return nil, segEntry{}, err
	}
	h.man.next++
	return s, segEntry{num: num, crc: s.crc, size: int64(len(s.data))}, nil
}

func (ix *Index) writeManifest() error {
	if !ix.stored {
		return nil
	}
	data := ix.hist.man.marshal()
	if err := ix.write(histManifest, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	ix.removeStale()
	return nil
}

// removeStale removes the history segments the manifest no longer lists (merged away), and
// whatever their writers left: a reader that mapped one keeps reading its pages.
func (ix *Index) removeStale() {
	names, _, err := safefile.ReadDir(ix.tree, ix.dir, maxSegments*2)
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, e := range ix.hist.man.segs {
		keep[histName(e.num)] = true
	}
	d := safefile.Disk{Roots: []string{ix.tree}}
	for _, n := range names {
		if isHistName(n) && !keep[n] {
			d.Remove(ix.path(n))
		}
	}
}

// mergeSmall merges the small segments at the end of the list into one once there are more than
// maxSmall of them, dropping the documents later records replaced: a search that follows every
// few lines of a session writes a small segment each time.
func (ix *Index) mergeSmall() error {
	h := ix.hist
	first := len(h.segs)
	var run int
	for first > 0 {
		// The run of the newest segments ends before a large one, or one far larger than the
		// run itself (what a cold build wrote): merging that would cost far more than the run
		// saves. A run merged grows, and joins a larger run later: each byte is merged a few
		// times, not at every sync.
		n := len(h.segs[first-1].data)
		if n >= smallSegment || first < len(h.segs) && n > 4*run {
			break
		}
		run += n
		first--
	}
	if len(h.segs)-first <= maxSmall {
		return nil
	}
	return ix.replaceSegments(first)
}

// PurgeHistory rewrites the history's segments from the first that holds a document a later
// record replaced — a forgotten session's above all — into one without them, so that no segment
// on disk keeps a forgotten session's words: cairn forget runs it after the sync that records the
// tombstone. (A sync only marks the documents it replaces, left in their segments until a merge.)
func (ix *Index) PurgeHistory() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.hist == nil || !ix.stored {
		return nil // nothing on disk
	}
	unlock, err := safefile.Lock(ix.tree, ix.path(histLock))
	if err != nil {
		return err
	}
	defer unlock()
	ix.loadHistory()
	first := slices.IndexFunc(ix.hist.dead, func(d []bool) bool { return slices.Contains(d, true) })
	if first < 0 {
		return nil
	}
	return ix.replaceSegments(first)
}

// replaceSegments merges segments first… into one (merge), without the documents later records
// replaced: written as the next segment, then the manifest lists it in their place.
func (ix *Index) replaceSegments(first int) error {
	h := ix.hist
	bd, err := h.merge(first, ix.now())
	if err != nil {
		return err
	}
	s, e, err := ix.newHistSegment(bd)
	if err != nil {
		return err
	}
	for _, old := range h.segs[first:] {
		old.close()
	}
	h.man.segs = append(h.man.segs[:first], e)
	h.segs = append(h.segs[:first], s)
	h.findDead()
	h.sessOf, h.sessions, h.paths = nil, nil, nil
	return ix.writeManifest()
}

// merge builds one segment of segments first… in order, without the documents of the records a
// later record replaced (and without those records). Documents keep their order; each term's
// postings are the inputs', renumbered.
func (h *history) merge(first int, now time.Time) (*builder, error) {
	bd := newBuilder(now)
	// The records replaced within the run, or by a later whole record anywhere.
	remap := make([][]int64, len(h.segs)) // per segment: old document → new, -1 dropped
	for si := first; si < len(h.segs); si++ {
		s := h.segs[si]
		remap[si] = make([]int64, s.h.nDocs)
		for i := range remap[si] {
			remap[si][i] = -1
		}
		for fi := uint32(0); fi < s.h.nFiles; fi++ {
			f := s.file(fi)
			if f.nd > 0 && h.dead[si] != nil && f.firstDoc < s.h.nDocs && h.dead[si][f.firstDoc] {
				continue // replaced: neither it nor its documents are kept
			}
			firstNew := bd.nDocs
			for d := f.firstDoc; d < f.firstDoc+f.nd && d < s.h.nDocs; d++ {
				di := s.doc(d)
				remap[si][d] = int64(bd.nDocs)
				bd.copyDoc(s, di, uint32(len(bd.files)/fileRec))
			}
			bd.endFile(f.file, firstNew, f.indexed, f.tail, nil)
		}
	}
	// Postings: each segment's terms in turn; a term's documents stay ascending, as segment si's
	// new numbers all come before segment si+1's.
	for si := first; si < len(h.segs); si++ {
		s := h.segs[si]
		var docs, tfs []uint32
		for t := uint32(0); t < s.h.nTerms; t++ {
			tm, post, ok := s.term(t)
			if !ok {
				return nil, errDamaged
			}
			docs, tfs, ok = s.postings(post, 0, docs[:0], tfs[:0])
			if !ok {
				return nil, errDamaged
			}
			id := uint32(0)
			found := false
			for k, d := range docs {
				nd := remap[si][d]
				if nd < 0 {
					continue
				}
				if !found {
					id, found = bd.termID(string(tm)), true
				}
				bd.addPosting(id, uint32(nd), tfs[k])
			}
		}
	}
	return bd, nil
}

// copyDoc appends document di of segment s as it is (its words are added by addPosting).
func (b *builder) copyDoc(s *segment, di docInfo, file uint32) {
	title := string(s.str(di.titleOff, int(di.titleLen)))
	branch := string(s.str(di.branchOff, int(di.branchLen)))
	var r [docRec]byte
	le := binary.LittleEndian
	le.PutUint64(r[0:], uint64(di.time))
	le.PutUint64(r[8:], uint64(di.off))
	le.PutUint32(r[16:], di.n)
	le.PutUint32(r[20:], di.dl)
	le.PutUint32(r[24:], file)
	le.PutUint32(r[28:], b.str(title, false))
	le.PutUint32(r[32:], b.str(branch, true))
	le.PutUint16(r[36:], uint16(len(title)))
	r[38] = uint8(len(branch))
	r[39] = uint8(di.kind)
	b.docs = append(b.docs, r[:]...)
	b.nDocs++
	if di.kind < numKinds {
		b.kinds[di.kind].docs++
		b.kinds[di.kind].len += uint64(di.dl)
	}
}

// termID returns term t's number, adding it.
func (b *builder) termID(t string) uint32 {
	if id, ok := b.ids[t]; ok {
		return id
	}
	id := uint32(len(b.terms))
	b.ids[t] = id
	b.terms = append(b.terms, t)
	b.post = append(b.post, nil)
	b.last = append(b.last, 0)
	b.tf = append(b.tf, 0)
	return id
}

// addPosting adds document doc (after every document the term has so far) with tf to term id.
func (b *builder) addPosting(id, doc, tf uint32) {
	n := len(b.post[id])
	b.post[id] = binary.AppendUvarint(b.post[id], uint64(doc+1-b.last[id]))
	b.post[id] = binary.AppendUvarint(b.post[id], uint64(tf))
	b.postLen += len(b.post[id]) - n
	b.last[id] = doc + 1
}

// ---- Reading results ----

// session fills r, a session's result, from its transcript: its id, its title (the session's
// first prompt), the directory it started in and a snippet of the stretch's message that holds
// the most of the query's words, read again from the transcript where the index says the stretch
// lies. Every text is redacted on its way out, as it was on its way in. ok is false when the
// transcript no longer holds a message there.
func (rd *reader) session(r *Result, di docInfo, terms []term) bool {
	h := rd.h
	f, seen := rd.files[r.Path]
	if !seen {
		// Only a transcript of the history's own directories: an index in the project (where one
		// goes without a cache directory) is a file a repository could commit.
		if dir, _, _ := strings.Cut(r.Path, "/"); rd.ours(dir) {
			f, _, _ = safefile.Open(h.projects, h.abs(r.Path))
		}
		rd.files[r.Path] = f
	}
	if f == nil {
		return false
	}
	type said struct {
		kind       transcript.MessageKind
		text, more string
	}
	var msgs []said
	transcript.Messages(f, di.off, di.off+int64(di.n), func(m *transcript.Message) bool {
		if m != nil && m.Text != "" {
			msgs = append(msgs, said{m.Kind, strings.Clone(m.Text), strings.Clone(m.Status)})
		}
		return true
	})
	// The message that holds the most of the query's words, then the densest.
	best, bestN, bestD := -1, -1, 0.0
	var tz tokenizer
	for i, m := range msgs {
		var seen uint64
		hits, words := 0, 0
		tz.tokens(m.text, func(t []byte, kind, _, _ int) {
			if kind == tokWord {
				words++
			}
			for j, q := range terms {
				if q.matches(t) {
					seen |= 1 << (j % 64)
					hits++
					break
				}
			}
		})
		n, d := bits.OnesCount64(seen), float64(hits)/float64(max(words, 1))
		if n > bestN || n == bestN && d > bestD {
			best, bestN, bestD = i, n, d
		}
	}
	if best < 0 {
		return false
	}
	m := msgs[best]
	r.Snippet = rolePrefix(m.kind, m.more) + snippet(redact.Redact(m.text), terms)
	r.ID = SessionPrefix + strings.TrimSuffix(r.Path[strings.LastIndexByte(r.Path, '/')+1:], ".jsonl")
	r.Title, r.Cwd = rd.start(r.Path, f)
	r.Path = h.abs(r.Path)
	return true
}

// ours reports whether dir, under <config>/projects, is one of the history's (TranscriptDirs,
// listed once per reader).
func (rd *reader) ours(dir string) bool {
	if rd.dirs == nil {
		rd.dirs = map[string]bool{}
		for _, d := range project.TranscriptDirs(rd.h.config, rd.h.roots) {
			rd.dirs[d.Name] = true
		}
	}
	return rd.dirs[dir]
}

// SessionPrefix starts the id of a session: session:<its id>, the name of its transcript.
const SessionPrefix = tombstone.SessionPrefix

// rolePrefix says whose a snippet's words are.
func rolePrefix(k transcript.MessageKind, status string) string {
	switch k {
	case transcript.Typed:
		return "you: "
	case transcript.Said:
		return "claude: "
	case transcript.Summarized:
		return "Claude Code's summary: "
	case transcript.Ran:
		return "$ "
	case transcript.Outcome:
		return plain.Line(status, 40) + ": "
	case transcript.Edited:
		return "edited: "
	}
	return ""
}

// start is a session's title — its first prompt, redacted, on one line — and the directory it
// started in, read once per search.
func (rd *reader) start(path string, f *os.File) (title, cwd string) {
	if rd.starts == nil {
		rd.starts = map[string][2]string{}
	}
	if s, ok := rd.starts[path]; ok {
		return s[0], s[1]
	}
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	prompt, cwd, _ := transcript.Start(f, size)
	title = plain.Line(redact.Redact(prompt), 120)
	rd.starts[path] = [2]string{title, cwd}
	return title, cwd
}
