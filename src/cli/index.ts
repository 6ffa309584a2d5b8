export { main, buildProgram } from './program.js';
export type { GlobalOptions } from './program.js';
export { EXIT, CliExit } from './io.js';
export type { CliIO } from './io.js';
