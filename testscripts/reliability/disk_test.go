//go:build linux

package reliability

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-hooks/cairn/pkg/parking"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// otherSession is a second registered session, the receiver of broadcasts in the disk tests.
const otherSession = "other-session-0002"

// allWriters runs every writer of cairn once — the four hooks and every CLI command that writes
// or reads — and returns the results. Each call parks, archives, sets, saves, broadcasts and
// compacts something new (tag keeps the names apart); archive targets the item "archive-me".
func allWriters(m *machine, tag string) []result {
	m.t.Helper()
	tr := filepath.Join(m.transcripts, "writers-"+tag+".jsonl")
	env := []string{"CLAUDE_CODE_SESSION_ID=" + hostSession}
	var out []result
	cli := func(args ...string) {
		r := m.run(spec{name: "cairn", args: args, env: env})
		checkCLI(m.t, r)
		out = append(out, r)
	}
	hook := func(name string, fields map[string]any) {
		f := map[string]any{"session_id": hostSession, "cwd": m.proj, "transcript_path": tr}
		for k, v := range fields {
			f[k] = v
		}
		r := m.run(spec{name: name, stdin: bytes.NewReader(payload(hookEvents[name], f))})
		checkHook(m.t, r)
		out = append(out, r)
	}
	hook("precompact", map[string]any{"trigger": "auto", "custom_instructions": nil})
	hook("sessionstart", map[string]any{"source": "compact"})
	hook("userpromptsubmit", map[string]any{"prompt": "let's come back to the " + tag + " idea later"})
	hook("sessionend", map[string]any{"reason": "clear"})
	cli("session", "park", "deferred", "written "+tag, "by allWriters", "--slug", "w-"+tag)
	cli("session", "archive", "archive-me")
	cli("session", "resume")
	cli("session", "summary")
	cli("session", "broadcast", "broadcast "+tag)
	cli("session", "inbox")
	cli("session", "list")
	cli("run", "set", "k_"+tag+"=v")
	cli("run", "start", "r2")
	cli("run", "start", "r1")
	cli("run", "show")
	cli("context", "save", "save-"+tag, "--summary", "s")
	cli("context", "list", "--all")
	cli("context", "restore")
	cli("doctor")
	restoreActive(m)
	return out
}

// isDoctor reports a run of cairn doctor, which exits 1 here because nothing is installed.
func isDoctor(r result) bool { return r.name == "cairn" && len(r.args) > 0 && r.args[0] == "doctor" }

// restoreActive makes r1 the active run again when allWriters' "run start r1" could not (its
// directory read-only, say): the checks compare r1's state. Best effort.
// A symlink planted there is left alone: the test must not write through it either.
func restoreActive(m *machine) {
	if fi, err := os.Lstat(m.p(fileActive)); err == nil && !fi.Mode().IsRegular() {
		return
	}
	os.WriteFile(m.p(fileActive), []byte(".agents/runs/r1\n"), 0o644)
}

// checkNoLoss is checkIntact for runs that may archive "archive-me": a seeded item that is gone
// must have its audit line.
func checkNoLoss(t testing.TB, what string, m *machine, base state, allowTorn bool) state {
	t.Helper()
	st := readState(m)
	sound := st
	if allowTorn {
		sound.garbage, sound.torn = nil, nil
	}
	mustBeSound(t, what, sound)
	for n, c := range base.checkpoints {
		a, ok := st.checkpoints[n]
		if !ok || a.Summary != c.Summary || a.Event != c.Event {
			t.Errorf("%s: checkpoint %s lost or changed", what, n)
		}
	}
	for k, v := range base.run {
		if got, ok := st.run[k]; !ok || got != v && k != "updated_at" {
			t.Errorf("%s: state.json %s = %q, was %q", what, k, got, v)
		}
	}
	for slug, it := range base.parked {
		a, ok := st.parked[slug]
		if ok && a.Text != it.Text {
			t.Errorf("%s: parked item %s changed", what, slug)
		}
		if !ok && st.audited(slug, parking.ActionArchived) == 0 {
			t.Errorf("%s: LOST: parked item %s removed without its audit line", what, slug)
		}
	}
	if base.memory != "" && !strings.Contains(st.memory, proseSentinel) {
		t.Errorf("%s: the whiteboard's prose is lost", what)
	}
	return st
}

// seedForDisk is seedProject plus the item allWriters archives and a second registered session.
func seedForDisk(t testing.TB, m *machine) state {
	t.Helper()
	seedProject(t, m)
	m.mustCairn("session", "park", "side", "the item to archive", "archived by allWriters", "--slug", "archive-me")
	m.hook("sessionstart", payload("SessionStart", map[string]any{"session_id": otherSession, "cwd": m.proj, "source": "startup"}))
	// The transcripts allWriters hands the hooks, written before any snapshot of the outside.
	for i, tag := range []string{"pre", "probe", "planted", "ro", "full", "freed"} {
		if _, err := transcripttest.WriteFile(filepath.Join(m.transcripts, "writers-"+tag+".jsonl"), transcripttest.Options{Size: 16 << 10, Seed: uint64(20 + i), Root: m.proj}); err != nil {
			t.Fatal(err)
		}
	}
	st := readState(m)
	mustBeSound(t, "seeded", st)
	return st
}

// TestSymlinksPlanted plants a symlink leading out of the project at every path cairn writes —
// each state file, log, lock, the checkpoints directory and every directory above them — once
// pointing at a copy of the real thing outside (so that writing through it would succeed) and once
// dangling, runs every writer, and checks that nothing outside changed, that hooks still exit 0
// with protocol-only stdout and that the CLI fails with one clear line.
func TestSymlinksPlanted(t *testing.T) {
	heavy(t, "every writer with a symlink at each of the ~40 paths cairn writes, twice: about 1,400 processes")
	// The project as the writers leave it, to learn every path they write (lock files included);
	// each case starts from a copy of it.
	probe := newMachine(t)
	seedForDisk(t, probe)
	allWriters(probe, "pre")
	// A payload for the wrong event: an error that goes to .claude/state/cairn.log.
	probe.hook("sessionstart", payload("PreCompact", map[string]any{"session_id": hostSession, "cwd": probe.proj}))
	var targets []string
	filepath.WalkDir(probe.proj, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == probe.proj {
			return nil
		}
		rel, _ := filepath.Rel(probe.proj, p)
		rel = filepath.ToSlash(rel)
		if rel == ".git" || strings.HasPrefix(rel, ".git/") || tempName.MatchString(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(rel, "memory/projects/proj/checkpoints/") || strings.HasPrefix(rel, ".agents/runs/r2") {
			return nil // one checkpoint name stands for all (the directory is planted too)
		}
		targets = append(targets, rel)
		return nil
	})
	sort.Strings(targets)
	t.Logf("paths cairn writes: %d: %s", len(targets), strings.Join(targets, " "))

	runs := 0
	for _, rel := range targets {
		for _, dangling := range []bool{false, true} {
			name := rel + map[bool]string{false: " → outside copy", true: " → dangling"}[dangling]
			t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
				m := probe.clone(t)
				p := m.p(rel)
				if _, err := os.Lstat(p); err != nil {
					t.Skipf("%s does not exist here: %v", rel, err)
				}
				// The target's directory exists either way, so that a write through a dangling
				// link would create the target (and show in the snapshot).
				target := filepath.Join(m.outside, "planted", strings.ReplaceAll(rel, "/", "_"))
				if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
					t.Fatal(err)
				}
				if !dangling {
					if out, err := exec.Command("cp", "-a", p, target).CombinedOutput(); err != nil {
						t.Fatalf("cp -a %s %s: %v: %s", p, target, err, out)
					}
				}
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, p); err != nil {
					t.Fatal(err)
				}
				outside := snapshot(t, m.outsideDirs()...)
				rs := allWriters(m, "planted")
				runs += len(rs)
				// A writer that followed the link (into the copy of a directory or a file outside,
				// or creating the dangling target) changes this snapshot.
				m.checkUnchanged(t, "symlink at "+name, outside)
			})
		}
	}
	record("TestSymlinksPlanted", fmt.Sprintf("a symlink out of the project planted at each of the %d paths cairn writes (%s), pointing at a copy outside and dangling; then all %d writers and readers (4 hooks, 15 CLI commands)", len(targets), strings.Join(targets, ", "), 19), runs,
		verdict(t, "nothing outside changed (no write through a link, no file created at a dangling target); hooks exit 0 with protocol-only stdout; the CLI refuses with one line"))
}

// clone is a new machine whose project and transcripts are copies of m's.
func (m *machine) clone(t testing.TB) *machine {
	t.Helper()
	c := newMachine(t, machineOpt{noGit: true})
	for _, d := range [][2]string{{m.proj, c.proj}, {m.transcripts, c.transcripts}} {
		if err := os.RemoveAll(d[1]); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", "-a", d[0], d[1]).CombinedOutput(); err != nil {
			t.Fatalf("cp -a %s %s: %v: %s", d[0], d[1], err, out)
		}
	}
	return c
}

// chattr sets or clears the immutable attribute.
func chattr(path string, on bool) error {
	flag := map[bool]string{true: "+i", false: "-i"}[on]
	out, err := exec.Command("chattr", flag, path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("chattr %s %s: %v: %s", flag, path, err, out)
	}
	return nil
}

// TestReadOnly makes each directory and file cairn writes immutable (chattr +i: the tests run as
// root, which ignores mode bits) and runs every writer: hooks exit 0, the CLI fails with one
// clear line, and nothing is lost or damaged — an item is never removed without its audit line.
func TestReadOnly(t *testing.T) {
	heavy(t, "root only: chattr +i on 17 paths, each a fresh project and all 19 writers")
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("chattr not available: read-only directories not tested")
	}
	probe := t.TempDir()
	if err := chattr(probe, true); err != nil {
		t.Skipf("chattr +i refused here (%v): read-only directories not tested", err)
	}
	chattr(probe, false)
	targets := []string{
		".", ".claude/state", ".claude/state/locks", ".agents/runs", ".agents/runs/r1", ".notes/logs", "memory",
		"memory/projects/proj/checkpoints",
		fileContext, fileSessions, fileEvents, fileAudit, fileTimeline, fileActive, fileCkptIndex,
		".agents/runs/r1/state.json", ".agents/runs/r1/MEMORY.md",
	}
	runs, refused := 0, 0
	for _, rel := range targets {
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			m := newMachine(t)
			base := seedForDisk(t, m)
			p := m.p(rel)
			if err := chattr(p, true); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { chattr(p, false) })
			outside := snapshot(t, m.outsideDirs()...)
			rs := allWriters(m, "ro")
			runs += len(rs)
			for _, r := range rs {
				if r.code != 0 {
					refused++
				}
			}
			chattr(p, false)
			restoreActive(m)
			checkNoLoss(t, "immutable "+rel, m, base, false)
			m.checkUnchanged(t, "immutable "+rel, outside)
		})
	}
	record("TestReadOnly", fmt.Sprintf("chattr +i (root ignores mode bits, so chmod would test nothing) on each of %d paths: the project root, %s; then all 19 writers and readers", len(targets), strings.Join(targets[1:], ", ")), runs,
		verdict(t, fmt.Sprintf("hooks exit 0 with protocol-only stdout; %d CLI runs refused with one clear line, the others succeeded; no file damaged, no item removed without its audit line, nothing outside written", refused)))
}

// fillDisk writes a file until the file system is full.
func fillDisk(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatal(err)
		}
	}
	// Fill the last partial page of the filler too, byte by byte.
	for {
		if _, err := f.Write([]byte{0}); err != nil {
			break
		}
	}
	return p
}

// padLog appends valid lines to the JSON-lines log rel so that its size ends slack bytes short
// of a page: on a full tmpfs, the next append then fits only its first slack bytes.
func padLog(t testing.TB, m *machine, rel string, slack int, line func(fill string) string) {
	t.Helper()
	p := m.p(rel)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	size := int(fi.Size())
	target := (size/4096+2)*4096 - slack
	var b strings.Builder
	for size+b.Len()+len(line(strings.Repeat("x", 200)))+len(line("z")) < target {
		b.WriteString(line(strings.Repeat("x", 200)))
	}
	overhead := len(line("z")) - 1
	b.WriteString(line(strings.Repeat("z", target-size-b.Len()-overhead)))
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(b.String())
	f.Close()
	if fi, _ := os.Stat(p); int(fi.Size())%4096 != 4096-slack {
		t.Fatalf("%s: padded to %d bytes, want %d mod 4096", rel, fi.Size(), 4096-slack)
	}
}

// TestFullDisk puts the project on a 512 KiB tmpfs, fills it, and runs every writer: hooks exit
// 0, the CLI fails with one clear line, nothing existing is damaged or lost (every rewrite is
// atomic, so a file holds its old content). The append-only logs are set up so that the next
// record fits only partly in the space left: the append writes a torn line, which readers must
// skip. Then space is freed and the writers run again: everything they report done must be
// readable — an archived item's audit line, a broadcast delivered to the other session.
func TestFullDisk(t *testing.T) {
	heavy(t, "root only: mounts a 512 KiB tmpfs and fills it")
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot mount a tmpfs; the full disk is not tested")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs refused (%v: %s): the full disk is not tested", err, out)
	}
	t.Cleanup(func() {
		safefile.Release() // this process's readers hold the project's directory open
		exec.Command("umount", mnt).Run()
	})
	m := newMachine(t, machineOpt{proj: filepath.Join(mnt, "proj"), noGit: true})
	base := seedForDisk(t, m)
	// The logs end 30 bytes short of a page: a record of ~150 bytes is torn by a full disk.
	padLog(t, m, fileAudit, 30, func(fill string) string {
		b, _ := json.Marshal(parking.AuditEntry{TS: "2026-11-01T00:00:00Z", Item: "padding", Action: parking.ActionArchived, Text: fill})
		return string(b) + "\n"
	})
	padLog(t, m, fileEvents, 30, func(fill string) string {
		return fmt.Sprintf(`{"ts":"2026-11-01T00:00:00Z","from":"padding","type":"padding","msg":%q}`+"\n", fill)
	})
	padLog(t, m, fileTimeline, 30, func(fill string) string {
		return fmt.Sprintf(`{"ts":"2026-11-01T00:00:00Z","event":"padding","reason":%q}`+"\n", fill)
	})
	base = readState(m)
	mustBeSound(t, "padded", base)
	outside := snapshot(t, m.outsideDirs()...)
	filler := fillDisk(t, mnt)

	// The disk is full.
	rs := allWriters(m, "full")
	failed := 0
	for _, r := range rs {
		if r.code != 0 && !isDoctor(r) {
			failed++
			if !strings.Contains(r.stderr, "no space left on device") {
				t.Errorf("a failure on a full disk that does not say why: %v", r)
			}
		}
	}
	full := checkNoLoss(t, "disk full", m, base, true)
	for rel, tail := range full.torn {
		t.Logf("torn tail left by the full disk in %s: %q", rel, tail)
	}
	if _, ok := full.parked["archive-me"]; !ok {
		t.Errorf("archive-me was archived on a full disk although its audit line could not be written")
	}
	if len(full.checkpoints) != len(base.checkpoints) {
		t.Errorf("%d checkpoints after a full disk, %d before", len(full.checkpoints), len(base.checkpoints))
	}
	// Readers skip the torn tails.
	if got, err := parking.ReadAudit(m.proj, nil); err != nil || len(got) != len(full.audit) {
		t.Errorf("ReadAudit with a torn audit log: %d entries of %d complete lines, %v", len(got), len(full.audit), err)
	}
	if r := m.cairn("session", "resume"); r.code != 0 {
		t.Errorf("resume on a full disk: %v", r)
	}

	// Space comes back: every writer must work, and what it reports done must be readable.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	m.mustCairn("session", "park", "side", "after the disk was freed", "x", "--slug", "after-full")
	r := m.mustCairn("session", "archive", "after-full")
	if !strings.HasPrefix(r.stdout, "Archived: ") {
		t.Fatalf("archive after the disk was freed: %v", r)
	}
	msg := "broadcast after the disk was freed"
	m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=" + hostSession}, "session", "broadcast", msg)
	m.hook("sessionend", payload("SessionEnd", map[string]any{"session_id": hostSession, "cwd": m.proj, "reason": "other"}))
	rs2 := allWriters(m, "freed")
	for _, r := range rs2 {
		if r.code != 0 && !isDoctor(r) {
			t.Errorf("after the disk was freed: %v", r)
		}
	}
	entries, _ := parking.ReadAudit(m.proj, nil)
	found := false
	for _, e := range entries {
		found = found || e.Item == "after-full"
	}
	if !found {
		bug(t, "an archive that exits 0 after a full disk has no readable audit line (appended to the torn tail the full disk left)", "LOST: `cairn session archive after-full` printed %q and exited 0 after the disk was freed, but cairn's audit reader has no line for it: the new record was appended to the torn tail the full disk left, and the joined line is skipped as garbage (its text is lost to session summary)", strings.TrimSpace(r.stdout))
	}
	inbox := m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=" + otherSession}, "session", "inbox", "--json")
	var rows []struct{ Msg string }
	json.Unmarshal([]byte(inbox.stdout), &rows)
	delivered := false
	for _, row := range rows {
		delivered = delivered || row.Msg == msg
	}
	if !delivered {
		bug(t, "a broadcast that exits 0 after a full disk is never delivered (same joined line)", "LOST: broadcast %q exited 0 after the disk was freed but is never delivered to %s: it was appended to the torn tail of %s", msg, otherSession, fileEvents)
	}
	after := checkNoLoss(t, "after the disk was freed", m, base, true)
	for rel, lines := range after.garbage {
		for _, l := range lines {
			t.Logf("%s: %s", rel, l)
		}
		// Only the torn fragment itself may be garbage; a line that joins it to a later record
		// hides that record.
		for _, l := range lines {
			if strings.Count(l, `{\"ts\"`) > 1 || strings.Count(l, `{"ts"`) > 1 {
				bug(t, "Append writes after a torn last line without starting a new line, so the next record of the audit log, the event log and the timeline is joined to the fragment and skipped by every reader", "%s: a torn record and a later one were joined into one unreadable line: %s", rel, l)
			}
		}
	}
	if len(after.checkpointsTitled("save-freed")) != 1 {
		t.Errorf("the context save after the disk was freed did not land")
	}
	m.checkUnchanged(t, "full disk", outside)
	record("TestFullDisk", fmt.Sprintf("project on a 512 KiB tmpfs, filled to the last byte, with the audit, event and timeline logs 30 bytes short of a page; all 19 writers and readers on the full disk (%d refused), then space freed and all of them again plus an archive and a broadcast", failed), len(rs)+len(rs2)+4,
		verdict(t, "on the full disk: hooks exit 0, every CLI failure says \"no space left on device\" in one line, every file keeps its old content (atomic rewrites), no item archived without its audit line, torn log tails skipped by readers; after space returns every writer works again",
			"after space returns, every record reported done is readable"))
}
