/**
 * This installation's bin/flower.js, for the commands that start another flower (`flower fleet work`,
 * the command `flower demo` prints). Found from this module's own place, two levels below the package
 * root both as dist/cli/self.js and inside dist/bundle/ (scripts/bundle.mjs keeps every file there):
 * so a module deeper down (src/cli/demo/) asks here rather than counting its own levels.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const flowerBin = (): string => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'flower.js');
