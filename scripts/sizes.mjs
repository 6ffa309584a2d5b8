#!/usr/bin/env node
/**
 * The sizes the style asks for, measured on the source: modules over 400 lines and functions over 80.
 * A function's length is its span in lines; a function whose body is one data literal (a table) is
 * reported apart, as table-like. Used by test/architecture/sizes.test.ts; run it by hand to see the list:
 *   node scripts/sizes.mjs [--json]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MODULE_MAX = 400;
export const FUNCTION_MAX = 80;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every .ts file under src/, relative to the repository. */
export function sourceFiles(dir = join(ROOT, 'src')) {
  const out = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...sourceFiles(p));
    else if (d.name.endsWith('.ts') && !d.name.endsWith('.d.ts')) out.push(relative(ROOT, p));
  }
  return out.sort();
}

/** The functions of one file with their line spans. */
export function functionsOf(file, text = readFileSync(join(ROOT, file), 'utf8')) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = line(node.getEnd()) - line(node.getStart(sf)) + 1;
      out.push({ file, name: nameOf(node, sf), line: line(node.getStart(sf)) + 1, lines, table: isTable(node.body) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), functions: out };
}

/** What the style's limits flag in src/. */
export function report() {
  const modules = [];
  const functions = [];
  for (const f of sourceFiles()) {
    const m = functionsOf(f);
    if (m.lines > MODULE_MAX) modules.push({ file: f, lines: m.lines });
    for (const fn of m.functions) if (fn.lines > FUNCTION_MAX) functions.push(fn);
  }
  return { modules, functions };
}

// ---- helpers ----

function nameOf(node, sf) {
  if (node.name) return node.name.getText(sf);
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** A body that is only `return <literal>` (or an arrow whose body is a literal): a table, not logic. */
function isTable(body) {
  const literal = (e) => {
    while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))) e = e.expression;
    return !!e && (ts.isObjectLiteralExpression(e) || ts.isArrayLiteralExpression(e));
  };
  if (!ts.isBlock(body)) return literal(body);
  const stmts = body.statements;
  return stmts.length === 1 && ts.isReturnStatement(stmts[0]) && literal(stmts[0].expression);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = report();
  if (process.argv.includes('--json')) console.log(JSON.stringify(r, null, 2));
  else {
    for (const m of r.modules) console.log(`module   ${m.lines} lines  ${m.file}`);
    for (const f of r.functions) console.log(`function ${f.lines} lines  ${f.file}:${f.line} ${f.name}${f.table ? '  (table-like)' : ''}`);
    if (!r.modules.length && !r.functions.length) console.log(`sizes: every module ≤ ${MODULE_MAX} lines, every function ≤ ${FUNCTION_MAX}`);
  }
}
