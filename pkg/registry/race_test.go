package registry

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairn-hooks/cairn/pkg/safefile"
)

const (
	raceSessions = 4
	raceMessages = 40
	raceBudget   = 400 // small, so deliveries are cut and cursors stop mid-way
)

// exchange is one session's part of the race: broadcast raceMessages messages, reading its
// deliveries after each and its inbox now and then, and return every message text it received.
func exchange(r *Registry, sid string) ([]string, error) {
	var got []string
	for i := range raceMessages {
		now := t0.Add(time.Duration(i) * time.Minute)
		if err := r.Broadcast(sid, fmt.Sprintf("%s-%d", sid, i), now); err != nil {
			return got, err
		}
		shown, err := prompt(r, sid, now, raceBudget)
		if err != nil {
			return got, err
		}
		got = append(got, shown...)
		if i%7 == 3 {
			msgs, err := r.Inbox(sid, now)
			if err != nil {
				return got, err
			}
			for _, m := range msgs {
				got = append(got, m.Msg)
			}
		}
	}
	return got, nil
}

// checkExchange asserts that every session received every other session's messages exactly
// once and none of its own.
func checkExchange(t *testing.T, got map[string][]string) {
	t.Helper()
	for sid, texts := range got {
		count := map[string]int{}
		for _, m := range texts {
			count[m]++
		}
		for s := range raceSessions {
			from := fmt.Sprint("s", s)
			for i := range raceMessages {
				m := fmt.Sprintf("%s-%d", from, i)
				want := 1
				if from == sid {
					want = 0
				}
				if count[m] != want {
					t.Errorf("%s received %s %d times; want %d", sid, m, count[m], want)
				}
			}
		}
		if len(texts) != (raceSessions-1)*raceMessages {
			t.Errorf("%s received %d messages; want %d", sid, len(texts), (raceSessions-1)*raceMessages)
		}
	}
}

// drain reads what each session has left after the race.
func drain(t *testing.T, r *Registry, got map[string][]string) {
	t.Helper()
	for sid := range got {
		for {
			d, err := prompt(r, sid, t0.Add(24*time.Hour), raceBudget)
			if err != nil {
				t.Fatal(err)
			}
			got[sid] = append(got[sid], d...)
			if len(d) == 0 {
				break
			}
		}
		msgs, err := r.Inbox(sid, t0.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			got[sid] = append(got[sid], m.Msg)
		}
	}
}

// Four sessions broadcasting and reading at once lose and duplicate nothing (run with -race). Each
// goroutine has a handle of its own, as each hook process does: a handle is one process's.
func TestRaceGoroutines(t *testing.T) {
	r := newReg(t)
	got := map[string][]string{}
	for s := range raceSessions {
		sid := fmt.Sprint("s", s)
		if err := r.Register(sid, "main", t0); err != nil {
			t.Fatal(err)
		}
		got[sid] = nil
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for s := range raceSessions {
		sid := fmt.Sprint("s", s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts, err := exchange(open(r.files, r.root), sid)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			got[sid] = texts
			mu.Unlock()
		}()
	}
	wg.Wait()
	drain(t, r, got)
	checkExchange(t, got)
}

// The same race between processes, as real hooks run: the test binary runs itself four times.
func TestRaceProcesses(t *testing.T) {
	if os.Getenv("CAIRN_REGISTRY_HELPER_SID") != "" {
		t.Skip("in a helper")
	}
	root := t.TempDir()
	r := open(safefile.Disk{Roots: []string{root}}, root)
	got := map[string][]string{}
	var cmds []*exec.Cmd
	for s := range raceSessions {
		sid := fmt.Sprint("s", s)
		if err := r.Register(sid, "main", t0); err != nil {
			t.Fatal(err)
		}
		got[sid] = nil
	}
	for sid := range got {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRaceHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CAIRN_REGISTRY_HELPER_SID="+sid, "CAIRN_REGISTRY_HELPER_ROOT="+root)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}
	for sid := range got {
		data, err := os.ReadFile(filepath.Join(root, "recv-"+sid+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		if err := json.Unmarshal(data, &texts); err != nil {
			t.Fatal(err)
		}
		got[sid] = texts
	}
	drain(t, r, got)
	checkExchange(t, got)
}

// TestRaceHelperProcess is one session of TestRaceProcesses; it does nothing when run directly.
func TestRaceHelperProcess(t *testing.T) {
	sid, root := os.Getenv("CAIRN_REGISTRY_HELPER_SID"), os.Getenv("CAIRN_REGISTRY_HELPER_ROOT")
	if sid == "" {
		return
	}
	r := open(safefile.Disk{Roots: []string{root}}, root)
	texts, err := exchange(r, sid)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(texts)
	if err := os.WriteFile(filepath.Join(root, "recv-"+sid+".json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}
