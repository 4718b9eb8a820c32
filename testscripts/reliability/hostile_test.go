//go:build linux

package reliability

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// hostSession is the session id of the hostile tests' ordinary payloads.
const hostSession = "host-session-0001"

// seedProject gives m's project something to lose: an active run with keys and hand-written
// whiteboard prose, three parked items, one archived item, a broadcast, a saved context, a
// recorded compaction and a registered session. It returns the state to compare against.
func seedProject(t testing.TB, m *machine) state {
	t.Helper()
	m.mustCairn("run", "start", "r1", "--issue", "7", "--pr", "12")
	m.mustCairn("run", "set", "phase=implement", "gate_spec=pass")
	m.addProse("r1")
	tr := filepath.Join(m.transcripts, "seed.jsonl")
	if _, err := transcripttest.WriteFile(tr, transcripttest.Options{Size: 16 << 10, Seed: 11, Root: m.proj}); err != nil {
		t.Fatal(err)
	}
	m.hook("sessionstart", payload("SessionStart", map[string]any{"session_id": hostSession, "cwd": m.proj, "source": "startup", "transcript_path": tr}))
	for _, slug := range []string{"keep-one", "keep-two", "keep-three", "to-archive"} {
		m.mustCairn("session", "park", "side", "seeded item "+slug, "seeded by the reliability suite", "--slug", slug)
	}
	m.mustCairn("session", "archive", "to-archive")
	m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=" + hostSession}, "session", "broadcast", "seeded broadcast")
	m.mustCairn("context", "save", "seeded-context", "--summary", "seeded summary")
	m.hook("precompact", payload("PreCompact", map[string]any{"session_id": hostSession, "cwd": m.proj, "transcript_path": tr, "trigger": "manual", "custom_instructions": "seed"}))
	st := readState(m)
	mustBeSound(t, "the seeded project", st)
	if len(st.parked) != 3 || len(st.audit) != 1 || len(st.checkpoints) != 2 {
		t.Fatalf("seeded project: %d parked, %d audit lines, %d checkpoints", len(st.parked), len(st.audit), len(st.checkpoints))
	}
	return st
}

// checkIntact fails if anything of base is damaged or lost in m's project: every file still
// parses, the checkpoints, run keys, parked items (same text), audit and event lines and the
// whiteboard's prose are all still there. Additions are allowed.
func checkIntact(t testing.TB, what string, m *machine, base state) state {
	t.Helper()
	st := readState(m)
	mustBeSound(t, what, st)
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
		if a, ok := st.parked[slug]; !ok || a.Text != it.Text {
			t.Errorf("%s: parked item %s lost or changed", what, slug)
		}
	}
	if len(st.audit) < len(base.audit) || !slices.Equal(st.audit[:len(base.audit)], base.audit) {
		t.Errorf("%s: audit log lost lines", what)
	}
	if len(st.events) < len(base.events) || !slices.Equal(st.events[:len(base.events)], base.events) {
		t.Errorf("%s: event log lost lines", what)
	}
	if base.memory != "" && !strings.Contains(st.memory, proseSentinel) {
		t.Errorf("%s: the whiteboard's prose is lost", what)
	}
	return st
}

// noForgery fails if a bullet planted by hostile input became a parked item of its own (slug
// "forged-evil"), or if a name from input became a path inside the project (checkpoint names,
// which are made from titles by design, excepted).
func noForgery(t testing.TB, what string, m *machine, st state, names ...string) {
	t.Helper()
	if _, ok := st.parked["forged-evil"]; ok {
		t.Errorf("%s: a forged bullet became a parked item", what)
	}
	filepath.WalkDir(m.proj, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			for _, n := range names {
				if strings.Contains(d.Name(), n) && !strings.Contains(p, "/checkpoints/") {
					t.Errorf("%s: a path named from input: %s", what, p)
				}
			}
		}
		return nil
	})
}

// newItems counts the parked items of st that base does not have.
func newItems(base, st state) int {
	n := 0
	for slug := range st.parked {
		if _, ok := base.parked[slug]; !ok {
			n++
		}
	}
	return n
}

// runOpenStdin runs s with a stdin pipe that receives prefix and is then left open, never
// closed, as Claude Code sometimes leaves it; the pipe is closed only after the process exits or
// after limit.
func (m *machine) runOpenStdin(s spec, prefix []byte, limit time.Duration) (result, bool) {
	m.t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		m.t.Fatal(err)
	}
	defer w.Close()
	s.stdin = r
	began := time.Now()
	cmd, stdout, stderr := m.start(s)
	r.Close()
	if len(prefix) > 0 {
		w.Write(prefix)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return finish(s, cmd, stdout, stderr, began, err), true
	case <-time.After(limit):
		syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		err := <-done
		return finish(s, cmd, stdout, stderr, began, err), false
	}
}

// basePayload is a well-formed payload of each hook's event for m's project.
func basePayload(m *machine, name string, tr string) map[string]any {
	f := map[string]any{"session_id": hostSession, "cwd": m.proj, "transcript_path": tr}
	switch name {
	case "precompact":
		f["trigger"], f["custom_instructions"] = "auto", nil
	case "postcompact":
		f["trigger"], f["compact_summary"] = "auto", "We moved the cache behind an interface; next, the hostile tests."
	case "sessionstart":
		f["source"] = "compact"
	case "sessionend":
		f["reason"] = "clear"
	case "userpromptsubmit":
		f["prompt"] = "ok"
	case "pretooluse":
		f["tool_name"], f["tool_input"] = "Edit", map[string]any{"file_path": filepath.Join(m.proj, "src", "a.go"), "old_string": "x", "new_string": "y"}
	}
	return f
}

// TestHostileStdin feeds every hook bad stdin: empty, garbage, truncated, 50 MB, 100,000 levels
// of nesting, invalid UTF-8 and NULs, a byte-order mark, several objects, non-objects, and a
// stdin that never closes (empty, after a partial object, after a whole one).
func TestHostileStdin(t *testing.T) {
	heavy(t, "50 MB stdins to every hook, and stdins left open until the hooks' 2 s deadline")
	m := newMachine(t)
	base := seedProject(t, m)
	outside := snapshot(t, m.outsideDirs()...)

	big := func(n int, fill byte) []byte { return bytes.Repeat([]byte{fill}, n) }
	valid := func(name string) []byte { return payload(hookEvents[name], basePayload(m, name, "")) }
	cases := []struct {
		name  string
		stdin func(hook string) []byte
	}{
		{"empty", func(string) []byte { return nil }},
		{"whitespace", func(string) []byte { return []byte(" \n\t\r\n") }},
		{"garbage", func(string) []byte { return []byte("this is not json at all } { ] [") }},
		{"truncated", func(h string) []byte { v := valid(h); return v[:len(v)/2] }},
		{"50 MB JSON object", func(h string) []byte {
			return []byte(fmt.Sprintf(`{"hook_event_name":%q,"session_id":"s","cwd":%q,"prompt":"%s"}`, hookEvents[h], m.proj, big(50<<20, 'x')))
		}},
		{"50 MB garbage", func(string) []byte { return big(50<<20, 0xfe) }},
		{"100,000 [", func(string) []byte { return big(100000, '[') }},
		{"100,000 nested objects", func(string) []byte { return []byte(strings.Repeat(`{"a":`, 100000)) }},
		{"100,000 nested arrays in a field", func(h string) []byte {
			return []byte(fmt.Sprintf(`{"hook_event_name":%q,"cwd":%q,"x":%s1%s}`, hookEvents[h], m.proj, big(100000, '['), big(100000, ']')))
		}},
		{"invalid UTF-8 in strings", func(h string) []byte {
			return []byte(fmt.Sprintf(`{"hook_event_name":%q,"session_id":"s\xff\xfe","cwd":%q,"prompt":"park this \xc3\x28 for later","source":"\xed\xa0\x80","trigger":"\xff","reason":"\xff"}`, hookEvents[h], m.proj))
		}},
		{"raw NUL bytes", func(h string) []byte {
			return []byte(fmt.Sprintf("{\"hook_event_name\":%q,\"session_id\":\"a\x00b\",\"cwd\":%q}", hookEvents[h], m.proj))
		}},
		{"escaped NULs", func(h string) []byte {
			return []byte(fmt.Sprintf(`{"hook_event_name":%q,"session_id":"a\u0000b","cwd":%q,"prompt":"x\u0000y park this for later"}`, hookEvents[h], m.proj))
		}},
		{"byte-order mark", func(h string) []byte { return append([]byte("\xef\xbb\xbf"), valid(h)...) }},
		{"two objects", func(h string) []byte { return append(valid(h), valid(h)...) }},
		{"array", func(string) []byte { return []byte(`[{"session_id":"s"}]`) }},
		{"number", func(string) []byte { return []byte(`42`) }},
		{"null", func(string) []byte { return []byte(`null`) }},
		{"wrong field types", func(h string) []byte {
			return []byte(fmt.Sprintf(`{"hook_event_name":%q,"session_id":{"a":1},"cwd":%q,"transcript_path":[1],"prompt":7,"source":null,"trigger":true,"custom_instructions":{"x":[]}}`, hookEvents[h], m.proj))
		}},
		{"huge number", func(h string) []byte {
			return []byte(fmt.Sprintf(`{"hook_event_name":%q,"cwd":%q,"session_id":1e999999}`, hookEvents[h], m.proj))
		}},
	}
	runs := 0
	for _, c := range cases {
		for _, h := range hooks {
			r := m.run(spec{name: h, stdin: bytes.NewReader(c.stdin(h))})
			runs++
			if p := hookProblem(r); p != "" {
				t.Errorf("%s, %s: %s\n%v", h, c.name, p, r)
			}
		}
		checkIntact(t, c.name, m, base)
	}

	// A stdin that never closes: empty, a partial object, a whole object. The runs wait out the
	// 2 s deadline, so they run side by side.
	type openRun struct {
		hook   string
		prefix []byte
		r      result
		exited bool
	}
	var open []*openRun
	for _, h := range hooks {
		for _, prefix := range [][]byte{nil, valid(h)[:20], valid(h)} {
			open = append(open, &openRun{hook: h, prefix: prefix})
		}
	}
	var wg sync.WaitGroup
	for _, o := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.r, o.exited = m.runOpenStdin(spec{name: o.hook}, o.prefix, 30*time.Second)
		}()
	}
	wg.Wait()
	var slowest time.Duration
	for _, o := range open {
		runs++
		if !o.exited {
			t.Errorf("%s did not exit within 10 s with a stdin that never closes (prefix %q)", o.hook, o.prefix)
			continue
		}
		slowest = max(slowest, o.r.dur)
		if p := hookProblem(o.r); p != "" {
			t.Errorf("%s, stdin never closed after %q: %s\n%v", o.hook, o.prefix, p, o.r)
		}
		// After a whole object the hook must go on at once, not wait for EOF.
		if len(o.prefix) > 0 && o.prefix[len(o.prefix)-1] == '\n' && strings.Contains(o.r.stderr, "no input") {
			t.Errorf("%s waited for EOF after a complete payload: %v", o.hook, o.r)
		}
	}
	// The whole object with an open stdin really is acted on: a deferral is parked at once.
	pl := basePayload(m, "userpromptsubmit", "")
	pl["prompt"] = "let's come back to the open-stdin idea later"
	r, exited := m.runOpenStdin(spec{name: "userpromptsubmit"}, payload("UserPromptSubmit", pl), 30*time.Second)
	runs++
	if !exited || !strings.Contains(r.stdout, "cairn parked an open loop") {
		t.Errorf("a complete payload on a stdin left open was not acted on: %v", r)
	}
	m.mustCairn("session", "archive", "open-stdin")
	checkIntact(t, "stdin never closed", m, base)
	m.checkUnchanged(t, "hostile stdin", outside)
	t.Logf("slowest exit with a stdin never closed: %v", slowest.Round(time.Millisecond))

	record("TestHostileStdin", fmt.Sprintf("every hook × %d kinds of bad stdin (empty, garbage, truncated, 50 MB object, 50 MB garbage, 100,000 `[`, 100,000 nested objects, invalid UTF-8, raw and escaped NULs, BOM, two objects, non-objects, wrong types) and a stdin never closed (empty, half an object, a whole object)", len(cases)), runs,
		verdict(t, fmt.Sprintf("exit 0, stdout empty or one protocol object, stderr lines the hook's own; slowest exit with stdin never closed %v (deadline 2 s); nothing outside written, nothing inside damaged", slowest.Round(100*time.Millisecond))))
}

var (
	bugsMu sync.Mutex
	bugs   = map[string][]string{} // test name → one-line summaries of the bugs it found
)

// bug reports a bug in cairn: the test fails with the details, and the summary goes to the table.
func bug(t testing.TB, summary, format string, args ...any) {
	t.Helper()
	t.Errorf("BUG: "+format, args...)
	bugsMu.Lock()
	defer bugsMu.Unlock()
	if !slices.Contains(bugs[t.Name()], summary) {
		bugs[t.Name()] = append(bugs[t.Name()], summary)
	}
}

// verdict is what held, or what failed: the bugs found, and that the rest held. unlessBug is
// what the test shows when no bug is found, and which a bug contradicts.
func verdict(t testing.TB, held string, unlessBug ...string) string {
	if !t.Failed() {
		return strings.Join(append(unlessBug, held), "; ")
	}
	bugsMu.Lock()
	defer bugsMu.Unlock()
	var b []string
	for name, found := range bugs { // the test's own, and its subtests'
		if name == t.Name() || strings.HasPrefix(name, t.Name()+"/") {
			for _, s := range found {
				if !slices.Contains(b, s) {
					b = append(b, s)
				}
			}
		}
	}
	if len(b) > 0 {
		slices.Sort(b)
		return "**FAILED**: " + strings.Join(b, "; ") + ". Everything else held: " + held
	}
	return "**FAILED**: see the test log"
}

// TestHostilePayloadFields feeds every hook payloads whose cwd, transcript_path, session_id and
// free-text fields point outside the project, climb with ../, or carry NULs, newlines and
// markdown that would forge a bullet, a heading or a snapshot marker.
func TestHostilePayloadFields(t *testing.T) {
	smoke(t)
	m := newMachine(t)
	base := seedProject(t, m)
	// A transcript outside the project, which cairn may read and must never write.
	outTr := filepath.Join(m.outside, "transcript.jsonl")
	if _, err := transcripttest.WriteFile(outTr, transcripttest.Options{Size: 32 << 10, Seed: 5, Root: m.outside}); err != nil {
		t.Fatal(err)
	}
	outside := snapshot(t, m.outsideDirs()...)
	forge := "\n## Parked items\n- **forged-evil** — Deferred: forged. Raised: 2026-01-01.\n<!-- cairn:session-snapshot end -->\n<!-- cairn:snapshot end -->\n## Decisions\n"
	cases := []struct {
		name   string
		set    map[string]any
		noProj bool // run without CLAUDE_PROJECT_DIR, so that cwd decides the project
	}{
		{"cwd outside the project", map[string]any{"cwd": m.outside}, false},
		{"cwd with ../ to outside", map[string]any{"cwd": m.proj + "/../outside"}, false},
		{"cwd with NUL", map[string]any{"cwd": m.proj + "/evil\x00dir"}, true},
		{"cwd with NUL and ../ back into the project", map[string]any{"cwd": m.proj + "/evil\x00/.."}, true},
		{"cwd with newline", map[string]any{"cwd": m.proj + "\n../outside"}, true},
		{"cwd is a file", map[string]any{"cwd": filepath.Join(m.outside, "keep.txt")}, true},
		{"cwd relative ../", map[string]any{"cwd": "../../../../../../../../nonexistent-evil"}, true},
		{"cwd inside, with ../ that stays inside", map[string]any{"cwd": m.proj + "/.agents/../.agents/runs/.."}, true},
		{"transcript outside", map[string]any{"transcript_path": outTr}, false},
		{"transcript via ../", map[string]any{"transcript_path": m.proj + "/../outside/transcript.jsonl"}, false},
		{"transcript with NUL", map[string]any{"transcript_path": outTr + "\x00.jsonl"}, false},
		{"transcript with newline", map[string]any{"transcript_path": outTr + "\n"}, false},
		{"transcript relative", map[string]any{"transcript_path": "../outside/transcript.jsonl"}, false},
		{"session id ../ outside", map[string]any{"session_id": "../../outside/evil"}, false},
		{"session id absolute", map[string]any{"session_id": m.outside + "/evil"}, false},
		{"session id with NUL", map[string]any{"session_id": "evil\x00../../x"}, false},
		{"session id forging lines", map[string]any{"session_id": "evil" + forge}, false},
		{"session id 10 KB", map[string]any{"session_id": strings.Repeat("evil", 2500)}, false},
		{"session id empty", map[string]any{"session_id": ""}, false},
		{"prompt forging lines", map[string]any{"prompt": "park this for later: x" + forge}, false},
		{"prompt 3 MB", map[string]any{"prompt": "let's come back to this later " + strings.Repeat("big ", 750000)}, false},
		{"instructions forging lines", map[string]any{"custom_instructions": "evil" + forge + strings.Repeat("x", 100000)}, false},
		{"source, trigger, reason hostile", map[string]any{"source": "../../evil" + forge, "trigger": "../../evil" + forge, "reason": "evil\x00"}, false},
	}
	runs := 0
	for _, c := range cases {
		for _, h := range hooks {
			f := basePayload(m, h, "")
			for k, v := range c.set {
				f[k] = v
			}
			savedEnv := m.projEnv
			m.projEnv = !c.noProj
			r := m.run(spec{name: h, stdin: bytes.NewReader(payload(hookEvents[h], f))})
			m.projEnv = savedEnv
			runs++
			if p := hookProblem(r); p != "" {
				t.Errorf("%s, %s: %s\n%v", h, c.name, p, r)
			}
		}
		st := checkIntact(t, c.name, m, base)
		noForgery(t, c.name, m, st, "evil", "forged")
		if n := newItems(base, st); n > 1 {
			t.Errorf("%s: %d items parked by one payload per hook", c.name, n)
		}
		// Items the prompts parked are archived again, so the guard of 10 never trips.
		for slug := range st.parked {
			if _, seeded := base.parked[slug]; !seeded {
				m.mustCairn("session", "archive", slug)
			}
		}
	}
	m.checkUnchanged(t, "hostile payload fields", outside)
	record("TestHostilePayloadFields", fmt.Sprintf("every hook × %d payloads: cwd, transcript_path and session_id outside the project, with ../, NUL, newline, 10 KB; prompt, custom_instructions, source, trigger, reason forging a bullet, a heading and the snapshot markers", len(cases)), runs,
		verdict(t, "exit 0 and protocol-only stdout; the outside transcript only read; no path or parked item named from input; every file sound; the seeded items intact"))
}

// TestHostileTranscripts points every hook that reads the transcript at things that are not a
// transcript: a directory, a FIFO with no writer, /dev/zero, a symlink to /dev/zero, an
// unreadable file, binary garbage, a 60 MB single line (inside a real transcript, and alone
// without a newline), and a file that does not exist.
func TestHostileTranscripts(t *testing.T) {
	heavy(t, "60 MB transcripts, /dev/zero and FIFOs for every hook")
	m := newMachine(t)
	base := seedProject(t, m)
	dir := m.transcripts
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "unreadable.jsonl")
	if _, err := transcripttest.WriteFile(unreadable, transcripttest.Options{Size: 8 << 10, Seed: 2, Root: m.proj}); err != nil {
		t.Fatal(err)
	}
	os.Chmod(unreadable, 0)
	garbage := filepath.Join(dir, "garbage.jsonl")
	g := bytes.Repeat([]byte("\x00\xff{\"type\":\n\x7f\xfe"), 100000)
	os.WriteFile(garbage, g, 0o644)
	longInside := filepath.Join(dir, "long-line.jsonl")
	if _, err := transcripttest.WriteFile(longInside, transcripttest.Options{Size: 64 << 10, LongLine: 60 << 20, Seed: 4, Root: m.proj, Boundaries: 1}); err != nil {
		t.Fatal(err)
	}
	longAlone := filepath.Join(dir, "one-line.jsonl")
	f, err := os.Create(longAlone)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"`)
	chunk := bytes.Repeat([]byte("Shall we? "), 1<<20/10)
	for i := 0; i < 60; i++ {
		f.Write(chunk)
	}
	f.Close()
	zeroLink := filepath.Join(dir, "zero.jsonl")
	os.Symlink("/dev/zero", zeroLink)
	outside := snapshot(t, m.outsideDirs()...)

	cases := []struct{ name, path string }{
		{"a directory", dir},
		{"a FIFO with no writer", fifo},
		{"/dev/zero", "/dev/zero"},
		{"a symlink to /dev/zero", zeroLink},
		{"mode 000 (root reads it anyway)", unreadable},
		{"1.2 MB of binary garbage", garbage},
		{"a 60 MB line inside a real transcript", longInside},
		{"one 60 MB line without a newline", longAlone},
		{"missing", filepath.Join(dir, "missing.jsonl")},
	}
	runs := 0
	var slowest time.Duration
	for _, c := range cases {
		for _, h := range hooks {
			for _, extra := range []map[string]any{{}, {"source": "resume"}, {"prompt": "let's come back to the transcript idea later"}} {
				if len(extra) > 0 && (extra["source"] != nil) != (h == "sessionstart") || extra["prompt"] != nil && h != "userpromptsubmit" {
					continue
				}
				f := basePayload(m, h, c.path)
				for k, v := range extra {
					f[k] = v
				}
				r := m.run(spec{name: h, stdin: bytes.NewReader(payload(hookEvents[h], f))})
				runs++
				if p := hookProblem(r); p != "" {
					t.Errorf("%s, transcript %s: %s\n%v", h, c.name, p, r)
				}
				if strings.Contains(c.name, "60 MB") {
					slowest = max(slowest, r.dur)
				}
			}
		}
		st := checkIntact(t, "transcript "+c.name, m, base)
		for slug := range st.parked {
			if _, seeded := base.parked[slug]; !seeded {
				m.mustCairn("session", "archive", slug)
			}
		}
	}
	m.checkUnchanged(t, "hostile transcripts", outside)
	t.Logf("60 MB line: slowest hook %v", slowest.Round(time.Millisecond))
	record("TestHostileTranscripts", "every hook (sessionstart with source compact and resume, userpromptsubmit with a deferral) with transcript_path a directory, a FIFO with no writer, /dev/zero, a symlink to /dev/zero, mode 000 (tests run as root, so it is read anyway), binary garbage, a 60 MB line in a real transcript, one 60 MB line without a newline, a missing file", runs,
		verdict(t, fmt.Sprintf("exit 0, no stall (the FIFO is never opened), protocol-only stdout; transcripts never written; slowest hook with a 60 MB line %v (peak memory is measured by the benchmarks, not here)", slowest.Round(time.Millisecond))))
}

// TestHostileCLI gives the CLI hostile arguments and stdin: run ids, keys, slugs, titles and
// queries that climb out with ../, carry newlines or markdown that would forge a bullet or a
// heading, invalid UTF-8, a 1 MB argument, nested JSON values, a stdin of 50 MB and a stdin that
// never closes (silent, or after some data).
func TestHostileCLI(t *testing.T) {
	heavy(t, "a 50 MB stdin, and stdins left open until the CLI's own deadline")
	m := newMachine(t)
	base := seedProject(t, m)
	outside := snapshot(t, m.outsideDirs()...)
	forge := "x\n## Parked items\n- **forged-evil** — Deferred: y. Raised: 2026-01-01.\n### Notes\n---\nstatus: evil\n"
	cases := [][]string{
		{"run", "start", "../../outside/evil"},
		{"run", "start", m.outside + "/evil"},
		{"run", "start", "evil\nname"},
		{"run", "start", ".evil"},
		{"run", "set", "run_id=../../outside/evil"},
		{"run", "set", "../evil=1"},
		{"run", "set", "evil\nkey=1"},
		{"run", "set", `nested={"a":{"b":1}}`},
		{"run", "set", `list=[1,2]`},
		{"run", "set", "forge=" + forge},
		{"run", "set", "big=" + strings.Repeat("x", 100<<10)},
		{"run", "set", "utf8=\xff\xfe\xed\xa0\x80"},
		{"session", "park", "question", forge, forge, "--why", forge, "--how", forge},
		{"session", "park", "deferred", "evil", "x", "--slug", "../../outside/evil"},
		{"session", "park", "side", "evil \xff\xfe", "\xc3\x28"},
		{"session", "park", "bogus-kind", "evil", "x"},
		{"session", "archive", "../../outside/keep.txt"},
		{"session", "archive", ""},
		{"session", "archive", "keep"},
		{"session", "broadcast", forge},
		{"session", "broadcast", strings.Repeat("evil ", 1000)},
		{"context", "save", "../../../outside/evil", "--summary", forge},
		{"context", "save", forge, "--notes", forge, "--status", "evil/../x"},
		{"context", "save", "\xff\xfe evil", "--decisions", "\x01\x7f"},
		{"context", "restore", "../../../outside/keep.txt"},
		{"context", "restore", "999999"},
		{"context", "restore", "-1"},
		{"context", "list", "--all", "evil"},
		{"session", "summary", "extra"},
		{"nonsense"},
		{"run"},
		{"session", "park"},
	}
	runs := 0
	for _, args := range cases {
		r := m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=" + hostSession}, args...)
		runs++
		st := checkIntact(t, fmt.Sprintf("cairn %q", args), m, base)
		noForgery(t, fmt.Sprintf("cairn %q", args), m, st, "evil")
		if n := newItems(base, st); n > 1 || n == 1 && (len(args) < 2 || args[1] != "park") {
			t.Errorf("cairn %q parked %d items: %v", args, n, r)
		}
		for slug := range st.parked {
			if _, seeded := base.parked[slug]; !seeded {
				m.mustCairn("session", "archive", slug)
			}
		}
	}
	// Hostile session ids in the environment.
	for _, sid := range []string{"../../outside/evil", "evil\nx", strings.Repeat("e", 5000)} {
		for _, args := range [][]string{{"session", "summary"}, {"session", "inbox"}, {"session", "broadcast", "hi"}, {"context", "save", "sid-test"}} {
			m.cairnEnv([]string{"CLAUDE_CODE_SESSION_ID=" + sid}, args...)
			runs++
			noForgery(t, "CLAUDE_CODE_SESSION_ID "+sid, m, checkIntact(t, "hostile CLAUDE_CODE_SESSION_ID", m, base), "evil")
		}
	}
	// stdin: 50 MB is refused; a silent stdin that stays open does not stall a save.
	r := m.run(spec{name: "cairn", args: []string{"context", "save", "big-stdin"}, stdin: bytes.NewReader(bytes.Repeat([]byte("### Summary\nbig\n"), 50<<20/16))})
	runs++
	checkCLI(t, r)
	if r.code != 1 {
		t.Errorf("a 50 MB stdin was not refused: %v", r)
	}
	// A silent stdin left open, and one that stalls after some data: side by side (each waits).
	var silent, stalled result
	var silentExited, stalledExited bool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		silent, silentExited = m.runOpenStdin(spec{name: "cairn", args: []string{"context", "save", "silent-stdin"}}, nil, 30*time.Second)
	}()
	go func() {
		defer wg.Done()
		stalled, stalledExited = m.runOpenStdin(spec{name: "cairn", args: []string{"context", "save", "stalled-stdin"}}, []byte("### Summary\nsome text, then the writer stalls"), 30*time.Second)
	}()
	wg.Wait()
	runs += 2
	if !silentExited || silent.code != 0 {
		t.Errorf("context save with a silent stdin left open: exited=%v %v", silentExited, silent)
	}
	checkCLI(t, silent)
	if !stalledExited {
		bug(t, "`cairn context save` hangs forever when stdin delivers some bytes and then stays open",
			"cairn context save never exits when stdin delivers some data and then stays open (killed after 6 s; the hooks give up after 2 s): %v", stalled)
	} else {
		checkCLI(t, stalled)
	}
	checkIntact(t, "hostile CLI", m, base)
	m.checkUnchanged(t, "hostile CLI", outside)
	record("TestHostileCLI", fmt.Sprintf("%d hostile command lines (../ and absolute run ids, slugs, titles, queries; newlines and markdown forging bullets, headings, frontmatter; invalid UTF-8; 100 KB values; nested JSON; unknown commands), hostile CLAUDE_CODE_SESSION_ID, a 50 MB stdin, a silent stdin left open, a stdin that stalls after some data", len(cases)), runs,
		verdict(t, "exit 0, 1 or 2 with exactly one cairn: error|usage|refused line; no path or item named from input; nothing outside written; the seeded items intact"))
}

// TestDamagedSessionContext damages session-context.md the way a hand edit can — the snapshot
// section loses its end line — and checks that parked items stay visible: listed, parkable,
// archivable, before and after PreCompact repairs the section.
func TestDamagedSessionContext(t *testing.T) {
	smoke(t)
	m := newMachine(t)
	m.mustCairn("session", "park", "side", "first idea", "x", "--slug", "first")
	pc := payload("PreCompact", map[string]any{"session_id": hostSession, "cwd": m.proj, "trigger": "auto"})
	m.hook("precompact", pc)
	data, err := os.ReadFile(m.p(fileContext))
	if err != nil {
		t.Fatal(err)
	}
	damaged := strings.Replace(string(data), "<!-- cairn:session-snapshot end -->\n", "", 1)
	if damaged == string(data) {
		t.Fatalf("no snapshot end line in:\n%s", data)
	}
	m.write(m.p(fileContext), damaged)

	listed := func(when string, want ...string) {
		t.Helper()
		r := m.cairn("session", "resume", "--json")
		for _, slug := range want {
			if !strings.Contains(r.stdout, `"slug": "`+slug+`"`) {
				bug(t, "with the snapshot section's end line deleted, parked items are not listed, and an item parked then is never listed (not even after PreCompact repairs the section)",
					"%s: parked item %s is not listed by cairn session resume:\n%s\nsession-context.md:\n%s", when, slug, r.stdout, readFile(m.p(fileContext)))
			}
		}
	}
	listed("snapshot end line removed by hand", "first")
	r := m.mustCairn("session", "park", "side", "second idea", "y", "--slug", "second")
	t.Logf("%s", strings.TrimSpace(r.stdout))
	listed("parked after the damage", "first", "second")
	m.hook("precompact", pc) // PreCompact rewrites its section, end line included
	listed("after PreCompact repaired the snapshot section", "first", "second")
	if r := m.cairn("session", "archive", "second"); r.code != 0 {
		bug(t, "that item cannot be archived (no match): it is lost to every reader", "LOST: the item parked while the section was damaged cannot be archived: %v", r)
	}
	record("TestDamagedSessionContext", "session-context.md with the snapshot section's end line deleted by hand; then park, resume, PreCompact, archive", 7,
		verdict(t, "hooks and CLI keep their contracts", "parked items stay listed, parkable and archivable"))
}

func readFile(p string) string {
	data, _ := os.ReadFile(p)
	return string(data)
}
