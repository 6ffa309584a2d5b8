/**
 * Delivery in the background with bounded retries, on a fake clock and fake transports: no network,
 * no sleep. The clock runs its timers in time order, letting promises settle between them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveryError, Notifier, RETRY, finished, type Clock, type DeliveryFailure, type Transport } from '../../src/notify/index.js';

class FakeClock implements Clock {
  t = 0;
  private seq = 0;
  private timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  now(): number {
    return this.t;
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }
  /** Every timer, earliest first, until none is left. */
  async run(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      const next = [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) return;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
  }
}

/** A transport that answers each attempt from a script: 'ok', an error, or 'hang' (until aborted). */
function scripted(label: string, answers: Array<'ok' | 'hang' | Error>, clock: FakeClock) {
  const calls: Array<{ at: number; body: string }> = [];
  const t: Transport = {
    label,
    send(body, signal) {
      calls.push({ at: clock.now(), body });
      const a = answers[Math.min(calls.length - 1, answers.length - 1)] ?? 'ok';
      if (a === 'ok') return Promise.resolve();
      if (a instanceof Error) return Promise.reject(a);
      return new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    },
  };
  return { t, calls };
}

const place = { run: 'r1', step: '干活', folder: '/p', host: 'h', cost_usd: 0.5, at: '2025-01-01T00:00:00.000Z' };
const note = finished(place, { ok: true, verdict: 'achieved', passed: 1, total: 1, durationS: 3 });

function notifier(transports: Transport[], clock: FakeClock, scrub: (v: unknown) => unknown = (v) => v) {
  const warnings: string[] = [];
  const records: DeliveryFailure[] = [];
  const n = new Notifier({ transports, scrub, clock, warn: (l) => warnings.push(l), onFailure: (f) => records.push(f) });
  return { n, warnings, records };
}

test('delivered on the first attempt: one call with the JSON, no warning', async () => {
  const clock = new FakeClock();
  const s = scripted('https://hooks.example', ['ok'], clock);
  const { n, warnings } = notifier([s.t], clock);
  n.send(note);
  await Promise.all([n.flush(), clock.run()]);
  assert.equal(s.calls.length, 1);
  assert.deepEqual(JSON.parse(s.calls[0]!.body), note);
  assert.deepEqual(warnings, []);
});

test('two failures then success: three attempts, 0.25 s then 0.5 s apart, and no warning', async () => {
  const clock = new FakeClock();
  const s = scripted('x', [new DeliveryError('HTTP 503', true), new Error('ECONNRESET'), 'ok'], clock);
  const { n, warnings } = notifier([s.t], clock);
  n.send(note);
  await Promise.all([n.flush(), clock.run()]);
  assert.deepEqual(
    s.calls.map((c) => c.at),
    [0, 250, 750],
  );
  assert.deepEqual(warnings, []);
});

test('a dead receiver: three attempts, then one warning line and one record, never an exception', async () => {
  const clock = new FakeClock();
  const s = scripted('http://127.0.0.1:9', [new DeliveryError('connect ECONNREFUSED 127.0.0.1:9', true)], clock);
  const { n, warnings, records } = notifier([s.t], clock);
  assert.doesNotThrow(() => n.send(note));
  await Promise.all([n.flush(), clock.run()]);
  assert.equal(s.calls.length, RETRY.attempts);
  assert.deepEqual(warnings, ["notification 'finished' not delivered to http://127.0.0.1:9 (3 attempts): connect ECONNREFUSED 127.0.0.1:9"]);
  assert.deepEqual(records, [{ notify: 'failed', kind: 'finished', target: 'http://127.0.0.1:9', attempts: 3, error: 'connect ECONNREFUSED 127.0.0.1:9' }]);
});

test('a refusal another attempt would repeat (HTTP 400) is not retried', async () => {
  const clock = new FakeClock();
  const s = scripted('x', [new DeliveryError('HTTP 400', false)], clock);
  const { n, warnings } = notifier([s.t], clock);
  n.send(note);
  await Promise.all([n.flush(), clock.run()]);
  assert.equal(s.calls.length, 1);
  assert.match(warnings[0]!, /\(1 attempt\): HTTP 400$/);
});

test('a receiver that hangs: each attempt times out, and the retries end within the retry budget', async () => {
  const clock = new FakeClock();
  const s = scripted('x', ['hang'], clock);
  const { n, warnings } = notifier([s.t], clock);
  n.send(note);
  await clock.run();
  assert.deepEqual(
    s.calls.map((c) => c.at),
    [0, 2250, 4750],
  );
  assert.ok(clock.now() <= RETRY.budgetMs, `gave up at ${clock.now()} ms`);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /no answer in 0\.3 s$/);
});

test('a transport that ignores its abort signal still ends on time', async () => {
  const clock = new FakeClock();
  const t: Transport = { label: 'deaf', send: () => new Promise(() => {}) };
  const { n, warnings } = notifier([t], clock);
  n.send(note);
  await clock.run();
  assert.ok(clock.now() <= RETRY.budgetMs);
  assert.equal(warnings.length, 1);
});

test('send returns at once while the receiver hangs; each target gets the notifications in order', async () => {
  const clock = new FakeClock();
  const order: string[] = [];
  let release: () => void = () => {};
  const slow: Transport = {
    label: 'slow',
    send: (body) => {
      order.push(JSON.parse(body).kind as string);
      return order.length === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
    },
  };
  const { n } = notifier([slow], clock);
  n.send({ ...note, kind: 'finished' });
  n.send(finished({ ...place, step: 'second' }, { ok: false, verdict: null, passed: null, total: null, durationS: 0 }));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ['finished'], 'the second waits for the first');
  release();
  await Promise.all([n.flush(), clock.run()]);
  assert.equal(order.length, 2);
});

test('flush waits at most the retry budget, then abandons what is left with one warning each', async () => {
  const clock = new FakeClock();
  const s = scripted('x', ['hang'], clock);
  const { n, warnings } = notifier([s.t], clock);
  n.send(note);
  n.send(note);
  let flushedAt = -1;
  await Promise.all([n.flush().then(() => (flushedAt = clock.now())), clock.run()]);
  assert.ok(flushedAt <= RETRY.budgetMs, `flush took ${flushedAt} ms`);
  assert.equal(warnings.length, 2);
  assert.match(warnings[1]!, /not delivered to x: the run ended before it was delivered$/);
});

test('flush with nothing on its way returns at once', async () => {
  const clock = new FakeClock();
  const { n } = notifier([scripted('x', ['ok'], clock).t], clock);
  await n.flush();
  assert.equal(clock.now(), 0);
});

test('every target gets every notification; one failing target does not hold the other', async () => {
  const clock = new FakeClock();
  const dead = scripted('dead', ['hang'], clock);
  const live = scripted('live', ['ok'], clock);
  const { n, warnings } = notifier([dead.t, live.t], clock);
  n.send(note);
  await new Promise((r) => setImmediate(r));
  assert.equal(live.calls.length, 1, 'delivered before the dead one timed out');
  await Promise.all([n.flush(), clock.run()]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /to dead/);
});

test('the body and the warning are scrubbed before they leave', async () => {
  const clock = new FakeClock();
  const secret = 'hunter2-very-secret';
  const s = scripted('x', [new Error(`refused for ${secret}`)], clock);
  const scrub = (v: unknown): unknown => JSON.parse(JSON.stringify(v).split(secret).join('[secret]'));
  const { n, warnings } = notifier([s.t], clock, scrub);
  n.send({ ...note, text: `done with ${secret}` });
  await Promise.all([n.flush(), clock.run()]);
  assert.doesNotMatch(s.calls[0]!.body, /hunter2/);
  assert.match(s.calls[0]!.body, /done with \[secret\]/);
  assert.doesNotMatch(warnings.join('\n'), /hunter2/);
});

test('a warn callback that throws changes nothing', async () => {
  const clock = new FakeClock();
  const s = scripted('x', [new DeliveryError('HTTP 400', false)], clock);
  const n = new Notifier({
    transports: [s.t],
    scrub: (v) => v,
    clock,
    warn: () => {
      throw new Error('screen gone');
    },
  });
  n.send(note);
  await Promise.all([n.flush(), clock.run()]);
});
