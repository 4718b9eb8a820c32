// Package claims keeps the file claims of a checkout's Claude Code sessions: before Claude edits a
// file, the PreToolUse hook claims it for its session (Record), and a claim another live session
// holds on the same file is what cairn warns about (package collision). The registry says which
// sessions are live; a claim says which session is editing which file, since when.
//
// Where. Claims are working state, kept per checkout (a linked worktree has its own), and they
// live where no repository can write, under Claude Code's config directory:
// <config>/cairn/claims/<key of the checkout's real root>/ (dirName). A clone therefore cannot forge a claim
// that makes cairn tell Claude someone else is editing a file. The directory is flat in sessions
// and claims:
//
//	p-<16 hex digits>   one file per claimed path, named by a hash of the path relative to the
//	                    root: a "path" line, then one line per session that claims it —
//	                    "<since> <touched> <warned or -> <session>" (times RFC 3339, UTC)
//	s-<session>         the paths the session claimed, one a line, appended the first time it
//	                    claims each (which the path's file tells), so that `cairn session list`
//	                    and a hand-off find a session's edited paths without reading its transcript
//	commands/<session>  where the session's transcript stood before each shell command it ran
//	                    (NoteCommand: its length in bytes and the command's tool use id, one
//	                    command a line) and at each of its compactions (NoteCompaction: "compact"
//	                    and the length), so that a compaction finds the commands further back
//	                    than it reads from the end, since the last one, without reading back to
//	                    them (package compaction); kept past SessionEnd, since a session can be
//	                    resumed (every `claude -p` ends its session), until a week passes without
//	                    a note (Sweep); in a directory of their own, so that the claims' listing
//	                    stays bounded by the claims
//
// A path's file is read without the lock and written only when something changes: the path's
// first claim creates it whole, without a lock (safefile's Create: no lock file is made for a path
// claimed once); a session's first claim of a path claimed already, a touch older than
// refreshAfter and a warning given rewrite it under its lock. None of it is synced
// (safefile.NoSync): a claim lost to a power cut — or to the hourly sweep removing a file at the
// moment another session claims the path — costs at most one warning that is not given, never a
// file of the user's. A killed hook leaves the old file or the new one.
//
// Liveness. A claim counts when its session is another one, is registered in this checkout's
// registry and not ended, and touched the claim within TTL. SessionEnd ends its session's claims
// by removing its list (End); the lines in the paths' files then no longer count, since the
// registry says the session ended, and drop out at the file's next rewrite. The registry's orphan
// sweep, which marks a silent session ended, ends its claims the same way. SessionStart's hourly
// sweep (Sweep) removes the files every claim of which is past the TTL.
package claims

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/safefile"
)

// TTL is how long a claim counts after its session last edited the file: a session that has not
// touched a file for half an hour has moved on from it (or is idle), and a warning then would be
// noise. A session editing the file again refreshes its claim.
const TTL = 30 * time.Minute

// refreshAfter is how old a claim's touch may grow before the session's next edit of the path
// rewrites it: edits in a burst cost a read, not a write, and a claim stays live while its session
// keeps editing (refreshAfter is well inside TTL).
const refreshAfter = 5 * time.Minute

// Bounds: one path's file, the sessions it holds (the oldest touch goes first past it), a
// session's list as read from its end, the files Live and Sweep read.
const (
	maxFile      = 16 << 10
	maxHolders   = 16
	maxListRead  = 64 << 10
	maxClaimFile = 4096
	maxPathBytes = 4096
)

// Claim is one session's claim on one path.
type Claim struct {
	Session string
	Path    string    // relative to the root, with '/'
	Since   time.Time // when the session first claimed the path
	Touched time.Time // when it last edited it (to refreshAfter)
	Warned  time.Time // when this session was last told of another's claim on the path; zero for never
}

// Store is the claims of one checkout.
type Store struct {
	root   string
	real   string // root resolved through symlinks: Claude Code may name a file by either
	dir    string // "" without a config directory: nothing is claimed
	tree   string // <config>/cairn, the tree dir lies in
	files  safefile.Writer
	now    func() time.Time
	dryRun bool               // plan the writes (files prints them), make no directory
	reg    *registry.Registry // which sessions are live: the process's handle on the checkout's registry
}

// Open returns the claims of p's checkout, which asks reg (the process's handle on the checkout's
// session registry) which sessions are live. It reads nothing until asked.
func Open(p *project.Project, reg *registry.Registry) *Store {
	s := &Store{root: p.Root, real: p.Root, files: p.Files, now: p.Now, dryRun: p.DryRun, reg: reg}
	if r, err := filepath.EvalSymlinks(p.Root); err == nil {
		s.real = r // the same checkout through a link claims the same files
	}
	if p.Config != "" && p.Files != nil {
		s.tree = filepath.Join(p.Config, "cairn")
		s.dir = filepath.Join(s.tree, "claims", dirName(s.real))
		s.files = p.Files.Under(s.tree)
	}
	return s
}

// dirName names the claims directory of the checkout whose real root is root as the search
// index names a project's (search.Location): a hash of the whole root, then its base name, which
// only helps a person tell them apart. Claude Code's slug of the root (project.Slug) is not
// enough: "/x/my_app" and "/x/my-app" share one, and each checkout would drop the other's claims
// as its registry's dead sessions; nor does a deep root's slug fit in a file name.
func dirName(root string) string {
	h := fnv.New64a()
	h.Write([]byte(root))
	base := project.Slug(filepath.Base(root))
	return fmt.Sprintf("%016x-%s", h.Sum64(), base[:min(len(base), maxBaseName)])
}

// maxBaseName bounds the base name in dirName: a file name holds 255 bytes.
const maxBaseName = 64

// Dir is where the checkout's claims live ("" without a config directory).
func (s *Store) Dir() string { return s.dir }

// Rel returns path — absolute, or relative to cwd — relative to the root, with '/', and whether it
// lies inside the root: only a file of the project is claimed. A path that leaves the root
// lexically, or through the root's real path, is not.
func (s *Store) Rel(path, cwd string) (string, bool) {
	if path == "" || len(path) > maxPathBytes || strings.ContainsFunc(path, plain.IsControl) {
		return "", false
	}
	if !filepath.IsAbs(path) {
		if cwd == "" {
			cwd = s.root
		}
		path = filepath.Join(cwd, path)
	}
	path = filepath.Clean(path)
	for _, root := range []string{s.root, s.real} {
		rel, err := filepath.Rel(root, path)
		if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// pathFile names the file of the claims on rel.
func (s *Store) pathFile(rel string) string {
	h := fnv.New64a()
	h.Write([]byte(rel))
	return filepath.Join(s.dir, fmt.Sprintf("p-%016x", h.Sum64()))
}

// listFile names the list of the paths session sid claimed.
func (s *Store) listFile(sid string) string { return filepath.Join(s.dir, "s-"+sid) }

// commandsDir holds the sessions' notes of their commands; commandsFile names session sid's.
func (s *Store) commandsDir() string            { return filepath.Join(s.dir, "commands") }
func (s *Store) commandsFile(sid string) string { return filepath.Join(s.commandsDir(), sid) }

// Spot is where a session noted one of its shell commands: its transcript's length when
// PreToolUse ran before the command, and the command's tool use id ("" when the note has none).
// Clients write a tool use before or after that hook, and some later still (the lines of a turn
// can lag behind it, and a new session's transcript may not exist yet): the id finds the line.
// With Compaction, it is where the transcript stood when a compaction was recorded instead.
type Spot struct {
	At         int64
	ID         string
	Compaction bool
}

// NoteCommand records that session sid is about to run the shell command with tool use id while
// its transcript is at bytes long (PreToolUse, before every Bash call; 0 when the transcript does
// not exist yet): one line, "<at> <id>", appended, not synced (a note lost to a power cut costs
// one command the hand-back does not list). Nothing for a length below 0; an id that is not one
// (letters, digits, '_' and '-', at most maxToolUseID bytes) is left out of the line.
func (s *Store) NoteCommand(sid string, at int64, id string) error {
	if s.dir == "" || !validSession(sid) || at < 0 {
		return nil
	}
	line := strconv.FormatInt(at, 10)
	if validToolUseID(id) {
		line += " " + id
	}
	return s.note(sid, line)
}

// NoteCompaction records that a compaction of session sid was recorded with its transcript at
// bytes long (package compaction, once per compaction): a later compaction reads no note before
// it. Nothing for a length below 0, nor for a session that noted no command (making a file is
// the slowest thing a disk does, and there is nothing to bound).
func (s *Store) NoteCompaction(sid string, at int64) error {
	if s.dir == "" || !validSession(sid) || at < 0 {
		return nil
	}
	if _, err := os.Lstat(s.commandsFile(sid)); err != nil {
		return nil
	}
	return s.note(sid, "compact "+strconv.FormatInt(at, 10))
}

func (s *Store) note(sid, line string) error {
	if !s.dryRun {
		if err := os.MkdirAll(s.commandsDir(), 0o700); err != nil {
			return err
		}
	}
	return s.files.Append(s.commandsFile(sid), []byte(line+"\n"), 0o600, safefile.NoSync)
}

// maxToolUseID bounds a tool use id a note keeps (Claude Code's are about 30 bytes).
const maxToolUseID = 128

func validToolUseID(id string) bool {
	if id == "" || len(id) > maxToolUseID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// CommandSpots returns where session sid noted its commands and compactions (NoteCommand,
// NoteCompaction), most recent first, at most max, read from the end of its list. A line that is
// no note is skipped.
func (s *Store) CommandSpots(sid string, max int) []Spot {
	if s.dir == "" || !validSession(sid) || max <= 0 {
		return nil
	}
	data, err := safefile.ReadTail(s.tree, s.commandsFile(sid), maxListRead)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var out []Spot
	for i := len(lines) - 1; i >= 0 && len(out) < max; i-- {
		at, id, _ := strings.Cut(lines[i], " ")
		compaction := at == "compact"
		if compaction {
			at, id = id, ""
		}
		n, err := strconv.ParseInt(at, 10, 64)
		if err != nil || n < 0 || id != "" && !validToolUseID(id) {
			continue
		}
		out = append(out, Spot{At: n, ID: id, Compaction: compaction})
	}
	return out
}

// validSession accepts a session id that can name a file and a field of a claim line.
func validSession(sid string) bool {
	return project.SafeName(sid) && !strings.ContainsAny(sid, " \t")
}

// Outcome is what Record found and did.
type Outcome struct {
	// Others are the live claims of other sessions on the path that this session has not been
	// told of yet (every one of them touched the path after the last warning), most recent first.
	// The caller warns about them; Record has recorded the warning.
	Others []Claim
	// Sessions are the other sessions' registry records, by id, for the claims in Others.
	Sessions map[string]registry.Session
	// Wrote is whether the path's file was rewritten.
	Wrote bool
}

// Record claims rel (relative to the root, as Rel gives it) for session sid now, and returns the
// live claims of other sessions on it that sid has not been told of. It reads the path's file
// without the lock and rewrites it under the lock only when it must (see the package doc). The
// registry is read only when another session holds a claim inside the TTL.
func (s *Store) Record(sid, rel string) (Outcome, error) {
	if s.dir == "" || !validSession(sid) || rel == "" {
		return Outcome{}, nil
	}
	now := s.now().UTC().Truncate(time.Second)
	file := s.pathFile(rel)
	// Read inside the tree, as it is written: a link in the file's place is no claim.
	data, _, err := safefile.ReadFile(s.tree, file, maxFile)
	missing, damaged := errors.Is(err, fs.ErrNotExist), false
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		var tl *safefile.TooLargeError
		if !errors.Is(err, safefile.ErrNotRegular) && !errors.Is(err, safefile.ErrOutside) && !errors.As(err, &tl) {
			return Outcome{}, err
		}
		data, damaged = nil, true // cairn's own file, damaged: replaced below
	}
	path, held := parse(data)
	mine, hasMine := find(held, sid)
	if path != rel {
		held, hasMine = nil, false // another path's file under a colliding hash, or none yet
	}
	out := Outcome{Sessions: map[string]registry.Session{}}
	dead := map[string]bool{}
	for _, c := range held {
		if c.Session == sid || now.Sub(c.Touched) >= TTL || c.Touched.After(now.Add(time.Minute)) {
			continue
		}
		rs, ok := s.reg.Lookup(c.Session)
		if !ok || rs.Status != registry.StatusActive {
			dead[c.Session] = true
			continue
		}
		if !hasMine || mine.Warned.IsZero() || c.Touched.After(mine.Warned) {
			out.Others = append(out.Others, c)
			out.Sessions[c.Session] = rs
		}
	}
	slices.SortStableFunc(out.Others, func(a, b Claim) int { return b.Touched.Compare(a.Touched) })
	if hasMine && now.Sub(mine.Touched) < refreshAfter && !mine.Touched.After(now) && len(out.Others) == 0 && !damaged {
		return out, nil // claimed and fresh, nothing to tell: a read, no write
	}
	if !s.dryRun {
		if err := os.MkdirAll(s.dir, 0o700); err != nil { // private, as the other records under <config>/cairn
			return out, err
		}
	}
	if damaged {
		// Not a file of cairn's making (too large, not a regular file, a link): out of the way, whole.
		if err := s.files.Remove(file); err != nil {
			if _, err := s.files.MoveAside(file); err != nil {
				return out, err
			}
		}
	}
	added := false
	if missing && len(out.Others) == 0 {
		// The path's first claim: the file is created whole or not at all (safefile's Create, a
		// link of a complete temp file), without a lock of its own. Another session's first claim
		// made at the same moment makes this one fall back to the locked rewrite.
		if added, err = s.files.Create(file, format(rel, []Claim{{Session: sid, Since: now, Touched: now}}), 0o600, safefile.NoSync); err != nil {
			return out, err
		}
	}
	if !added {
		if added, err = s.rewrite(file, rel, sid, now, dead, len(out.Others) > 0); err != nil {
			return out, err
		}
	}
	out.Wrote = true
	if !added {
		// A session resumed after its SessionEnd removed its list claims again paths whose files
		// still hold its line: the list starts anew with them.
		if _, err := os.Lstat(s.listFile(sid)); errors.Is(err, fs.ErrNotExist) {
			added = true
		}
	}
	if added {
		err = s.files.Append(s.listFile(sid), []byte(rel+"\n"), 0o600, safefile.NoSync)
	}
	return out, err
}

// rewrite records, under the lock of the path's file, that session sid edited rel now (warned:
// and was told of other claims), dropping the claims of the sessions in dead and those past the
// TTL; added reports that the session had no claim on the path before.
func (s *Store) rewrite(file, rel, sid string, now time.Time, dead map[string]bool, warned bool) (added bool, err error) {
	_, err = s.files.Update(file, 0o600, func(old []byte, _ bool) ([]byte, error) {
		p, cur := parse(old)
		if p != rel {
			cur = nil
		}
		cur = slices.DeleteFunc(cur, func(c Claim) bool {
			return c.Session != sid && (dead[c.Session] || now.Sub(c.Touched) >= TTL)
		})
		i := slices.IndexFunc(cur, func(c Claim) bool { return c.Session == sid })
		if i < 0 {
			added = true
			cur = append(cur, Claim{Session: sid, Since: now})
			i = len(cur) - 1
		}
		cur[i].Touched = now
		if warned {
			cur[i].Warned = now
		}
		if len(cur) > maxHolders {
			slices.SortStableFunc(cur, func(a, b Claim) int { return b.Touched.Compare(a.Touched) })
			cur = cur[:maxHolders]
		}
		return format(rel, cur), nil
	}, safefile.NoSync, safefile.Limit(maxFile))
	return added, err
}

// parse reads a path's file: the path and the claims on it. Lines it cannot read are skipped.
func parse(data []byte) (path string, held []Claim) {
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 {
		return "", nil
	}
	path, ok := strings.CutPrefix(lines[0], "path ")
	if !ok {
		return "", nil
	}
	for _, l := range lines[1:] {
		f := strings.SplitN(l, " ", 4)
		if len(f) != 4 || !validSession(f[3]) {
			continue
		}
		since, err1 := time.Parse(time.RFC3339, f[0])
		touched, err2 := time.Parse(time.RFC3339, f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		c := Claim{Session: f[3], Path: path, Since: since, Touched: touched}
		if f[2] != "-" {
			c.Warned, _ = time.Parse(time.RFC3339, f[2])
		}
		held = append(held, c)
	}
	return path, held
}

// format writes a path's file.
func format(path string, held []Claim) []byte {
	var b strings.Builder
	b.WriteString("path " + path + "\n")
	for _, c := range held {
		warned := "-"
		if !c.Warned.IsZero() {
			warned = c.Warned.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "%s %s %s %s\n", c.Since.UTC().Format(time.RFC3339), c.Touched.UTC().Format(time.RFC3339), warned, c.Session)
	}
	return []byte(b.String())
}

func find(held []Claim, sid string) (Claim, bool) {
	for _, c := range held {
		if c.Session == sid {
			return c, true
		}
	}
	return Claim{}, false
}

// End ends session sid's claims (SessionEnd): its list goes; the lines in the paths' files stop
// counting as the registry records the end (see the package doc). Cheap: one unlink. Its
// commands' list stays: the session can be resumed, and its next compaction read it.
func (s *Store) End(sid string) error {
	if s.dir == "" || !validSession(sid) {
		return nil
	}
	if _, err := os.Lstat(s.listFile(sid)); errors.Is(err, fs.ErrNotExist) {
		return nil // it claimed nothing (or claims were never made here)
	}
	return s.files.Remove(s.listFile(sid))
}

// Paths returns the paths session sid claimed, most recent first, at most max, read from the end
// of its list (a bounded read, whatever the session's length): the files it edited in this
// checkout. Nil after the session ended.
func (s *Store) Paths(sid string, max int) []string {
	if s.dir == "" || !validSession(sid) || max <= 0 {
		return nil
	}
	// Read inside the tree, as it is written: a list that is a link leads nowhere outside it.
	data, err := safefile.ReadTail(s.tree, s.listFile(sid), maxListRead)
	if err != nil {
		return nil
	}
	// The lines are read from the end as substrings of one copy, and kept once each through a
	// set: a list holds thousands of lines (64 KiB), and a compaction reads it whole.
	text := strings.TrimRight(string(data), "\n")
	n := strings.Count(text, "\n") + 1
	out := make([]string, 0, min(n, max))
	seen := make(map[string]bool, n)
	for end := len(text); end >= 0 && len(out) < max; {
		start := strings.LastIndexByte(text[:end], '\n') + 1
		if l := text[start:end]; l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
		end = start - 1
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Live returns every live claim of the checkout — of a session registered, not ended, within the
// TTL — grouped by nothing, most recently touched first, each with its session's registry record.
// For `cairn claims` and `cairn session list`: it reads every path's file (at most maxClaimFile).
func (s *Store) Live() ([]Claim, map[string]registry.Session, error) {
	if s.dir == "" {
		return nil, nil, nil
	}
	names, err := s.names()
	if err != nil {
		return nil, nil, err
	}
	ss, err := s.reg.Sessions()
	if err != nil {
		return nil, nil, err
	}
	sessions := map[string]registry.Session{}
	for _, r := range ss {
		if r.Status == registry.StatusActive {
			sessions[r.ID] = r
		}
	}
	now := s.now()
	var out []Claim
	for _, n := range names {
		if !strings.HasPrefix(n, "p-") {
			continue
		}
		data, _, err := safefile.ReadFile(s.tree, filepath.Join(s.dir, n), maxFile)
		if err != nil {
			continue
		}
		_, held := parse(data)
		for _, c := range held {
			if _, ok := sessions[c.Session]; ok && now.Sub(c.Touched) < TTL {
				out = append(out, c)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Claim) int {
		if c := b.Touched.Compare(a.Touched); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out, sessions, nil
}

// names lists the claims directory, at most maxClaimFile names.
func (s *Store) names() ([]string, error) { return listDir(s.dir) }

// listDir lists dir, at most maxClaimFile names, sorted; none when it does not exist.
func listDir(dir string) ([]string, error) {
	d, err := safefile.OpenDirLoose(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(maxClaimFile)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// keepCommands is how long a session's commands' list stays after the last command it notes.
const keepCommands = 7 * 24 * time.Hour

// Sweep removes what can no longer count (SessionStart, at most hourly): a path's file not
// rewritten within the TTL, every claim in which is past it, the list of a session the registry
// does not hold as active, untouched as long, and a session's notes of its commands untouched for
// keepCommands. The mtime alone decides; nothing is read. A claim a concurrent edit writes in between can be lost: that costs
// one warning, never a file. It also removes the temp files a write killed mid-way left (safefile.SweepTemps): a first
// claim's, or the old content a replacement swapped out.
func (s *Store) Sweep() error {
	if s.dir == "" {
		return nil
	}
	now := s.now()
	if !s.dryRun {
		safefile.SweepTemps(s.tree, s.dir, now)
	}
	names, err := s.names()
	if err != nil || len(names) == 0 {
		return err
	}
	reg := s.reg
	var errs []error
	for _, n := range names {
		fi, err := os.Lstat(filepath.Join(s.dir, n))
		if err != nil || now.Sub(fi.ModTime()) < TTL {
			continue
		}
		if sid, ok := strings.CutPrefix(n, "s-"); ok {
			if r, ok := reg.Lookup(sid); ok && r.Status == registry.StatusActive {
				continue
			}
		} else if !strings.HasPrefix(n, "p-") {
			continue
		}
		if err := s.files.Remove(filepath.Join(s.dir, n)); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, s.sweepCommands(now))
	return errors.Join(errs...)
}

// sweepCommands removes the sessions' notes of their commands untouched for keepCommands.
func (s *Store) sweepCommands(now time.Time) error {
	names, err := listDir(s.commandsDir())
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		p := filepath.Join(s.commandsDir(), n)
		if fi, err := os.Lstat(p); err == nil && now.Sub(fi.ModTime()) >= keepCommands {
			errs = append(errs, s.files.Remove(p))
		}
	}
	return errors.Join(errs...)
}
