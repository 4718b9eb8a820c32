package safefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/rogpeppe/go-internal/diff"
)

// Writer is what every cairn writer uses. Disk writes; DryRun prints what Disk would do.
type Writer interface {
	// Update reads path under its lock, calls edit with the current content (nil and
	// exists=false when the file is missing) and atomically replaces the file with what edit
	// returns. Returning the same bytes, or ErrNoChange, leaves the file untouched (no write, no
	// mtime change). A file over the read bound (8 MiB unless Limit says otherwise) is refused.
	// With Recheck, edit may be called more than once.
	Update(path string, perm fs.FileMode, edit Edit, opts ...Option) (changed bool, err error)
	// Append appends one record to path under its lock, creating the file (and its directory)
	// when missing. A torn last record — an unterminated JSON object that a killed writer left —
	// is cut first; any other unterminated last line is ended with a newline, so that a record
	// never runs into the one before it.
	Append(path string, data []byte, perm fs.FileMode, opts ...Option) error
	// Create writes data to path only if nothing is there yet, atomically and without a lock: a
	// hard link of a complete temp file, so the name appears whole or not at all and an existing
	// file is never replaced. created is false when the name was taken.
	// Option NoSync skips the fsync.
	Create(path string, data []byte, perm fs.FileMode, opts ...Option) (created bool, err error)
	// Remove deletes the regular file at path. A missing file is not an error.
	Remove(path string) error
	// MoveAside renames whatever is at path — a link, a FIFO, a directory, a file too large to
	// read — to ".<base>.broken-<digits>" beside it, without opening or following it, so that a
	// writer can put a sound file of cairn's own in its place; nothing it points to changes. It
	// returns the new path ("" when nothing was there). For state cairn owns and can rebuild.
	MoveAside(path string) (string, error)
	// Under returns a writer of the same kind confined to other trees (Claude Code's memory
	// directory, say), whose locks still live in this writer's project.
	Under(dirs ...string) Writer
}

// Edit computes a file's new content from its current one.
type Edit func(old []byte, exists bool) ([]byte, error)

// ErrNoChange may be returned by an Edit to leave the file as it is.
var ErrNoChange = errors.New("no change")

// ErrLink reports a symlink where cairn writes a file: a write would replace the link, and a
// reader of the link would be surprised, so nothing is silently redirected.
var ErrLink = errors.New("refusing to write through a symlink")

// Option adjusts one write. Options are values, so a wrapper (a test's counting writer) can
// tell which were given.
type Option struct {
	kind optionKind
	n    int64
}

type optionKind int

const (
	optNoSync optionKind = iota + 1
	optLimit
	optRotate
	optRecheck
	optNoSyncWhereOrdered
)

// NoSync skips the fsync, for records that tell a story or describe live sessions and heal
// themselves after a power cut (the timeline, the hooks' log, the session registry, the
// checkpoint catalog, the search index). The write is as atomic and as locked as any other:
// against a killed process, which is what Claude Code does to slow hooks, nothing is lost, since
// the page cache outlives the process. An Update that replaces a file swaps the new file's name
// with the old one's (renameat2's RENAME_EXCHANGE, where Linux has it) instead of renaming over
// it: readers still see the old content or the new, never neither, and the swap skips the
// writeback of the new file that ext4 starts, inside the rename, when a file is renamed over
// another (measured at 0.3 ms per rename on a quiet disk, more on a busy one). So after a power
// cut such a file can be empty as well as old: its readers take an empty file for a missing
// one, or rebuild it.
var NoSync = Option{kind: optNoSync}

// NoSyncWhereOrdered skips the fsync of an Update that replaces an existing file, where the
// file system writes a replacing rename to disk only after the new file's data: ext4, whose
// default auto_da_alloc forces the new file's blocks out before the rename commits (ext3's
// data=ordered did the same), and btrfs, which documents a rename over a file as atomic against
// a crash. A power cut then leaves the old content or the new, never a torn or empty file, and
// can cost this write alone (and those after it, within the kernel's writeback delay); a killed
// process costs nothing, as with every write. Elsewhere the fsync stays: XFS and others that can
// show a replaced file empty after a crash, network, FUSE and overlay file systems, systems
// other than Linux, and a file created rather than replaced. (ext4 mounted with
// noauto_da_alloc or data=writeback, and ext2, share ext4's magic number and not its ordering:
// they are taken for ext4.) It is for the writes whose fsync cost their hook more than the rest
// of its work and whose loss in a power cut costs little: an automatically parked item on the
// prompt path, and the snapshots a compaction refreshes (the whiteboard's block, session-context's
// snapshot), which the next compaction writes again.
var NoSyncWhereOrdered = Option{kind: optNoSyncWhereOrdered}

// Limit sets the most Update reads of the current file.
func Limit(n int64) Option { return Option{optLimit, n} }

// RotateAt makes Append move the file to path+".1" (replacing the older one) before appending
// once it has grown past n bytes: for bounded logs.
func RotateAt(n int64) Option { return Option{optRotate, n} }

// Recheck is for a file that another program rewrites without taking cairn's lock: Claude
// Code's own MEMORY.md index, beside the legacy parked items. The lock keeps cairn's writers in
// line, not that program, so Update reads the file once more after its new version is written
// and synced and just before the rename; if the file changed since edit saw it, Update throws
// its version away and starts over from the new content, up to maxRechecks times, then gives up
// with ErrChanged. The other program's write is then lost only if it lands in the moment
// between that last read and the rename.
var Recheck = Option{kind: optRecheck}

// ErrChanged is Update's answer, with Recheck, when the file kept changing under it.
var ErrChanged = errors.New("changed by another program while cairn edited it; left as it is")

// maxRechecks bounds how often Update starts over under Recheck: a person's or Claude Code's
// writes are seconds apart, so a file that changes this many times in a row during one edit
// is being rewritten in a loop, and cairn steps aside.
const maxRechecks = 8

// maxUpdate is Update's default read bound: every file cairn rewrites is a few KiB.
const maxUpdate = 8 << 20

type options struct {
	noSync, recheck bool
	noSyncOrdered   bool
	limit, rotate   int64
}

func optionsOf(opts []Option) options {
	o := options{limit: maxUpdate}
	for _, op := range opts {
		switch op.kind {
		case optNoSync:
			o.noSync = true
		case optLimit:
			o.limit = op.n
		case optRotate:
			o.rotate = op.n
		case optRecheck:
			o.recheck = true
		case optNoSyncWhereOrdered:
			o.noSyncOrdered = true
		}
	}
	return o
}

// LockDir is where Disk keeps its lock files, relative to the project root.
const LockDir = ".claude/state/locks"

// Disk writes for real, confined to Roots: a path must lie inside one of them, and every
// operation on it is confined to that tree when it happens.
//
// Lock files live together under a project's .claude/state/locks/, not beside the files they
// guard: MEMORY.md, state.json, checkpoints and logs sit in directories people commit, and
// Claude Code's memory directory is not cairn's to clutter. Without Locks, a file's lock is in
// the lock directory of the root it lies in (the first of Roots that holds it): a linked
// worktree's writer has its own root and the main checkout's, and a file the checkouts share
// must be locked where every one of them locks it, in the main checkout.
type Disk struct {
	Roots []string // the trees writes may go to, each a project root unless Locks is set
	Locks string   // the project root whose LockDir holds every lock; "" means the file's root
	// Repaired, when set, is told of every repair a write made to cairn's own state on the way
	// (a lock directory that was not one, moved aside): the hooks log it, the CLI says it.
	Repaired func(what string)
}

// lockHome is the project root whose LockDir holds path's lock ("" for none).
func (d Disk) lockHome(path string) string {
	if d.Locks != "" {
		return d.Locks
	}
	for _, root := range d.Roots {
		if within(filepath.Clean(root), filepath.Clean(path)) {
			return root
		}
	}
	if len(d.Roots) > 0 {
		return d.Roots[0]
	}
	return ""
}

// Under implements Writer.
func (d Disk) Under(dirs ...string) Writer {
	locks := d.Locks
	if locks == "" && len(d.Roots) > 0 {
		locks = d.Roots[0]
	}
	return Disk{Roots: dirs, Locks: locks, Repaired: d.Repaired}
}

// find returns the tree path lies in, and path relative to it.
func find(roots []string, path string) (string, *os.Root, string, error) {
	for _, root := range roots {
		if !filepath.IsAbs(path) || within(filepath.Clean(root), filepath.Clean(path)) {
			r, rel, err := at(root, path)
			if err != nil {
				return "", nil, "", err
			}
			return root, r, rel, nil
		}
	}
	if len(roots) == 0 {
		return "", nil, "", fmt.Errorf("%s: no root to write under", path)
	}
	return "", nil, "", fmt.Errorf("%s: %w", path, ErrOutside)
}

// find1 returns the tree path lies in (find has checked that there is one).
func find1(roots []string, path string) string {
	root, _, _, _ := find(roots, path)
	return root
}

// findDir is find for a writer: it creates path's directory when missing (through the tree) and
// returns the root of that directory with path's name.
func findDir(roots []string, path string) (*os.Root, string, error) {
	root, r, rel, err := find(roots, path)
	if err != nil || filepath.Dir(rel) == "." {
		return r, rel, err
	}
	if err := r.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return nil, "", outside(path, err)
	}
	return at(root, path)
}

// lockName names the lock of path: its path relative to the project root, flattened to one
// readable file name, plus a short hash so that different paths never share a name.
func lockName(home, path string) string {
	rel, err := filepath.Rel(home, path)
	if err != nil || !within(home, path) {
		rel = path
	}
	h := fnv.New32a()
	h.Write([]byte(filepath.ToSlash(rel)))
	name := strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return r
		}
		return '-'
	}, strings.TrimLeft(filepath.ToSlash(rel), "./"))
	if len(name) > 100 {
		name = name[len(name)-100:]
	}
	return fmt.Sprintf("%s-%08x.lock", name, h.Sum32())
}

// lock takes the lock of path, in the project's lock directory.
func (d Disk) lock(path string) (func(), error) {
	home := d.lockHome(path)
	if home == "" {
		return nil, fmt.Errorf("%s: no project to keep its lock in", path)
	}
	full := filepath.Join(home, filepath.FromSlash(LockDir), lockName(home, path))
	lr, rel, err := findDir([]string{home}, full)
	if err != nil {
		lr, rel, err = d.repairLockDir(home, full)
		if err != nil {
			return nil, err
		}
	}
	return lockFile(lr, rel, full)
}

// repairLockDir is lock's way past a lock directory that is not one — a file, a FIFO, a link a
// clone committed — which would stop every locked write of the project for good. The name is
// cairn's: it is moved aside, once, and the directory made again. The writers of this process
// repair it one at a time, and one that waited looks again first: another may have made it
// again meanwhile, and moving that one aside would move its lock with it.
//
// The repair is reported after the mutex is let go: the report is itself a locked write (a hook
// logs it in cairn.log), which may find the directory broken again — a clone can swap it back —
// and come here. Only the outermost report is made, so that a directory swapped on every look
// cannot make reports report themselves without end.
func (d Disk) repairLockDir(home, full string) (*os.Root, string, error) {
	lockDirRepair.Lock()
	lr, rel, err := findDir([]string{home}, full)
	if err == nil {
		lockDirRepair.Unlock()
		return lr, rel, nil
	}
	var report string
	dir := filepath.Join(home, filepath.FromSlash(LockDir))
	if fi, lerr := Lstat(home, dir); lerr == nil && !fi.IsDir() || errors.Is(lerr, ErrOutside) {
		if moved, merr := (Disk{Roots: []string{home}}).MoveAside(dir); merr == nil && moved != "" {
			report = fmt.Sprintf("%s was not a directory (%s); moved aside to %s and made again", LockDir, kindOf(fi), filepath.Base(moved))
			lr, rel, err = findDir([]string{home}, full)
		}
	}
	lockDirRepair.Unlock()
	if report != "" && lockDirReporting.CompareAndSwap(false, true) {
		d.repaired(report)
		lockDirReporting.Store(false)
	}
	return lr, rel, err
}

// lockDirRepair makes the writers of one process repair a lock directory one at a time (lock);
// lockDirReporting is set while a repair is being reported (repairLockDir).
var (
	lockDirRepair    sync.Mutex
	lockDirReporting atomic.Bool
)

func (d Disk) repaired(what string) {
	if d.Repaired != nil {
		d.Repaired(what)
	}
}

// Report tells w's Repaired of a repair its owner made to cairn's own state (what: one line, no
// "repaired:" prefix), and reports whether w has one to tell: a Disk with Repaired set. The
// catalog's rebuild is such a repair, made above the writes.
func Report(w Writer, what string) bool {
	if d, ok := w.(Disk); ok && d.Repaired != nil {
		d.Repaired(what)
		return true
	}
	return false
}

// kindOf names what a file is, for a repair notice.
func kindOf(fi fs.FileInfo) string {
	switch {
	case fi == nil:
		return "a link out of the project"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a symlink"
	case fi.Mode()&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case fi.Mode().IsRegular():
		return "a regular file"
	case fi.IsDir():
		return "a directory"
	}
	return "a " + fi.Mode().Type().String() + " file"
}

// MoveAside implements Writer.
func (d Disk) MoveAside(path string) (string, error) {
	_, r, rel, err := find(d.Roots, path)
	if err != nil {
		return "", err
	}
	if _, err := r.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil && !errors.Is(outside(path, err), ErrOutside) {
		return "", outside(path, err)
	}
	dir, base := filepath.Split(rel)
	for try := 0; ; try++ {
		aside := filepath.Join(dir, "."+base+".broken-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		if _, err := r.Lstat(aside); errors.Is(err, fs.ErrNotExist) || try == 100 {
			if err := r.Rename(rel, aside); err != nil {
				return "", outside(path, err)
			}
			return filepath.Join(filepath.Dir(path), filepath.Base(aside)), nil
		}
	}
}

// checkTarget refuses a symlink or anything else but a regular file at the target itself: a
// write would replace the link (harmless) but a reader of the link would be surprised, so
// nothing is silently redirected.
func checkTarget(r *os.Root, rel, path string) (exists bool, err error) {
	fi, err := r.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, outside(path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := r.Stat(rel); errors.Is(outside(path, err), ErrOutside) {
			return true, fmt.Errorf("%s: %w", path, ErrOutside)
		}
		return true, fmt.Errorf("%s: %w", path, ErrLink)
	}
	if !fi.Mode().IsRegular() {
		return true, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return true, nil
}

// Update implements Writer.
func (d Disk) Update(path string, perm fs.FileMode, edit Edit, opts ...Option) (bool, error) {
	o := optionsOf(opts)
	r, rel, err := findDir(d.Roots, path)
	if err != nil {
		return false, err
	}
	unlock, err := d.lock(path)
	if err != nil {
		return false, err
	}
	defer unlock()
	for try := 0; ; try++ {
		exists, old, mode, err := d.current(r, rel, path, o.limit)
		if err != nil {
			return false, err
		}
		if exists {
			perm = mode // keep the mode a person gave the file
		}
		next, err := edit(old, exists)
		if errors.Is(err, ErrNoChange) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if exists && bytes.Equal(old, next) {
			return false, nil
		}
		var check func() error
		if o.recheck {
			check = func() error {
				again, now, _, err := d.current(r, rel, path, o.limit)
				if err != nil || again != exists || !bytes.Equal(now, old) {
					return ErrChanged
				}
				return nil
			}
		}
		sync := syncAlways
		switch {
		case o.noSync && exists:
			sync = syncNeverReplace
		case o.noSync:
			sync = syncNever
		case o.noSyncOrdered && exists:
			sync = syncUnlessOrdered
		}
		err = writeAtomic(r, rel, path, next, perm, sync, check)
		if errors.Is(err, ErrChanged) {
			if try < maxRechecks {
				continue
			}
			return false, fmt.Errorf("%s: %w", path, ErrChanged)
		}
		return err == nil, err
	}
}

// current reads the file at path for Update: whether it exists, its content and its mode.
func (d Disk) current(r *os.Root, rel, path string, limit int64) (bool, []byte, fs.FileMode, error) {
	exists, err := checkTarget(r, rel, path)
	if err != nil || !exists {
		return false, nil, 0, err
	}
	f, fi, err := openRegular(find1(d.Roots, path), path)
	if err != nil {
		return false, nil, 0, err
	}
	defer f.Close()
	old, err := readBounded(f, fi, path, limit, false)
	return true, old, fi.Mode().Perm(), err
}

// Append implements Writer. A record is a single write(2) on an O_APPEND file under the lock, so
// concurrent appenders never interleave.
func (d Disk) Append(path string, data []byte, perm fs.FileMode, opts ...Option) error {
	o := optionsOf(opts)
	r, rel, err := findDir(d.Roots, path)
	if err != nil {
		return err
	}
	unlock, err := d.lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := checkTarget(r, rel, path); err != nil {
		return err
	}
	if o.rotate > 0 {
		if fi, err := r.Lstat(rel); err == nil && fi.Size() > o.rotate {
			if err := r.Rename(rel, rel+".1"); err != nil {
				return outside(path, err)
			}
		}
	}
	f, err := r.OpenFile(rel, os.O_RDWR|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, perm)
	if err != nil {
		return outside(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if err := repairTail(f, fi.Size()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if !o.noSync {
		if err := syncFile(f); err != nil {
			return err
		}
	}
	return f.Close()
}

// tailWindow bounds how far back repairTail looks for the start of an unterminated last line.
const tailWindow = 64 << 10

// repairTail makes the file end at a record boundary before an append: a torn last record
// ([TornTail]) is cut (its writer never reported success). Any other unterminated last line,
// such as a complete record or a line a person typed, is ended with a newline instead: nothing
// anyone finished is removed.
func repairTail(f *os.File, size int64) error {
	if size == 0 {
		return nil
	}
	// The common case, a file that ends its last record: one byte read, not the window.
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err == nil && last[0] == '\n' {
		return nil
	}
	start := max(size-tailWindow, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return err
	}
	if buf[len(buf)-1] == '\n' {
		return nil
	}
	i := bytes.LastIndexByte(buf, '\n')
	if i < 0 && start > 0 {
		// A last line longer than the window: not one of cairn's records; end it.
		_, err := f.Write([]byte{'\n'})
		return err
	}
	if n := TornTail(buf); n > 0 {
		return f.Truncate(size - int64(n))
	}
	_, err := f.Write([]byte{'\n'})
	return err
}

// Remove implements Writer. Removing a name is atomic, so it takes no lock (and leaves no lock
// file behind for directories that are not cairn's, such as Claude's own memory directory).
func (d Disk) Remove(path string) error {
	_, r, rel, err := find(d.Roots, path)
	if err != nil {
		return err
	}
	if exists, err := checkTarget(r, rel, path); err != nil || !exists {
		return err
	}
	if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return outside(path, err)
	}
	return nil
}

// Create implements Writer.
func (d Disk) Create(path string, data []byte, perm fs.FileMode, opts ...Option) (bool, error) {
	r, rel, err := findDir(d.Roots, path)
	if err != nil {
		return false, err
	}
	f, tmp, err := createTemp(r, rel)
	if err != nil {
		return false, outside(path, err)
	}
	defer r.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		if !optionsOf(opts).noSync {
			err = syncFile(f)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	if err := r.Link(tmp, rel); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, outside(path, err)
	}
	return true, nil
}

// createTemp creates ".<base>.tmp<digits>" beside rel, exclusively; SweepTemps knows the shape.
func createTemp(r *os.Root, rel string) (*os.File, string, error) {
	dir, base := filepath.Split(rel)
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, name, err
	}
}

// WriteAtomic replaces path, inside the tree at root, with data: a temp file in the same
// directory is written, synced, closed and renamed over path; on any failure the temp file is
// removed and path is untouched. It takes no lock: for the installer, which writes files that
// only it writes.
func WriteAtomic(root, path string, data []byte, perm fs.FileMode) error {
	r, rel, err := findDir([]string{root}, path)
	if err != nil {
		return err
	}
	if _, err := checkTarget(r, rel, path); err != nil {
		return err
	}
	return writeAtomic(r, rel, path, data, perm, syncAlways, nil)
}

// Lock takes the exclusive lock of the lock file at path inside the tree at root, creating it
// (and its directory) when missing, for a writer that keeps its lock beside what it guards, such
// as the search index in the user's cache directory. unlock releases it; so does the process's
// end, however it ends.
func Lock(root, path string) (unlock func(), err error) {
	r, rel, err := findDir([]string{root}, path)
	if err != nil {
		return nil, err
	}
	return lockFile(r, rel, path)
}

// TryLock is Lock that does not wait for the lock: busy is true (and unlock nil) when another
// process holds it, for a reader that would rather answer from what is there than wait for a long
// writer (the search index's history, indexed by `cairn index` in another terminal). Off Unix it
// waits, as Lock does.
func TryLock(root, path string) (unlock func(), busy bool, err error) {
	r, rel, err := findDir([]string{root}, path)
	if err != nil {
		return nil, false, err
	}
	return tryLockFile(r, rel, path)
}

// WriteAtomicFunc is WriteAtomic for content too large to hold twice: fill writes it to the
// temp file (through a buffer), which is then renamed over path. Option NoSync skips the fsync,
// for derived files such as the search index, which a crash at worst makes a reader rebuild.
func WriteAtomicFunc(root, path string, perm fs.FileMode, fill func(w io.Writer) error, opts ...Option) error {
	r, rel, err := findDir([]string{root}, path)
	if err != nil {
		return err
	}
	exists, err := checkTarget(r, rel, path)
	if err != nil {
		return err
	}
	buffered := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := fill(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	sync := syncAlways
	if optionsOf(opts).noSync {
		sync = syncNever
		if exists {
			sync = syncNeverReplace
		}
	}
	return writeAtomicFunc(r, rel, path, buffered, perm, sync, nil)
}

// syncFile is (*os.File).Sync; tests count the calls through it.
var syncFile = (*os.File).Sync

// swapNames is exchange; tests count the calls through it.
var swapNames = exchange

// When writeAtomic syncs the temp file before its rename.
type syncPolicy int

const (
	syncAlways        syncPolicy = iota
	syncNever                    // NoSync
	syncNeverReplace             // NoSync, for a file being replaced: swapped, not renamed over
	syncUnlessOrdered            // NoSyncWhereOrdered, for a file being replaced
)

// orderedReplace reports whether the file system f lives on orders a replacing rename after the
// data of the file renamed (see NoSyncWhereOrdered); tests replace it.
var orderedReplace = replaceOrdered

// writeAtomic writes data to a temp file beside rel and renames it over rel. check, when not nil,
// runs after the temp file is complete and just before the rename; its error cancels the write.
func writeAtomic(r *os.Root, rel, path string, data []byte, perm fs.FileMode, sync syncPolicy, check func() error) error {
	return writeAtomicFunc(r, rel, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, perm, sync, check)
}

// writeAtomicFunc is writeAtomic with the content written by fill.
func writeAtomicFunc(r *os.Root, rel, path string, fill func(w io.Writer) error, perm fs.FileMode, sync syncPolicy, check func() error) (err error) {
	f, tmp, err := createTemp(r, rel)
	if err != nil {
		return outside(path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			r.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if sync == syncAlways || sync == syncUnlessOrdered && !orderedReplace(f) {
		if err = syncFile(f); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if check != nil {
		if err = check(); err != nil {
			return err
		}
	}
	if sync == syncNeverReplace {
		if ok, _ := swapNames(r, tmp, rel); ok {
			return nil
		}
	}
	// The directory is not synced after the rename, as renameio does not: the file's content is
	// durable before its name points at it, which is what keeps readers from a torn file.
	return outside(path, r.Rename(tmp, rel))
}

// DryRun prints what Disk would write, writing nothing: for a new file its whole content, for a
// changed file a unified diff, for an unchanged file nothing.
type DryRun struct {
	Out   io.Writer
	Roots []string
}

// Under implements Writer.
func (d DryRun) Under(dirs ...string) Writer { return DryRun{Out: d.Out, Roots: dirs} }

// Update implements Writer.
func (d DryRun) Update(path string, perm fs.FileMode, edit Edit, opts ...Option) (bool, error) {
	o := optionsOf(opts)
	root, r, rel, err := find(d.Roots, path)
	if err != nil {
		return false, err
	}
	exists, err := checkTarget(r, rel, path)
	if err != nil {
		return false, err
	}
	var old []byte
	if exists {
		if old, _, err = ReadFile(root, path, o.limit); err != nil {
			return false, err
		}
	}
	next, err := edit(old, exists)
	if errors.Is(err, ErrNoChange) || (err == nil && exists && bytes.Equal(old, next)) {
		fmt.Fprintf(d.Out, "unchanged %s\n", path)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !exists {
		fmt.Fprintf(d.Out, "create %s\n%s", path, next)
		if len(next) > 0 && next[len(next)-1] != '\n' {
			fmt.Fprintln(d.Out)
		}
		return true, nil
	}
	fmt.Fprintf(d.Out, "update %s\n%s", path, diff.Diff(path+" (now)", old, path+" (planned)", next))
	return true, nil
}

// Append implements Writer.
func (d DryRun) Append(path string, data []byte, perm fs.FileMode, opts ...Option) error {
	if _, _, _, err := find(d.Roots, path); err != nil {
		return err
	}
	fmt.Fprintf(d.Out, "append %s\n%s", path, data)
	return nil
}

// Create implements Writer.
func (d DryRun) Create(path string, data []byte, perm fs.FileMode, _ ...Option) (bool, error) {
	_, r, rel, err := find(d.Roots, path)
	if err != nil {
		return false, err
	}
	if _, err := r.Lstat(rel); err == nil {
		return false, nil
	}
	fmt.Fprintf(d.Out, "create %s\n%s", path, data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		fmt.Fprintln(d.Out)
	}
	return true, nil
}

// MoveAside implements Writer.
func (d DryRun) MoveAside(path string) (string, error) {
	_, r, rel, err := find(d.Roots, path)
	if err != nil {
		return "", err
	}
	if _, err := r.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	fmt.Fprintf(d.Out, "move aside %s\n", path)
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".broken-(planned)"), nil
}

// Remove implements Writer.
func (d DryRun) Remove(path string) error {
	if _, _, _, err := find(d.Roots, path); err != nil {
		return err
	}
	fmt.Fprintf(d.Out, "remove %s\n", path)
	return nil
}

// Held is what a file holds once an Update returns, as a handle that read it keeps: Data and
// Exists as the lock left them — what the edit made, or what it saw when it changed nothing.
// Known is false when that cannot be told (the edit or the write failed): the handle reads the
// file again when next asked.
type Held struct {
	Data   []byte
	Exists bool
	Known  bool
}

// UpdateHeld is w.Update, which also returns what the file holds when it returns (Held), for a
// handle that reads its file once and keeps what its own writes leave.
func UpdateHeld(w Writer, path string, perm fs.FileMode, edit Edit, opts ...Option) (Held, bool, error) {
	var h Held
	changed, err := w.Update(path, perm, func(old []byte, exists bool) ([]byte, error) {
		next, err := edit(old, exists)
		switch {
		case errors.Is(err, ErrNoChange):
			h = Held{Data: old, Exists: exists, Known: true}
		case err == nil:
			h = Held{Data: next, Exists: true, Known: true}
		default:
			h = Held{}
		}
		return next, err
	}, opts...)
	if err != nil {
		h = Held{}
	}
	return h, changed, err
}
