export { main, buildProgram } from './program.js';
export type { GlobalOptions, SecurityOptions } from './globals.js';
export { EXIT, CliExit } from './io.js';
export type { CliIO } from './io.js';
