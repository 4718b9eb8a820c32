package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-hooks/cairn/scripts/internal/stats"
)

// mcpResult is the MCP server's figures at one size: each query's median round trip of a
// tools/call search (the client's write to the server's reply), and the server's peak RSS.
type mcpResult struct {
	median, p90 []float64
	hwmKiB      int64
}

// measureMCP starts `cairn mcp` in the project at root, as Claude Code does (one long-running
// process on a pipe), initializes it, and times n search calls of each query after 3 warm-ups.
func measureMCP(r *runner, root, cache string, queries [][]string, n int) (mcpResult, error) {
	var res mcpResult
	cmd := exec.Command(filepath.Join(r.bin, "cairn"), "mcp")
	cmd.Dir = root
	cmd.Env = r.env(root, cache)
	in, err := cmd.StdinPipe()
	if err != nil {
		return res, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return res, err
	}
	defer func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	}()
	out := bufio.NewReaderSize(outPipe, 1<<20)
	id := 0
	call := func(method string, params any) (json.RawMessage, error) {
		id++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(b, '\n')); err != nil {
			return nil, err
		}
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("cairn mcp: %s: %v", method, err)
			}
			var m struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &m) != nil || m.ID != id {
				continue // a notification, or not ours
			}
			if len(m.Error) > 0 {
				return nil, fmt.Errorf("cairn mcp: %s: %s", method, m.Error)
			}
			return m.Result, nil
		}
	}
	if _, err := call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "searchbench", "version": "1"}}); err != nil {
		return res, err
	}
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		return res, err
	}
	for _, q := range queries {
		args := mcpArgs(q)
		var ts []float64
		for i := 0; i < n+3; i++ {
			start := time.Now()
			raw, err := call("tools/call", map[string]any{"name": "search", "arguments": args})
			d := time.Since(start)
			if err != nil {
				return res, err
			}
			var tr struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if err := json.Unmarshal(raw, &tr); err != nil || tr.IsError || len(tr.Content) == 0 {
				return res, fmt.Errorf("cairn mcp: search %v: %s", args, raw)
			}
			if i >= 3 {
				ts = append(ts, stats.Ms(d))
			}
		}
		res.median = append(res.median, stats.Median(ts))
		res.p90 = append(res.p90, stats.Pct(ts, 0.9))
	}
	res.hwmKiB = vmHWM(cmd.Process.Pid)
	return res, nil
}

// mcpArgs turns a query's command-line arguments into the search tool's arguments.
func mcpArgs(q []string) map[string]any {
	args := map[string]any{}
	var words []string
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case "--kind", "--branch", "--since":
			args[strings.TrimPrefix(q[i], "--")] = q[i+1]
			i++
		default:
			words = append(words, q[i])
		}
	}
	args["query"] = strings.Join(words, " ")
	return args
}

// vmHWM is a live process's peak resident set in KiB, from /proc (0 where there is none). The
// server's own: each tool call runs the cairn CLI as a child, whose memory is its own (the warm
// peak RSS column).
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}
