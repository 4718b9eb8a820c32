//go:build linux

package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/checkpoint/catalog"
	"github.com/cairn-hooks/cairn/pkg/registry"
	"github.com/cairn-hooks/cairn/pkg/runstate"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// worker is what one of the concurrent processes did, as the expected final state counts it.
type worker struct {
	id        int
	session   string
	parked    string   // the item it has open, "" when none
	archived  []string // the items it archived
	keys      map[string]string
	msgs      []string
	ctx       map[string]string // checkpoint title → summary
	events    map[string]bool   // distinct compactions it recorded
	starts    int               // sessionstart runs (the registration included)
	ends      int               // sessionend runs
	endEvts   int               // session_end events the registry must have logged
	delivered map[string]int    // broadcast token → times delivered to it
	ops       map[string]int
	procs     int
	failures  []string
}

var (
	parkedAs = regexp.MustCompile("cairn parked an open loop as `([a-z0-9-]+)`")
	bcToken  = regexp.MustCompile(`bc-w[0-9]+-n[0-9]+`)
)

// TestConcurrency runs 8 processes at once, each doing a random mix of 200 operations on one
// project across every writer — park and archive (by the CLI and by userpromptsubmit's automatic
// parking), run set, broadcast, context save, precompact (new and repeated compactions),
// userpromptsubmit, sessionstart and sessionend — and checks that the final state is exactly the
// sum of the operations: every parked item that was not archived is open, every archived one has
// one audit line, every key is set, every broadcast is logged once and delivered exactly once to
// every other session, every save and every compaction has exactly one checkpoint, the registry
// and the timeline count every start and end. No duplicate, no loss.
func TestConcurrency(t *testing.T) {
	smoke(t)
	const procs = 8
	// The smoke pass is one round: 5 operations per process, 40 processes in all.
	ops := envInt("CAIRN_RELIABILITY_OPS", 200, 40, 5)
	m := newMachine(t)
	m.mustCairn("run", "start", "r1", "--issue", "7")
	m.addProse("r1")
	initialKeys := len(readState(m).run)

	// Every session registers before the storm, so each must receive every other's broadcasts.
	ws := make([]*worker, procs)
	for i := range ws {
		w := &worker{
			id: i, session: fmt.Sprintf("sess-w%d-%s", i, strings.Repeat("x", 8)),
			keys: map[string]string{}, ctx: map[string]string{}, events: map[string]bool{},
			delivered: map[string]int{}, ops: map[string]int{},
		}
		ws[i] = w
		tr := filepath.Join(m.transcripts, w.session+".jsonl")
		if _, err := transcripttest.WriteFile(tr, transcripttest.Options{Size: 24 << 10, Seed: uint64(i + 1), Root: m.proj}); err != nil {
			t.Fatal(err)
		}
		m.hook("sessionstart", payload("SessionStart", map[string]any{"session_id": w.session, "cwd": m.proj, "source": "startup", "transcript_path": tr}))
		w.starts++
	}

	began := time.Now()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(m, ops)
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	total := 0
	for _, w := range ws {
		total += w.procs
		for _, f := range w.failures {
			t.Errorf("worker %d: %s", w.id, f)
		}
	}
	t.Logf("%d processes × %d operations: %d processes in %v (%.0f processes/s)", procs, ops, total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())

	// Deliver what is still unseen, through the inbox.
	for _, w := range ws {
		r := m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=" + w.session}, "session", "inbox", "--json")
		var rows []struct{ From, Msg string }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil {
			t.Fatalf("inbox of %s: %v", w.session, r)
		}
		for _, row := range rows {
			for _, tok := range bcToken.FindAllString(row.Msg, -1) {
				w.delivered[tok]++
			}
		}
	}

	st := readState(m)
	mustBeSound(t, "after the concurrent run", st)
	if len(st.temps) != 0 {
		t.Errorf("temp files left without any kill: %v", st.temps)
	}
	if !strings.Contains(st.memory, proseSentinel) {
		t.Errorf("LOST: the whiteboard's prose")
	}

	// Parked items: exactly the ones left open; one audit line per archive.
	wantOpen := map[string]bool{}
	archives := 0
	for _, w := range ws {
		if w.parked != "" {
			wantOpen[w.parked] = true
		}
		for _, a := range w.archived {
			archives++
			if n := st.audited(a, "archived"); n != 1 {
				t.Errorf("archived item %s has %d audit lines (want 1)", a, n)
			}
		}
	}
	for slug := range wantOpen {
		if _, ok := st.parked[slug]; !ok {
			t.Errorf("LOST: parked item %s", slug)
		}
	}
	for slug := range st.parked {
		if !wantOpen[slug] {
			t.Errorf("parked item %s should not be open", slug)
		}
	}
	if len(st.audit) != archives {
		t.Errorf("audit log has %d lines for %d archives", len(st.audit), archives)
	}

	// Run state: every key.
	keys := 0
	for _, w := range ws {
		for k, v := range w.keys {
			keys++
			if got, ok := st.run[k]; !ok || got != v {
				t.Errorf("LOST: state.json %s = %q (want %q)", k, got, v)
			}
		}
	}
	if len(st.run) != initialKeys+keys {
		t.Errorf("state.json has %d keys, want %d", len(st.run), initialKeys+keys)
	}

	// Broadcasts: logged once, delivered exactly once to every other session, never to the sender.
	msgs := 0
	for _, w := range ws {
		for _, msg := range w.msgs {
			msgs++
			if n := st.broadcasts(msg); n != 1 {
				t.Errorf("broadcast %s is logged %d times", msg, n)
			}
			for _, o := range ws {
				want := 1
				if o == w {
					want = 0
				}
				if n := o.delivered[msg]; n != want {
					t.Errorf("broadcast %s delivered %d times to %s (want %d)", msg, n, o.session, want)
				}
			}
		}
	}

	// Checkpoints: one per save, one per distinct compaction. Retention keeps the newest automatic
	// checkpoints of a branch: a compaction without one must be matched by a logged pruning that
	// names it, and a compaction logged as pruned must have no checkpoint left. (A pruned name can
	// be taken again by a later compaction of the same second, so the name alone proves nothing.)
	prunedFor := map[string]bool{}
	for _, ev := range st.timeline {
		comp, _ := ev["compaction"].(string)
		if ev["event"] != "checkpoint_pruned" || comp == "" {
			continue
		}
		if note, _ := ev["note"].(string); strings.HasPrefix(note, "not removed") {
			continue
		}
		prunedFor[comp] = true
		if names := st.checkpointsForEvent(comp); len(names) > 0 {
			t.Errorf("compaction %s: logged as pruned (%v) and its checkpoint %v still there", comp, ev["checkpoint"], names)
		}
	}
	saves, compactions, unkept := 0, 0, 0
	for _, w := range ws {
		for title, summary := range w.ctx {
			saves++
			names := st.checkpointsTitled(title)
			if len(names) != 1 {
				t.Errorf("context save %s has %d checkpoints", title, len(names))
				continue
			}
			if got := st.checkpoints[names[0]].Summary; got != summary {
				t.Errorf("checkpoint %s: summary %q, want %q", names[0], got, summary)
			}
		}
		for ev := range w.events {
			compactions++
			switch n := len(st.checkpointsForEvent(ev)); n {
			case 1:
			case 0:
				unkept++
				if !prunedFor[ev] {
					t.Errorf("LOST: compaction %s has no automatic checkpoint, and no pruning of it is logged", ev)
				}
			default:
				t.Errorf("compaction %s has %d automatic checkpoints", ev, n)
			}
		}
	}
	if unkept > 0 && unkept > compactions-catalog.RetainPerBranch {
		t.Errorf("%d of %d compactions have no automatic checkpoint: retention keeps the newest %d", unkept, compactions, catalog.RetainPerBranch)
	}
	// Hand-offs: at most one per session, each announced in the timeline.
	handoffs := map[string]int{}
	for n, c := range st.checkpoints {
		if c.Kind != checkpoint.KindHandoff {
			continue
		}
		handoffs[c.Branch]++
		logged := false
		for _, ev := range st.timeline {
			if cp, _ := ev["checkpoint"].(string); ev["event"] == "handoff" && strings.HasSuffix(cp, "/"+n) {
				logged = true
			}
		}
		if !logged {
			t.Errorf("hand-off %s has no handoff line in the timeline", n)
		}
	}
	nHandoffs := 0
	for _, n := range handoffs {
		nHandoffs += n
	}
	if nHandoffs > len(ws) {
		t.Errorf("%d hand-offs for %d sessions", nHandoffs, len(ws))
	}
	if len(st.checkpoints) != saves+compactions-unkept+nHandoffs {
		t.Errorf("%d checkpoints for %d saves, %d compactions (%d pruned) and %d hand-offs", len(st.checkpoints), saves, compactions, unkept, nHandoffs)
	}

	// Registry and timeline: every start and end counted.
	starts, ends := 0, 0
	for _, w := range ws {
		starts += w.starts
		ends += w.ends
		var ss, se int
		for _, e := range st.events {
			if e.From == w.session && e.Type == registry.TypeStart {
				ss++
			}
			if e.From == w.session && e.Type == registry.TypeEnd {
				se++
			}
		}
		if ss != w.starts || se != w.endEvts {
			t.Errorf("%s: %d session_start and %d session_end events, want %d and %d", w.session, ss, se, w.starts, w.endEvts)
		}
	}
	if len(st.sessions) != procs {
		t.Errorf("registry has %d sessions, want %d", len(st.sessions), procs)
	}
	if got := st.timelineCount("session_start"); got != starts {
		t.Errorf("timeline: %d session_start lines for %d starts", got, starts)
	}
	if got := st.timelineCount("session_end"); got != ends {
		t.Errorf("timeline: %d session_end lines for %d ends", got, ends)
	}
	if got := st.timelineCount("compaction"); got != compactions {
		t.Errorf("timeline: %d compaction lines for %d compactions", got, compactions)
	}
	if _, err := runstate.Active(m.proj); err != nil {
		t.Errorf("active run: %v", err)
	}

	opCount := map[string]int{}
	for _, w := range ws {
		for k, v := range w.ops {
			opCount[k] += v
		}
	}
	var names []string
	for k := range opCount {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, opCount[k]))
	}
	t.Logf("operations: %s", strings.Join(parts, ", "))
	held := fmt.Sprintf("final state = sum of the operations: %d items left open and %d archived (one audit line each), %d run keys, %d broadcasts each logged once and delivered exactly once to each of the %d other sessions, %d saves and %d compactions with one checkpoint each, %d starts and %d ends in registry and timeline; no temp file; every file sound",
		len(wantOpen), archives, keys, msgs, procs-1, saves, compactions, starts, ends)
	if t.Failed() {
		held = "FAILED: see the test log"
	}
	record("TestConcurrency", fmt.Sprintf("%d processes at once × %d random operations on one project (%s); %d processes in %v on %d cores",
		procs, ops, strings.Join(parts, ", "), total, elapsed.Round(time.Second), numCPU()), total, held)
}

// run does n random operations, each one process, and records what they must have done.
func (w *worker) run(m *machine, n int) {
	rng := rand.New(rand.NewPCG(uint64(w.id)+1, 99))
	tr := filepath.Join(m.transcripts, w.session+".jsonl")
	env := []string{"CLAUDE_CODE_SESSION_ID=" + w.session}
	lastEvent := ""
	endedBySessionEnd := false
	fail := func(format string, args ...any) { w.failures = append(w.failures, fmt.Sprintf(format, args...)) }
	cli := func(args ...string) result {
		w.procs++
		r := m.run(spec{name: "cairn", args: args, env: env})
		if p := cliProblem(r); p != "" || r.code != 0 {
			fail("%s %v", p, r)
		}
		return r
	}
	hook := func(name string, fields map[string]any) result {
		w.procs++
		fields["session_id"], fields["cwd"] = w.session, m.proj
		r := m.run(spec{name: name, stdin: bytes.NewReader(payload(hookEvents[name], fields))})
		if p := hookProblem(r); p != "" {
			fail("%s %v", p, r)
		}
		if strings.Contains(r.stderr, "error") || strings.Contains(r.stderr, "warning") {
			fail("hook reported a problem: %v", r)
		}
		return r
	}
	deliveries := func(r result) {
		for _, tok := range bcToken.FindAllString(r.stdout, -1) {
			w.delivered[tok]++
		}
	}
	for i := 0; i < n; i++ {
		switch op := rng.IntN(100); {
		case op < 25 && w.parked != "":
			w.ops["archive"]++
			r := cli("session", "archive", w.parked)
			if !strings.HasPrefix(r.stdout, "Archived: ") {
				fail("archive %s: %v", w.parked, r)
			}
			w.archived = append(w.archived, w.parked)
			w.parked = ""
		case op < 12:
			w.ops["park (cli)"]++
			slug := fmt.Sprintf("w%d-p%d", w.id, i)
			r := cli("session", "park", "question", fmt.Sprintf("concurrent question %d of worker %d", i, w.id), "which one?", "--slug", slug)
			if !strings.HasPrefix(r.stdout, "Parked: "+slug+" ") {
				fail("park %s: %v", slug, r)
			}
			w.parked = slug
		case op < 25:
			w.ops["park (userpromptsubmit)"]++
			r := hook("userpromptsubmit", map[string]any{
				"transcript_path": tr, "prompt": fmt.Sprintf("let's come back to the w%dn%d caching idea later", w.id, i),
			})
			deliveries(r)
			sm := parkedAs.FindStringSubmatch(r.stdout)
			if sm == nil {
				fail("automatic parking parked nothing: %v", r)
				continue
			}
			w.parked = sm[1]
			endedBySessionEnd = false
		case op < 40:
			w.ops["run set"]++
			k, v := fmt.Sprintf("w%d_k%d", w.id, i), fmt.Sprintf("v-%d-%d", w.id, i)
			cli("run", "set", k+"="+v)
			w.keys[k] = v
		case op < 55:
			w.ops["broadcast"]++
			msg := fmt.Sprintf("bc-w%d-n%d", w.id, i)
			cli("session", "broadcast", msg)
			w.msgs = append(w.msgs, msg)
		case op < 65:
			w.ops["context save"]++
			title, summary := fmt.Sprintf("ctx-w%d-n%d", w.id, i), fmt.Sprintf("summary %d of worker %d", i, w.id)
			cli("context", "save", title, "--summary", summary)
			w.ctx[title] = summary
		case op < 75:
			w.ops["precompact"]++
			if lastEvent == "" || rng.IntN(5) > 0 {
				f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					fail("%v", err)
					return
				}
				fmt.Fprintf(f, `{"type":"user","message":{"role":"user","content":"turn %d"},"uuid":"w%du%d","timestamp":"2026-11-29T10:00:00Z"}`+"\n", i, w.id, i)
				f.Close()
				fi, _ := os.Stat(tr)
				lastEvent = fmt.Sprintf("%s/auto/%d", w.session, fi.Size())
			} else {
				w.ops["precompact (repeat)"]++
			}
			hook("precompact", map[string]any{"transcript_path": tr, "trigger": "auto", "custom_instructions": nil})
			w.events[lastEvent] = true
		case op < 90:
			w.ops["userpromptsubmit"]++
			deliveries(hook("userpromptsubmit", map[string]any{"transcript_path": tr, "prompt": "ok"}))
			endedBySessionEnd = false
		case op < 95:
			w.ops["sessionstart"]++
			hook("sessionstart", map[string]any{"source": []string{"startup", "resume", "clear"}[rng.IntN(3)], "transcript_path": tr})
			w.starts++
			endedBySessionEnd = false
		default:
			w.ops["sessionend"]++
			hook("sessionend", map[string]any{"reason": "other", "transcript_path": tr})
			w.ends++
			if !endedBySessionEnd {
				w.endEvts++
			}
			endedBySessionEnd = true
		}
	}
}

// TestConcurrentClaims runs 8 sessions' PreToolUse hooks at once, each editing files from one
// small pool again and again, so that most edits meet another session's claim on the same file,
// and checks that no claim is lost or torn: every file a session edited holds that session's
// claim, every claim file parses whole, every session's list names each file it claimed once and
// nothing else, and every hook run kept the contract (exit 0, its own stderr, one PreToolUse
// object or nothing; never a permission decision).
func TestConcurrentClaims(t *testing.T) {
	smoke(t)
	const procs, files = 8, 6
	edits := envInt("CAIRN_RELIABILITY_OPS", 200, 40, 5)
	m := newMachine(t)
	sessions := make([]string, procs)
	for i := range sessions {
		sessions[i] = fmt.Sprintf("claim-w%d-%s", i, strings.Repeat("y", 8))
		m.hook("sessionstart", payload("SessionStart", map[string]any{"session_id": sessions[i], "cwd": m.proj, "source": "startup"}))
	}
	edited := make([]map[string]bool, procs)
	warned := make([]int, procs)
	var failures []string
	var mu sync.Mutex
	began := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		edited[i] = map[string]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i)+1, 7))
			for n := 0; n < edits; n++ {
				rel := fmt.Sprintf("src/f%d.go", rng.IntN(files))
				tool := []string{"Edit", "Write", "MultiEdit"}[rng.IntN(3)]
				r := m.run(spec{name: "pretooluse", stdin: bytes.NewReader(payload("PreToolUse", map[string]any{
					"session_id": sessions[i], "cwd": m.proj, "tool_name": tool,
					"tool_input": map[string]any{"file_path": filepath.Join(m.proj, filepath.FromSlash(rel))},
				}))})
				edited[i][rel] = true
				p := hookProblem(r)
				if p == "" && (strings.Contains(r.stderr, "error") || strings.Contains(r.stderr, "warning") || strings.Contains(r.stdout, "permissionDecision")) {
					p = "a problem reported, or a permission decision taken"
				}
				if strings.Contains(r.stdout, "additionalContext") {
					warned[i]++
				}
				if p != "" {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %s %v", sessions[i], p, r))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	for _, f := range failures {
		t.Error(f)
	}

	dirs, _ := filepath.Glob(filepath.Join(m.config, "cairn", "claims", "*"))
	if len(dirs) != 1 {
		t.Fatalf("claims directories: %v", dirs)
	}
	held := map[string]map[string]bool{} // path → sessions holding it
	names, _ := os.ReadDir(dirs[0])
	for _, e := range names {
		data, err := os.ReadFile(filepath.Join(dirs[0], e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		switch {
		case strings.HasPrefix(e.Name(), "p-"):
			path, ok := strings.CutPrefix(lines[0], "path ")
			if !ok || !strings.HasSuffix(string(data), "\n") {
				t.Errorf("TORN: claim file %s:\n%s", e.Name(), data)
				continue
			}
			held[path] = map[string]bool{}
			for _, l := range lines[1:] {
				f := strings.Fields(l)
				if len(f) != 4 {
					t.Errorf("TORN: claim file %s, line %q", e.Name(), l)
					continue
				}
				held[path][f[3]] = true
			}
		case strings.HasPrefix(e.Name(), "s-"):
			sid := strings.TrimPrefix(e.Name(), "s-")
			i := slices.Index(sessions, sid)
			if i < 0 {
				t.Errorf("a list of an unknown session: %s", e.Name())
				continue
			}
			seen := map[string]bool{}
			for _, l := range lines {
				if seen[l] || !edited[i][l] {
					t.Errorf("%s's list: %q listed twice or never edited\n%s", sid, l, data)
				}
				seen[l] = true
			}
			if len(seen) != len(edited[i]) {
				t.Errorf("LOST: %s's list names %d files, it edited %d", sid, len(seen), len(edited[i]))
			}
		default:
			t.Errorf("stray file in the claims directory: %s", e.Name())
		}
	}
	claimsHeld, told := 0, 0
	for i, sid := range sessions {
		told += warned[i]
		for rel := range edited[i] {
			claimsHeld++
			if !held[rel][sid] {
				t.Errorf("LOST: %s's claim on %s", sid, rel)
			}
		}
	}
	if told == 0 {
		t.Errorf("no edit was told of another session's claim, with %d sessions on %d files", procs, files)
	}
	held2 := fmt.Sprintf("every one of the %d claims made is in its file, no claim file torn, every session's list exact; %d edits told of another session's claim; no permission decision", claimsHeld, told)
	if t.Failed() {
		held2 = "FAILED: see the test log"
	}
	record("TestConcurrentClaims", fmt.Sprintf("%d sessions' PreToolUse at once × %d edits on a pool of %d files; %v on %d cores", procs, edits, files, elapsed.Round(time.Second), numCPU()), procs*edits, held2)
}
