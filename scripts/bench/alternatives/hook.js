#!/usr/bin/env node
// A Claude Code hook as the popular Node hook suites write one: JSON.parse the payload from stdin,
// read the transcript's last 64 KiB, parse its JSON lines from the end until the last assistant
// message, and answer. Used by scripts/bench as the Node contender.
'use strict';
const fs = require('fs');

const TAIL = 64 << 10;

function lastAssistantText(path) {
  let buf, size;
  try {
    const fd = fs.openSync(path, 'r');
    try {
      size = fs.fstatSync(fd).size;
      const start = Math.max(0, size - TAIL);
      buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    return '';
  }
  let lines = buf.toString('utf8').split('\n');
  if (size > TAIL) lines = lines.slice(1); // the first line is cut
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i].trim()) continue;
    let entry;
    try {
      entry = JSON.parse(lines[i]);
    } catch (e) {
      continue;
    }
    if (entry.type !== 'assistant' || entry.isSidechain) continue;
    const content = (entry.message && entry.message.content) || [];
    const texts = Array.isArray(content) ? content.filter((b) => b && b.type === 'text').map((b) => b.text || '') : [];
    if (texts.length) return texts.join('\n\n');
  }
  return '';
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  let payload;
  try {
    payload = JSON.parse(input);
  } catch (e) {
    process.exit(0);
  }
  const text = lastAssistantText(payload.transcript_path || '');
  const prompt = payload.prompt || '';
  if (text.trimEnd().endsWith('?') && prompt.split(/\s+/).length > 3) {
    // a real hook would decide something here; it prints nothing either way
  }
  process.exit(0);
});
