#!/usr/bin/env node
// A tiny MCP server for the stamper example plugin: one tool, `stamp`, writes "STAMPED" into a file.
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'stamp', version: '1.0.0' });
server.tool('stamp', 'Write STAMPED into a file (creates it)', { file: z.string().describe('absolute path') }, async ({ file }) => {
  fs.writeFileSync(file, 'STAMPED\n');
  return { content: [{ type: 'text', text: `stamped ${file}` }] };
});
await server.connect(new StdioServerTransport());
