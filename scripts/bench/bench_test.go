package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWholeProcess runs every contender of the 1 MB size as a testing.B sub-benchmark:
// each iteration restores the contender's fixture state (untimed) and runs the whole process.
// It builds the binaries first (or uses $CAIRN_BENCH_BIN), so it only runs under -bench:
//
//	go test -run '^$' -bench WholeProcess -benchtime 50x ./scripts/bench/
//	go test -run '^$' -bench 'WholeProcess/(floor|ups-answer)$' -count 5 ./scripts/bench/
//
// The main program (go run ./scripts/bench) alternates the contenders within each round, which
// spreads machine noise over all of them alike; sub-benchmarks run one after the other, so
// compare their ratios only on a quiet machine.
func BenchmarkWholeProcess(b *testing.B) {
	bin := os.Getenv("CAIRN_BENCH_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "bin")
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin+string(filepath.Separator), "../../hooks/...", "../../scripts/floor")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	f := newFixture(b.TempDir(), bin, b.Logf)
	if err := f.resolveInterpreters(); err != nil {
		b.Fatal(err)
	}
	if err := f.build(); err != nil {
		b.Fatal(err)
	}
	sizes, err := parseSizes("1MB")
	if err != nil {
		b.Fatal(err)
	}
	s, err := f.transcriptsFor(sizes[0])
	if err != nil {
		b.Fatal(err)
	}
	st, err := f.statesFor(s)
	if err != nil {
		b.Fatal(err)
	}
	cs := f.contenders(s, st)
	if err := f.warm(cs, false); err != nil {
		b.Fatal(err)
	}
	for _, c := range cs {
		b.Run(c.key, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if err := f.prepare(c); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				r, err := f.exec(c, nil)
				if err != nil || r.code != 0 {
					b.Fatalf("%s: %v exit %d: %s", c.name, err, r.code, r.errOut)
				}
			}
		})
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("1MB, 60MBline,200MB+60MBline")
	if err != nil {
		t.Fatal(err)
	}
	want := []sizeSpec{
		{"1MB", 1 << 20, 0},
		{"60MBline", 64 << 20, 60 << 20},
		{"200MB+60MBline", 200 << 20, 60 << 20},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "x", "1MB+2MBline", "lineline"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): no error", bad)
		}
	}
}

func TestShellQuote(t *testing.T) {
	if got := shellQuote([]string{"-n", "50", "-only", "ups|floor", "it's"}); got != `-n 50 -only 'ups|floor' 'it'\''s'` {
		t.Errorf("got %s", got)
	}
}

// freshActivity must change only the session's last_activity: the registry's layout is what the
// hook reads, so a fix that rewrote the file in another layout would time another reader.
func TestFreshActivityKeepsLayout(t *testing.T) {
	fix := freshActivity("/p/session.json", "bench-session")
	for _, doc := range []string{
		"{\n  \"sessions\": [\n    {\n      \"id\": \"other\",\n      \"last_activity\": \"2026-01-01T00:00:00Z\"\n    },\n    {\n      \"id\": \"bench-session\",\n      \"started\": \"2026-01-01T00:00:00Z\",\n      \"last_activity\": \"2026-01-01T00:00:00Z\",\n      \"status\": \"active\"\n    }\n  ]\n}\n",
		"{\"sessions\":[\n{\"id\":\"other\",\"last_activity\":\"2026-01-01T00:00:00Z\"},\n{\"id\":\"bench-session\",\"started\":\"2026-01-01T00:00:00Z\",\"last_activity\":\"2026-01-01T00:00:00Z\",\"status\":\"active\"}\n]}\n",
	} {
		got := string(fix("/p/session.json", []byte(doc)))
		if strings.Count(got, "2026-01-01T00:00:00Z") != 2 || len(got) != len(doc) {
			t.Errorf("changed more than the bench session's last activity:\n%s", got)
		}
		if i := strings.Index(got, "bench-session"); !strings.Contains(got[:i], "\"other\"") || strings.Contains(got[i:], "\"last_activity\": \"2026-01-01") || strings.Contains(got[i:], "\"last_activity\":\"2026-01-01") {
			t.Errorf("the bench session's last activity is not fresh:\n%s", got)
		}
		if string(fix("/p/other.json", []byte(doc))) != doc {
			t.Error("changed another file")
		}
	}
}

func TestPairwise(t *testing.T) {
	fl := &contender{times: []float64{1, 2, 4}, cpu: []float64{1, 0, 2}}
	c := &contender{times: []float64{1.5, 2, 12}, cpu: []float64{2, 5, 3}}
	if got := pairwise(c, fl); got != 1.5 {
		t.Errorf("pairwise = %v, want 1.5 (ratios 1.5, 1, 3)", got)
	}
	if got := pairwiseCPU(c, fl); got != 2 {
		t.Errorf("pairwiseCPU = %v, want 2 (ratios 2, 1.5; a round without CPU time left out)", got)
	}
}

// Every round runs every contender once, and of any two neighbours in the list each runs first
// in as many rounds as the other (within one), so neither slot of a before/after pair is favoured.
func TestRoundOrder(t *testing.T) {
	const n, rounds = 5, 40
	first := make([][]int, n) // first[a][b]: rounds in which a ran before b
	for a := range first {
		first[a] = make([]int, n)
	}
	for i := range rounds {
		seen := make([]int, n)
		pos := make([]int, n)
		for j := range n {
			k := roundOrder(i, j, n)
			seen[k]++
			pos[k] = j
		}
		for k, s := range seen {
			if s != 1 {
				t.Fatalf("round %d ran contender %d %d times", i, k, s)
			}
		}
		for a := range n {
			for b := range n {
				if pos[a] < pos[b] {
					first[a][b]++
				}
			}
		}
	}
	for a := 0; a+1 < n; a++ {
		if d := first[a][a+1] - first[a+1][a]; d > 1 || d < -1 {
			t.Errorf("contender %d ran before %d in %d rounds, after it in %d", a, a+1, first[a][a+1], first[a+1][a])
		}
	}
}
