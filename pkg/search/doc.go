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
// The cairn CLI opens an Index per command: `cairn search`, `cairn show`, and `context list` and
// `context restore`, which list checkpoints from it. The MCP server (pkg/mcpserver) does not link
// this package: each tool call runs one of those commands as a process, so its locks and
// refusals are the CLI's. Index.Search is safe from several goroutines, and Index.Sync takes the
// periodic full sweep (a stat of every file, every ten minutes) off a query; a process that
// kept an Index open would also call safefile.Release between requests, since a directory the
// process holds open is not seen again once removed. A cold build holds the whole index in
// memory while it runs (bounded: see the hostile-repository notes in docs/RELIABILITY.md).
//
// Only the cairn CLI links this package: the hooks must stay small and fast, which
// testscripts/deps_test.go checks.
package search
