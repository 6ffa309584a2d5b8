/**
 * What the person says on their own while agents work (issue #3: hours of work with no way to reach
 * the coordinator). A remark is queued for the `inbox` tool AND appended to the brief, so it outlives
 * this process and every later step (and a wake) sees it even if no agent ever calls inbox.
 */
import { AMEND_FILE_HEADER, Brief, DEFAULT_AMEND_LABEL, readDocument, writeAtomic } from '../docs/index.js';
import { errorText } from '../errors.js';
import type { Mail, Via } from './types.js';

/** Header of an amend file that did not exist yet (the brief is written around it when it freezes). */
export const AMEND_HEADER = AMEND_FILE_HEADER;

/**
 * Append a remark to the brief under `## 运行中补充(HH:MM:SS)`. True when the text is in the file
 * afterwards (appended now, or already there — Brief.amend never appends a remark twice). Throws
 * when the file is damaged or cannot be written; the caller decides that this must not stop a run.
 */
export function amendBrief(file: string, text: string, now = new Date()): boolean {
  if (readDocument(file).status === 'missing') writeAtomic(file, `${AMEND_HEADER}\n`);
  Brief.amend(file, text, { label: DEFAULT_AMEND_LABEL, now });
  return true;
}

export interface MailboxHooks {
  /** a failure worth telling someone about (amend failed) */
  onProblem(message: string): void;
}

export class Mailbox {
  private readonly mails: Mail[] = [];

  constructor(
    private readonly amendPath: string | undefined,
    private readonly hooks: MailboxHooks,
  ) {}

  /** Queue a remark (already trimmed, non-empty) under the given id. */
  post(id: string, text: string, now = new Date(), via: Via | null = null): Mail {
    const mail: Mail = { id, text, sent_at: now.toISOString(), state: 'queued', amended: false, delivered_at: null, ...(via ? { via } : {}) };
    if (this.amendPath) {
      try {
        mail.amended = amendBrief(this.amendPath, text, now);
      } catch (e) {
        this.hooks.onProblem(`could not add ${id} to ${this.amendPath}: ${errorText(e)}`);
      }
    }
    this.mails.push(mail);
    return { ...mail };
  }

  /** Everything still queued, oldest first, now marked delivered. */
  deliver(now = new Date()): Mail[] {
    const out: Mail[] = [];
    for (const m of this.mails) {
      if (m.state !== 'queued') continue;
      m.state = 'delivered';
      m.delivered_at = now.toISOString();
      out.push({ ...m });
    }
    return out;
  }

  queued(): Mail[] {
    return this.mails.filter((m) => m.state === 'queued').map((m) => ({ ...m }));
  }

  all(): Mail[] {
    return this.mails.map((m) => ({ ...m }));
  }
}
