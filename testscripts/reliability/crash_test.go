//go:build linux

package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// crashSession is the session the crash test's hooks and CLI serve.
const crashSession = "crash-session-0001"

// proseSentinel is prose a person wrote in the whiteboard: no writer may ever drop it.
const proseSentinel = "PROSE-SENTINEL: a decision a person wrote by hand"

// crashStats counts, per writer, what the kill loop did.
type crashStats struct {
	runs, killed, finished, committed int
}

// TestCrashAtomicity kills writers with SIGKILL at random points — park, archive, run set,
// precompact, context save, broadcast, and the automatic parking of userpromptsubmit and the
// registry writes of sessionstart/sessionend — and after every kill checks that every file
// parses and holds the old or the new content (never a torn or empty file), that no item
// committed before is lost, and that an operation that finished before the kill took effect.
// A PreCompact killed mid-way is then repeated, as Claude Code repeats it, and must leave exactly
// one automatic checkpoint for its compaction.
func TestCrashAtomicity(t *testing.T) {
	smoke(t)
	// The smoke pass's 3 runs per writer are the two that measure it and one SIGKILL; a kill
	// aimed at a run of a few milliseconds finds it already ended about half the time, so the
	// smoke pass goes on until every writer has been killed mid-run once (untilKilled).
	perWriter := envInt("CAIRN_RELIABILITY_ITER", 100, 15, 3)
	untilKilled := !wholeSuite && os.Getenv("CAIRN_RELIABILITY_ITER") == ""
	m := newMachine(t)
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("CAIRN_RELIABILITY_SEED"), 10, 64); err == nil {
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("runs per writer: %d (CAIRN_RELIABILITY_ITER)%s; kill points from seed %d (CAIRN_RELIABILITY_SEED)", perWriter,
		map[bool]string{true: ", more until each writer is killed once", false: ""}[untilKilled], seed)

	// The project: an active run whose whiteboard has hand-written prose, a registered session,
	// a transcript outside the project.
	m.mustCairn("run", "start", "r1", "--issue", "7")
	m.addProse("r1")
	tr := filepath.Join(m.transcripts, "crash.jsonl")
	if _, err := transcripttest.WriteFile(tr, transcripttest.Options{Size: 48 << 10, Seed: 3, Root: m.proj}); err != nil {
		t.Fatal(err)
	}
	m.hook("sessionstart", payload("SessionStart", map[string]any{"session_id": crashSession, "cwd": m.proj, "source": "startup"}))
	sessEnv := []string{"CLAUDE_CODE_SESSION_ID=" + crashSession}

	// What must survive: the committed run keys, parked items, broadcasts, checkpoints.
	keys := map[string]string{}
	msgs := map[string]bool{}
	ctxTitles := map[string]bool{}
	events := map[string]bool{}
	st := readState(m)
	mustBeSound(t, "setup", st)
	for k, v := range st.run {
		keys[k] = v
	}

	kinds := []string{"park", "run-set", "precompact", "context-save", "broadcast", "ups-park", "archive", "session-start-end"}
	stats := map[string]*crashStats{}
	for _, k := range kinds {
		stats[k] = &crashStats{}
	}
	// Each writer's kill window: 0 to the median run time of its unkilled runs, so that kills land
	// all along a run (the process's start included) and about half of them mid-run.
	durations := map[string][]time.Duration{}
	window := func(kind string) time.Duration {
		d := slices.Clone(durations[kind])
		slices.Sort(d)
		return d[len(d)/2]
	}

	extendTranscript := func(i int) int64 {
		f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, `{"type":"user","message":{"role":"user","content":"turn %d of the crash test"},"uuid":"u%d","timestamp":"2026-11-29T10:00:00Z"}`+"\n", i, i)
		f.Close()
		fi, _ := os.Stat(tr)
		return fi.Size()
	}

	total := perWriter * len(kinds)
	unkilled := func() bool {
		for _, k := range kinds {
			if stats[k].killed == 0 {
				return true
			}
		}
		return false
	}
	var pendingArchive []string // slugs whose archive was killed before it took effect
	for i := 0; (i < total || untilKilled && unkilled() && i < 10*total) && !t.Failed(); i++ {
		kind := kinds[i%len(kinds)]
		before := readState(m)
		open := before.slugs()
		if (kind == "park" || kind == "ups-park") && len(open) >= 7 {
			kind = "archive"
		}
		if kind == "archive" && len(open) == 0 {
			kind = "park"
		}
		var s spec
		var check func(after state, r result) bool
		done := func(r result) bool { return !r.killed }
		switch kind {
		case "park":
			slug := fmt.Sprintf("crash-p%d", i)
			s = spec{name: "cairn", args: []string{"session", "park", "deferred", fmt.Sprintf("crash idea %d", i), "context of the crash test", "--slug", slug}, env: sessEnv}
			check = func(after state, r result) bool {
				if done(r) && after.parked[slug].Slug == "" {
					t.Errorf("park %s exited %d but the item is not parked", slug, r.code)
				}
				return after.parked[slug].Slug != ""
			}
		case "ups-park":
			s = spec{name: "userpromptsubmit", stdin: bytes.NewReader(payload("UserPromptSubmit", map[string]any{
				"session_id": crashSession, "cwd": m.proj, "transcript_path": tr,
				"prompt": fmt.Sprintf("let's come back to the crash%d caching idea later", i),
			}))}
			check = func(after state, r result) bool {
				added := 0
				for slug := range after.parked {
					if before.parked[slug].Slug == "" {
						added++
					}
				}
				if added > 1 || done(r) && added != 1 {
					t.Errorf("automatic parking added %d items (want %s)", added, map[bool]string{true: "1", false: "0 or 1"}[done(r)])
				}
				return added == 1
			}
		case "archive":
			target := open[rng.IntN(len(open))]
			if len(pendingArchive) > 0 && before.parked[pendingArchive[0]].Slug != "" {
				target = pendingArchive[0]
			}
			s = spec{name: "cairn", args: []string{"session", "archive", target}, env: sessEnv}
			check = func(after state, r result) bool {
				_, still := after.parked[target]
				if !still && after.audited(target, "archived") == 0 {
					t.Errorf("LOST: %s was removed from the parked items without an audit line", target)
				}
				if done(r) && (still || r.code != 0) {
					t.Errorf("archive %s exited %d; still parked: %v", target, r.code, still)
				}
				if still {
					pendingArchive = append(pendingArchive, target)
				} else {
					pendingArchive = slices.DeleteFunc(pendingArchive, func(x string) bool { return x == target })
				}
				return !still
			}
		case "run-set":
			k, v := fmt.Sprintf("crash_k%d", i), fmt.Sprintf("value %d with \"quotes\" and ünïcode", i)
			s = spec{name: "cairn", args: []string{"run", "set", k + "=" + v}}
			check = func(after state, r result) bool {
				got, ok := after.run[k]
				if ok && got != v {
					t.Errorf("state.json: %s = %q, want %q", k, got, v)
				}
				if done(r) && !ok {
					t.Errorf("run set %s exited %d but the key is missing", k, r.code)
				}
				for ak := range after.run {
					if _, was := keys[ak]; !was && ak != k {
						t.Errorf("state.json gained a key nobody set: %s", ak)
					}
				}
				if ok {
					keys[k] = v
				}
				return ok
			}
		case "precompact":
			size := extendTranscript(i)
			event := fmt.Sprintf("%s/auto/%d", crashSession, size)
			s = spec{name: "precompact", stdin: bytes.NewReader(payload("PreCompact", map[string]any{
				"session_id": crashSession, "cwd": m.proj, "transcript_path": tr, "trigger": "auto", "custom_instructions": nil,
			}))}
			check = func(after state, r result) bool {
				if n := len(after.checkpointsForEvent(event)); n > 1 || done(r) && n != 1 {
					t.Errorf("compaction %s has %d automatic checkpoints", event, n)
				}
				if !slices.Equal(after.slugs(), before.slugs()) {
					t.Errorf("a PreCompact changed the parked items: %v → %v", before.slugs(), after.slugs())
				}
				events[event] = true
				return len(after.checkpointsForEvent(event)) == 1
			}
		case "context-save":
			title := fmt.Sprintf("crash-ctx-%d", i)
			summary := fmt.Sprintf("summary of save %d", i)
			s = spec{name: "cairn", args: []string{"context", "save", title, "--summary", summary, "--notes", "n"}, env: sessEnv}
			check = func(after state, r result) bool {
				names := after.checkpointsTitled(title)
				if len(names) > 1 || done(r) && len(names) != 1 {
					t.Errorf("context save %s: %d checkpoints (exit %d)", title, len(names), r.code)
				}
				for _, n := range names {
					if got := after.checkpoints[n].Summary; got != summary {
						t.Errorf("checkpoint %s: summary %q, want %q", n, got, summary)
					}
					ctxTitles[title] = true
				}
				return len(names) == 1
			}
		case "broadcast":
			msg := fmt.Sprintf("crash broadcast %d", i)
			s = spec{name: "cairn", args: []string{"session", "broadcast", msg}, env: sessEnv}
			check = func(after state, r result) bool {
				n := after.broadcasts(msg)
				if n > 1 || done(r) && n != 1 {
					t.Errorf("broadcast %q is in the log %d times (exit %d)", msg, n, r.code)
				}
				if n == 1 {
					msgs[msg] = true
				}
				return n == 1
			}
		case "session-start-end":
			name, ev, extra := "sessionstart", "SessionStart", map[string]any{"source": "resume", "transcript_path": tr}
			if i%2 == 1 {
				name, ev, extra = "sessionend", "SessionEnd", map[string]any{"reason": "clear"}
			}
			fields := map[string]any{"session_id": crashSession, "cwd": m.proj}
			for k, v := range extra {
				fields[k] = v
			}
			s = spec{name: name, stdin: bytes.NewReader(payload(ev, fields))}
			check = func(after state, r result) bool {
				if !slices.Equal(after.slugs(), before.slugs()) {
					t.Errorf("%s changed the parked items: %v → %v", name, before.slugs(), after.slugs())
				}
				return len(after.timeline) > len(before.timeline)
			}
		}

		// The first runs of each writer measure it; then it is killed at a random point.
		st := stats[kind]
		st.runs++
		var r result
		if len(durations[kind]) < 2 {
			r = m.run(s)
		} else {
			r = m.runKilled(s, time.Duration(rng.Int64N(int64(window(kind))+1)))
		}
		if r.killed {
			st.killed++
		} else {
			st.finished++
			durations[kind] = append(durations[kind], r.dur)
			if r.name == "cairn" {
				checkCLI(t, r)
				if r.code != 0 {
					t.Errorf("%s failed without being killed: %v", kind, r)
				}
			} else {
				checkHook(t, r)
			}
		}
		after := readState(m)
		mustBeSound(t, fmt.Sprintf("after %s (run %d, killed=%v)", kind, i, r.killed), after)
		checkKept(t, kind, before, after, keys, msgs)
		if check(after, r) {
			st.committed++
		}

		// Claude Code repeats PreCompact: the repeat must complete the killed one, never duplicate.
		if kind == "precompact" {
			s.stdin = bytes.NewReader(payload("PreCompact", map[string]any{
				"session_id": crashSession, "cwd": m.proj, "transcript_path": tr, "trigger": "auto", "custom_instructions": nil,
			}))
			checkHook(t, m.run(s))
			again := readState(m)
			mustBeSound(t, "after the repeated PreCompact", again)
			size, _ := os.Stat(tr)
			event := fmt.Sprintf("%s/auto/%d", crashSession, size.Size())
			if n := len(again.checkpointsForEvent(event)); n != 1 {
				t.Errorf("after the repeat, compaction %s has %d automatic checkpoints (want 1)", event, n)
			}
			if c := again.timelineCount("compaction"); c > len(events) {
				t.Errorf("timeline: %d compaction lines for %d compactions", c, len(events))
			}
		}
	}

	// The end state: everything committed is there, every reader copes with the temp files a
	// kill leaves behind, and a clean run leaves no new temp file.
	final := readState(m)
	mustBeSound(t, "at the end", final)
	for k, v := range keys {
		if final.run[k] != v && k != "updated_at" {
			t.Errorf("LOST: state.json key %s", k)
		}
	}
	for msg := range msgs {
		if final.broadcasts(msg) != 1 {
			t.Errorf("LOST or duplicated: broadcast %q", msg)
		}
	}
	for title := range ctxTitles {
		if len(final.checkpointsTitled(title)) != 1 {
			t.Errorf("LOST or duplicated: checkpoint %s", title)
		}
	}
	temps := final.temps
	byDir := map[string]int{}
	for _, p := range temps {
		byDir[filepath.Dir(p)]++
	}
	t.Logf("temp files left by kills: %d, by directory: %v", len(temps), byDir)
	killed := 0
	for _, st := range stats {
		killed += st.killed
	}
	if len(temps) > killed {
		t.Errorf("%d temp files after %d kills: temp files accumulate beyond what kills leave", len(temps), killed)
	}
	// An archive killed between its audit line and its rewrite leaves the item logged and still
	// open (by design: never removed unlogged); archiving it again logs it a second time.
	twice := 0
	seen := map[string]int{}
	for _, e := range final.audit {
		if seen[e.Item]++; seen[e.Item] == 2 {
			twice++
		}
	}
	t.Logf("items with more than one audit line (an archive killed after logging, then repeated): %d", twice)
	checkTornTailsSkipped(t, m, final, sessEnv)
	checkReadersCope(t, m, final, sessEnv, tr)
	after := readState(m)
	if !slices.Equal(after.temps, temps) {
		t.Errorf("clean runs changed the temp files: %v → %v", temps, after.temps)
	}

	var names []string
	for k := range stats {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	totalRuns, totalKilled := 0, 0
	for _, k := range names {
		st := stats[k]
		parts = append(parts, fmt.Sprintf("%s: %d runs, %d killed mid-run, %d took effect", k, st.runs, st.killed, st.committed))
		totalRuns += st.runs
		totalKilled += st.killed
	}
	t.Logf("killed/runs per writer: %s", strings.Join(parts, ", "))
	held := "every file parsed after every kill (state.json, session-context.md, MEMORY.md, session.json, checkpoint index, every checkpoint, every JSONL line ended); old or new content only; no committed key, parked item, broadcast or checkpoint lost; no archived item without its audit line; a repeated PreCompact never duplicated a checkpoint"
	if t.Failed() {
		held = "FAILED: see the test log"
	}
	record("TestCrashAtomicity", fmt.Sprintf("SIGKILL at a random point (0 to the median run time of the writer) of %s; killed mid-run %d of %d runs (%s)",
		strings.Join(kinds, ", "), totalKilled, totalRuns, strings.Join(parts, ", ")), totalRuns, held)
	record("TestCrashAtomicity (audit log)", "archives killed between the audit line and the rewrite of session-context.md, then repeated", twice,
		"the item stays open and logged (never removed unlogged); the repeat logs it again: duplicate audit lines, no loss")
	record("TestCrashAtomicity (temp files)", fmt.Sprintf("temp files (.NAME.tmp*) left by %d kills, then every reader and writer run once", totalKilled), len(temps),
		map[bool]string{true: "FAILED", false: fmt.Sprintf("%d temp files left; never listed as checkpoints or items; resume, context list/restore, run show, inbox and every hook still work; clean runs add none", len(temps))}[t.Failed()])
}

// checkKept checks what every run must keep, killed or not: checkpoints are append-only (but
// for the removals that retention and a newer hand-off make, each logged in the timeline first), the
// audit, event and timeline logs only grow, committed keys and broadcasts stay, the prose of
// the whiteboard stays, and parked items change by at most the one the writer adds or removes.
func checkKept(t *testing.T, kind string, before, after state, keys map[string]string, msgs map[string]bool) {
	t.Helper()
	for n, c := range before.checkpoints {
		a, ok := after.checkpoints[n]
		if !ok && !after.prunedLogged(n) {
			t.Errorf("LOST: checkpoint %s disappeared without a checkpoint_pruned line (%s)", n, kind)
		} else if !ok {
			continue // a hand-off replaced, or retention: logged first
		} else if a.Summary != c.Summary || a.Event != c.Event || a.Status != c.Status {
			t.Errorf("checkpoint %s changed (%s)", n, kind)
		}
	}
	if len(after.audit) < len(before.audit) || !slices.Equal(after.audit[:len(before.audit)], before.audit) {
		t.Errorf("the audit log was rewritten, not appended to (%s)", kind)
	}
	if len(after.events) < len(before.events) || !slices.Equal(after.events[:len(before.events)], before.events) {
		t.Errorf("the event log was rewritten, not appended to (%s)", kind)
	}
	if len(after.timeline) < len(before.timeline) {
		t.Errorf("the timeline shrank (%s)", kind)
	}
	for k, v := range keys {
		if got, ok := after.run[k]; !ok || (got != v && k != "updated_at") {
			t.Errorf("LOST: state.json key %s (%q → %q) after %s", k, v, got, kind)
		}
	}
	for msg := range msgs {
		if after.broadcasts(msg) != 1 {
			t.Errorf("LOST or duplicated: broadcast %q after %s", msg, kind)
		}
	}
	if before.memory != "" && !strings.Contains(after.memory, proseSentinel) {
		t.Errorf("LOST: the whiteboard's prose after %s", kind)
	}
	gone, added := 0, 0
	for slug, it := range before.parked {
		a, ok := after.parked[slug]
		if !ok {
			gone++
		} else if a.Text != it.Text {
			t.Errorf("parked item %s changed: %q → %q (%s)", slug, it.Text, a.Text, kind)
		}
	}
	for slug := range after.parked {
		if _, ok := before.parked[slug]; !ok {
			added++
		}
	}
	if gone > 0 && kind != "archive" || gone > 1 || added > 1 || added > 0 && kind != "park" && kind != "ups-park" {
		t.Errorf("%s: parked items %v → %v", kind, before.slugs(), after.slugs())
	}
}

// checkReadersCope runs every reader and each writer once, unkilled, on the project as the kills
// left it (temp files included): all succeed, and the listings count exactly the real items.
func checkReadersCope(t *testing.T, m *machine, st state, sessEnv []string, tr string) {
	t.Helper()
	r := m.cairnEnv(sessEnv, "session", "resume", "--json")
	var res struct{ Items []json.RawMessage }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || len(res.Items) != len(st.parked) {
		t.Errorf("session resume --json lists %d items, the file holds %d: %v", len(res.Items), len(st.parked), r)
	}
	r = m.cairn("context", "list", "--all", "--json")
	var rows []json.RawMessage
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) != len(st.checkpoints) {
		t.Errorf("context list --all --json lists %d checkpoints, the directory holds %d: %v", len(rows), len(st.checkpoints), r)
	}
	for _, args := range [][]string{{"context", "restore"}, {"run", "show", "--json"}, {"session", "inbox"}, {"session", "summary"}, {"session", "list"}} {
		if r := m.cairnEnv(sessEnv, args...); r.code != 0 {
			t.Errorf("after the kills: %v", r)
		}
	}
	m.mustCairn("session", "park", "side", "after the kills", "a clean park", "--slug", "clean-after-kills")
	m.mustCairn("session", "archive", "clean-after-kills")
	m.mustCairn("run", "set", "clean_after=1")
	m.mustCairn("context", "save", "clean-after-kills", "--summary", "s")
	m.cairnEnv(sessEnv, "session", "broadcast", "clean after kills")
	for _, h := range []struct {
		name   string
		fields map[string]any
	}{
		{"precompact", map[string]any{"trigger": "manual", "custom_instructions": "after kills"}},
		{"sessionstart", map[string]any{"source": "compact"}},
		{"userpromptsubmit", map[string]any{"prompt": "ok"}},
		{"sessionend", map[string]any{"reason": "other"}},
	} {
		f := map[string]any{"session_id": crashSession, "cwd": m.proj, "transcript_path": tr}
		for k, v := range h.fields {
			f[k] = v
		}
		m.hook(h.name, payload(hookEvents[h.name], f))
	}
	final := readState(m)
	mustBeSound(t, "after the clean runs", final)
	if len(final.checkpointsTitled("clean-after-kills")) != 1 {
		t.Errorf("the clean context save did not land")
	}
}

// readerCommands are the CLI's readers of the append-only logs: the timeline (restore's tail),
// the audit log (summary, search), the event log (inbox), all of them (search).
var readerCommands = [][]string{
	{"context", "restore"}, {"session", "summary"}, {"session", "inbox"}, {"session", "list"},
	{"search", "crash"}, {"search", "session"},
}

// checkTornTailsSkipped runs every reader on a project whose logs may end in a torn record and
// fails if any prints one: a line that starts as a JSON object and does not parse.
func checkTornTailsSkipped(t *testing.T, m *machine, st state, sessEnv []string) {
	t.Helper()
	if len(st.torn) == 0 {
		return
	}
	for _, args := range readerCommands {
		r := m.cairnEnv(sessEnv, args...)
		if r.code > 1 {
			t.Errorf("with torn tails in %v: %v", slices.Sorted(maps.Keys(st.torn)), r)
		}
		for _, l := range strings.Split(r.stdout, "\n") {
			if l = strings.TrimSpace(l); safefile.TornTail([]byte(l)) > 0 {
				t.Errorf("cairn %s prints a torn record: %q (torn tails: %q)", strings.Join(args, " "), l, st.torn)
			}
		}
	}
}

// A writer killed mid-append leaves a torn last record that stays until the next append cuts it
// (CI once met one in memory/timeline.jsonl after a SessionEnd was killed, under load 21-41).
// The cut is planted here at every kind of byte, not hoped for from a kill: every reader skips
// it, the readers' counts hold, and the next append of each log starts on a clean line.
func TestTornTailAfterAKill(t *testing.T) {
	smoke(t)
	m := newMachine(t)
	sessEnv := []string{"CLAUDE_CODE_SESSION_ID=" + crashSession}
	tr := filepath.Join(m.transcripts, "torn.jsonl")
	if _, err := transcripttest.WriteFile(tr, transcripttest.Options{Size: 8 << 10, Seed: 5, Root: m.proj}); err != nil {
		t.Fatal(err)
	}
	m.hook("sessionstart", payload("SessionStart", map[string]any{"session_id": crashSession, "cwd": m.proj, "source": "startup", "transcript_path": tr}))
	m.mustCairn("session", "park", "deferred", "crash torn idea", "the torn test", "--slug", "torn-one")
	m.mustCairn("session", "archive", "torn-one")
	m.mustCairn("context", "save", "torn-test", "--summary", "restore shows the timeline's tail")
	m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=other-session-0002"}, "session", "broadcast", "crash torn message")
	m.hook("sessionend", payload("SessionEnd", map[string]any{"session_id": crashSession, "cwd": m.proj, "reason": "clear"}))
	base := readState(m)
	mustBeSound(t, "setup", base)

	logs := []string{fileTimeline, fileAudit, fileEvents}
	for _, cut := range []float64{0.1, 0.5, 0.9} {
		for _, rel := range logs {
			data, err := os.ReadFile(m.p(rel))
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			last := lines[len(lines)-1]
			m.write(m.p(rel), string(data)+string(last[:int(float64(len(last))*cut)]))
		}
		st := readState(m)
		mustBeSound(t, fmt.Sprintf("torn at %.0f%%", cut*100), st)
		if len(st.torn) != len(logs) {
			t.Fatalf("planted %d torn tails, the state reader sees %v", len(logs), st.torn)
		}
		if len(st.timeline) != len(base.timeline) || len(st.audit) != len(base.audit) || len(st.events) != len(base.events) {
			t.Errorf("torn at %.0f%%: the readers count %d/%d/%d records, %d/%d/%d before", cut*100,
				len(st.timeline), len(st.audit), len(st.events), len(base.timeline), len(base.audit), len(base.events))
		}
		if r := m.cairnEnv(sessEnv, "session", "inbox"); !strings.Contains(r.stdout, "crash torn message") {
			t.Errorf("the broadcast before the torn tail is not delivered: %v", r)
		}
		checkTornTailsSkipped(t, m, st, sessEnv)
		// The next append of each log cuts its torn record.
		m.hook("sessionstart", payload("SessionStart", map[string]any{"session_id": crashSession, "cwd": m.proj, "source": "clear", "transcript_path": tr}))
		m.mustCairn("session", "park", "deferred", "crash torn idea", "again", "--slug", "torn-one")
		m.mustCairn("session", "archive", "torn-one")
		m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=other-session-0002"}, "session", "broadcast", "crash torn message")
		after := readState(m)
		mustBeSound(t, "after the appends", after)
		if len(after.torn) != 0 || len(after.garbage) != 0 {
			t.Errorf("torn at %.0f%%: after an append of each log: torn %q, garbage %q", cut*100, after.torn, after.garbage)
		}
		base = after
	}
	record("TestTornTailAfterAKill", "a torn last record planted at 10%, 50% and 90% of the last line of the timeline, the audit log and the event log, then every reader and one append of each", 3*len(logs),
		map[bool]string{true: "FAILED: see the test log", false: "every reader skipped the torn record and counted the finished ones; the next append of each log cut it and started a clean line"}[t.Failed()])
}
