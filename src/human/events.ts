/**
 * What the channel tells its UIs (an `ask` or `mail` event per change, a `task` event of kind
 * `rejected` per submission the schema did not accept) and the inbox tool's reply text.
 */
import { event, type FlowerEvent } from '../runtime/events.js';
import { issueSummary, type FieldIssue } from './rejection.js';
import type { ChannelTexts } from './replies.js';
import type { Ask, Mail } from './types.js';

export function askEvent(a: Ask): FlowerEvent {
  return event('ask', a.question, {
    id: a.id,
    question: a.question,
    options: [...a.options],
    state: a.state,
    answer: a.answer,
    option_index: a.optionIndex,
    remaining: a.remaining,
    asked_at: a.asked_at,
    settled_at: a.settled_at,
    framework: a.framework,
    via: a.via ?? null,
  });
}

export function mailEvent(m: Mail): FlowerEvent {
  return event('mail', m.text, {
    id: m.id,
    kind: 'mail',
    state: m.state,
    amended: m.amended,
    sent_at: m.sent_at,
    delivered_at: m.delivered_at,
    via: m.via ?? null,
  });
}

/** A rejected submission: the typed issues ride in the payload (`issues`), the text is for logs. */
export function rejectionEvent(kind: string, issues: readonly FieldIssue[]): FlowerEvent {
  return event('task', `submit_${kind} not accepted: ${issueSummary(issues)}`, { kind: 'rejected', submission: kind, issues: issues.map((i) => ({ ...i })) });
}

export function inboxText(t: ChannelTexts, mails: Mail[], amendPath: string | undefined): string {
  if (mails.length === 0) return t.inboxEmpty;
  const list = mails.map((m, i) => `${i + 1}. ${m.text.replace(/\n/g, '\n   ')}`);
  const saved = !amendPath ? t.inboxNotSaved : mails.every((m) => m.amended) ? t.inboxSaved(amendPath) : t.inboxSomeNotSaved;
  return [t.inboxHead(mails.length), ...list, '', saved].join('\n');
}
