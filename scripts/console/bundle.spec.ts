import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { buildConsoleIfStale, CONSOLE_DIST, FIRST_LOAD_JS_LIMIT, firstLoadJs } from './bundle';

describe('the console build', () => {
  beforeAll(() => buildConsoleIfStale(), 120_000);

  it('loads at most 250 KB of compressed JavaScript at first', () => {
    const load = firstLoadJs();
    expect(load.files.length).toBeGreaterThan(0);
    const shown = load.files.map((f) => `${relative(CONSOLE_DIST, f.path)}: ${f.gzipBytes} B gzipped`).join(', ');
    expect([shown, load.gzipBytes <= FIRST_LOAD_JS_LIMIT]).toEqual([shown, true]);
  });

  it('has no inline script or style, which the Content-Security-Policy would block', () => {
    const html = readFileSync(`${CONSOLE_DIST}/index.html`, 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style\b|\sstyle="/);
  });
});
