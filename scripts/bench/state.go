package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A snapshot is the content of every file under some roots (the project and the home
// directory), taken once a fixture state is built. Restoring it before each timed run makes every
// run of a contender start from the same state, so that a hook that writes (PreCompact's
// checkpoint, SessionEnd's expiry, an archive) does the same work every time instead of the
// first run doing it and the others finding nothing to do.
//
// Restoring is cheap when little changed: it walks the roots and rewrites only the files whose
// size or modification time differ from the snapshot, removes files and directories the run
// created, and recreates what it removed. Two things are left alone: .git (no contender writes
// it) and .claude/state/locks (lock files persist between real runs too; deleting them would
// make every run pay for creating them).
type snapshot struct {
	roots []string
	files map[string]fileState
	dirs  map[string]bool
}

type fileState struct {
	data  []byte
	mode  fs.FileMode
	mtime time.Time
}

// skipDir reports the directories that snapshots ignore.
func skipDir(path string) bool {
	base := filepath.Base(path)
	return base == ".git" || base == "locks" && filepath.Base(filepath.Dir(path)) == "state"
}

func takeSnapshot(roots ...string) (*snapshot, error) {
	s := &snapshot{roots: roots, files: map[string]fileState{}, dirs: map[string]bool{}}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if skipDir(p) {
					return filepath.SkipDir
				}
				s.dirs[p] = true
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s.files[p] = fileState{data: data, mode: fi.Mode().Perm(), mtime: fi.ModTime()}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// restore puts the roots back as the snapshot has them and returns how many files the run had
// written, created or removed. fix, when not nil, gives a file's content at restore time (the
// registry's activity clock, see freshActivity); a file it rewrites counts as changed only when
// the run touched it.
func (s *snapshot) restore(fix func(path string, data []byte) []byte) (int, error) {
	changed := 0
	seen := map[string]bool{}
	var extraDirs []string
	for _, root := range s.roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if skipDir(p) {
					return filepath.SkipDir
				}
				if !s.dirs[p] {
					extraDirs = append(extraDirs, p)
				}
				return nil
			}
			st, ok := s.files[p]
			if !ok {
				changed++
				return os.Remove(p)
			}
			seen[p] = true
			fi, err := d.Info()
			if err != nil {
				return err
			}
			want := st.data
			if fix != nil {
				want = fix(p, st.data)
			}
			// Every restored file gets the snapshot's mtime back, so a different mtime (or
			// size, for a file the fix does not touch) means the run wrote it.
			touched := !fi.ModTime().Equal(st.mtime) || fi.Mode().Perm() != st.mode
			if !touched && !bytes.Equal(want, st.data) {
				cur, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if bytes.Equal(cur, want) {
					return nil
				}
				return writeState(p, st, want) // only the fix's content changed
			}
			if !touched && fi.Size() == int64(len(want)) {
				return nil
			}
			changed++
			return writeState(p, st, want)
		})
		if err != nil {
			return changed, err
		}
	}
	// Directories the run created, deepest first (they are empty now).
	sort.Sort(sort.Reverse(sort.StringSlice(extraDirs)))
	for _, d := range extraDirs {
		if err := os.RemoveAll(d); err != nil {
			return changed, err
		}
	}
	for p, st := range s.files {
		if seen[p] {
			continue
		}
		changed++
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return changed, err
		}
		want := st.data
		if fix != nil {
			want = fix(p, st.data)
		}
		if err := writeState(p, st, want); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func writeState(p string, st fileState, data []byte) error {
	// Write in place when possible (a hook may have replaced the file by a rename: then this
	// writes to the new inode, which is what the next run reads).
	if err := os.WriteFile(p, data, st.mode); err != nil {
		return err
	}
	if err := os.Chmod(p, st.mode); err != nil {
		return err
	}
	return os.Chtimes(p, st.mtime, st.mtime)
}

// freshActivity returns a restore fix that sets the last_activity of session sid in the
// registry (session.json at path) to now, so that a UserPromptSubmit run sees a session active a
// moment ago, as it is between two prompts. Without it, a prompt more than a minute after the
// fixture was built would rewrite session.json on every run (the registry records activity at
// most once a minute), which is the uncommon case, not the common one. It changes only that
// value's bytes and keeps the rest of the file as the registry wrote it: its layout is what the
// hook reads.
func freshActivity(path, sid string) func(string, []byte) []byte {
	re := regexp.MustCompile(`("id": ?` + regexp.QuoteMeta(strconv.Quote(sid)) + `,[^}]*?"last_activity": ?")([^"]*)(")`)
	return func(p string, data []byte) []byte {
		if p != path {
			return data
		}
		now := time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
		return re.ReplaceAll(data, []byte("${1}"+now+"${3}"))
	}
}

// freshClaims returns a restore fix that moves the claims of sessions sids, in the claim files
// under dir, to now: since and last touch a minute ago, so that a PreToolUse run meets them live
// and fresh, as it does a moment after they were made, however long after the fixture was built
// it runs (a claim counts for 30 minutes). The other claims are left as they are.
func freshClaims(dir string, sids ...string) func(string, []byte) []byte {
	return func(p string, data []byte) []byte {
		if filepath.Dir(p) != dir || !strings.HasPrefix(filepath.Base(p), "p-") {
			return data
		}
		lines := strings.Split(string(data), "\n")
		t := time.Now().Add(-time.Minute).UTC().Truncate(time.Second).Format(time.RFC3339)
		changed := false
		for i, l := range lines {
			f := strings.Fields(l)
			if i > 0 && len(f) == 4 && slices.Contains(sids, f[3]) {
				lines[i], changed = strings.Join([]string{t, t, f[2], f[3]}, " "), true
			}
		}
		if !changed {
			return data
		}
		return []byte(strings.Join(lines, "\n"))
	}
}

// diff counts the files a run wrote, created or removed since the last restore, without
// changing anything: every restore leaves each file with the snapshot's mtime, so a different
// mtime means a write. The hooks' warning log (.claude/state/cairn.log) does not count.
func (s *snapshot) diff() (int, error) {
	n := 0
	seen := map[string]bool{}
	for _, root := range s.roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if skipDir(p) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasPrefix(d.Name(), "cairn.log") {
				return nil // the hooks' log of warnings: not state
			}
			st, ok := s.files[p]
			if !ok {
				n++
				return nil
			}
			seen[p] = true
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if !fi.ModTime().Equal(st.mtime) {
				n++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	for p := range s.files {
		if !seen[p] && !strings.HasPrefix(filepath.Base(p), "cairn.log") {
			n++
		}
	}
	return n, nil
}
