// Package testscripts runs the .txtar scripts in testdata/ against the real cairn binaries,
// built once, on a fake machine under $WORK: a HOME, a Claude config dir and a git project.
package testscripts

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"unicode/utf16"

	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
	"github.com/cairn-hooks/cairn/pkg/version"
	"github.com/cairn-hooks/cairn/testscripts/testbin"
)

var update = flag.Bool("u", false, "update testscript files with actual output")

var binDir string

// installCache is the cache directory (XDG_CACHE_HOME) that install.sh runs share.
var installCache string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, cleanup, err := testbin.Build("..", "cairn-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	binDir = dir
	if installCache, err = os.MkdirTemp("", "cairn-install-cache-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(installCache)
	// A sessionend of another version, for doctor-wiring: doctor reads versions from the build
	// information, so an old binary must be a real one.
	old := exec.Command("go", "build", "-o", filepath.Join(dir, "old", "sessionend"),
		"-trimpath", "-ldflags", version.Flag("0.0.1"), "./hooks/sessionend")
	old.Dir = ".."
	if out, err := old.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building an old sessionend: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

func TestScripts(t *testing.T) {
	testbin.TouchSources("..")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup:               setup,
		Cmds:                commands,
	})
}

// setup builds the fake machine: HOME and CLAUDE_CONFIG_DIR under $WORK, a git project at
// $WORK/proj with one commit, and the binaries first on PATH.
func setup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	proj := filepath.Join(env.WorkDir, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
	env.Setenv("HOME", home)
	env.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude"))
	env.Setenv("PROJ", proj)
	env.Setenv("OLDBIN", filepath.Join(binDir, "old"))
	env.Setenv("TZ", "UTC")
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "cairn test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
		"GIT_COMMITTER_NAME": "cairn test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
	} {
		env.Setenv(k, v)
	}
	var gitEnv []string
	for _, k := range env.Vars {
		gitEnv = append(gitEnv, k)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"commit", "-q", "--allow-empty", "-m", "initial commit"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), gitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

var commands = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"payload":    cmdPayload,
	"backdate":   cmdBackdate,
	"bigfile":    cmdBigfile,
	"stallstdin": cmdStallStdin,
	"linecount":  cmdLineCount,
	"nooutside":  cmdNoOutside,
	"noleak":     cmdNoLeak,
	"ctxlen":     cmdCtxLen,

	// Parked items (pkg/parking): see the block "Parked items" at the end of this file.
	"parkitem":   cmdParkItem,
	"dateago":    cmdDateAgo,
	"projslugs":  cmdProjSlugs,
	"auditcheck": cmdAuditCheck,
	"crlf":       cmdCRLF,

	// Checkpoints (pkg/checkpoint): see the block "Checkpoints" at the end of this file.
	"newestckpt": cmdNewestCkpt,
	"ckptclash":  cmdCkptClash,

	// Search (pkg/search).
	"grabvar":    cmdGrabVar,
	"transcript": cmdTranscript,
	"manyfiles":  cmdManyFiles,

	// File claims (pkg/claims).
	"backclaim": cmdBackclaim,
}

// backclaim REL DURATION moves every claim on the project file REL (relative to the root, with
// '/') into the past, its start and its last touch, in the claim files under
// $CLAUDE_CONFIG_DIR/cairn/claims: scripts move data, not the clock.
func cmdBackclaim(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: backclaim REL DURATION")
	}
	d := parseAge(ts, args[1])
	files, _ := filepath.Glob(filepath.Join(ts.Getenv("CLAUDE_CONFIG_DIR"), "cairn", "claims", "*", "p-*"))
	moved := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		ts.Check(err)
		lines := strings.Split(string(data), "\n")
		if lines[0] != "path "+args[0] {
			continue
		}
		for i, l := range lines[1:] {
			fields := strings.SplitN(l, " ", 3)
			if len(fields) != 3 {
				continue
			}
			for j := 0; j < 2; j++ {
				t, err := time.Parse(time.RFC3339, fields[j])
				ts.Check(err)
				fields[j] = t.Add(-d).UTC().Format(time.RFC3339)
			}
			lines[i+1] = strings.Join(fields, " ")
			moved++
		}
		ts.Check(os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o600))
	}
	if moved == 0 {
		ts.Fatalf("backclaim: no claim on %s", args[0])
	}
}

// transcript FILE [cwd=DIR] [branch=B] [days=N] STEP ARGS… appends to FILE the lines of one step
// of a session, in the shapes Claude Code writes (transcripttest.Session); the session's id is
// FILE's base name, its cwd $PROJ, its branch main and its time N days ago (0) unless given. Steps:
// prompt TEXT, say TEXT, bash COMMAND EXIT OUTPUT, edit PATH, read PATH BYTES, compact SUMMARY;
// "torn" before a step writes the first half of its last line only, and the step "rest" writes
// the other half.
func cmdTranscript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: transcript FILE [cwd=DIR] [branch=B] [days=N] [torn] STEP ARGS…")
	}
	path := ts.MkAbs(args[0])
	s := &transcripttest.Session{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Cwd: ts.Getenv("PROJ"), Branch: "main", Time: time.Now()}
	args = args[1:]
	for len(args) > 0 {
		k, v, ok := strings.Cut(args[0], "=")
		if !ok {
			break
		}
		switch k {
		case "cwd":
			s.Cwd = v
		case "branch":
			s.Branch = v
		case "days":
			n, err := strconv.Atoi(v)
			ts.Check(err)
			s.Time = time.Now().AddDate(0, 0, n)
		default:
			ts.Fatalf("transcript: unknown option %q", k)
		}
		args = args[1:]
	}
	torn := len(args) > 0 && args[0] == "torn"
	if torn {
		args = args[1:]
	}
	if len(args) == 0 {
		ts.Fatalf("transcript: no step")
	}
	need := func(n int) {
		if len(args) != n+1 {
			ts.Fatalf("transcript %s: want %d arguments", args[0], n)
		}
	}
	switch args[0] {
	case "prompt":
		need(1)
		s.Prompt(args[1])
	case "say":
		need(1)
		s.Say(args[1])
	case "bash":
		need(3)
		exit, err := strconv.Atoi(args[2])
		ts.Check(err)
		s.Bash(args[1], exit, args[3])
	case "edit":
		need(1)
		s.Edit(args[1])
	case "read":
		need(2)
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		s.Read(args[1], n)
	case "compact":
		need(1)
		s.Compact(args[1])
	case "rest":
		need(0)
		rest, err := os.ReadFile(path + ".rest")
		ts.Check(err)
		appendTo(ts, path, rest)
		ts.Check(os.Remove(path + ".rest"))
		return
	default:
		ts.Fatalf("transcript: unknown step %q", args[0])
	}
	data := s.Bytes()
	if torn {
		last := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
		cut := last + (len(data)-last)/2
		ts.Check(os.WriteFile(path+".rest", data[cut:], 0o600))
		data = data[:cut]
	}
	appendTo(ts, path, data)
}

func appendTo(ts *testscript.TestScript, path string, data []byte) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	ts.Check(err)
	_, err = f.Write(data)
	ts.Check(err)
	ts.Check(f.Close())
}

// manyfiles DIR N writes N small files named like transcripts in DIR, each one line of a prompt.
func cmdManyFiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: manyfiles DIR N")
	}
	dir := ts.MkAbs(args[0])
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Check(os.MkdirAll(dir, 0o700))
	for i := range n {
		s := &transcripttest.Session{ID: fmt.Sprintf("%08x-0000-4000-8000-000000000000", i), Cwd: ts.Getenv("PROJ"), Branch: "main", Time: time.Now()}
		s.Prompt(fmt.Sprintf("tiny session %d", i))
		ts.Check(os.WriteFile(filepath.Join(dir, s.ID+".jsonl"), s.Bytes(), 0o600))
	}
}

// grabvar VAR REGEXP sets VAR to the first group of REGEXP's first match in the last command's
// stdout: an id that cairn search printed, for cairn show.
func cmdGrabVar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: grabvar VAR REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("grabvar: %q matches nothing in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// ctxlen FILE MAX checks that the additionalContext of the hook output in FILE is at most MAX
// characters as Claude Code counts them (UTF-16 units).
func cmdCtxLen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ctxlen FILE MAX")
	}
	var out struct {
		HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(json.Unmarshal(data, &out))
	max, err := strconv.Atoi(args[1])
	ts.Check(err)
	n := len(utf16.Encode([]rune(out.HookSpecificOutput.AdditionalContext)))
	if n > max || n == 0 {
		ts.Fatalf("additionalContext is %d characters; want 1..%d", n, max)
	}
}

// payload FILE EVENT key=value… writes a hook payload: hook_event_name=EVENT and each key as a
// JSON string, except the literal values null, true, false, numbers and JSON objects (a tool's
// input), which stay JSON.
func cmdPayload(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: payload FILE EVENT key=value…")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{%q: %q", "hook_event_name", args[1])
	for _, kv := range args[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("payload: %q is not key=value", kv)
		}
		if _, err := strconv.ParseFloat(v, 64); err == nil || v == "null" || v == "true" || v == "false" || strings.HasPrefix(v, "{") && json.Valid([]byte(v)) {
			fmt.Fprintf(&b, ", %q: %s", k, v)
		} else {
			fmt.Fprintf(&b, ", %q: %q", k, v)
		}
	}
	b.WriteString("}\n")
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// backdate FILE DURATION moves a file's modification time into the past ("31d", "36h"):
// scripts move data, not the clock.
func cmdBackdate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: backdate FILE DURATION")
	}
	d := parseAge(ts, args[1])
	t := time.Now().Add(-d)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), t, t))
}

func parseAge(ts *testscript.TestScript, s string) time.Duration {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		ts.Check(err)
		return time.Duration(days) * 24 * time.Hour
	}
	d, err := time.ParseDuration(s)
	ts.Check(err)
	return d
}

// bigfile FILE SIZE [KIND] writes a large file at test time (never committed): KIND "json" is one
// JSON object of about SIZE bytes ("10MB"), KIND "garbage" is bytes that are not JSON.
func cmdBigfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: bigfile FILE SIZE [json|garbage]")
	}
	size := parseSize(ts, args[1])
	kind := "json"
	if len(args) > 2 {
		kind = args[2]
	}
	var b bytes.Buffer
	switch kind {
	case "json":
		b.WriteString(`{"hook_event_name":"UserPromptSubmit","session_id":"big","cwd":"/nonexistent","prompt":"`)
		b.Write(bytes.Repeat([]byte("x"), int(size)))
		b.WriteString(`"}`)
	case "garbage":
		b.Write(bytes.Repeat([]byte("\x00not json{"), int(size)/10))
	default:
		ts.Fatalf("bigfile: unknown kind %q", kind)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o644))
}

func parseSize(ts *testscript.TestScript, s string) int64 {
	mult := int64(1)
	for suf, m := range map[string]int64{"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30} {
		if n, ok := strings.CutSuffix(s, suf); ok {
			s, mult = n, m
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	ts.Check(err)
	return n * mult
}

// stallstdin PROG [ARGS…] runs PROG with a stdin that is open but never written to nor closed,
// as Claude Code sometimes leaves it, and fails if PROG has not exited within 20 s (a stall check
// with a wide margin over the 2 s deadline, not a timing assertion). PROG's stdout and stderr
// become the script's.
func cmdStallStdin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: stallstdin PROG [ARGS…]")
	}
	r, w, err := os.Pipe()
	ts.Check(err)
	defer w.Close()
	cmd := exec.Command(filepath.Join(binDir, args[0]), args[1:]...)
	cmd.Dir = ts.Getenv("PWD")
	for _, k := range []string{"PATH", "HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "TZ"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &stdout, &stderr
	ts.Check(cmd.Start())
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ts.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		if err != nil {
			ts.Fatalf("%s: %v", args[0], err)
		}
		if stdout.Len() > 0 {
			ts.Fatalf("%s wrote to stdout with no input: %q", args[0], stdout.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		ts.Fatalf("%s did not exit with a stdin that never closes", args[0])
	}
}

// linecount FILE OP N checks the number of lines in FILE (OP is one of == <= >=).
func cmdLineCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: linecount FILE OP N")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	got := bytes.Count(data, []byte("\n"))
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	var ok bool
	switch args[1] {
	case "==":
		ok = got == want
	case "<=":
		ok = got <= want
	case ">=":
		ok = got >= want
	default:
		ts.Fatalf("linecount: unknown op %q", args[1])
	}
	if ok == neg {
		ts.Fatalf("%s has %d lines; want %s %s %d", args[0], got, map[bool]string{true: "not", false: ""}[neg], args[1], want)
	}
}

// nooutside DIR fails if anything under DIR (outside the project) changed: it must hold only the
// files named in DIR/.expected, one per line.
func cmdNoOutside(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: nooutside DIR")
	}
	dir := ts.MkAbs(args[0])
	want := map[string]bool{".expected": true}
	if data, err := os.ReadFile(filepath.Join(dir, ".expected")); err == nil {
		for _, l := range strings.Fields(string(data)) {
			want[l] = true
		}
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if !want[filepath.ToSlash(rel)] {
			ts.Fatalf("unexpected file outside the project: %s", p)
		}
		return nil
	})
}

// noleak LEAKS PATH… fails if a file at or under a PATH holds a line of the file LEAKS, in any
// case (a checkpoint's file name is a lowercased slug of its title). Every PATH must exist, so a
// mistyped one cannot pass; stdout and stderr are the last command's; .git is skipped.
func cmdNoLeak(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: noleak LEAKS PATH…")
	}
	var leaks []string
	for _, l := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			leaks = append(leaks, strings.ToLower(l))
		}
	}
	check := func(name, text string) {
		text = strings.ToLower(text)
		for _, l := range leaks {
			if strings.Contains(text, l) {
				ts.Fatalf("%s holds %q", name, l)
			}
		}
	}
	for _, a := range args[1:] {
		if a == "stdout" || a == "stderr" {
			check(a, ts.ReadFile(a))
			continue
		}
		root := ts.MkAbs(a)
		if _, err := os.Lstat(root); err != nil {
			ts.Fatalf("noleak: %v", err)
		}
		ts.Check(filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			check(p, p) // the name too: checkpoints are named after their titles
			if d.Type().IsRegular() {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				check(p, string(data))
			}
			return nil
		}))
	}
}

// ---- Parked items (pkg/parking) ----
//
// Scripts cannot set the binaries' clock, so they move the data instead: dates are computed
// here, relative to today (UTC, as the binaries run with TZ=UTC).

// dateago VAR DAYS sets VAR to the date DAYS days before today, as YYYY-MM-DD.
func cmdDateAgo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: dateago VAR DAYS")
	}
	days, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Setenv(args[0], time.Now().UTC().AddDate(0, 0, -days).Format("2006-01-02"))
}

// parkitem FILE SLUG DAYS SUMMARY… appends a parked-item bullet raised DAYS days ago ("-" for
// a bullet without a Raised date) to FILE, creating it with the section heading when missing.
func cmdParkItem(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: parkitem FILE SLUG DAYS SUMMARY…")
	}
	path := ts.MkAbs(args[0])
	line := fmt.Sprintf("- **%s** — %s.", args[1], strings.Join(args[3:], " "))
	if args[2] != "-" {
		days, err := strconv.Atoi(args[2])
		ts.Check(err)
		line += " Raised: " + time.Now().UTC().AddDate(0, 0, -days).Format("2006-01-02") + "."
	}
	old, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
		old, err = []byte("# Session context\n\n## Parked items\n\n"), nil
	}
	ts.Check(err)
	ts.Check(os.WriteFile(path, append(old, line+"\n"...), 0o644))
}

// projslugs sets SLUG and LSLUG to the names of $PROJ's directory under $CLAUDE_CONFIG_DIR/projects:
// Claude Code's spelling (every character but [A-Za-z0-9] becomes '-') and the legacy one of the
// original /session workflow ('/' and '.' become '-', the leading dash dropped). It sets CLAIMS to
// the name of $PROJ's file claims directory under $CLAUDE_CONFIG_DIR/cairn/claims: the FNV-64a of
// $PROJ's real path in hex, a dash, and the Claude Code spelling of its base name. Computed here
// independently of packages project and claims.
func cmdProjSlugs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: projslugs")
	}
	proj := ts.Getenv("PROJ")
	spell := func(path string) string {
		var b strings.Builder
		for _, r := range path {
			if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('-')
			}
		}
		return b.String()
	}
	ts.Setenv("SLUG", spell(proj))
	ts.Setenv("LSLUG", strings.TrimPrefix(strings.NewReplacer("/", "-", ".", "-").Replace(proj), "-"))
	real, err := filepath.EvalSymlinks(proj)
	ts.Check(err)
	h := fnv.New64a()
	h.Write([]byte(real))
	ts.Setenv("CLAIMS", fmt.Sprintf("%016x-%s", h.Sum64(), spell(filepath.Base(real))))
}

// auditcheck FILE N [key=value…] checks the parking audit log FILE: exactly N lines, each one
// JSON object with string fields ts (RFC 3339, UTC), item, action (archived or expired) and
// text; and for each key=value, some line whose field key equals value (a value in double
// quotes is read as a Go string, for newlines and quotes).
func cmdAuditCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: auditcheck FILE N [key=value…]")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = nil
	}
	if len(lines) != want {
		ts.Fatalf("%s has %d lines; want %d", args[0], len(lines), want)
	}
	var entries []map[string]any
	for _, l := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			ts.Fatalf("not a JSON object: %q: %v", l, err)
		}
		for _, k := range []string{"ts", "item", "action", "text"} {
			if _, ok := e[k].(string); !ok {
				ts.Fatalf("%q: %s is not a string", l, k)
			}
		}
		if _, err := time.Parse(time.RFC3339, e["ts"].(string)); err != nil || !strings.HasSuffix(e["ts"].(string), "Z") {
			ts.Fatalf("%q: ts is not RFC 3339 UTC", l)
		}
		if a := e["action"]; a != "archived" && a != "expired" {
			ts.Fatalf("%q: action %v", l, a)
		}
		entries = append(entries, e)
	}
	for _, kv := range args[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("auditcheck: %q is not key=value", kv)
		}
		if strings.HasPrefix(v, `"`) {
			v, err = strconv.Unquote(v)
			ts.Check(err)
		}
		found := false
		for _, e := range entries {
			found = found || e[k] == v
		}
		if !found {
			ts.Fatalf("no line of %s has %s=%q", args[0], k, v)
		}
	}
}

// crlf FILE… turns every "\n" of each FILE into "\r\n": .gitattributes keeps scripts LF, so a
// file with Windows line endings is made at test time.
func cmdCRLF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: crlf FILE…")
	}
	for _, a := range args {
		p := ts.MkAbs(a)
		data, err := os.ReadFile(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), 0o644))
	}
}

// ---- Checkpoints (pkg/checkpoint) ----
//
// Checkpoint names carry the wall-clock time of the save, which scripts cannot set; these
// commands find the files, and make a same-second collision certain, computed here
// independently of package checkpoint.

// ckptDir is $PROJ's checkpoint directory: memory/projects/<basename>/checkpoints.
func ckptDir(ts *testscript.TestScript) string {
	proj := ts.Getenv("PROJ")
	return filepath.Join(proj, "memory", "projects", filepath.Base(proj), "checkpoints")
}

// newestckpt VAR [PART] sets VAR to the path of $PROJ's newest checkpoint (the greatest *.md
// name), or of the newest whose name contains PART.
func cmdNewestCkpt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: newestckpt VAR [PART]")
	}
	part := ""
	if len(args) == 2 {
		part = args[1]
	}
	ents, err := os.ReadDir(ckptDir(ts))
	ts.Check(err)
	newest := ""
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".md") && strings.Contains(e.Name(), part) && e.Name() > newest {
			newest = e.Name()
		}
	}
	if newest == "" {
		ts.Fatalf("no checkpoint in %s", ckptDir(ts))
	}
	ts.Setenv(args[0], filepath.Join(ckptDir(ts), newest))
}

// ckptclash TITLE SECONDS fills $PROJ's checkpoint directory with a file named
// YYYYMMDD-HHMMSS-TITLE.md, holding the line "placeholder", for every second from one second ago
// to SECONDS seconds ahead (in the binaries' TZ, UTC), so that a save with TITLE within that
// window collides for certain.
func cmdCkptClash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ckptclash TITLE SECONDS")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	if ts.Getenv("TZ") != "UTC" {
		ts.Fatalf("ckptclash assumes TZ=UTC")
	}
	dir := ckptDir(ts)
	ts.Check(os.MkdirAll(dir, 0o755))
	now := time.Now().UTC()
	for i := -1; i <= n; i++ {
		name := now.Add(time.Duration(i)*time.Second).Format("20060102-150405") + "-" + args[0] + ".md"
		ts.Check(os.WriteFile(filepath.Join(dir, name), []byte("placeholder\n"), 0o644))
	}
}
