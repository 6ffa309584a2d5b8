/**
 * The bundled binary, found once per process as the SDK would find it (src/runtime/binary.ts): the SDK
 * then skips its own look on every query (a diagnostic report per call on Linux), and the servers a spec
 * adds reach the binary over stdin, off its command line.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type { SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { binaryPackages, bundledBinary, pickBinary } from '../../src/runtime/binary.js';
import { buildOptions } from '../../src/runtime/options.js';
import { AgentSpec } from '../../src/runtime/spec.js';

const SDK = '@anthropic-ai/claude-agent-sdk';

test('the packages looked at are the SDK’s, in its order: glibc before musl on Linux', () => {
  const cases: Array<[string, string, string[]]> = [
    ['linux', 'x64', [`${SDK}-linux-x64`, `${SDK}-linux-x64-musl`]],
    ['linux', 'arm64', [`${SDK}-linux-arm64`, `${SDK}-linux-arm64-musl`]],
    ['darwin', 'arm64', [`${SDK}-darwin-arm64`]],
    ['win32', 'x64', [`${SDK}-win32-x64`]],
    ['android', 'arm64', [`${SDK}-linux-arm64-android`]],
  ];
  for (const [platform, arch, want] of cases) assert.deepEqual(binaryPackages(platform, arch), want, `${platform}-${arch}`);
});

test('a binary is named only when exactly one of the packages holds one; otherwise the SDK decides', () => {
  const pkgs = ['a', 'a-musl'];
  const resolveFrom = (installed: Record<string, string>) => (id: string) => {
    const hit = Object.entries(installed).find(([pkg]) => id === `${pkg}/claude`);
    if (!hit) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
    return hit[1];
  };
  const always = () => true;
  const cases: Array<[string, Record<string, string>, (p: string) => boolean, string | undefined]> = [
    ['only the glibc build', { a: '/nm/a/claude' }, always, '/nm/a/claude'],
    ['only the musl build', { 'a-musl': '/nm/a-musl/claude' }, always, '/nm/a-musl/claude'],
    ['both: the libc must decide', { a: '/nm/a/claude', 'a-musl': '/nm/a-musl/claude' }, always, undefined],
    ['none', {}, always, undefined],
    ['resolved but the file is gone', { a: '/nm/a/claude' }, () => false, undefined],
    ['both resolved, one file gone', { a: '/nm/a/claude', 'a-musl': '/nm/a-musl/claude' }, (p) => p.includes('musl'), '/nm/a-musl/claude'],
  ];
  for (const [what, installed, exists, want] of cases) assert.equal(pickBinary(pkgs, resolveFrom(installed), exists), want, what);
  assert.equal(
    pickBinary(['w'], (id) => `/nm/${id}`, always, '.exe'),
    '/nm/w/claude.exe',
    'the Windows name',
  );
});

test('here, the installed binary is found and handed to the SDK, with the servers delivered over stdin', () => {
  const bin = bundledBinary();
  assert.ok(bin && fs.existsSync(bin), `found ${bin}`);
  assert.match(bin, new RegExp(`${SDK.replace('/', '\\/')}-${process.platform}-${process.arch}(-musl)?/claude$`));
  assert.equal(bundledBinary(), bin, 'the same answer again, from memory');
  const spec = new AgentSpec({ name: 'x', allowedTools: ['Read'] });
  const o = buildOptions({ spec, cwd: '/ws', store: {} as SessionStore, env: {}, abortController: new AbortController(), lang: 'en' });
  assert.equal(o.pathToClaudeCodeExecutable, bin);
  assert.equal(o.mcpServersDelivery, 'initialize');
});
