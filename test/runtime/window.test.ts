/**
 * The window and its thresholds: formulas, precedence, calibration, the model-mismatch rule.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  Runtime,
  calibrationFile,
  calibrationKey,
  defaultWindow,
  formatTokens,
  guessWindow,
  handoffPolicy,
  modelMismatch,
  wantedModel,
  readCalibration,
  rememberOverflow,
  resolveWindow,
  statedLimit,
  thresholds,
  calibratedWindow,
} from '../../src/runtime/index.js';

const home = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-window-'));
const cfgEnv = (dir: string, extra: Record<string, string> = {}) => ({ XDG_CONFIG_HOME: path.join(dir, 'cfg'), HOME: dir, ...extra });

test('the room is max(50k, 25 % of the window) unless a headroom is given; the 50k floor never takes over half a small window', () => {
  const cases: Array<[window: number, headroom: number, at: number, warnAt: number, room: number]> = [
    [200_000, 0, 150_000, 130_000, 50_000],
    [1_000_000, 0, 750_000, 730_000, 250_000],
    [100_000, 0, 50_000, 30_000, 50_000],
    [20_000, 0, 15_000, 1_000, 5_000],
    [60_000, 0, 45_000, 25_000, 15_000],
    [99_999, 0, 75_000, 55_000, 24_999],
    [1_000_000, 50_000, 950_000, 930_000, 50_000],
    [40_000, 25_000, 15_000, 1_000, 25_000],
    [60_000, 15_000, 45_000, 25_000, 15_000],
  ];
  for (const [window, headroom, at, warnAt, room] of cases) {
    assert.deepEqual(thresholds({ window, headroom }), { room, at, warnAt }, `window ${window} headroom ${headroom}`);
  }
});

test('the window is guessed from the model name: a standalone 1m first, then haiku, else 1M', () => {
  const cases: Array<[string | undefined, number]> = [
    ['claude-haiku[1m]', 1_000_000],
    ['claude-haiku-4-5', 200_000],
    ['Claude-HAIKU', 200_000],
    ['claude-opus-5[1m]', 1_000_000],
    ['claude-sonnet-4-5 1M', 1_000_000],
    ['model-11m-haiku', 200_000],
    ['haiku1m', 200_000],
    ['claude-opus-4-1', 1_000_000],
    ['', 1_000_000],
    [undefined, 1_000_000],
  ];
  for (const [name, w] of cases) assert.equal(guessWindow(name), w, String(name));
  assert.equal(defaultWindow({ ANTHROPIC_DEFAULT_OPUS_MODEL: 'x-haiku', HOME: home() }), 200_000, 'the opus default stands in for ANTHROPIC_MODEL');
  assert.equal(defaultWindow({ ANTHROPIC_MODEL: 'opus', ANTHROPIC_DEFAULT_OPUS_MODEL: 'x-haiku', HOME: home() }), 1_000_000);
});

test('precedence: --window > FLOWER_WINDOW > calibration > name; invalid FLOWER_WINDOW values are ignored', () => {
  const dir = home();
  const env = cfgEnv(dir, { ANTHROPIC_MODEL: 'claude-haiku-x', ANTHROPIC_BASE_URL: 'http://gw:1' });
  assert.deepEqual(resolveWindow(env), { window: 200_000, source: 'model' });
  rememberOverflow(env, 'claude-haiku-x', 174_000);
  assert.deepEqual(resolveWindow(env), { window: 174_000, source: 'calibration' });
  assert.deepEqual(resolveWindow({ ...env, FLOWER_WINDOW: '90000' }), { window: 90_000, source: 'env' });
  assert.deepEqual(resolveWindow({ ...env, FLOWER_WINDOW: '90000' }, 70_000), { window: 70_000, source: 'option' });
  for (const bad of ['0', '-5', 'abc', '1e5', '12.5', '', ' ']) {
    assert.equal(resolveWindow({ ...env, FLOWER_WINDOW: bad }).source, 'calibration', `FLOWER_WINDOW=${JSON.stringify(bad)}`);
  }
  assert.equal(resolveWindow(env, 0).source, 'calibration', 'an explicit 0 is no window');
});

test('calibration keeps the minimum, is keyed by base URL and model, and ignores invalid values', () => {
  const dir = home();
  const a = cfgEnv(dir, { ANTHROPIC_BASE_URL: 'http://gw:1' });
  const b = cfgEnv(dir, {});
  assert.equal(rememberOverflow(a, 'm', 174_000), 174_000);
  assert.equal(rememberOverflow(a, 'm', 190_000), 174_000, 'never loosens');
  assert.equal(rememberOverflow(a, 'm', 150_000), 150_000);
  assert.equal(rememberOverflow(b, 'm', 90_000), 90_000);
  assert.equal(rememberOverflow(a, 'other', 80_000), 80_000);
  assert.equal(rememberOverflow(a, 'm', 0), undefined, 'no reading, nothing recorded');
  assert.equal(rememberOverflow(a, 'm', 18_000), undefined, 'below any real window: a broken usage reading, never remembered');
  assert.equal(rememberOverflow(a, 'm', 2e9), undefined, 'above any real window: the same');
  assert.deepEqual(readCalibration(a), { 'http://gw:1|m': 150_000, 'default|m': 90_000, 'http://gw:1|other': 80_000 });
  assert.equal(calibrationKey(b, 'm'), 'default|m');
  // a hand-edited file with junk: the junk is ignored, the good entries still count
  fs.writeFileSync(calibrationFile(a), JSON.stringify({ 'http://gw:1|m': 'lots', 'default|m': -3, 'default|ok': 120_000, 'default|f': 1.5 }));
  assert.deepEqual(readCalibration(a), { 'default|ok': 120_000 });
  assert.equal(resolveWindow({ ...b, ANTHROPIC_MODEL: 'ok' }).window, 120_000);
  fs.writeFileSync(calibrationFile(a), '{not json');
  assert.deepEqual(readCalibration(a), {});
  assert.equal(rememberOverflow(a, 'm', 100_000), 100_000, 'a damaged file is replaced, not fatal');
  assert.deepEqual(readCalibration(a), { 'http://gw:1|m': 100_000 });
  assert.equal(fs.readdirSync(path.dirname(calibrationFile(a))).filter((f) => f.includes('.tmp')).length, 0, 'atomic: no temp file left');
});

test('an unwritable calibration file never throws', () => {
  const dir = home();
  const env = cfgEnv(dir);
  fs.mkdirSync(path.dirname(calibrationFile(env)), { recursive: true });
  fs.mkdirSync(calibrationFile(env)); // a directory where the file should be
  assert.equal(rememberOverflow(env, 'm', 100_000), undefined);
});

test('a stated overflow limit is read from the API text and from the CLI rewrite', () => {
  const cases: Array<[string, number | undefined]> = [
    ['prompt is too long: 212345 tokens > 200000 maximum', 200_000],
    ['Prompt is too long · the request is ~70000 tokens (limit 58000) but this conversation is only ~2500 tokens', 58_000],
    ['Prompt is too long', undefined],
    ['input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000', undefined],
  ];
  for (const [text, limit] of cases) assert.equal(statedLimit(text), limit, text);
});

test('the handoff policy: on by default, off with false, fields overridable, the option window wins', () => {
  const env = cfgEnv(home(), { ANTHROPIC_MODEL: 'claude-haiku' });
  assert.deepEqual(handoffPolicy(env, undefined), { enabled: true, window: 200_000, headroom: 0, maxGenerations: 8 });
  assert.equal(handoffPolicy(env, false).enabled, false);
  assert.deepEqual(handoffPolicy(env, { window: 60_000, headroom: 15_000, maxGenerations: 3 }), {
    enabled: true,
    window: 60_000,
    headroom: 15_000,
    maxGenerations: 3,
  });
  assert.equal(handoffPolicy(env, { window: 60_000 }, 80_000).window, 80_000);
  assert.equal(handoffPolicy(env, { maxGenerations: 0, headroom: -1 }).maxGenerations, 8);
});

test('the Runtime computes its window from the resolved env: a FLOWER_WINDOW that lives only in a .env file counts', () => {
  const dir = home();
  const file = path.join(dir, 'flower.env');
  fs.writeFileSync(file, 'FLOWER_WINDOW=123456\n');
  const base = { ...cfgEnv(dir), ANTHROPIC_API_KEY: 'sk-test', FLOWER_ENV: file };
  const mk = (o: ConstructorParameters<typeof Runtime>[0]) => new Runtime({ workspace: path.join(dir, 'ws'), runDir: path.join(dir, 'runs'), env: base, ...o });
  const cases: Array<[ConstructorParameters<typeof Runtime>[0], number, boolean]> = [
    [{}, 123_456, true],
    [{ window: 99_000 }, 99_000, true],
    [{ handoff: { window: 70_000 } }, 70_000, true],
    [{ handoff: false }, 123_456, false],
  ];
  for (const [o, window, enabled] of cases) {
    const rt = mk(o);
    try {
      assert.equal(rt.handoffPolicy.window, window, JSON.stringify(o));
      assert.equal(rt.handoffPolicy.enabled, enabled);
    } finally {
      rt.close();
    }
  }
});

test('tokens are shown as the handoff prompt writes them', () => {
  assert.equal(formatTokens(152_000, { decimals: true }), '152.0K');
  assert.equal(formatTokens(46_100, { decimals: true }), '46.1K');
  assert.equal(formatTokens(200_000), '200K');
  assert.equal(formatTokens(1_000_000), '1M');
  assert.equal(formatTokens(174_321), '174.3K');
});

test('a model mismatch ignores case, the [1m] marker, dated snapshots and family aliases', () => {
  const cases: Array<[string | undefined, string | null, boolean]> = [
    ['claude-opus-5[1m]', 'glm-4.6', true],
    ['claude-opus-4-5', 'CLAUDE-OPUS-4-5', false],
    ['claude-opus-5[1m]', 'claude-opus-5', false],
    ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', false],
    ['claude-sonnet-4', 'claude-sonnet-4-5', true],
    ['opus', 'claude-opus-4-1-20250805', false],
    ['sonnet', 'claude-haiku-4-5', true],
    [undefined, 'anything', false],
    ['claude-x', null, false],
    ['claude-x', '<synthetic>', false],
    // both sides normalised: the marker and a snapshot date on either side never count, and never hide another model
    ['claude-sonnet-4-5[1m]', 'claude-opus-4-1', true],
    ['claude-sonnet-4-5[1M]', 'claude-sonnet-4-5-20250929', false],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5', false],
    ['claude-sonnet-4-5[1m]', 'claude-sonnet-4-5[1m]', false],
    ['claude-sonnet-4-5 [1m]', 'glm-4.6', true],
  ];
  for (const [want, served, is] of cases) assert.equal(modelMismatch(want, served), is, `${want} / ${served}`);
});

test('the model a step wants: the spec, else ANTHROPIC_MODEL, else the OPUS default; an alias is what it maps to', () => {
  const cases: Array<[string | undefined, Record<string, string>, string]> = [
    [undefined, { ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-test' }, 'claude-opus-test'],
    [undefined, { ANTHROPIC_MODEL: 'glm-4.6', ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-test' }, 'glm-4.6'],
    ['claude-haiku-4-5', { ANTHROPIC_MODEL: 'glm-4.6' }, 'claude-haiku-4-5'],
    ['opus', { ANTHROPIC_DEFAULT_OPUS_MODEL: 'kimi-k2' }, 'kimi-k2'],
    ['haiku', { ANTHROPIC_DEFAULT_OPUS_MODEL: 'kimi-k2' }, 'haiku'],
    [undefined, {}, ''],
  ];
  for (const [spec, env, want] of cases) assert.equal(wantedModel(spec, env), want, `${spec} ${JSON.stringify(env)}`);
  // an alias mapped to a gateway model no longer matches any model of the family
  assert.equal(modelMismatch(wantedModel('opus', { ANTHROPIC_DEFAULT_OPUS_MODEL: 'kimi-k2' }), 'claude-opus-4-1'), true);
});

test('a damaged calibration file is kept aside before a new one is written', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-cal-'));
  const env = cfgEnv(dir, { ANTHROPIC_BASE_URL: 'http://gw', ANTHROPIC_MODEL: 'm' });
  const file = calibrationFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '{not json');
  assert.equal(rememberOverflow(env, 'm', 123_456), 123_456);
  const kept = fs.readdirSync(path.dirname(file)).filter((f) => f.startsWith('.windows.corrupt-'));
  assert.equal(kept.length, 1);
  assert.equal(fs.readFileSync(path.join(path.dirname(file), kept[0]!), 'utf8'), '{not json');
  assert.equal(calibratedWindow(env, 'm'), 123_456);
});
