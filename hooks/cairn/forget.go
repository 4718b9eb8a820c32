package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/cairn-hooks/cairn/pkg/forget"
	"github.com/cairn-hooks/cairn/pkg/plain"
	"github.com/cairn-hooks/cairn/pkg/safefile"
	"github.com/cairn-hooks/cairn/pkg/search"
	"github.com/cairn-hooks/cairn/pkg/tombstone"
)

func init() {
	topLevel["forget"] = command{"<id> [--dry-run]",
		"remove the item an id from cairn search names from every record cairn keeps (a checkpoint, a parked, archived or expired item, a timeline line, a pruned checkpoint, a session of the history) and leave a tombstone, so that no rebuild brings it back; --dry-run says what would go and what forget cannot reach",
		cmdForget}
}

func cmdForget(ctx context.Context, c *CLI, args []string) error {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	dry := fs.Bool("dry-run", false, "say what would be removed, remove nothing")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := argsUsage("", "forget", pos, "<id>"); err != nil {
		return err
	}
	cfg, err := historyConfig(c)
	if err != nil {
		return err
	}
	p, err := c.Project()
	if err != nil {
		return err
	}
	if p.Config == "" {
		return errors.New("no Claude Code config directory (neither CLAUDE_CONFIG_DIR nor HOME is set): nowhere to keep the tombstone")
	}
	if *dry {
		// Reading where the item lives must change nothing either: a catalog a real run would
		// move aside and rebuild is only planned (catalog.Catalog's heal), and any other write
		// goes nowhere.
		p.DryRun = true
		p.Files = safefile.DryRun{Out: io.Discard, Roots: p.Roots()}
	}
	pl, err := forget.Prepare(p, cfg, pos[0])
	if errors.Is(err, search.ErrNotFound) {
		return withHint(err, "ids come from cairn search (a checkpoint's is its file name without .md)")
	}
	if err != nil {
		return err
	}
	w := c.Stdout
	id := plain.Line(pl.ID, 0)
	if *dry {
		fmt.Fprintf(w, "cairn forget %s would remove:\n", id)
	} else {
		if err := pl.Apply(ctx); err != nil {
			return err
		}
		fmt.Fprintf(w, "Forgot %s (%s). Removed:\n", id, pl.Kind)
	}
	for _, r := range pl.Removes {
		fmt.Fprintf(w, "  - %s\n", plain.Line(r, 0))
	}
	fmt.Fprintln(w, "Out of cairn's reach, and left as they are:")
	for _, k := range pl.Keeps {
		fmt.Fprintf(w, "  - %s\n", plain.Line(k, 0))
	}
	verb := "keeps"
	if *dry {
		verb = "would keep"
	}
	fmt.Fprintf(w, "A tombstone in %s (its id and a hash, never its text) %s it from coming back.\n", plain.Line(tombstone.Path(p.Config), 0), verb)
	return nil
}
