package search

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// Config says which project to search and where its index lives.
type Config struct {
	Root string // the project root
	// Shared is the root that holds the project's knowledge — the checkpoints and the timeline —
	// when it is not Root: a linked worktree's main checkout (project.Project's Shared). The
	// parked items and the audit log are Root's. "" means Root.
	Shared string
	// CacheDir is the user's cache directory (os.UserCacheDir, or $CAIRN_SEARCH_CACHE): the
	// index lives under it, outside the project. "" keeps it in the project, under
	// .claude/cairn/search/ beside a .gitignore of "*".
	CacheDir string
	// ConfigDir is Claude Code's config directory, where legacy parked items live; "" leaves
	// them out.
	ConfigDir string
	// Roots are the directories whose Claude Code transcripts make the project's history
	// (project.HistoryRoots): searched with the project's files when set with ConfigDir.
	Roots []string
	Now   func() time.Time // nil is time.Now
}

// Location returns where the index of the project at root lives and the directory tree that
// confines every access to it: with a cache directory,
// <cacheDir>/cairn/search/<fnv-64a of root, hex>-<basename>/ (one per project,
// never inside it); without, <root>/.claude/cairn/search/.
func Location(root, cacheDir string) (tree, dir string) {
	if cacheDir == "" {
		return root, filepath.Join(root, ".claude", "cairn", "search")
	}
	tree = filepath.Join(cacheDir, "cairn", "search")
	// FNV-64a rather than SHA-256, which would link the FIPS crypto module into the CLI: the
	// name only tells a user's projects apart, and the basename follows it.
	h := fnv.New64a()
	h.Write([]byte(root))
	return tree, filepath.Join(tree, fmt.Sprintf("%016x-%s", h.Sum64(), idSlug(filepath.Base(root))))
}

// File names in the index directory.
const (
	baseName  = "base.cidx"
	deltaName = "delta.cidx"
	stampName = "stamp"
	lockName  = "lock" // taken by a process that updates the index
)

// Index is the derived search index of one project. Its methods may be called from several
// goroutines (a long-running server); they take turns. Several processes may share one index
// directory: one that must update it takes the directory's lock file, readers take none; every
// file is written whole under a temp name and renamed, so no reader sees a torn file, and a delta
// names the base it extends.
type Index struct {
	mu          sync.Mutex
	tree, dir   string
	c           *corpus
	hist        *history // nil without a history (Config.Roots)
	now         func() time.Time
	base, delta *segment
	dead        []bool // base documents whose file the delta replaced or that are gone
	deadKinds   [numKinds]kindStat
	stored      bool   // false when writing the index failed: the segments then live in memory
	known       []file // indexedCheckpoints, kept while the segments are
	last        stamp
	lastOK      bool
	// foreign: the segments loaded after a write are not the ones this process wrote (another
	// process renamed its own over them meanwhile), so this process's listing does not describe
	// them and it must not write a stamp for them.
	foreign bool
}

// Open opens the index of cfg.Root, creating nothing yet: the first Search or Sync builds what
// is missing. An index directory that cannot be created in the cache falls back to the project.
func Open(cfg Config) *Index {
	root := filepath.Clean(cfg.Root)
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	tree, dir := Location(root, cfg.CacheDir)
	if cfg.CacheDir != "" && os.MkdirAll(dir, 0o700) != nil {
		tree, dir = Location(root, "")
	}
	ix := &Index{tree: tree, dir: dir, c: newCorpus(root, cfg.Shared, cfg.ConfigDir, now), now: now, stored: true}
	if cfg.ConfigDir != "" && len(cfg.Roots) > 0 {
		ix.hist = newHistory(cfg.ConfigDir, cfg.Roots)
	}
	ix.load()
	ix.loadHistory()
	return ix
}

// Close releases the index's files.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.unload()
	ix.unloadHistory()
	return nil
}

func (ix *Index) path(name string) string { return filepath.Join(ix.dir, name) }

// openSegment maps the segment file name; a missing file is fs.ErrNotExist, a damaged one
// errDamaged.
func (ix *Index) openSegment(name string) (*segment, error) {
	f, fi, err := safefile.Open(ix.tree, ix.path(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() < headerSize+trailerSize || fi.Size() > 1<<32 {
		return nil, errDamaged
	}
	data, unmap, err := mapFile(f, int(fi.Size()))
	if err != nil {
		return nil, err
	}
	s, err := decodeSegment(data)
	if err != nil {
		unmap()
		return nil, err
	}
	s.unmap = unmap
	return s, nil
}

// load maps the segments from disk. A missing or damaged base leaves none (Sync rebuilds); a
// delta that is damaged or extends another base is ignored (Sync rewrites it).
func (ix *Index) load() {
	ix.unload()
	b, err := ix.openSegment(baseName)
	if err != nil {
		return
	}
	var d *segment
	if d, err = ix.openSegment(deltaName); err == nil && d.h.baseID != uint64(b.crc) {
		d.close()
		d = nil
	}
	ix.use(b, d)
}

// use makes b and d the index's segments and marks the base documents the delta's tombstones
// kill.
func (ix *Index) use(b, d *segment) {
	ix.base, ix.delta, ix.dead, ix.deadKinds, ix.known = b, d, nil, [numKinds]kindStat{}, nil
	if b == nil || d == nil || d.h.nTomb == 0 {
		return
	}
	ix.dead = make([]bool, b.h.nDocs)
	for i := uint32(0); i < d.h.nTomb; i++ {
		t := d.tomb(i)
		if t >= b.h.nFiles {
			continue
		}
		fi := b.file(t)
		for doc := fi.firstDoc; doc < fi.firstDoc+fi.nd && doc < b.h.nDocs; doc++ {
			if !ix.dead[doc] {
				ix.dead[doc] = true
				if di := b.doc(doc); di.kind < numKinds {
					ix.deadKinds[di.kind].docs++
					ix.deadKinds[di.kind].len += uint64(di.dl)
				}
			}
		}
	}
}

func (ix *Index) unload() {
	ix.base.close()
	ix.delta.close()
	ix.base, ix.delta, ix.dead, ix.known = nil, nil, nil, nil
}

// id identifies the index state: the checksums of its segments.
func (ix *Index) id() uint64 {
	if ix.base == nil {
		return 0
	}
	id := uint64(ix.base.crc) << 32
	if ix.delta != nil {
		id |= uint64(ix.delta.crc)
	}
	return id
}

// write writes the index file name whole: a temp file renamed over it, without an fsync (the
// index is derived: a file torn by a crash fails its checks and is rebuilt).
func (ix *Index) write(name string, fill func(w io.Writer) error) error {
	ix.ignored()
	return safefile.WriteAtomicFunc(ix.tree, ix.path(name), 0o600, fill, safefile.NoSync)
}

// ignored keeps the fallback index inside the project out of git: a .gitignore of "*" comes
// first in its directory, before any other file.
func (ix *Index) ignored() {
	if ix.tree != ix.c.root {
		return
	}
	gi := ix.path(".gitignore")
	if _, err := safefile.Lstat(ix.tree, gi); errors.Is(err, fs.ErrNotExist) {
		safefile.WriteAtomicFunc(ix.tree, gi, 0o644, func(w io.Writer) error {
			_, err := io.WriteString(w, "# cairn's search index: derived from the project's files, never committed.\n*\n")
			return err
		}, safefile.NoSync)
	}
}

func (ix *Index) readStamp() (stamp, bool) {
	if !ix.stored {
		return ix.last, ix.lastOK
	}
	data, _, err := safefile.ReadFile(ix.tree, ix.path(stampName), int64(stampLen))
	if err != nil {
		return stamp{}, false
	}
	return unmarshalStamp(data)
}

func (ix *Index) writeStamp(s stamp) error {
	ix.last, ix.lastOK = s, true
	if !ix.stored {
		return nil
	}
	return ix.write(stampName, func(w io.Writer) error { _, err := w.Write(s.marshal()); return err })
}

// SyncStats says what a Sync did.
type SyncStats struct {
	Files    int   // files looked at (0: the stamp said nothing changed)
	Changed  int   // files added, changed or gone
	Docs     int   // documents indexed
	Rebuilt  bool  // the base was built whole
	Unstored error // the index could not be written (it is used from memory meanwhile)
}

// Sync brings the index up to date with the files. Searches sync first; a long-running
// server may also call it between requests.
func (ix *Index) Sync(ctx context.Context) (SyncStats, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.sync(ctx, false)
}

// Rebuild builds the project's index whole again, whatever the stamp says: after cairn forget,
// so that no segment keeps a forgotten item's words.
func (ix *Index) Rebuild(ctx context.Context) (SyncStats, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.unload()
	return ix.sync(ctx, true)
}

// How much of the project a sync lists: the single files only (the checkpoint directory did
// not change), the checkpoint names too (it did: only new names are stat'ed), or every file.
const (
	listFixed = iota
	listNames
	listAll
)

// sync compares the stamp, then as much of the files as it must, with the index. Unchanged:
// nothing is written. Otherwise the delta is rewritten to hold every file that differs from
// the base (a JSON-lines file that grew: only its new lines); once that is more than an eighth
// of the base, or when the base is missing or damaged, the base is rebuilt whole.
func (ix *Index) sync(ctx context.Context, force bool) (SyncStats, error) {
	now := ix.now()
	ix.foreign = false
	cur := ix.c.currentStamp(now)
	old, ok := ix.readStamp()
	ok = ok && ix.base != nil && !force
	id := ix.id()
	if ok && old.fresh(cur, id, now) {
		return SyncStats{}, nil
	}
	// Something to look at, maybe to write: one process at a time, so that two never build the
	// same thing and a stamp always describes segments its writer listed. Searches that find
	// the index fresh take no lock.
	if ix.stored {
		ix.ignored()
		if unlock, err := safefile.Lock(ix.tree, ix.path(lockName)); err == nil {
			defer unlock()
			// Another process may have brought the index up to date while this one waited.
			if !force {
				id, known := ix.id(), ix.known
				ix.load()
				if ix.id() == id && id != 0 {
					ix.known = known // the same segments: a server keeps its list
				}
			}
			now = ix.now()
			cur = ix.c.currentStamp(now)
			old, ok = ix.readStamp()
			ok = ok && ix.base != nil && !force
			id = ix.id()
			if ok && old.fresh(cur, id, now) {
				return SyncStats{}, nil
			}
		}
	}
	mode := listAll
	switch {
	case ok && old.checkpointsFresh(cur, id, now):
		mode = listFixed
	case ok && old.index == id && now.Unix()-old.full < int64(fullEvery/time.Second):
		mode = listNames
	}
	cur.full = old.full
	if mode == listAll {
		cur.full = now.Unix()
		// The periodic full sweep also reads the whole index once, to catch what the structure
		// checks cannot (a flipped bit in a posting list).
		if ix.base != nil && !ix.verified() {
			ix.unload()
		}
	}
	st, err := ix.update(ctx, mode)
	if err != nil {
		return st, err
	}
	if ix.foreign { // the next search checks again, against what it then finds
		return st, nil
	}
	cur.index = ix.id()
	if slices.ContainsFunc(ix.indexedCheckpoints(), func(f file) bool { return f.racy }) {
		cur.racyFiles = true // the next search stats them again
	}
	if err := ix.writeStamp(cur); err != nil && st.Unstored == nil {
		st.Unstored = err
	}
	return st, nil
}

// verified checks the segments' checksums; a bad delta is dropped (the sync rewrites it).
func (ix *Index) verified() (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			ok = false
		}
	}()
	if !ix.base.verify() {
		return false
	}
	if ix.delta != nil && !ix.delta.verify() {
		ix.delta.close()
		ix.use(ix.base, nil)
	}
	return true
}

// isFault reports the panic of a memory fault (SetPanicOnFault): a mapped index file cut short
// under the reader by something else than cairn.
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}

// indexedCheckpoints is the checkpoint files as the index has them (the base's that the delta
// did not replace, and the delta's), sorted by path: what a listing finds when the checkpoint
// directory has not changed.
func (ix *Index) indexedCheckpoints() []file {
	if ix.known == nil {
		ix.known = ix.listIndexed()
	}
	return ix.known
}

func (ix *Index) listIndexed() []file {
	out := []file{}
	var tomb map[uint32]bool
	if ix.delta != nil && ix.delta.h.nTomb > 0 {
		tomb = map[uint32]bool{}
		for i := uint32(0); i < ix.delta.h.nTomb; i++ {
			tomb[ix.delta.tomb(i)] = true
		}
	}
	for _, s := range []*segment{ix.base, ix.delta} {
		if s == nil {
			continue
		}
		for i := uint32(0); i < s.h.nFiles; i++ {
			if s == ix.base && tomb[i] {
				continue
			}
			if fi := s.file(i); fi.src == srcCheckpoint {
				out = append(out, fi.file)
			}
		}
	}
	sortFiles(out)
	return out
}

// planned is a file the delta must index from byte from on.
type planned struct {
	f    file
	from int64
}

func (ix *Index) update(ctx context.Context, mode int) (SyncStats, error) {
	now := ix.now()
	files := ix.c.fixed()
	switch mode {
	case listFixed:
		files = append(files, ix.c.restat(ix.indexedCheckpoints())...)
	case listNames, listAll:
		var known []file
		if mode == listNames {
			known = ix.indexedCheckpoints()
		}
		cps, err := ix.c.listCheckpoints(known, mode == listAll)
		if err != nil {
			return SyncStats{}, err
		}
		files = append(files, cps...)
	}
	sortFiles(files)
	st := SyncStats{Files: len(files)}
	ix.c.listed = false
	if ix.base == nil {
		return ix.rebuild(ctx, files, st)
	}
	b := ix.base
	var plan []planned
	var tomb []uint32
	var baseBytes, planBytes int64
	j := uint32(0)
	for _, cf := range files {
		for j < b.h.nFiles && string(b.filePath(j)) < cf.path {
			tomb = append(tomb, j) // gone
			j++
		}
		if j < b.h.nFiles && string(b.filePath(j)) == cf.path {
			br := b.file(j)
			baseBytes += br.size
			switch {
			case br.src != cf.src:
				tomb = append(tomb, j)
				plan = append(plan, planned{cf, 0})
				planBytes += cf.size
			case br.mtime == cf.mtime && br.size == cf.size && !(br.racy && !racy(time.Unix(0, br.mtime), now)):
				// Unchanged (a racy file that is now old enough is read again, to be sure).
			case cf.src.appendOnly() && cf.size >= br.indexed && ix.appended(cf.path, br.indexed, br.tail):
				plan = append(plan, planned{cf, br.indexed})
				planBytes += cf.size - br.indexed
			default:
				tomb = append(tomb, j)
				plan = append(plan, planned{cf, 0})
				planBytes += cf.size
			}
			j++
			continue
		}
		plan = append(plan, planned{cf, 0})
		planBytes += cf.size
	}
	for ; j < b.h.nFiles; j++ {
		tomb = append(tomb, j)
	}
	if ix.deltaHolds(plan, tomb, now) {
		return st, nil
	}
	st.Changed = len(plan) + len(tomb)
	if planBytes > baseBytes/8+256<<10 {
		return ix.rebuild(ctx, files, st)
	}
	bd := newBuilder(ix.now())
	bd.tomb = tomb
	if err := bd.addFiles(ctx, ix.c, plan); err != nil {
		return st, err
	}
	st.Docs = int(bd.nDocs)
	baseID := uint64(b.crc)
	if err := ix.store(deltaName, bd, baseID); err != nil {
		st.Unstored = err
		d, derr := memSegment(bd, baseID)
		if derr != nil {
			return st, derr
		}
		ix.delta.close()
		ix.use(ix.base, d)
		return st, nil
	}
	ix.load()
	ix.foreign = ix.base == nil || uint64(ix.base.crc) != baseID || ix.delta == nil || ix.delta.crc != bd.crc
	return st, nil
}

// appended reports whether the file at rel still has, just before byte off, the bytes the
// index saw there: it was appended to, not rewritten.
func (ix *Index) appended(rel string, off int64, tail uint32) bool {
	f, _, err := safefile.Open(ix.c.at(rel))
	if err != nil {
		return false
	}
	defer f.Close()
	return tailSum(f, off, tailLen) == tail
}

// deltaHolds reports whether the current delta indexes exactly plan and tomb, and has no racy
// file old enough to be read again.
func (ix *Index) deltaHolds(plan []planned, tomb []uint32, now time.Time) bool {
	d := ix.delta
	if d == nil {
		return len(plan) == 0 && len(tomb) == 0
	}
	if int(d.h.nFiles) != len(plan) || int(d.h.nTomb) != len(tomb) {
		return false
	}
	for i, p := range plan {
		fi := d.file(uint32(i))
		if fi.path != p.f.path || fi.mtime != p.f.mtime || fi.size != p.f.size || fi.racy && !racy(time.Unix(0, fi.mtime), now) {
			return false
		}
	}
	for i, t := range tomb {
		if d.tomb(uint32(i)) != t {
			return false
		}
	}
	return true
}

// buildGCPercent is the garbage collector's setting while a base is built: the builder's
// postings are most of the heap and only grow, so collecting more often costs little and keeps
// the peak memory near the live heap.
const buildGCPercent = 25

func (ix *Index) rebuild(ctx context.Context, files []file, st SyncStats) (SyncStats, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
	bd := newBuilder(ix.now())
	plan := make([]planned, len(files))
	for i, f := range files {
		plan[i] = planned{f: f}
	}
	if err := bd.addFiles(ctx, ix.c, plan); err != nil {
		return st, err
	}
	st.Rebuilt, st.Docs = true, int(bd.nDocs)
	ix.unload()
	if err := ix.store(baseName, bd, 0); err != nil {
		st.Unstored = err
		b, derr := memSegment(bd, 0)
		if derr != nil {
			return st, derr
		}
		ix.use(b, nil)
		return st, nil
	}
	// A delta beside the new base extends an older one: drop it (were its base the same, it
	// would add its documents twice).
	safefile.Disk{Roots: []string{ix.tree}}.Remove(ix.path(deltaName))
	ix.load()
	if ix.base == nil {
		return st, errDamaged
	}
	ix.foreign = ix.base.crc != bd.crc || ix.delta != nil
	return st, nil
}

// store writes the builder's segment as the index file name. After a failure the index lives
// in memory for the rest of the process.
func (ix *Index) store(name string, bd *builder, baseID uint64) error {
	if !ix.stored {
		return errors.New("search index: not stored")
	}
	err := ix.write(name, func(w io.Writer) error { return bd.writeTo(w, baseID) })
	if err != nil {
		ix.stored = false
	}
	return err
}

// memSegment is the builder's segment in memory.
func memSegment(bd *builder, baseID uint64) (*segment, error) {
	var buf writeBuffer
	if err := bd.writeTo(&buf, baseID); err != nil {
		return nil, err
	}
	return decodeSegment([]byte(buf))
}

type writeBuffer []byte

func (b *writeBuffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
