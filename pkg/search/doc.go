// Package search finds items in a project's history: checkpoints of every kind (saved ones,
// automatic ones with their compaction summaries, hand-offs), open parked items, archived and
// expired items from the audit log with their text, and the timeline. It ranks them by BM25,
// weighted by kind, newer first among equal scores, with a one-line snippet per result.
//
// The markdown and JSON-lines files stay the source of truth. The index (cidx, a small
// inverted index of this package's own format, see format.go) is derived from them: it lives
// in the user's cache directory (Location), is checked against the files before every query
// by a handful of stat calls, brought up to date incrementally (a delta segment for what
// changed, JSON lines indexed from where it stopped), rebuilt whole when missing or damaged,
// and never committed. Results and Show read the text back from the files, so the index holds
// no copy of it, and Show needs no index at all.
//
// A long-running process (the MCP server) opens one Index and keeps it: Index.Search per request
// (safe from several goroutines; its freshness check costs a few stat calls; docs/BENCHMARKS.md
// times its queries), Index.Show or Show for an item whole, Index.Sync from a
// background goroutine to take the periodic full sweep (a stat of every file, every ten minutes)
// off the requests, and safefile.Release between requests. A cold build holds the whole index in
// memory while it runs (about 80 MiB at 20,000 checkpoints).
//
// Only the cairn CLI links this package (and the MCP server will): the hooks must stay small
// and fast, which testscripts/deps_test.go checks.
package search
