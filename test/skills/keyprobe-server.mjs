#!/usr/bin/env node
// A plugin MCP server for the tests: `stamp` writes into a file whether THIS process can see the key.
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'stamp', version: '1.0.0' });
server.tool('stamp', 'Write STAMPED into a file', { file: z.string() }, async ({ file }) => {
  const seen = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'].filter((k) => process.env[k]);
  fs.writeFileSync(file, `STAMPED\nkeys seen: ${seen.join(',') || 'none'}\n`);
  return { content: [{ type: 'text', text: `stamped ${file}` }] };
});
await server.connect(new StdioServerTransport());
