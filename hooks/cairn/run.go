package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/pkg/project"
	"github.com/cairn-hooks/cairn/pkg/runstate"
)

func init() {
	register("run", "start", command{"<id> [--issue N] [--branch B] [--worktree W] [--pr P]", "create .agents/runs/<id>/ (state.json and a MEMORY.md whiteboard) and make it the active run", runStart})
	register("run", "set", command{"<key>=<value>…", "set flat string keys in the active run's state.json (updated_at is refreshed)", runSet})
	register("run", "show", command{"[--json]", "show the active run's state", runShow})
	register("run", "end", command{"", "end the active run (its directory is kept)", runEnd})
}

func stamp(now time.Time) string { return now.UTC().Format(time.RFC3339) }

func runStart(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("run start", flag.ContinueOnError)
	issue := fs.String("issue", "", "issue number")
	branch := fs.String("branch", "", "branch (default: the checked-out branch)")
	worktree := fs.String("worktree", "", "worktree path")
	pr := fs.String("pr", "", "pull request")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageOf("run", "start")
	}
	id := pos[0]
	if !project.SafeName(id) || strings.ContainsAny(id, " \t") {
		return fmt.Errorf("run id %q is not safe: use letters, digits, '-', '_' and '.', not starting with '-' or '.'", id)
	}
	if runstate.Reserved(id) {
		return fmt.Errorf("run id %q is reserved: .agents/runs/%s is the file that names the active run", id, id)
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	root, files := p.Root, p.Files
	r, err := runstate.Resolve(root, id)
	if err != nil {
		return err
	}
	if *branch == "" {
		*branch = p.Branch()
	}
	now := stamp(p.Now())
	given := map[string]string{"issue": *issue, "branch": *branch, "worktree": *worktree, "pr": *pr}
	if _, err := files.Update(r.StatePath(), 0o644, func(old []byte, exists bool) ([]byte, error) {
		var st runstate.State
		if exists {
			var err error
			if st, _, err = runstate.Parse(old); err != nil {
				return nil, fmt.Errorf("%s/state.json: %w; fix or remove it first", r.Rel, err)
			}
		}
		for _, k := range runstate.Keys {
			if !st.Has(k) {
				st.Set(k, "")
			}
		}
		st.Set("run_id", r.ID)
		for k, v := range given {
			if v != "" {
				st.Set(k, v)
			}
		}
		if st.Get("phase") == "" {
			st.Set("phase", "started")
		}
		st.Set("updated_at", now)
		return st.Marshal(), nil
	}); err != nil {
		return err
	}
	if _, err := files.Update(r.MemoryPath(), 0o644, func(old []byte, exists bool) ([]byte, error) {
		if exists {
			return old, nil
		}
		return runstate.Template(r.ID, nil), nil
	}); err != nil {
		return err
	}
	if _, err := files.Update(filepath.Join(root, runstate.ActiveFile), 0o644, func([]byte, bool) ([]byte, error) {
		return []byte(r.Rel + "\n"), nil
	}); err != nil {
		return err
	}
	if err := runstate.Open(p).MarkStarted(r); err != nil {
		c.Warn("the run is active, but SessionStart will hand it back as the repository's, not yours: %v", err)
	}
	fmt.Fprintf(c.Stdout, "Run %s started: %s (active)\n", r.ID, r.Rel)
	return nil
}

func activeRun(c *CLI) (runstate.Run, error) {
	p, err := c.Project()
	if err != nil {
		return runstate.Run{}, err
	}
	r, err := runstate.Active(p.Root)
	if errors.Is(err, runstate.ErrNoActive) {
		return r, errors.New("no active run: start one with cairn run start <id>")
	}
	return r, err
}

func runSet(ctx context.Context, c *CLI, args []string) error {
	args, err := parseInterleaved(flag.NewFlagSet("run set", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usageOf("run", "set")
	}
	type kv struct{ k, v string }
	var sets []kv
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return usagef("%q is not key=value", a)
		}
		if err := runstate.CheckSet(k, v); err != nil {
			return err
		}
		sets = append(sets, kv{k, v})
	}
	r, err := activeRun(c)
	if err != nil {
		return err
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	files, now := p.Files, stamp(p.Now())
	_, err = files.Update(r.StatePath(), 0o644, func(old []byte, exists bool) ([]byte, error) {
		var st runstate.State
		if exists {
			var warnings []string
			var err error
			if st, warnings, err = runstate.Parse(old); err != nil {
				return nil, fmt.Errorf("%s/state.json: %w; fix or remove it first", r.Rel, err)
			}
			for _, w := range warnings {
				c.Warn("%s/%s (it will be dropped)", r.Rel, w)
			}
		}
		updated := false
		for _, s := range sets {
			st.Set(s.k, s.v)
			updated = updated || s.k == "updated_at"
		}
		if !updated {
			st.Set("updated_at", now)
		}
		return st.Marshal(), nil
	})
	if err != nil {
		return err
	}
	for _, s := range sets {
		fmt.Fprintf(c.Stdout, "%s=%s\n", s.k, s.v)
	}
	return nil
}

func runShow(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("run show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("run", "show")
	}
	r, err := activeRun(c)
	if err != nil {
		return err
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	st, warnings, err := runstate.Load(p.Root, r)
	for _, w := range warnings {
		c.Warn("%s/%s", r.Rel, w)
	}
	if err != nil {
		return fmt.Errorf("%s/state.json: %w", r.Rel, err)
	}
	if *asJSON {
		state := map[string]string{}
		for _, k := range st.Keys() {
			state[k] = st.Get(k)
		}
		b, _ := json.MarshalIndent(struct {
			Run   string            `json:"run"`
			Dir   string            `json:"dir"`
			State map[string]string `json:"state"`
		}{r.ID, r.Rel, state}, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
		return nil
	}
	fmt.Fprintf(c.Stdout, "run %s (%s)\n", r.ID, r.Rel)
	for _, k := range st.Keys() {
		fmt.Fprintf(c.Stdout, "  %s: %s\n", k, st.Get(k))
	}
	return nil
}

func runEnd(ctx context.Context, c *CLI, args []string) error {
	pos, err := parseInterleaved(flag.NewFlagSet("run end", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageOf("run", "end")
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	root, files := p.Root, p.Files
	r, err := runstate.Active(root)
	if errors.Is(err, runstate.ErrNoActive) {
		return errors.New("no active run")
	}
	// A broken pointer (outside the root, unsafe) is still removed: ending is how it gets fixed.
	if rmErr := files.Remove(filepath.Join(root, runstate.ActiveFile)); rmErr != nil {
		return rmErr
	}
	if err != nil {
		fmt.Fprintf(c.Stdout, "Active run pointer removed (it was invalid: %v).\n", err)
		return nil
	}
	fmt.Fprintf(c.Stdout, "Run %s ended; %s is kept.\n", r.ID, r.Rel)
	return nil
}
