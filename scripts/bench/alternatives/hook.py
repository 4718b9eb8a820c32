#!/usr/bin/env python3
"""A Claude Code hook as the popular Python hook suites write one: json.load the payload from
stdin, read the transcript's last 64 KiB, parse its JSON lines from the end until the last
assistant message, and answer. Used by scripts/bench as the Python contender."""
import json
import os
import sys

TAIL = 64 << 10


def last_assistant_text(path):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - TAIL))
            tail = f.read()
    except OSError:
        return ""
    lines = tail.split(b"\n")
    if size > TAIL:
        lines = lines[1:]  # the first line is cut
    for line in reversed(lines):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("type") != "assistant" or entry.get("isSidechain"):
            continue
        content = (entry.get("message") or {}).get("content") or []
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if texts:
            return "\n\n".join(texts)
    return ""


def main():
    try:
        payload = json.load(sys.stdin)
    except ValueError:
        return 0
    text = last_assistant_text(payload.get("transcript_path") or "")
    prompt = payload.get("prompt") or ""
    if text.rstrip().endswith("?") and prompt and len(prompt.split()) > 3:
        pass  # a real hook would decide something here; it prints nothing either way
    return 0


if __name__ == "__main__":
    sys.exit(main())
