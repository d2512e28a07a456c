import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import workspace from './scripts/lint/workspace-boundaries.mjs';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.data/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      // Deliberate boundary violations, linted by their own spec.
      'scripts/lint/test/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { workspace },
    rules: {
      // Apps may import libs; libs never import apps; no app imports another; contracts imports
      // nothing of ours; each imported lib is declared in the importer's package.json.
      'workspace/boundaries': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@app/*/src/*', '**/libs/*/src/*'], message: 'Import a lib from its root (@app/name).' },
          ],
        },
      ],
    },
  },
  {
    // Services read the time through the Clock (@app/server), so specs can move it. Durations and
    // deadlines of waits use the monotonic performance.now(). The SDK runs in customers' processes
    // and has no Clock; the sandbox keeps its own.
    files: ['apps/{api,gateway,queue,webhooks}/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/server/src/clock.ts', 'libs/sdk/**', 'libs/contracts/src/ids.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Read the time through the Clock (@app/server).' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time through the Clock (@app/server).',
        },
        {
          selector: "CallExpression[callee.name='unixSeconds'][arguments.length=0]",
          message: "unixSeconds() reads the system time: pass the Clock's now().",
        },
      ],
    },
  },
);
