/**
 * Who owes output, message by message: the watchdog counts a silent main thread and a silent worker's
 * model, never a running tool — a worker's own long Bash included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Silence } from '../../src/runtime/silence.js';

const assistant = (content: object[], parent?: string) => ({ type: 'assistant', message: { content }, ...(parent ? { parent_tool_use_id: parent } : {}) });
const user = (content: object[], parent?: string) => ({ type: 'user', message: { content }, ...(parent ? { parent_tool_use_id: parent } : {}) });
const toolUse = (id: string, name = 'Bash', input: object = {}) => ({ type: 'tool_use', id, name, input });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });

// [behaviour, messages, who owes after the last one]
const ROWS: Array<[string, object[], 'main' | 'worker' | null]> = [
  ['a fresh session owes its first message', [{ type: 'system', subtype: 'init' }], 'main'],
  ['a main-thread Bash runs: nobody owes', [assistant([toolUse('t1')])], null],
  ['its result is back: the main thread owes again', [assistant([toolUse('t1')]), user([toolResult('t1')])], 'main'],
  ['a foreground worker was dispatched: its model owes its first message', [assistant([toolUse('a1', 'Agent', { subagent_type: 'w' })])], 'worker'],
  ['the worker runs its own Bash: nobody owes', [assistant([toolUse('a1', 'Agent')]), assistant([toolUse('w1')], 'a1')], null],
  [
    "the worker's Bash returned: its model owes again",
    [assistant([toolUse('a1', 'Agent')]), assistant([toolUse('w1')], 'a1'), user([toolResult('w1')], 'a1')],
    'worker',
  ],
  [
    'the worker reported: the main thread gets its result next, nobody owes',
    [assistant([toolUse('a1', 'Agent')]), assistant([{ type: 'text', text: 'done' }], 'a1')],
    null,
  ],
  [
    'the Agent result arrived: the main thread owes',
    [assistant([toolUse('a1', 'Agent')]), assistant([{ type: 'text', text: 'done' }], 'a1'), user([toolResult('a1')])],
    'main',
  ],
  ['a background worker is not waited on here', [assistant([toolUse('a1', 'Agent', { run_in_background: true })])], null],
  ['the turn ended: nobody owes', [assistant([{ type: 'text', text: 'bye' }]), { type: 'result' }], null],
  ['a task notification after the end: the main thread owes', [{ type: 'result' }, { type: 'system', subtype: 'task_notification' }], 'main'],
  ['a status message after the end changes nothing', [{ type: 'result' }, { type: 'system', subtype: 'status' }], null],
];
for (const [what, msgs, who] of ROWS) {
  test(`silence: ${what}`, () => {
    const s = new Silence();
    for (const m of msgs) s.see(m as Record<string, unknown>);
    assert.equal(s.who(), who);
    assert.equal(s.owed(), who !== null);
  });
}
