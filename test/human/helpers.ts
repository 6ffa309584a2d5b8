/**
 * Talking to the channel's MCP server the way the harness does — over the MCP protocol — but in
 * process (an in-memory transport), so the tool handlers are exercised without spawning `claude`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { HumanChannel } from '../../src/human/index.js';
import type { FlowerEvent } from '../../src/runtime/index.js';

export interface Connected {
  client: Client;
  /** call a tool; resolves to its text and error flag */
  call(name: string, args?: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

export async function connect(channel: HumanChannel): Promise<Connected> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await channel.server.instance.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    async call(name, args = {}, opts = {}) {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 10_000, ...(opts.signal ? { signal: opts.signal } : {}) });
      const content = Array.isArray(r.content) ? r.content : [];
      const text = content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
      return { text, isError: r.isError === true };
    },
    close: () => client.close(),
  };
}

export function tmpDir(tag = 'human'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `flower-${tag}-`));
}

/** Events of one kind, as [state, id] pairs — the shape most assertions need. */
export function states(events: FlowerEvent[], kind: 'ask' | 'mail'): string[] {
  return events.filter((e) => e.kind === kind).map((e) => `${String(e.payload.state)}:${String(e.payload.id)}`);
}

export async function waitFor(what: string, cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
