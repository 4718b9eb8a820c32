// Package searchtest writes a synthetic project history for the benchmarks of package search
// and scripts/searchbench: checkpoints of the three kinds in the exact shape checkpoint.Render
// writes (about a quarter automatic, a tenth hand-offs), the parking audit log, the timeline and
// session-context.md with ten parked items; and, with History, Claude Code's transcripts of the
// project's sessions. It is generated at test or bench time, never committed, and deterministic
// for a Go installation and a seed.
//
// The words come from the comments of $GOROOT/src (their frequencies are natural, Zipf-like),
// code identifiers from its exported funcs and file paths from its tree; twenty topics ("cache",
// "parser", "auth token refresh", …) recur across checkpoints and branches, so that queries have
// a meaningful ranking. Without a Go tree, pseudo-words with the same Zipf shape are used.
package searchtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-hooks/cairn/pkg/checkpoint"
	"github.com/cairn-hooks/cairn/pkg/transcript/transcripttest"
)

// Options say what to generate.
type Options struct {
	Checkpoints int    // checkpoint files
	Audit       int    // lines of .notes/logs/session-archive.jsonl
	Timeline    int    // lines of memory/timeline.jsonl
	Seed        uint64 // the same options and seed give the same files
	// End is the time of the newest item; the history spans the two years before it. Zero is
	// 2026-11-20 18:00 local time.
	End time.Time
}

// Queries are the benchmark's queries: a common term, three terms, filters, a prefix, and the
// worst case (a word in nearly every item). Each is the arguments of cairn search.
var Queries = [][]string{
	{"cache"},
	{"auth", "token", "refresh"},
	{"--kind", "checkpoint", "--branch", "main", "--since", "180d", "parser"},
	{"lru*"},
	{"the"},
}

type vocab struct {
	words  []string // by descending frequency
	cum    []float64
	idents []string
	paths  []string
}

var (
	vocabOnce sync.Once
	theVocab  *vocab
)

var (
	wordRe = regexp.MustCompile(`[a-z]{3,14}`)
	funcRe = regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?([A-Z][A-Za-z0-9]{3,30})\(`)
)

func goroot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func loadVocab() *vocab {
	vocabOnce.Do(func() {
		theVocab = goVocab(goroot())
		if theVocab == nil || len(theVocab.words) < 1000 || len(theVocab.idents) == 0 || len(theVocab.paths) == 0 {
			theVocab = pseudoVocab()
		}
	})
	return theVocab
}

func goVocab(root string) *vocab {
	if root == "" {
		return nil
	}
	src := filepath.Join(root, "src")
	counts := map[string]int{}
	identSet := map[string]bool{}
	var paths []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "cmd/") || strings.Count(rel, "/") > 3 {
			return nil
		}
		paths = append(paths, rel)
		b, _ := os.ReadFile(p)
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "//") {
				for _, w := range wordRe.FindAllString(strings.ToLower(l), -1) {
					counts[w]++
				}
			}
		}
		for _, m := range funcRe.FindAllSubmatch(b, -1) {
			identSet[string(m[1])] = true
		}
		return nil
	})
	v := &vocab{}
	for w, c := range counts {
		if c >= 3 {
			v.words = append(v.words, w)
		}
	}
	sort.Slice(v.words, func(i, j int) bool {
		if counts[v.words[i]] != counts[v.words[j]] {
			return counts[v.words[i]] > counts[v.words[j]]
		}
		return v.words[i] < v.words[j]
	})
	if len(v.words) > 6000 {
		v.words = v.words[:6000]
	}
	total := 0.0
	for _, w := range v.words {
		total += float64(counts[w])
		v.cum = append(v.cum, total)
	}
	for i := range v.cum {
		v.cum[i] /= total
	}
	for id := range identSet {
		v.idents = append(v.idents, id)
	}
	sort.Strings(v.idents)
	sort.Strings(paths)
	v.paths = paths
	return v
}

// pseudoVocab makes 6,000 pronounceable words with Zipf frequencies, for machines without a Go
// tree.
func pseudoVocab() *vocab {
	r := rand.New(rand.NewPCG(7, 7))
	syl := []string{"ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "ga", "vu", "zo", "che", "ran", "tis", "mor", "len", "dax"}
	seen := map[string]bool{"the": true}
	v := &vocab{words: []string{"the"}}
	for len(v.words) < 6000 {
		var b strings.Builder
		for n := 1 + r.IntN(4); n > 0; n-- {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	total := 0.0
	for i := range v.words {
		total += 1 / float64(i+1)
		v.cum = append(v.cum, total)
	}
	for i := range v.cum {
		v.cum[i] /= total
	}
	for i := 0; i < 500; i++ {
		w := v.words[100+i]
		v.idents = append(v.idents, strings.ToUpper(w[:1])+w[1:]+strings.ToUpper(v.words[700+i][:1])+v.words[700+i][1:])
		v.paths = append(v.paths, v.words[i%50+10]+"/"+v.words[200+i]+".go")
	}
	return v
}

// topics recur: each checkpoint has one, which biases its words, identifiers, paths and branch.
var topics = []struct{ name, words string }{
	{"cache", "cache eviction lru ttl invalidation stale warm cold hit miss"},
	{"parser", "parser token lexer grammar ast syntax error recovery frontmatter yaml"},
	{"auth token refresh", "auth token refresh expiry oauth bearer credentials session renew"},
	{"timeline", "timeline event compaction session start end jsonl append"},
	{"parking", "parked item archive expire stale bullet slug audit"},
	{"hooks latency", "hook latency budget floor startup binary cold process"},
	{"transcript", "transcript tail jsonl line turn prompt assistant tool"},
	{"install", "install settings json hooks path binary upgrade uninstall"},
	{"git status", "git status branch worktree untracked diff porcelain"},
	{"redaction", "redact secret key pattern mask leak entropy"},
	{"locking", "lock flock concurrent writer atomic rename fsync"},
	{"whiteboard", "whiteboard snapshot compaction restore section markdown"},
	{"registry", "registry session pid heartbeat stale cleanup"},
	{"doctor", "doctor check diagnose report permission missing"},
	{"ci pipeline", "ci pipeline test race vet fuzz flaky timeout"},
	{"search index", "search index bm25 ranking snippet query posting"},
	{"mcp server", "mcp server tool call stdio request response schema"},
	{"migration", "migration legacy seed format upgrade convert backward"},
	{"unicode titles", "unicode title sanitize slug utf8 rune width"},
	{"benchmarks", "benchmark median rss allocation profile pprof"},
}

type gen struct {
	r        *rand.Rand
	v        *vocab
	branches []string
}

func (g *gen) word() string {
	i := sort.SearchFloat64s(g.v.cum, g.r.Float64())
	return g.v.words[min(i, len(g.v.words)-1)]
}

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) sentence(topic, lo, hi int) string {
	tw := strings.Fields(topics[topic].words)
	k := lo + g.r.IntN(hi-lo+1)
	out := make([]string, 0, k)
	for i := 0; i < k; i++ {
		switch x := g.r.Float64(); {
		case x < 0.12:
			out = append(out, g.pick(tw))
		case x < 0.14:
			out = append(out, "`"+g.pick(g.v.idents)+"`")
		case x < 0.15:
			out = append(out, g.pick(g.v.paths))
		case x < 0.16:
			out = append(out, fmt.Sprint(g.r.IntN(500)))
		default:
			out = append(out, g.word())
		}
	}
	s := strings.Join(out, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *gen) para(topic, sentences int) string {
	var p []string
	for i := 0; i < sentences; i++ {
		p = append(p, g.sentence(topic, 8, 26))
	}
	return strings.Join(p, " ")
}

func (g *gen) branch(topic int) string {
	if g.r.IntN(4) == 0 {
		return "main"
	}
	return g.branches[topic*3+g.r.IntN(3)]
}

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<16), g.r.IntN(1<<16), g.r.Uint64()&(1<<48-1))
}

type written struct {
	rel  string
	auto bool
}

func (g *gen) checkpoint(root string, t time.Time, sess string) (written, error) {
	topic := g.r.IntN(len(topics))
	if g.r.IntN(3) == 0 { // some topics are hot
		topic = g.r.IntN(4)
	}
	e := checkpoint.Entry{Branch: g.branch(topic), Time: t}
	if g.r.IntN(2) == 0 {
		e.Duration, e.HasDuration = time.Duration(g.r.IntN(20000))*time.Second, true
	}
	for i := g.r.IntN(12); i > 0; i-- {
		e.Files = append(e.Files, g.pick(g.v.paths))
	}
	kind := ""
	auto := g.r.IntN(4) == 0
	switch {
	case auto:
		trig := "auto"
		if g.r.IntN(3) == 0 {
			trig = "manual"
		}
		e.Title, e.Status = "auto-"+trig, checkpoint.StatusAuto
		e.Event = fmt.Sprintf("%s/%s/%d", sess, trig, g.r.IntN(50_000_000))
		// Claude Code's compaction summary, as postcompact stores it.
		e.Summary = "Compaction summary: " + g.para(topic, 3+g.r.IntN(6))
		if k := g.r.IntN(5); k > 0 {
			e.Summary += "\n\nCompleted tasks:"
			for i := 0; i < k; i++ {
				e.Summary += "\n- " + g.sentence(topic, 4, 12)
			}
		}
		e.Decisions = "Not recorded automatically: decisions need the conversation, which a hook cannot summarise."
		var rem []string
		for i := g.r.IntN(6); i > 0; i-- {
			rem = append(rem, "- "+g.sentence(topic, 4, 14))
		}
		if len(rem) == 0 {
			rem = []string{"No open tasks recorded."}
		}
		e.Remaining = strings.Join(rem, "\n")
		notes := []string{"Last user prompts, most recent first (secrets redacted):"}
		for i := 1 + g.r.IntN(4); i > 0; i-- {
			notes = append(notes, "- "+g.sentence(topic, 6, 30))
		}
		e.Notes = strings.Join(notes, "\n")
	default:
		e.Title = strings.TrimSuffix(topics[topic].name+": "+g.sentence(topic, 3, 7), ".")
		if g.r.IntN(8) == 0 {
			kind = "handoff"
			e.Title = "Hand-off: " + e.Title
		}
		e.Summary = g.para(topic, 4+g.r.IntN(9))
		var d, rem []string
		for i := 2 + g.r.IntN(5); i > 0; i-- {
			d = append(d, "- "+g.sentence(topic, 6, 20))
		}
		for i := 2 + g.r.IntN(5); i > 0; i-- {
			rem = append(rem, fmt.Sprintf("%d. %s", len(rem)+1, g.sentence(topic, 5, 16)))
		}
		e.Decisions, e.Remaining = strings.Join(d, "\n"), strings.Join(rem, "\n")
		if g.r.IntN(4) > 0 {
			e.Notes = g.para(topic, 1+g.r.IntN(5))
		}
	}
	data := checkpoint.Render(e)
	if kind != "" {
		data = bytes.Replace(data, []byte("---\n"), []byte("---\nkind: "+kind+"\n"), 1)
	}
	name := t.Format("20060102-150405") + "-" + checkpoint.SanitizeTitle(e.Title) + ".md"
	p := filepath.Join(checkpoint.Dir(root), name)
	if _, err := os.Stat(p); err == nil { // two in one second with one title: as Save would
		name = strings.TrimSuffix(name, ".md") + fmt.Sprintf("-%04x.md", g.r.IntN(1<<16))
		p = filepath.Join(checkpoint.Dir(root), name)
	}
	rel, _ := filepath.Rel(root, p)
	return written{rel: filepath.ToSlash(rel), auto: auto}, os.WriteFile(p, data, 0o644)
}

func (g *gen) bullet(topic int, raised time.Time) (slug, text string) {
	slug = checkpoint.SanitizeTitle(strings.Join(strings.Fields(g.sentence(topic, 2, 4)), " "))
	slug = strings.Trim(strings.ReplaceAll(slug, ".", ""), "-")
	forms := []string{"User raised: %s. Pending: %s", "Deferred: %s. Context: %s", "Side idea: %s. Raised while: %s"}
	sum := fmt.Sprintf(forms[g.r.IntN(3)], strings.TrimSuffix(g.sentence(topic, 5, 14), "."), strings.TrimSuffix(g.sentence(topic, 4, 10), "."))
	text = fmt.Sprintf("- **%s** — %s. Raised: %s. Why: %s How to apply: %s", slug, sum, raised.Format("2006-01-02"), g.sentence(topic, 5, 14), g.sentence(topic, 4, 12))
	return slug, text
}

// Generate writes the history into the project at root (creating it). The checkpoint
// directory is memory/projects/<basename(root)>/checkpoints, as cairn's.
func Generate(root string, o Options) error {
	g := &gen{r: rand.New(rand.NewPCG(o.Seed, 42)), v: loadVocab()}
	for _, t := range topics {
		s := checkpoint.SanitizeTitle(t.name)
		g.branches = append(g.branches, "feat/"+s, "fix/"+s, "refactor/"+s)
	}
	for _, d := range []string{checkpoint.Dir(root), filepath.Join(root, ".notes", "logs"), filepath.Join(root, ".claude", "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	end := o.End
	if end.IsZero() {
		end = time.Date(2026, 11, 20, 18, 0, 0, 0, time.Local)
	}
	span := 2 * 365 * 24 * time.Hour
	start := end.Add(-span)

	// Checkpoints, evenly spread with jitter; sessions group them.
	var autos []string
	sess := g.uuid()
	for i := 0; i < o.Checkpoints; i++ {
		t := start.Add(time.Duration(float64(span) * (float64(i) + g.r.Float64()*0.9) / float64(o.Checkpoints))).Truncate(time.Second)
		if g.r.IntN(4) == 0 {
			sess = g.uuid()
		}
		w, err := g.checkpoint(root, t, sess)
		if err != nil {
			return err
		}
		if w.auto {
			autos = append(autos, w.rel)
		}
	}

	// The timeline: session_start, compactions (naming the automatic checkpoints), session_end.
	type event struct {
		TS         string `json:"ts"`
		Event      string `json:"event"`
		Session    string `json:"session,omitempty"`
		Branch     string `json:"branch,omitempty"`
		Source     string `json:"source,omitempty"`
		Trigger    string `json:"trigger,omitempty"`
		Reason     string `json:"reason,omitempty"`
		Checkpoint string `json:"checkpoint,omitempty"`
	}
	var tl bytes.Buffer
	enc := json.NewEncoder(&tl)
	enc.SetEscapeHTML(false)
	ai := 0
	for i := 0; i < o.Timeline; {
		t := start.Add(time.Duration(float64(span) * float64(i) / float64(max(o.Timeline, 1)))).UTC().Truncate(time.Second)
		s, br := g.uuid(), g.branch(g.r.IntN(len(topics)))
		enc.Encode(event{TS: t.Format(time.RFC3339), Event: "session_start", Session: s, Branch: br, Source: g.pick([]string{"startup", "resume", "clear", "compact"})})
		i++
		for k := g.r.IntN(4); k > 0 && i < o.Timeline; k-- {
			cp := ""
			if ai < len(autos) {
				cp, ai = autos[ai], ai+1
			}
			t = t.Add(time.Duration(g.r.IntN(3600)) * time.Second)
			enc.Encode(event{TS: t.Format(time.RFC3339), Event: "compaction", Session: s, Branch: br, Trigger: g.pick([]string{"auto", "manual"}), Checkpoint: cp})
			i++
		}
		if i < o.Timeline {
			t = t.Add(time.Duration(g.r.IntN(7200)) * time.Second)
			enc.Encode(event{TS: t.Format(time.RFC3339), Event: "session_end", Session: s, Branch: br, Reason: g.pick([]string{"clear", "logout", "prompt_input_exit", "other"})})
			i++
		}
	}
	if err := os.WriteFile(filepath.Join(root, "memory", "timeline.jsonl"), tl.Bytes(), 0o644); err != nil {
		return err
	}

	// The audit log: archived and expired parked items, with their text.
	type audit struct {
		TS     string `json:"ts"`
		Item   string `json:"item"`
		Action string `json:"action"`
		Text   string `json:"text,omitempty"`
	}
	var al bytes.Buffer
	enc = json.NewEncoder(&al)
	enc.SetEscapeHTML(false)
	for i := 0; i < o.Audit; i++ {
		t := start.Add(time.Duration(float64(span) * float64(i) / float64(o.Audit))).UTC().Truncate(time.Second)
		slug, text := g.bullet(g.r.IntN(len(topics)), t.Add(-time.Duration(g.r.IntN(30*24))*time.Hour))
		act := "archived"
		if g.r.IntN(3) == 0 {
			act = "expired"
		}
		enc.Encode(audit{TS: t.Format(time.RFC3339), Item: slug, Action: act, Text: text})
	}
	if err := os.WriteFile(filepath.Join(root, ".notes", "logs", "session-archive.jsonl"), al.Bytes(), 0o644); err != nil {
		return err
	}

	// session-context.md: a snapshot and ten parked items.
	var sc strings.Builder
	sc.WriteString("# Session context\n\n## Snapshot\n\n" + g.para(0, 3) + "\n\n## Parked items\n\n")
	for i := 0; i < 10; i++ {
		_, text := g.bullet(g.r.IntN(len(topics)), end.Add(-time.Duration(g.r.IntN(20*24))*time.Hour))
		sc.WriteString(text + "\n")
	}
	return os.WriteFile(filepath.Join(root, ".claude", "state", "session-context.md"), []byte(sc.String()), 0o644)
}

// Size is the bytes of the files a search indexes in the project at root: what the index's
// size is compared with.
func Size(root string) (int64, error) {
	var n int64
	add := func(p string) error {
		fi, err := os.Stat(p)
		if err == nil {
			n += fi.Size()
		}
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	ents, err := os.ReadDir(checkpoint.Dir(root))
	if err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	for _, e := range ents {
		if err := add(filepath.Join(checkpoint.Dir(root), e.Name())); err != nil {
			return 0, err
		}
	}
	for _, rel := range []string{".notes/logs/session-archive.jsonl", ".claude/logs/session-archive.jsonl", "memory/timeline.jsonl", ".claude/state/session-context.md"} {
		if err := add(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Words is the generator's vocabulary, most frequent first: the words of $GOROOT/src's comments
// (pseudo-words without a Go tree), for other generators that need text with a natural
// distribution of words (transcripttest's Options.Words).
func Words() []string { return loadVocab().words }

// HistoryOptions say what History generates.
type HistoryOptions struct {
	Size     int64 // bytes of transcripts to reach; or
	Sessions int   // this many sessions, each up to 2 MiB
	Seed     uint64
}

// Session sizes are drawn log-uniform between these: most sessions are small, a few large.
const (
	minSession = 8 << 10
	maxSession = 16 << 20
)

// History writes the transcripts of a project's sessions into dir (Claude Code's directory of
// the project's transcripts), in Claude Code's format (transcripttest) with Words for their text
// and root as their cwd: a session every two hours back from now, the newest last. It returns
// how many it wrote and their bytes. Deterministic for the options and a Go installation.
func History(dir, root string, o HistoryOptions) (files int, bytes int64, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, 0, err
	}
	rnd := rand.New(rand.NewPCG(o.Seed, uint64(o.Size)+uint64(o.Sessions)))
	words := Words()
	hi := float64(maxSession)
	if o.Sessions > 0 {
		hi = 2 << 20
	}
	var paths []string
	for i := 0; o.Sessions > 0 && i < o.Sessions || o.Sessions == 0 && bytes < o.Size; i++ {
		size := int64(minSession * math.Pow(hi/minSession, rnd.Float64()))
		path := filepath.Join(dir, fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", i, i))
		t, err := transcripttest.WriteFile(path, transcripttest.Options{Size: size, Boundaries: int(size >> 22), Seed: uint64(i + 1), Root: root, Words: words})
		if err != nil {
			return 0, 0, err
		}
		files, bytes = files+1, bytes+t.Size
		paths = append(paths, path)
	}
	for i, p := range paths {
		t := time.Now().Add(-time.Duration(len(paths)-i) * 2 * time.Hour)
		os.Chtimes(p, t, t)
	}
	return files, bytes, nil
}
