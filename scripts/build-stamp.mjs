// A fingerprint of everything the build reads, so `npm start` rebuilds only when something changed.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const INPUTS = ['src', 'public', 'astro.config.ts', 'package-lock.json', 'scripts/build.mjs'];

function walk(file, out) {
  let st;
  try {
    st = statSync(file);
  } catch {
    return;
  }
  if (st.isDirectory()) {
    for (const name of readdirSync(file).sort()) walk(path.join(file, name), out);
  } else {
    out.push(file);
  }
}

/** sha256 over the contents of every build input. */
export function sourceStamp(root) {
  const files = [];
  for (const input of INPUTS) walk(path.join(root, input), files);
  const hash = createHash('sha256');
  for (const file of files) hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

export function builtStamp(root) {
  try {
    return readFileSync(path.join(root, 'dist', '.build-stamp'), 'utf8').trim();
  } catch {
    return null;
  }
}
