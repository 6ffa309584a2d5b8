/**
 * The two versions of the script the demo's scripted worker writes for real: v1 converts headings,
 * paragraphs, lists, emphasis, inline code and links; v2 (after the wake remark "also highlight code
 * blocks") adds fenced code blocks. They are ordinary Node scripts the scripted judge really runs.
 */
const header = `#!/usr/bin/env node
// desc: Markdown -> HTML converter (node md2html.mjs FILE.md > FILE.html)
import { readFileSync } from 'node:fs';

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const inline = (s) => esc(s)
  .replace(/\`([^\`]+)\`/g, '<code>$1</code>')
  .replace(/\\*\\*([^*]+)\\*\\*/g, '<strong>$1</strong>')
  .replace(/\\*([^*]+)\\*/g, '<em>$1</em>')
  .replace(/\\[([^\\]]+)\\]\\(([^)]+)\\)/g, '<a href="$2">$1</a>');
`;

const body = (withCode: boolean) => `
export function md2html(md) {
  const out = [];
  let para = [];
  let list = null;
${withCode ? "  let code = null;\n  let lang = '';\n" : ''}  const flush = () => {
    if (para.length) { out.push('<p>' + inline(para.join(' ')) + '</p>'); para = []; }
    if (list) { out.push('<ul>' + list.map((i) => '<li>' + inline(i) + '</li>').join('') + '</ul>'); list = null; }
  };
  for (const line of md.split(/\\r?\\n/)) {
${
  withCode
    ? `    const fence = /^\\s*\`\`\`\\s*([\\w+-]*)\\s*$/.exec(line);
    if (code !== null) {
      if (fence) {
        const cls = lang ? ' class="language-' + lang + '"' : '';
        out.push('<pre><code' + cls + '>' + esc(code.join('\\n')) + '</code></pre>');
        code = null;
      } else code.push(line);
      continue;
    }
    if (fence) { flush(); code = []; lang = fence[1]; continue; }
`
    : ''
}    const h = /^(#{1,6})\\s+(.*)$/.exec(line);
    if (h) { flush(); out.push('<h' + h[1].length + '>' + inline(h[2]) + '</h' + h[1].length + '>'); continue; }
    const li = /^\\s*[-*]\\s+(.*)$/.exec(line);
    if (li) { if (para.length) flush(); (list ??= []).push(li[1]); continue; }
    if (!line.trim()) { flush(); continue; }
    if (list) flush();
    para.push(line.trim());
  }
${withCode ? "  if (code !== null) out.push('<pre><code>' + esc(code.join('\\n')) + '</code></pre>');\n" : ''}  flush();
  return out.join('\\n');
}

const file = process.argv[2];
if (!file) { console.error('usage: node md2html.mjs FILE.md > FILE.html'); process.exit(2); }
process.stdout.write(md2html(readFileSync(file, 'utf8')) + '\\n');
`;

export const MD2HTML_V1 = header + body(false);
export const MD2HTML_V2 = header + body(true);

export const SAMPLE_V1 = `# Demo

Some **bold** text, some *emphasis* and \`inline code\`.

- one item
- another, with a [link](https://example.com)
`;

export const SAMPLE_V2 = `${SAMPLE_V1}
\`\`\`js
const x = 1 < 2;
\`\`\`
`;
