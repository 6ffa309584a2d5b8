/**
 * 问答记录.md: every question, its options and how it ended, plus what the person said on their own.
 *
 * Append-only, one `appendFileSync` per entry, so two questions settling at once never interleave
 * their lines and a crash loses at most the entry being written. A write failure is reported to the
 * caller and never thrown: the log is a record for people, the run must not stop over it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errorText } from '../errors.js';
import type { Ask, Mail } from './types.js';

export const LOG_HEADER = '# 需求问答记录';
export const LOG_NOTE = '> 只追加,不改写:agent 问的每个问题、给的选项、最后怎么了([状态]),以及人运行中主动说的话。';

/** A body on one line per entry: a multi-line answer keeps its line breaks, indented under the item. */
function inline(text: string, indent: string): string {
  return text.trim().replace(/\r\n?/g, '\n').split('\n').join(`\n${indent}`);
}

export function askEntry(ask: Ask): string {
  const lines = [`- **Q**(${ask.id}) ${inline(ask.question, '  ') || '(空)'}`];
  if (ask.options.length > 0) lines.push(`  - 选项:${ask.options.map((o) => inline(o, '    ')).join(' / ')}`);
  const answer = ask.answer === null ? '' : inline(ask.answer, '    ');
  lines.push(`  - **A**[${ask.state}]${answer ? ` ${answer}` : ''}`);
  return `${lines.join('\n')}\n`;
}

export function mailEntry(mail: Mail): string {
  return `- **人主动说**(${mail.id}) ${inline(mail.text, '  ')}\n`;
}

export class QaLog {
  readonly path: string;

  constructor(file: string) {
    this.path = path.resolve(file);
  }

  /** Append one entry (adding the header to a new or empty file). Returns the error text, or null. */
  append(entry: string): string | null {
    try {
      fs.mkdirSync(path.dirname(this.path), { recursive: true });
      let size = 0;
      try {
        size = fs.statSync(this.path).size;
      } catch {
        /* missing: the header goes first */
      }
      const head = size === 0 ? `${LOG_HEADER}\n\n${LOG_NOTE}\n\n` : '';
      fs.appendFileSync(this.path, head + entry, { encoding: 'utf8', mode: 0o600 });
      return null;
    } catch (e) {
      return `could not write the Q&A log ${this.path}: ${errorText(e)}`;
    }
  }
}
